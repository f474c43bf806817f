// `foliolab gate --confirm` and `--known-issues` at the command's level: baseline and candidate
// sessions made by the shared FakeBackend, the reruns through the same seam.
#include "cli/gate_command.h"

#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "kernel/kernel_meta.h"
#include "model/loader.h"
#include "model/matrix.h"
#include "results/index.h"
#include "runner/experiment_runner.h"
#include "testing/fake_artifacts.h"
#include "testing/fake_backend.h"
#include "testing/temp_dir.h"
#include "util/build_info.h"
#include "util/fs.h"
#include "util/process.h"

namespace foliolab::cli {
namespace {
namespace fs = std::filesystem;

// The same experiment on kernel `base` and on kernel `cand`; faults may not regress at all.
std::string gate_yaml(const std::string& kernel) {
  return fmt::format(R"(name: gated
kernels:
  - name: {}
archs: [x86_64]
knobs:
  thp: {{enabled: always}}
workloads:
  - name: fault
repeat: 3
timeout: 5
gate:
  - name: faults may not grow
    metric: faults
    max_regression: 0%
)",
                     kernel);
}

constexpr int64_t kGood = 16384, kBad = 20000;

class GateCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fresh_test_dir("foliolab-gate-command");
    artifacts_.build_ids = {{"base", "b1d000000000000b"}, {"cand", "b1d000000000000c"}};
    ASSERT_TRUE(write_file_atomic(root_ / "base.cpio", "070701").ok());
    artifacts_.base_cpio = root_ / "base.cpio";
    for (const char* k : {"base", "cand"}) {
      ASSERT_TRUE(write_file_atomic(root_ / (std::string(k) + ".yaml"), gate_yaml(k)).ok());
    }
    backend_.on_boot = [this](const BootRequest& req) -> Result<BootOutcome> {
      if (hang_) {
        BootOutcome out{.backend = "fake", .timed_out = true};
        out.console_log = req.run_dir / "console.log";
        out.records_file = req.run_dir / "records.bin";
        FL_TRY(write_file_atomic(out.records_file, ""));
        FL_TRY(write_file_atomic(out.console_log, "rcu: INFO: rcu_sched self-detected stall\n"));
        return out;
      }
      // FakeArtifacts' image path /nonexistent/<kernel name>/bzImage names the kernel.
      return count_guest_boot(req, faults_, 3,
                              artifacts_.build_ids.at(req.kernel.parent_path().filename()));
    };
  }
  void TearDown() override { fs::remove_all(root_); }

  // One session of `runs` of `exp`; the candidate kernel's guests report `cand_faults(n)` for
  // its n-th session (0-based), the baseline's always kGood.
  Result<SessionSummary> session(const Experiment& exp, const std::vector<foliolab::Run>& runs) {
    const bool cand = exp.kernels.at(0).name == "cand";
    faults_ = cand ? cand_faults_(cand_sessions_++) : kGood;
    hang_ = cand && cand_sessions_ > 1 && hang_reruns_;
    ++sessions_;
    RunnerOptions opt{.data_root = root_, .results_root = root_ / "results"};
    return ExperimentRunner(artifacts_, backend_, opt).run(exp, runs);
  }
  fs::path first_session(const std::string& kernel) {
    auto exp = load_experiment((root_ / (kernel + ".yaml")).string());
    EXPECT_TRUE(exp.ok()) << exp.error().message;
    auto s = session(*exp, expand(*exp));
    EXPECT_TRUE(s.ok()) << s.error().message;
    return s->dir;
  }
  GateFlags flags(int confirm) {
    GateFlags f;
    f.baseline = first_session("base").string();
    f.cand = first_session("cand").string();
    f.run.results = (root_ / "results").string();
    f.junit = (root_ / "junit.xml").string();
    f.markdown = (root_ / "gate.md").string();
    f.confirm = confirm;
    sessions_ = 0;
    return f;
  }
  // Flags without reruns and with `text` as the --known-issues file.
  GateFlags known_file(const std::string& text) {
    EXPECT_TRUE(write_file_atomic(root_ / "known.yaml", text).ok());
    GateFlags f = flags(0);
    f.known_issues = (root_ / "known.yaml").string();
    return f;
  }
  int gate(const GateFlags& f) {
    return run_gate(f, {.run = [this](const Experiment& e, const std::vector<foliolab::Run>& r) {
                      return session(e, r);
                    }});
  }
  // --bisect: the candidate kernel is the baseline's tree plus the series "nightly" (their
  // kernel.json in the cache); the bisection asked for is kept, not run.
  int gate_bisect(GateFlags& f) {
    f.bisect = true;
    f.run.common.cache = (root_ / "cache").string();
    KernelMeta base{.build_id = "b1d000000000000b", .arch = "x86_64"};
    base.source.id = "debian-6.12";
    KernelMeta cand = base;
    cand.build_id = "b1d000000000000c";
    cand.series = "nightly";
    cand.patches.push_back({.name = "0001-a.patch", .sha256 = "a"});
    for (const KernelMeta& k : {base, cand}) {
      EXPECT_TRUE(write_file_atomic(root_ / "cache/kernels" / k.build_id / "kernel.json",
                                    k.to_json().dump())
                      .ok());
    }
    return run_gate(f,
                    {.run = [this](const Experiment& e,
                                   const std::vector<foliolab::Run>& r) { return session(e, r); },
                     .bisect =
                         [this](const GateBisect& b, const fs::path& cand_dir) {
                           bisected_ = b;
                           bisected_in_ = cand_dir;
                           return 0;
                         }});
  }
  nlohmann::json gate_json(const GateFlags& f) {
    auto text = read_file(fs::path(f.cand) / "gate.json");
    EXPECT_TRUE(text.ok());
    return nlohmann::json::parse(text.ok() ? *text : "{}");
  }
  // junit.xml against Jenkins' schema (harness/report/testdata/junit.xsd).
  void expect_valid_junit() {
    RealProcessRunner proc;
    const ProcessResult r =
        proc.run({.argv = {"xmllint", "--noout", "--schema",
                           (fs::path(source_dir()) / "harness/report/testdata/junit.xsd").string(),
                           (root_ / "junit.xml").string()},
                  .capture = true,
                  .timeout = std::chrono::seconds(60)});
    EXPECT_TRUE(r.ok()) << r.describe() << "\n" << r.output;
  }
  std::string file(const std::string& name) {
    auto text = read_file(root_ / name);
    return text.ok() ? *text : "";
  }

  fs::path root_;
  FakeArtifacts artifacts_;
  FakeBackend backend_;
  std::function<int64_t(int)> cand_faults_ = [](int) { return kBad; };
  int64_t faults_ = kGood;
  bool hang_ = false, hang_reruns_ = false;
  int cand_sessions_ = 0, sessions_ = 0;
  std::optional<GateBisect> bisected_;
  fs::path bisected_in_;
};

