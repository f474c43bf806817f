// Per-test results of test-suite workloads (`custom` with output: tap, kselftest-mm) for the
// session report: computed from the run records; report/session_layout.h renders them as lines for
// every format.
#pragma once

#include <string>
#include <vector>

#include "results/run_record.h"

namespace foliolab {

struct SubtestRow {
  std::string name;
  std::string status;  // "pass", "fail", "skip"; "mixed" when repetitions disagree
  std::string detail;  // reason, or per-rep statuses for "mixed"
};

struct RunSubtests {
  std::string run_id;
  int reps = 0, pass = 0, fail = 0, skip = 0, mixed = 0;  // tests by their status over the reps
  std::vector<SubtestRow> rows;  // every test, in the order of the first rep that has it
};

// One entry per record (in the given order) whose repetitions hold test results.
std::vector<RunSubtests> collect_test_results(const std::vector<RunRecord>& records);

}  // namespace foliolab
