#include "analysis/expectations.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>

#include "analysis/stats.h"
#include "model/matrix.h"
#include "util/text.h"

namespace foliolab {

namespace {

using RunKey = std::tuple<std::string, std::string, std::string, std::string>;

RunKey key_of(const Experiment& exp, const Run& run) {
  return {exp.kernels[run.kernel].name, std::string(arch_info(run.arch).name),
          exp.knob_sets[run.knob_set].name, exp.workloads[run.workload].label};
}

// The records of one session, indexed both ways.
class RecordIndex {
 public:
  explicit RecordIndex(const std::vector<RunRecord>& records) {
    for (const RunRecord& r : records) {
      by_id_[r.id.run_id] = &r;
      by_key_[{r.id.kernel.name, r.id.arch, r.id.knob_set.name, r.id.workload.label}] = &r;
    }
  }
  const RunRecord* find(const Experiment& exp, const Run& run) const {
    if (auto it = by_id_.find(run.id); it != by_id_.end()) return it->second;
    if (auto it = by_key_.find(key_of(exp, run)); it != by_key_.end()) return it->second;
    return nullptr;
  }

 private:
  std::map<std::string, const RunRecord*> by_id_;
  std::map<RunKey, const RunRecord*> by_key_;
};

// "[x86_64 · 6.12-mthp-vmstat · 64K · fault]"
std::string run_label(const Experiment& exp, const Run& run) {
  return fmt::format("[{} · {} · {} · {}]", arch_info(run.arch).name, exp.kernels[run.kernel].name,
                     exp.knob_sets[run.knob_set].name, exp.workloads[run.workload].label);
}

double statistic(Statistic stat, const std::vector<double>& xs) {
  switch (stat) {
    case Statistic::kMin:
      return *std::min_element(xs.begin(), xs.end());
    case Statistic::kMax:
      return *std::max_element(xs.begin(), xs.end());
    case Statistic::kMedian:
      return median(xs);
    case Statistic::kMean:
      break;
  }
  return mean(xs);
}

// The statistic of one run's metric, or why there is none.
struct Value {
  std::optional<double> x;
  std::string why;
};

Value run_value(const Experiment& exp, const RecordIndex& index, const Run& run,
                const Expectation& e) {
  const RunRecord* record = index.find(exp, run);
  if (!record) return {std::nullopt, "no result (the run has not been run in this session)"};
  if (!record->ok()) {
    return {std::nullopt,
            fmt::format("run failed: {}: {}", record->status.empty() ? "no status" : record->status,
                        record->reason)};
  }
  if (record->reps.empty()) return {std::nullopt, "no repetitions"};
  std::vector<double> xs;
  for (const Repetition& rep : record->reps) {
    if (rep.warmup) continue;
    if (auto v = rep_value(rep, e.metric)) {
      xs.push_back(*v);
    } else {
      return {std::nullopt, fmt::format("metric '{}' missing in rep {}", e.metric, rep.rep)};
    }
  }
  return {statistic(e.stat, xs), ""};
}

bool compare(const Expectation& e, double x) {
  switch (e.op) {
    case CompareOp::kLess:
      return x < e.value;
    case CompareOp::kLessEqual:
      return x <= e.value;
    case CompareOp::kGreater:
      return x > e.value;
    case CompareOp::kGreaterEqual:
      return x >= e.value;
    case CompareOp::kEqual:
      return x == e.value;
    case CompareOp::kApprox:
      return std::fabs(x - e.value) <= e.tolerance * std::fabs(e.value);
  }
  return false;
}

// The run equal to `run` except for the fields `sel` gives, if the plan has it.
std::optional<Run> partner_of(const Experiment& exp, const std::vector<Run>& runs, const Run& run,
                              const RunSelector& sel) {
  for (const Run& other : runs) {
    if (!selector_matches(sel, exp, other)) continue;
    if (sel.kernel.empty() && other.kernel != run.kernel) continue;
    if (!sel.arch && other.arch != run.arch) continue;
    if (sel.knobs.empty() && other.knob_set != run.knob_set) continue;
    if (sel.workload.empty() && other.workload != run.workload) continue;
    return other;
  }
  return std::nullopt;
}

// "never" for {knobs: never}; "x86_64 · 4K" when several fields are given.
std::string partner_text(const RunSelector& sel) {
  std::vector<std::string> parts;
  if (sel.arch) parts.emplace_back(arch_info(*sel.arch).name);
  if (!sel.kernel.empty()) parts.push_back(sel.kernel);
  if (!sel.knobs.empty()) parts.push_back(sel.knobs);
  if (!sel.workload.empty()) parts.push_back(sel.workload);
  return join(parts, " · ");
}

ExpectationResult evaluate(const Experiment& exp, const std::vector<Run>& runs,
                           const RecordIndex& index, const Expectation& e) {
  ExpectationResult result{e.name, true, e.op, e.value, e.tolerance, {}};
  size_t judged = 0;
  for (const Run& run : runs) {
    if (!selector_matches(e.runs, exp, run)) continue;
    const std::string label = run_label(exp, run);
    std::optional<Run> partner;
    if (e.ratio_to) {
      partner = partner_of(exp, runs, run, *e.ratio_to);
      if (partner && partner->id == run.id) continue;
    }
    ++judged;
    auto fail = [&](const std::string& why) {
      result.held = false;
      result.checks.push_back({.run = label, .why = why});
    };
    const Value mine = run_value(exp, index, run, e);
    if (!mine.x) {
      fail(mine.why);
      continue;
    }
    double x = *mine.x;
    std::string lhs = e.metric;
    if (e.stat != Statistic::kMean) lhs = std::string(statistic_name(e.stat)) + " " + lhs;
    if (e.ratio_to) {
      lhs += " / " + partner_text(*e.ratio_to);
      if (!partner) {
        fail(fmt::format("{}: no run with {} in the plan", lhs, selector_text(*e.ratio_to)));
        continue;
      }
      const Value theirs = run_value(exp, index, *partner, e);
      if (!theirs.x) {
        fail(fmt::format("{}: reference {} {}", lhs, run_label(exp, *partner), theirs.why));
        continue;
      }
      if (*theirs.x == 0) {
        fail(fmt::format("{}: reference {} has {} = 0", lhs, run_label(exp, *partner), e.metric));
        continue;
      }
      x /= *theirs.x;
    }
    const bool held = compare(e, x);
    result.held = result.held && held;
    result.checks.push_back({.run = label, .lhs = lhs, .value = x, .held = held});
  }
  if (judged == 0) {
    result.held = false;
    result.checks.push_back({.why = "selects no runs (" + selector_text(e.runs) + ")"});
  }
  return result;
}

}  // namespace

std::vector<ExpectationResult> evaluate_expectations(const Experiment& exp,
                                                     const std::vector<RunRecord>& records) {
  const std::vector<Run> runs = expand(exp);
  const RecordIndex index(records);
  std::vector<ExpectationResult> out;
  for (const Expectation& e : exp.expectations) out.push_back(evaluate(exp, runs, index, e));
  return out;
}

}  // namespace foliolab
