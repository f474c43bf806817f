#include "model/experiment.h"

namespace foliolab {

std::string SourceLoc::str() const {
  if (line <= 0) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

std::string_view accel_choice_name(AccelChoice c) {
  switch (c) {
    case AccelChoice::kKvm:
      return "kvm";
    case AccelChoice::kTcg:
      return "tcg";
    case AccelChoice::kAuto:
      break;
  }
  return "auto";
}

std::optional<AccelChoice> parse_accel_choice(std::string_view name) {
  for (AccelChoice c : {AccelChoice::kAuto, AccelChoice::kKvm, AccelChoice::kTcg}) {
    if (accel_choice_name(c) == name) return c;
  }
  return std::nullopt;
}

std::string_view timing_mode_name(TimingMode t) {
  return t == TimingMode::kIcount ? "icount" : "wall";
}

std::optional<TimingMode> parse_timing_mode(std::string_view name) {
  for (TimingMode t : {TimingMode::kWall, TimingMode::kIcount}) {
    if (timing_mode_name(t) == name) return t;
  }
  return std::nullopt;
}

bool selector_matches(const RunSelector& sel, const Experiment& exp, const Run& run) {
  if (!sel.kernel.empty() && exp.kernels[run.kernel].name != sel.kernel) return false;
  if (sel.arch && *sel.arch != run.arch) return false;
  if (!sel.knobs.empty() && exp.knob_sets[run.knob_set].name != sel.knobs) return false;
  if (!sel.workload.empty() && exp.workloads[run.workload].label != sel.workload) return false;
  return true;
}

std::string selector_text(const RunSelector& sel) {
  std::string out;
  auto add = [&out](const char* key, std::string_view value) {
    if (value.empty()) return;
    out += (out.empty() ? "" : " ") + std::string(key) + "=" + std::string(value);
  };
  add("kernel", sel.kernel);
  if (sel.arch) add("arch", arch_info(*sel.arch).name);
  add("knobs", sel.knobs);
  add("workload", sel.workload);
  return out.empty() ? "all runs" : out;
}

std::string_view statistic_name(Statistic stat) {
  switch (stat) {
    case Statistic::kMean:
      return "mean";
    case Statistic::kMin:
      return "min";
    case Statistic::kMax:
      return "max";
    case Statistic::kMedian:
      return "median";
  }
  return "mean";
}

std::string_view compare_op_text(CompareOp op) {
  switch (op) {
    case CompareOp::kLess:
      return "<";
    case CompareOp::kLessEqual:
      return "<=";
    case CompareOp::kGreater:
      return ">";
    case CompareOp::kGreaterEqual:
      return ">=";
    case CompareOp::kEqual:
      return "==";
    case CompareOp::kApprox:
      return "approx";
  }
  return "==";
}

std::vector<PrepareStep> run_prepare_steps(const Experiment& exp, const Run& run) {
  std::vector<PrepareStep> steps = exp.state.prepare;
  const auto& own = exp.knob_sets.at(run.knob_set).prepare;
  steps.insert(steps.end(), own.begin(), own.end());
  return steps;
}

bool any_prepare_steps(const Experiment& exp) {
  if (!exp.state.prepare.empty()) return true;
  for (const KnobSet& ks : exp.knob_sets) {
    if (!ks.prepare.empty()) return true;
  }
  return false;
}

}  // namespace foliolab
