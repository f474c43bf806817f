#include "bisect/gate_rerun.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "analysis/gate_confirm.h"
#include "analysis/pairing.h"
#include "model/matrix.h"
#include "results/store.h"

namespace foliolab {

// "<session>/<run id>" (or the run id alone) → the run id.
std::vector<std::string> variant_run_ids(const VariantInfo& v) {
  std::vector<std::string> ids;
  for (const std::string& name : v.runs) {
    const size_t slash = name.rfind('/');
    const std::string id = slash == std::string::npos ? name : name.substr(slash + 1);
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  return ids;
}

namespace {

Result<std::vector<Run>> runs_of(const Experiment& exp, const std::vector<std::string>& ids) {
  const std::vector<Run> all = expand(exp);
  std::vector<Run> out;
  for (const std::string& id : ids) {
    auto r = std::find_if(all.begin(), all.end(), [&](const Run& x) { return x.id == id; });
    if (r == all.end()) {
      return make_error(
          fmt::format("gate --confirm: run {} is not a run of {} as its session "
                      "stored it (experiment.yaml edited since?)",
                      id, exp.name));
    }
    out.push_back(*r);
  }
  return out;
}

struct SideRuns {
  Experiment exp;  // as its session stored it, its runs' kernels pinned to what they booted
  std::vector<Run> runs;
  std::vector<std::string> ids;
};

// A rerun boots the kernel its session booted: the series or git ref the experiment names may
// have moved since (a nightly's patches/ folder grew), and rebuilding from it would rerun
// another kernel. Runs without a build (the host backend) are left as they are.
void pin_kernels(SideRuns& side, const VariantInfo& v) {
  if (v.kernel_build_id.empty()) return;
  for (const Run& r : side.runs) side.exp.kernels.at(r.kernel).build_id = v.kernel_build_id;
}

// One side's session of a round, run again while a run in it could not complete; its records,
// or nullopt (with rerun.incomplete_why) once the retries are spent.
Result<std::optional<std::vector<RunRecord>>> side_session(const SideRuns& side,
                                                           const ExperimentSessionRun& run_session,
                                                           GateRerun& rerun) {
  for (int attempt = 0; attempt <= kInfraRetries; ++attempt) {
    if (attempt > 0) ++rerun.retries;
    auto summary = run_session(side.exp, side.runs);
    if (!summary.ok()) return summary.error();
    rerun.sessions.push_back(summary->dir.string());
    auto store = ResultStore::open(summary->dir);
    if (!store.ok()) return store.error();
    auto records = store->load_all();
    if (!records.ok()) return records.error();
    auto why = incomplete_run(*records, side.ids);
    if (!why) return std::optional(std::move(*records));
    rerun.incomplete_why = *why;
  }
  return std::optional<std::vector<RunRecord>>();
}

Result<GateRerun> rerun(const GateCase& c, const GateRule& rule, const SideRuns& base,
                        const SideRuns& cand, const GateConfirmSpec& spec,
                        const ExperimentSessionRun& run_session) {
  GateRerun out{.rounds = spec.rounds};
  Side b{.label = "baseline rerun"}, k{.label = "candidate rerun"};
  for (int round = 0; round < spec.rounds; ++round) {
    for (auto [side, into] : {std::pair{&base, &b}, std::pair{&cand, &k}}) {
      auto records = side_session(*side, run_session, out);
      if (!records.ok()) return records.error();
      if (!*records) return out;  // not completed
      for (RunRecord& r : **records) into->records.push_back(std::move(r));
    }
  }
  out.completed = true;
  const GateReport judged = evaluate_gate({rule}, compare_sides(b, k, spec.options));
  if (auto again = rerun_case(c, judged)) take_judgement(out, *again);
  return out;
}

}  // namespace

Result<GateReport> confirm_gate_failures(GateReport report, const GateConfirmSpec& spec,
                                         const ExperimentSessionRun& run_session) {
  for (GateCase& c : report.cases) {
    if (c.outcome != GateOutcome::kFail || c.group_index < 0) continue;
    const ComparisonGroup& g = report.comparison.groups[static_cast<size_t>(c.group_index)];
    auto rule = std::find_if(spec.rules.begin(), spec.rules.end(),
                             [&](const GateRule& r) { return r.name == c.rule; });
    if (g.variants.size() < 2 || rule == spec.rules.end()) continue;
    SideRuns base{spec.base, {}, variant_run_ids(g.variants[0])};
    SideRuns cand{spec.cand, {}, variant_run_ids(g.variants[1])};
    if (base.ids.empty() || cand.ids.empty()) continue;  // nothing to rerun on a side
    for (auto [s, v] : {std::pair{&base, &g.variants[0]}, std::pair{&cand, &g.variants[1]}}) {
      auto runs = runs_of(s->exp, s->ids);
      if (!runs.ok()) return runs.error();
      s->runs = std::move(*runs);
      pin_kernels(*s, *v);
    }
    auto done = rerun(c, *rule, base, cand, spec, run_session);
    if (!done.ok()) return done.error();
    c = confirm_case(std::move(c), std::move(*done));
  }
  count_outcomes(report);
  return report;
}

}  // namespace foliolab