TEST_F(GateCommand, AFailureInjectedOnceIsFlakyAndPasses) {
  cand_faults_ = [](int n) { return n == 0 ? kBad : kGood; };
  const GateFlags f = flags(2);
  EXPECT_EQ(gate(f), kExitOk);
  EXPECT_EQ(sessions_, 4);  // 2 rounds of baseline then candidate
  const nlohmann::json j = gate_json(f);
  EXPECT_EQ(j["flaky"], 1);
  EXPECT_EQ(j["failed"], 0);
  EXPECT_EQ(j["cases"][0]["outcome"], "flaky");
  EXPECT_EQ(j["cases"][0]["rerun"]["sessions"].size(), 4u);
  EXPECT_NE(file("junit.xml").find("<property name=\"flaky\" value=\"faults may not grow: "),
            std::string::npos);
  EXPECT_EQ(file("junit.xml").find("<failure"), std::string::npos);
  expect_valid_junit();
  EXPECT_NE(file("gate.md").find("flaky: "), std::string::npos);
  EXPECT_NE(file("gate.md").find("rerun 2× in fresh boots: no resolved change"), std::string::npos);
}

TEST_F(GateCommand, ARealRegressionFailsAgainOnTheReruns) {
  const GateFlags f = flags(2);
  EXPECT_EQ(gate(f), kExitFailed);
  EXPECT_EQ(sessions_, 4);
  const nlohmann::json j = gate_json(f);
  EXPECT_EQ(j["failed"], 1);
  EXPECT_EQ(j["cases"][0]["outcome"], "FAIL");
  EXPECT_EQ(j["cases"][0]["rerun"]["outcome"], "FAIL");
  EXPECT_NE(file("junit.xml").find("<failure"), std::string::npos);
}

// A rerun boots the build its session booted (KernelSpec::build_id), whatever the experiment's
// series or git ref says by now.
TEST_F(GateCommand, RerunsBootTheKernelsTheirSessionsBooted) {
  const GateFlags f = flags(1);
  const size_t before = artifacts_.specs.size();  // the two sessions judged: nothing pinned
  for (size_t i = 0; i < before; ++i) EXPECT_EQ(artifacts_.specs[i].build_id, "");
  EXPECT_EQ(gate(f), kExitFailed);
  ASSERT_EQ(artifacts_.specs.size(), before + 2);
  for (size_t i = before; i < artifacts_.specs.size(); ++i) {
    const KernelSpec& k = artifacts_.specs[i];
    EXPECT_EQ(k.build_id, artifacts_.build_ids.at(k.name)) << k.name;
  }
}

TEST_F(GateCommand, WithoutConfirmNothingIsRerun) {
  cand_faults_ = [](int n) { return n == 0 ? kBad : kGood; };
  const GateFlags f = flags(0);
  EXPECT_EQ(gate(f), kExitFailed);
  EXPECT_EQ(sessions_, 0);
  EXPECT_FALSE(gate_json(f)["cases"][0].contains("rerun"));
}

