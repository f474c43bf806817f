#include "model/shard.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

namespace foliolab {
namespace {

std::vector<Run> plan_of(const std::vector<std::string>& ids) {
  std::vector<Run> plan;
  for (const auto& id : ids) plan.push_back(Run{.id = id});
  return plan;
}

// 2 archs × 3 kernels × 2 knob sets × 2 workloads = 24 runs, in expand() order.
std::vector<Run> sample_plan() {
  std::vector<std::string> ids;
  for (const char* kernel : {"k1", "k2", "k3"}) {
    for (const char* arch : {"x86_64", "arm64"}) {
      for (const char* knobs : {"4k", "64k"}) {
        for (const char* w : {"fault", "touch"}) {
          ids.push_back(std::string(arch) + "." + kernel + "." + knobs + "." + w + ".0000abcd");
        }
      }
    }
  }
  return plan_of(ids);
}

TEST(ShardParse, AcceptsKOfN) {
  auto s = parse_shard("3/4");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->index, 3);
  EXPECT_EQ(s->count, 4);
  EXPECT_EQ(s->text(), "3/4");
  EXPECT_TRUE(parse_shard("1/1").ok());
}

TEST(ShardParse, RejectsWhatIsNotKOfNWithTheReason) {
  for (const char* bad :
       {"", "3", "0/4", "/4", "2/", "a/b", "2/4x", "-1/4", "1/0", "2 /4", "1/4/5"}) {
    auto s = parse_shard(bad);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.error().message.find("expected K/N"), std::string::npos) << s.error().message;
  }
  auto s = parse_shard("5/4");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "--shard 5/4: K must be between 1 and N (4)");
}

TEST(ShardRuns, EveryRunIsInExactlyOneShardAndSizesDifferByAtMostOne) {
  const auto plan = sample_plan();
  for (int n : {1, 2, 3, 4, 5, 7, 24, 30}) {
    std::map<std::string, int> seen;
    size_t smallest = SIZE_MAX, largest = 0;
    for (int k = 1; k <= n; ++k) {
      const auto runs = shard_runs(plan, {k, n});
      smallest = std::min(smallest, runs.size());
      largest = std::max(largest, runs.size());
      for (const foliolab::Run& r : runs) ++seen[r.id];
    }
    EXPECT_EQ(seen.size(), plan.size()) << "N=" << n;
    for (const auto& [id, count] : seen) EXPECT_EQ(count, 1) << id << " N=" << n;
    EXPECT_LE(largest - smallest, 1u) << "N=" << n;
  }
}

TEST(ShardRuns, DependOnTheSetOfRunIdsNotTheirOrder) {
  auto plan = sample_plan();
  auto shuffled = plan;
  std::mt19937 rng(7);
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  for (int k = 1; k <= 4; ++k) {
    std::set<std::string> a, b;
    for (const foliolab::Run& r : shard_runs(plan, {k, 4})) a.insert(r.id);
    for (const foliolab::Run& r : shard_runs(shuffled, {k, 4})) b.insert(r.id);
    EXPECT_EQ(a, b) << "shard " << k;
  }
}

TEST(ShardRuns, KeepPlanOrderAndGroupKernelBuilds) {
  const auto plan = sample_plan();
  // 24 runs in 6 shards: each shard is 4 runs of one (arch, kernel), i.e. one kernel build.
  for (int k = 1; k <= 6; ++k) {
    const auto runs = shard_runs(plan, {k, 6});
    ASSERT_EQ(runs.size(), 4u);
    std::set<std::string> builds;
    for (const foliolab::Run& r : runs)
      builds.insert(r.id.substr(0, r.id.find('.', r.id.find('.') + 1)));
    EXPECT_EQ(builds.size(), 1u) << "shard " << k;
    // In the plan's order.
    auto pos = [&](const foliolab::Run& r) {
      return std::find_if(plan.begin(), plan.end(),
                          [&](const foliolab::Run& p) { return p.id == r.id; }) -
             plan.begin();
    };
    for (size_t i = 1; i < runs.size(); ++i) EXPECT_LT(pos(runs[i - 1]), pos(runs[i]));
  }
}

TEST(ShardRuns, MoreShardsThanRunsLeavesSomeEmpty) {
  const auto plan = plan_of({"a", "b"});
  size_t total = 0, empty = 0;
  for (int k = 1; k <= 4; ++k) {
    const auto runs = shard_runs(plan, {k, 4});
    total += runs.size();
    empty += runs.empty();
  }
  EXPECT_EQ(total, 2u);
  EXPECT_EQ(empty, 2u);
}

TEST(PlanHash, IsOrderFreeAndChangesWithAnyRun) {
  EXPECT_EQ(plan_hash(std::vector<std::string>{"a", "b", "c"}),
            plan_hash(std::vector<std::string>{"c", "a", "b"}));
  EXPECT_NE(plan_hash(std::vector<std::string>{"a", "b", "c"}),
            plan_hash(std::vector<std::string>{"a", "b"}));
  EXPECT_NE(plan_hash(std::vector<std::string>{"a", "b"}),
            plan_hash(std::vector<std::string>{"a", "bb"}));
  EXPECT_EQ(plan_hash(sample_plan()).size(), 16u);
}

}  // namespace
}  // namespace foliolab
