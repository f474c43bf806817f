// Checks an experiment's `expect:` claims against a session's run records.
#pragma once

#include <string>
#include <vector>

#include "model/experiment.h"
#include "results/run_record.h"

namespace foliolab {

struct ExpectationResult {
  std::string name;
  bool held = false;
  // One line per selected run, e.g.
  // "[x86_64 · 6.12-mthp-vmstat · 64K · fault] faults / never = 0.0625 <= 0.1", or why it could
  // not be judged ("run failed: timeout: ...", "metric 'x' missing in rep 2").
  std::vector<std::string> details;
};

// A run of expand(exp) is found by run_id, else
// by its (kernel, arch, knob set, workload label); of several records the last one counts.
//
// The metric of a run is `stat` over its repetitions of the workload metric of that name, else
// of the counter delta of that name. With `ratio_to`, it is divided by the same statistic of
// the partner run (the selected run with the fields of ratio_to replaced); selected runs that
// are their own partner are skipped.
//
// An expectation holds only if it selects at least one run, every selected run and its partner
// have status ok and the metric in every repetition (the partner's value non-zero), and the
// comparison holds for each selected run.
std::vector<ExpectationResult> evaluate_expectations(const Experiment& exp,
                                                     const std::vector<RunRecord>& records);

// Number formatting of the detail lines: integers without decimals, else 4 significant digits.
std::string format_value(double x);

}  // namespace foliolab
