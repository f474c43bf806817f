// The KCIDB renderer: one checkout per kernel, one build per kernel and arch, one test per run
// and per run and metric; ids, paths and numbers; the same document every time; and the
// document valid against KernelCI's schema v5.3 (python3-jsonschema), which a damaged one is
// not.
#include "report/kcidb.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>

#include "testing/kcidb_schema.h"
#include "testing/record_fixture.h"
#include "testing/temp_dir.h"
#include "util/fs.h"

namespace foliolab {
namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;

// Kernel k1 on two archs (arm64 with a guest failure), kernel k2 that did not build, and a
// workload whose label is no path part.
KcidbSession kcidb_session() {
  KcidbSession s{.name = "quickstart/20261130T051430Z"};
  FakeRun ok{.metrics = {{"faults", {100, 10, 20, 30}}, {"wall_s", {0.5, 0.25}}},
             .deltas = {{"mthp.64kB.anon_fault_alloc", {8, 8, 8, 8}}}};
  ok.kernel = "k1";
  RunRecord x86 = fake_record(ok);
  x86.reps[0].warmup = true;  // 100: in no statistic
  x86.provenance.kernel_source = "git /src/linux @ 1a2b3c4d5e6f (ref mthp)";
  x86.provenance.kernel_version = "6.12.9";
  x86.id.kernel.config = {"thp", "mthp"};
  ok.arch = "arm64";
  ok.status = "failed";
  RunRecord arm = fake_record(ok);
  arm.provenance.kernel_build_id = "b1d0000000000002";
  FakeRun broken{.kernel = "k2 +series", .workload = "fault", .status = "build-failed"};
  RunRecord nobuild = fake_record(broken);
  nobuild.failure = FailureClass::kHost;
  nobuild.reason = "make: *** [vmlinux] Error 2";
  nobuild.provenance.kernel_build_id.clear();
  nobuild.started = "not a time";
  FakeRun odd{.kernel = "k1", .workload = "my load/v2", .metrics = {{"rss_kb", {4, 6}}}};
  RunRecord label = fake_record(odd);
  label.provenance.kernel_source = x86.provenance.kernel_source;
  s.records = {x86, arm, nobuild, label};
  return s;
}

std::vector<json> kcidb_tests_at(const json& doc, const std::string& path) {
  std::vector<json> out;
  for (const json& t : doc["tests"]) {
    if (t["path"] == path) out.push_back(t);
  }
  return out;
}

// The test at `path` of the run `run_id`.
json kcidb_test_of(const json& doc, const std::string& path, const std::string& run_id) {
  for (const json& t : kcidb_tests_at(doc, path)) {
    if (t["misc"]["run_id"] == run_id) return t;
  }
  ADD_FAILURE() << "no test " << path << " of " << run_id;
  return json::object();
}

constexpr const char* kKcidbX86 = "x86_64.k1.4K.fault.00000000";
constexpr const char* kKcidbArm = "arm64.k1.4K.fault.00000000";

bool kcidb_has_null(const json& j) {
  if (j.is_null()) return true;
  if (!j.is_structured()) return false;
  return std::any_of(j.begin(), j.end(), [](const json& v) { return kcidb_has_null(v); });
}

TEST(Kcidb, OneCheckoutPerKernelOneBuildPerKernelAndArch) {
  const json doc = kcidb_document(kcidb_session());
  EXPECT_EQ(doc["version"], (json{{"major", 5}, {"minor", 3}}));
  ASSERT_EQ(doc["checkouts"].size(), 2u);
  ASSERT_EQ(doc["builds"].size(), 3u);  // k1 x86_64, k1 arm64, k2 x86_64
  const json& k1 = doc["checkouts"][0];
  EXPECT_EQ(k1["origin"], "foliolab");
  EXPECT_EQ(k1["git_commit_name"], "6.12.9");
  EXPECT_EQ(k1["comment"], "k1: git /src/linux @ 1a2b3c4d5e6f (ref mthp)");
  EXPECT_EQ(k1["valid"], true);
  EXPECT_FALSE(doc["checkouts"][1].contains("valid"));  // k2 never built: not known
  std::map<std::string, json> by_arch;
  for (const json& b : doc["builds"])
    by_arch[b["architecture"].get<std::string>() + " " + b["checkout_id"].get<std::string>()] = b;
  const json& x86 = by_arch.at("x86_64 " + k1["id"].get<std::string>());
  EXPECT_EQ(x86["config_name"], "thp+mthp");
  EXPECT_EQ(x86["status"], "PASS");
  EXPECT_EQ(x86["misc"]["kernel_build_id"], "b1d0000000000001");
  const json& k2 = by_arch.at("x86_64 " + doc["checkouts"][1]["id"].get<std::string>());
  EXPECT_EQ(k2["status"], "FAIL");
  EXPECT_FALSE(k2.contains("config_name"));
}

TEST(Kcidb, EveryIdHasTheOriginAndEveryReferenceNamesAnObjectOfTheDocument) {
  const json doc = kcidb_document(kcidb_session());
  const std::regex id_re("^[a-z0-9_]+:.+");
  std::set<std::string> checkouts, builds, tests;
  for (const json& c : doc["checkouts"]) {
    EXPECT_TRUE(std::regex_match(c["id"].get<std::string>(), id_re)) << c["id"];
    EXPECT_TRUE(checkouts.insert(c["id"]).second) << c["id"];
  }
  for (const json& b : doc["builds"]) {
    EXPECT_TRUE(std::regex_match(b["id"].get<std::string>(), id_re)) << b["id"];
    EXPECT_TRUE(builds.insert(b["id"]).second) << b["id"];
    EXPECT_TRUE(checkouts.count(b["checkout_id"])) << b["checkout_id"];
  }
  for (const json& t : doc["tests"]) {
    EXPECT_TRUE(std::regex_match(t["id"].get<std::string>(), id_re)) << t["id"];
    EXPECT_TRUE(tests.insert(t["id"]).second) << t["id"];
    EXPECT_TRUE(builds.count(t["build_id"])) << t["build_id"];
  }
  EXPECT_TRUE(tests.count("foliolab:quickstart/20261130T051430Z/x86_64.k1.4K.fault.00000000"));
  EXPECT_TRUE(
      tests.count("foliolab:quickstart/20261130T051430Z/x86_64.k1.4K.fault.00000000/"
                  "mthp.64kB.anon_fault_alloc"));
  // 4 runs; metrics: 3 + 3 (arm64 failed with reps) + 0 + 1.
  EXPECT_EQ(tests.size(), 4u + 3 + 3 + 0 + 1);
}

TEST(Kcidb, PathsAreSanitizedPartsJoinedByDots) {
  EXPECT_EQ(kcidb_path_part("my load/v2"), "my_load_v2");
  EXPECT_EQ(kcidb_path_part(""), "_");
  EXPECT_EQ(kcidb_test_path("fault"), "foliolab.fault");
  EXPECT_EQ(kcidb_test_path("fault", "mthp.64kB.anon_fault_alloc"),
            "foliolab.fault.mthp.64kB.anon_fault_alloc");
  EXPECT_EQ(kcidb_test_path("fault", "a..b c"), "foliolab.fault.a._.b_c");
  const json doc = kcidb_document(kcidb_session());
  const std::regex path_re(R"(^([a-zA-Z0-9_-]+(\.[a-zA-Z0-9_-]+)*)?$)");
  for (const json& t : doc["tests"]) {
    EXPECT_TRUE(std::regex_match(t["path"].get<std::string>(), path_re)) << t["path"];
  }
  ASSERT_EQ(kcidb_tests_at(doc, "foliolab.my_load_v2.rss_kb").size(), 1u);
}

TEST(Kcidb, ANumberIsTheMeanOfTheMeasuredRepsInTheMetricsUnit) {
  const json doc = kcidb_document(kcidb_session());
  const json faults = kcidb_test_of(doc, "foliolab.fault.faults", kKcidbX86);
  EXPECT_EQ(faults["number"], (json{{"value", 20.0}, {"unit", "faults"}}));  // not 100
  EXPECT_EQ(faults["misc"]["samples"], 3);
  EXPECT_EQ(faults["status"], "PASS");
  // arm64: no warm-up rep; a failed run keeps its numbers.
  EXPECT_EQ(kcidb_test_of(doc, "foliolab.fault.faults", kKcidbArm)["number"]["value"], 40.0);
  EXPECT_EQ(kcidb_test_of(doc, "foliolab.fault.wall_s", kKcidbX86)["number"],
            (json{{"value", 0.25}, {"unit", "s"}}));
  EXPECT_EQ(
      kcidb_test_of(doc, "foliolab.fault.mthp.64kB.anon_fault_alloc", kKcidbX86)["number"]["value"],
      8.0);
  const json run = kcidb_test_of(doc, "foliolab.fault", kKcidbX86);
  EXPECT_FALSE(run.contains("number"));
  EXPECT_EQ(run["misc"]["reps"], 3);
  EXPECT_EQ(run["misc"]["warmup_reps"], 1);
  EXPECT_EQ(run["misc"]["knob_set"], "4K");
  EXPECT_EQ(run["misc"]["knobs"], (json{{"hugepages-64kB/enabled", "never"}}));
  EXPECT_EQ(run["misc"]["accel"], "tcg");
  EXPECT_EQ(run["misc"]["timing"], "wall");
  EXPECT_EQ(run["start_time"], "2026-11-30T05:14:30Z");
  EXPECT_THAT(run["environment"]["comment"].get<std::string>(), HasSubstr("on testhost"));
}

TEST(Kcidb, PassForAnOkRunFailForTheGuestErrorForTheHost) {
  const json doc = kcidb_document(kcidb_session());
  std::map<std::string, std::string> status;
  for (const json& t : kcidb_tests_at(doc, "foliolab.fault"))
    status[t["misc"]["run_id"]] = t["status"];
  EXPECT_EQ(status["x86_64.k1.4K.fault.00000000"], "PASS");
  EXPECT_EQ(status["arm64.k1.4K.fault.00000000"], "FAIL");
  EXPECT_EQ(status["x86_64.k2-+series.4K.fault.00000000"], "ERROR");
  for (const json& t : kcidb_tests_at(doc, "foliolab.fault")) {
    if (t["status"] != "ERROR") continue;
    EXPECT_EQ(t["log_excerpt"], "make: *** [vmlinux] Error 2");
    EXPECT_FALSE(t.contains("start_time"));  // "not a time"
  }
}

TEST(Kcidb, TheSameDocumentEveryTimeAndInAnyRecordOrder) {
  KcidbSession s = kcidb_session();
  std::ostringstream a, b, c;
  write_kcidb(s, a);
  write_kcidb(s, b);
  std::reverse(s.records.begin(), s.records.end());
  write_kcidb(s, c);
  EXPECT_EQ(a.str(), b.str());
  EXPECT_EQ(a.str(), c.str());
  EXPECT_FALSE(kcidb_has_null(json::parse(a.str())));
  // Another session of the same kernels: the same checkouts and builds, other tests.
  s.name = "quickstart/20261201T000000Z";
  const json first = json::parse(a.str()), other = kcidb_document(s);
  EXPECT_EQ(first["checkouts"], other["checkouts"]);
  EXPECT_EQ(first["builds"], other["builds"]);
  EXPECT_NE(first["tests"][0]["id"], other["tests"][0]["id"]);
}

TEST(KcidbSchema, TheDocumentValidatesAndAMajorVersion4DoesNot) {
  const std::filesystem::path schema = kcidb_schema_path();
  if (schema.empty()) GTEST_SKIP() << kKcidbSchemaMissing;
  ScopedTestDir dir("foliolab-kcidb");
  std::ostringstream out;
  write_kcidb(kcidb_session(), out);
  ASSERT_TRUE(write_file_atomic(dir / "kcidb.json", out.str()).ok());
  const ProcessResult good = validate_kcidb(schema, dir / "kcidb.json");
  EXPECT_EQ(good.exit_code, 0) << good.describe() << "\n" << good.output;
  json bad = json::parse(out.str());
  bad["version"]["major"] = 4;
  ASSERT_TRUE(write_file_atomic(dir / "bad.json", bad.dump(2)).ok());
  const ProcessResult r = validate_kcidb(schema, dir / "bad.json");
  EXPECT_EQ(r.exit_code, 1) << r.describe() << "\n" << r.output;
  EXPECT_THAT(r.output, HasSubstr("version/major"));
}

}  // namespace
}  // namespace foliolab
