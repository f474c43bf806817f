// The session report printed after `foliolab run` and by `foliolab report`: the comparison
// model of one session (a group per kernel × arch × workload, its knob sets as variants, the
// first knob set the baseline), the per-test results of test-suite workloads, the expectations
// (held / NOT HELD, a line per run) and the runs that failed. report/ renders it
// (report/render.h: session_text, session_extra_lines).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "analysis/comparison.h"
#include "analysis/expectations.h"
#include "analysis/subtest_results.h"
#include "model/experiment.h"
#include "results/run_record.h"
#include "util/result.h"

namespace foliolab {

struct SessionReport {
  ComparisonModel model;
  std::vector<ExpectationResult> expectations;
  std::vector<std::string> failures;  // "<run id>: <status> (<class>): <reason>"
  // Where the guests ran -> run ids, when the runs ran on more than one host (a merged or
  // multi-host session); empty otherwise. A libvirt run's host is "<libvirt host> (<URI>)".
  std::map<std::string, std::vector<std::string>> runs_by_host;
  std::vector<std::string> moved;  // runs retried after a pool host was lost, with why
  // What each run's machine-state steps reached (machine.swap, cgroup, prepare:), one line a
  // run: "<run id>: fragment thpscale ok, unusable index at order 9 0.012 -> 0.987, ...".
  std::vector<std::string> prepared;
  std::vector<RunSubtests> tests;  // runs of test-suite workloads (TAP, kselftest-mm)
  size_t ignored = 0;              // stored runs the current plan does not have
  int runs_failed = 0;
  int expectations_failed = 0;
  int expectations_held = 0;
};

SessionReport build_session_report(const Experiment& exp, const std::vector<RunRecord>& records,
                                   const CompareOptions& options = {});

// The report of a stored session (<root>/<experiment>/<stamp>): its experiment.yaml copy and run
// records, the archs its plan.json names, titled "<experiment> <stamp>".
Result<SessionReport> load_session_report(const std::filesystem::path& session_dir);

// Metric declarations of every workload of an experiment.
MetricDecls declared_metrics(const Experiment& exp);

}  // namespace foliolab
