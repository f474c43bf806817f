// Checks an experiment's `expect:` claims against a session's run records.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/experiment.h"
#include "results/run_record.h"

namespace foliolab {

// One selected run judged: its value against the threshold, or why it has none. report/ words
// it (expectation_details): "[x86_64 · 6.12-mthp-vmstat · 64K · fault] faults / never = 0.0625
// <= 0.1", "... = 0.125, not <= 0.1", or "[...] run failed: timeout: ...".
struct ExpectationCheck {
  std::string run;  // "[x86_64 · 6.12-mthp-vmstat · 64K · fault]"; "" for the whole claim
  std::string lhs;  // "faults / never", "median faults"
  std::optional<double> value;  // the statistic (a ratio with ratio_to), when there is one
  bool held = false;
  std::string why;  // without a value: "run failed: ...", "metric 'x' missing in rep 2"
};

struct ExpectationResult {
  std::string name;
  bool held = false;
  CompareOp op = CompareOp::kEqual;      // the claim's comparison,
  double threshold = 0;                  // its value
  double tolerance = 0;                  // and, for approx, its relative tolerance
  std::vector<ExpectationCheck> checks;  // one per selected run
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

}  // namespace foliolab
