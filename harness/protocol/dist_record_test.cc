// The guest's `dist` record: read into a rep's distributions through the whole run report, and
// every broken shape a problem of the run that keeps nothing.
#include "protocol/dist_record.h"

#include <gtest/gtest.h>

#include "protocol/run_report.h"
#include "testing/stream_builder.h"

namespace foliolab {
namespace {

KeyValues latency_record(int rep) {
  return {{"rep", std::to_string(rep)},
          {"name", "kprobe.handle_mm_fault.latency_ns"},
          {"unit", "ns"},
          {"count", "16384"},
          {"sum", "2000000"},
          {"min", "96"},
          {"max", "20480"},
          {"b0", "96 96 120"},
          {"b1", "128 256 16000"},
          {"b2", "16384 32768 264"}};
}

TEST(DistRecord, ARepsDistributionReachesTheRunReport) {
  StreamBuilder b;
  b.prologue().rep(0, 36400).kv("dist", latency_record(0)).rep(1, 36500);
  b.kv("dist", latency_record(1)).done();
  const RunReport r = parse_run_report(b.bytes(), 2);
  EXPECT_TRUE(r.ok) << r.reason;
  ASSERT_TRUE(r.problems.empty()) << r.problems.front();
  const Distribution& d = r.reps[1].distributions.at("kprobe.handle_mm_fault.latency_ns");
  EXPECT_EQ(d.unit, "ns");
  EXPECT_EQ(d.count, 16384);
  ASSERT_EQ(d.buckets.size(), 3u);
  EXPECT_EQ(d.buckets[0], (DistributionBucket{96, 96, 120}));
  EXPECT_EQ(d.quantile(0.005), 96);  // within the point bucket
  EXPECT_EQ(d.quantile(1), 20480);   // max clamps the last bucket
  EXPECT_GE(d.quantile(0.5), 128);
  EXPECT_LT(d.quantile(0.5), 256);
}

TEST(DistRecord, BrokenShapesAreProblemsThatKeepNothing) {
  const std::vector<std::pair<std::string, std::pair<std::string, std::string>>> cases = {
      {"bucket b2 out of order", {"b1", ""}},  // b1 left out: b2 follows b0
      {"count, sum, min or max is not a number", {"sum", "lots"}},
      {"buckets count 16383, count says 16384", {"b0", "96 96 119"}},
      {"overlaps the one before", {"b1", "64 256 16000"}},
      {"bad name", {"name", "a b"}},
      {"needs lo <= hi", {"b1", "256 128 16000"}},
      {"is not <lo> <hi> <count>", {"b1", "128 256"}},
  };
  for (const auto& [want, change] : cases) {
    KeyValues kv;
    for (auto [k, v] : latency_record(0)) {
      if (k == change.first && change.second.empty()) continue;
      kv.emplace_back(k, k == change.first ? change.second : v);
    }
    std::map<std::string, Distribution> into;
    KeyValues payload(kv.begin() + 1, kv.end());  // rep is the interpreter's
    const std::string why = read_dist_record(payload, into);
    EXPECT_NE(why.find(want), std::string::npos) << want << " / got: " << why;
    EXPECT_TRUE(into.empty()) << want;
  }
}

TEST(DistRecord, ASecondRecordOfOneNameInARepIsAProblem) {
  StreamBuilder b;
  b.prologue().rep(0, 36400).kv("dist", latency_record(0)).kv("dist", latency_record(0)).done();
  const RunReport r = parse_run_report(b.bytes(), 1);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_NE(r.problems[0].find("a second dist record"), std::string::npos) << r.problems[0];
  EXPECT_FALSE(r.ok);
}

}  // namespace
}  // namespace foliolab
