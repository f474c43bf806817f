// The lab index at a lab's size: a year of a 300-run nightly (365 sessions, 109,500 runs by
// default; `foliolab_lab_bench RUNS_PER_SESSION SESSIONS` for others) stored as `foliolab
// serve` stores pushes, on SQLite (a file) and on PostgreSQL (a server this bench starts, as the
// tests do). Then what a developer asks of it: one metric's history for one series (the
// samples query and the change-point model over them) and the dashboard's sessions page. It
// prints times and the PostgreSQL / SQLite ratio of each; times on a shared machine are noise,
// the ratios measured in one run are the result. Beside them, one push of a 2,000-run session
// into that index, timed on each engine (issue 55's figure).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/history.h"
#include "report/dashboard.h"
#include "results/index.h"
#include "results/pushed_sessions.h"
#include "results/record_codec.h"
#include "results/session_bundle.h"
#include "testing/postgres_server.h"
#include "testing/record_fixture.h"

namespace foliolab {
namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

template <class F>
double median_seconds(F&& f, int reps = 5) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = Clock::now();
    f();
    t.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// One nightly session: `runs` runs over 2 archs x 5 knob sets x runs/10 workloads.
std::vector<RunRecord> nightly(int runs, int day) {
  std::vector<RunRecord> out;
  for (int i = 0; i < runs; ++i) {
    FakeRun f;
    f.arch = i % 2 ? "arm64" : "x86_64";
    f.knobs = fmt::format("knobs-{}", (i / 2) % 5);
    f.workload = fmt::format("w{}", i / 10);
    const double faults = 16384 + (day > 200 ? 100 : 0) + i % 7;
    f.metrics = {{"faults", {faults, faults, faults}}, {"cpu_s", {0.01, 0.011, 0.0105}}};
    RunRecord r = fake_record(f);
    r.id.run_id = fmt::format("{}.{}.{}", f.arch, f.knobs, f.workload);
    out.push_back(std::move(r));
  }
  return out;
}

struct Timing {
  double fill = 0, history = 0, page = 0, push = 0;
  size_t samples = 0;
};

// The runs of one pushed session (issue 55: 2,004 runs took 101.5 s on PostgreSQL).
constexpr int kPushRuns = 2000;

// A pushed session of kPushRuns runs, as `foliolab serve` stores a push (one transaction).
Result<double> push_seconds(ResultIndex& index) {
  SessionBundle b{.experiment = "pushed", .stamp = "20261207T120000Z"};
  b.records = nightly(kPushRuns, 0);
  for (const RunRecord& r : b.records) {
    b.files["runs/" + r.id.run_id + "/run.json"] = encode_record(r).dump(2);
  }
  const auto t0 = Clock::now();
  auto out = store_pushed_session(index, b, "bench");
  if (!out.ok()) return out.error();
  if (!out->stored) return make_error("the bench's push was not stored");
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

Result<Timing> measure(const std::string& db, int runs, int sessions) {
  auto index = ResultIndex::open_url(db);
  if (!index.ok()) return index.error();
  Timing t;
  const auto t0 = Clock::now();
  for (int day = 0; day < sessions; ++day) {
    SqlTransaction tx(index->db());
    FL_TRY(tx.begun());
    bool inserted = false;
    auto row = index->session_row(fmt::format("nightly/2026{:04}T020000Z", day), &inserted);
    FL_TRY(row);
    FL_TRY(index->insert_runs(*row, nightly(runs, day)));
    FL_TRY(tx.commit());
  }
  t.fill = std::chrono::duration<double>(Clock::now() - t0).count();
  auto push = push_seconds(*index);
  FL_TRY(push);
  t.push = *push;
  RunQuery q{.arch = "x86_64", .knobs = "knobs-2", .workload = "w1"};
  t.history = median_seconds([&] {
    auto s = index->samples("faults", q);
    t.samples = s.ok() ? s->size() : 0;
    HistoryModel m = build_history("faults", s.ok() ? *s : std::vector<IndexedSample>{});
    find_change_points(m);
  });
  t.page = median_seconds([&] {
    auto list = list_sessions(*index, {.limit = 50});
    std::ostringstream out;
    if (list.ok()) write_sessions_page(*list, {}, out);
  });
  return t;
}

int bench(int runs, int sessions) {
  const fs::path dir = fs::temp_directory_path() / "foliolab-lab-bench";
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto pg = PostgresServer::start(dir / "pg");
  if (!pg.ok()) return std::fprintf(stderr, "%s\n", pg.error().message.c_str()), 3;
  auto pg_db = (*pg)->database("bench");
  if (!pg_db.ok()) return std::fprintf(stderr, "%s\n", pg_db.error().message.c_str()), 3;
  fmt::print("lab index: {} sessions x {} runs = {} runs, 3 reps x 2 metrics each\n", sessions,
             runs, sessions * runs);
  auto lite = measure((dir / "lab.sqlite").string(), runs, sessions);
  auto post = measure(*pg_db, runs, sessions);
  if (!lite.ok() || !post.ok()) {
    fmt::print(stderr, "{}\n", (lite.ok() ? post : lite).error().message);
    return 1;
  }
  fmt::print("{:<34} {:>12} {:>12} {:>10}\n", "", "SQLite", "PostgreSQL", "PG/SQLite");
  auto row = [](const char* what, double a, double b) {
    fmt::print("{:<34} {:>10.3f} s {:>10.3f} s {:>10.2f}\n", what, a, b, b / a);
  };
  row("filling the index (a session a tx)", lite->fill, post->fill);
  row(fmt::format("a {}-run session pushed", kPushRuns).c_str(), lite->push, post->push);
  row(fmt::format("a metric's history ({} samples)", lite->samples).c_str(), lite->history,
      post->history);
  row("the dashboard's sessions page", lite->page, post->page);
  fs::remove_all(dir / "lab.sqlite");
  return lite->samples == post->samples ? 0 : 1;
}

}  // namespace
}  // namespace foliolab

int main(int argc, char** argv) {
  // Two whole numbers or nothing: `--help` (or any other word) prints the usage, not a bench.
  auto count = [&](int i, int fallback) {
    if (argc <= i) return fallback;
    char* end = nullptr;
    const long n = std::strtol(argv[i], &end, 10);
    return *argv[i] && *end == '\0' && n >= 1 && n <= 1000000 ? static_cast<int>(n) : -1;
  };
  const int runs = count(1, 300), sessions = count(2, 365);
  if (argc > 3 || runs < 0 || sessions < 0) {
    fmt::print(stderr,
               "usage: {} [RUNS_PER_SESSION [SESSIONS]]  (default 300 365: a year of a 300-run "
               "nightly; the PostgreSQL / SQLite ratios are the result)\n",
               argv[0]);
    return argc > 1 && std::string(argv[1]) == "--help" ? 0 : 2;
  }
  return foliolab::bench(runs, sessions);
}
