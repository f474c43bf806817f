// Benchmarks of foliolab itself. They print ratios measured in one run (absolute times on a
// shared 2-core machine are noise): record-channel parsing against a plain copy of the same
// bytes, and report interpretation against parsing alone.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "protocol/record_stream.h"
#include "protocol/run_report.h"
#include "testing/stream_builder.h"

namespace {

using Clock = std::chrono::steady_clock;

template <class F>
double median_seconds(F&& f, int reps = 9) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = Clock::now();
    f();
    t.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main() {
  foliolab::StreamBuilder b;
  b.prologue();
  for (int rep = 0; rep < 2000; ++rep) b.rep(rep, 1000.0 + rep);
  b.done();
  const std::string& bytes = b.bytes();
  volatile size_t sink = 0;
  const double copy = median_seconds([&] {
    std::string c = bytes;
    sink = sink + c.size();
  });
  const double parse =
      median_seconds([&] { sink = sink + foliolab::parse_records(bytes).records.size(); });
  const double report =
      median_seconds([&] { sink = sink + foliolab::parse_run_report(bytes).reps.size(); });
  std::printf("stream: %zu bytes, 2000 repetitions\n", bytes.size());
  std::printf("parse_records / copy      = %8.1fx\n", parse / copy);
  std::printf("parse_run_report / parse  = %8.1fx\n", report / parse);
  return 0;
}