TEST_F(GateCommand, RerunsThatCannotCompleteAreRetriedThenInfra) {
  hang_reruns_ = true;  // the candidate's reruns time out
  const GateFlags f = flags(2);
  EXPECT_EQ(gate(f), kExitEnvironment);
  // Round 1: the baseline, then the candidate and its 3 retries; no round 2.
  EXPECT_EQ(sessions_, 1 + 1 + 3);
  const nlohmann::json j = gate_json(f);
  EXPECT_EQ(j["infra"], 1);
  EXPECT_EQ(j["failed"], 0);
  EXPECT_EQ(j["cases"][0]["outcome"], "INFRA");
  EXPECT_EQ(j["cases"][0]["rerun"]["retries"], 3);
  EXPECT_NE(file("junit.xml").find("type=\"infra\""), std::string::npos);
  expect_valid_junit();
}

TEST_F(GateCommand, AKnownIssueSkipsItsFailureUntilItExpires) {
  GateFlags f = known_file(R"(known_issues:
  - id: mm-4711
    runs: {arch: x86_64, workload: fault}
    metric: faults
    regressed: <= 25%
    url: https://example.org/mm-4711
    expires: 2027-01-31
)");
  f.today = "2027-01-31";  // the last day it holds
  EXPECT_EQ(gate(f), kExitOk);
  EXPECT_EQ(gate_json(f)["cases"][0]["known_issue"]["id"], "mm-4711");
  EXPECT_NE(file("junit.xml").find("<skipped message=\"known issue mm-4711"), std::string::npos);
  expect_valid_junit();
  EXPECT_NE(file("gate.md").find("known: "), std::string::npos);
  // The candidate session's match is in the results root's index (results/finding_index.h).
  const std::string session = "gated/" + fs::path(f.cand).filename().string();
  auto matches = [&](const std::string& outcome) {
    auto index = ResultIndex::open(root_ / "results");
    EXPECT_TRUE(index.ok());
    return *index->db().query_int(fmt::format(
        "SELECT COUNT(*) FROM known_issue_matches WHERE session = '{}' AND issue = 'mm-4711' "
        "AND outcome = '{}' AND expires = '2027-01-31'",
        session, outcome));
  };
  EXPECT_EQ(matches("known"), 1);
  f.today = "2027-02-01";
  EXPECT_EQ(gate(f), kExitFailed);
  EXPECT_EQ(gate_json(f)["known_issue_notes"][0]["state"], "expired");
  EXPECT_NE(file("gate.md").find("known issue mm-4711 expired on 2027-01-31"), std::string::npos);
  EXPECT_EQ(matches("known"), 0);  // judged again: the session's matches are the new ones
  EXPECT_EQ(matches("expired"), 1);
}

TEST_F(GateCommand, AnErrorInTheKnownIssuesFileIsBadInput) {
  GateFlags f = known_file(
      "known_issues:\n  - id: x\n    metric: faults\n    flaky: true\n"
      "    url: u\n");
  EXPECT_EQ(gate(f), kExitBadInput);
}

TEST_F(GateCommand, AKnownIssueNamingAMetricNoWorkloadPrintsIsALocatedError) {
  GateFlags f = known_file(
      "known_issues:\n  - id: x\n    metric: fualts\n    flaky: true\n"
      "    url: u\n    expires: 2027-01-31\n");
  ::testing::internal::CaptureStderr();
  const int rc = gate(f);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, kExitBadInput) << err;
  EXPECT_NE(err.find("known.yaml:3:13: known_issues[0].metric: no workload of these runs prints "
                     "'fualts'; did you mean 'faults'?"),
            std::string::npos)
      << err;
}

TEST_F(GateCommand, BisectStartsFromAConfirmedFailureWhoseKernelAddsASeries) {
  GateFlags f = flags(1);
  EXPECT_EQ(gate_bisect(f), kExitFailed);  // the gate's own verdict
  ASSERT_TRUE(bisected_);
  EXPECT_EQ(bisected_->origin.flag(), "--series nightly");
  EXPECT_EQ(bisected_->metric, "faults");
  EXPECT_EQ(bisected_->where, "kernel=cand,arch=x86_64,knobs=thp,workload=fault");
  EXPECT_EQ(bisected_->case_name, "faults may not grow · x86_64 · thp · fault");
  EXPECT_EQ(bisected_in_, fs::path(f.cand));
}

TEST_F(GateCommand, AFlakyFailureIsNotBisected) {
  cand_faults_ = [](int n) { return n == 0 ? kBad : kGood; };
  GateFlags f = flags(1);
  EXPECT_EQ(gate_bisect(f), kExitOk);
  EXPECT_FALSE(bisected_);
}

TEST_F(GateCommand, BisectWithoutConfirmIsBadInput) {
  GateFlags f = flags(0);
  f.bisect = true;
  EXPECT_EQ(gate(f), kExitBadInput);
}

}  // namespace
}  // namespace foliolab::cli
