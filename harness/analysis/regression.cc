#include "analysis/regression.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

namespace foliolab {
namespace {

constexpr std::string_view kFixNames[] = {"fixed", "partly fixed", "not fixed"};

bool moved(const std::optional<Delta>& d) {
  return d && (d->verdict == Verdict::kImproved || d->verdict == Verdict::kRegressed ||
               d->verdict == Verdict::kChanged);
}

// The size of a change: |log ratio|; a change from a zero baseline (no ratio) is the largest.
double change_size(const std::optional<Delta>& d) {
  if (!d) return 0;
  if (std::isfinite(d->rel_change) && d->rel_change > -1)
    return std::fabs(std::log1p(d->rel_change));
  return std::isfinite(d->diff) && d->diff != 0 ? std::numeric_limits<double>::infinity() : 0;
}

// Functions (the profile and kprobes) before the other evidence: what a reviewer reads first.
bool is_function_metric(std::string_view m) {
  return m.starts_with("func.") || m.starts_with("kprobe.");
}

// Sort key: the headline, the workload's and counters' rows, the functions, the rest of the
// evidence; each by size, largest first.
std::tuple<int, double> rank_of(const RegressionRow& r, const std::string& headline) {
  const int room = r.metric == headline           ? 0
                   : !r.evidence                  ? 1
                   : is_function_metric(r.metric) ? 2
                                                  : 3;
  return {room, -change_size(r.deltas.size() > 1 ? r.deltas[1] : std::nullopt)};
}

RegressionMachine machine_of(const RunRecord& r) {
  const Provenance& p = r.provenance;
  return {.backend = p.backend,
          .accel = p.accel,
          .timing = p.timing,
          .emulator = p.emulator,
          .host_cpu = p.host.cpu_model,
          .cpus = r.id.machine.cpus,
          .memory_mb = r.id.machine.memory_mb};
}

}  // namespace

std::string_view fix_verdict_name(FixVerdict v) { return kFixNames[static_cast<size_t>(v)]; }

const RegressionRow* RegressionReport::headline() const {
  return !moved.empty() && moved[0].metric == metric ? &moved[0] : nullptr;
}

RegressionReport regression_of(const ComparisonGroup& g, const std::string& metric,
                               const std::vector<std::string>& labels, const RunRecord& first) {
  RegressionReport r;
  r.metric = metric;
  r.cell = {.kernel = g.kernel.empty() ? first.id.kernel.name : g.kernel,
            .arch = g.arch,
            .knobs = g.knobs,
            .workload = g.workload,
            .params = first.id.workload.params,
            .knobs_set = first.id.knob_set.knobs};
  r.machine = machine_of(first);
  for (size_t i = 0; i < g.variants.size(); ++i) {
    r.columns.push_back(
        {i < labels.size() ? labels[i] : g.variants[i].label, g.variants[i].kernel_build_id});
  }
  for (const MetricRow& row : g.rows) {
    if (std::none_of(row.deltas.begin(), row.deltas.end(), moved)) {
      ++r.unchanged;
      continue;
    }
    r.moved.push_back({row.metric, row.evidence, row.stats, row.deltas});
  }
  std::stable_sort(r.moved.begin(), r.moved.end(), [&](const auto& a, const auto& b) {
    return rank_of(a, metric) < rank_of(b, metric);
  });
  return r;
}

void judge_fixes(RegressionReport& r) {
  r.fixes.clear();
  const RegressionRow* h = nullptr;
  for (const RegressionRow& row : r.moved) {
    if (row.metric == r.metric) h = &row;
  }
  for (size_t col = 2; col < r.columns.size(); ++col) {
    if (!h || h->deltas.size() <= col || !h->deltas[1]) {
      r.fixes.push_back(FixVerdict::kNotFixed);
      continue;
    }
    const Delta& culprit = *h->deltas[1];
    const std::optional<Delta>& fix = h->deltas[col];
    if (!moved(fix) || fix->verdict != culprit.verdict) {
      r.fixes.push_back(FixVerdict::kFixed);
    } else if (change_size(fix) <= change_size(culprit) / 2) {
      r.fixes.push_back(FixVerdict::kPartlyFixed);
    } else {
      r.fixes.push_back(FixVerdict::kNotFixed);
    }
  }
}

std::vector<std::vector<size_t>> group_gate_failures(const GateReport& report) {
  std::map<std::tuple<std::string, std::string, bool>, std::vector<size_t>> groups;
  std::vector<std::tuple<std::string, std::string, bool>> order;
  const auto& cg = report.comparison.groups;
  for (size_t i = 0; i < report.cases.size(); ++i) {
    const GateCase& c = report.cases[i];
    if (c.outcome != GateOutcome::kFail || c.group_index < 0) continue;
    const ComparisonGroup& g = cg[static_cast<size_t>(c.group_index)];
    const std::string base = g.variants.empty() ? "" : g.variants.front().kernel_build_id;
    const std::string cand = g.variants.size() < 2 ? "" : g.variants[1].kernel_build_id;
    const bool timing = std::any_of(g.rows.begin(), g.rows.end(), [&](const MetricRow& row) {
      return row.metric == c.metric && row.info.kind == MetricKind::kTiming;
    });
    auto key = std::make_tuple(base, cand, timing);
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(i);
  }
  std::vector<std::vector<size_t>> out;
  for (const auto& key : order) {
    std::vector<size_t> cases = groups[key];
    std::stable_sort(cases.begin(), cases.end(), [&](size_t a, size_t b) {
      return change_size(report.cases[a].delta) > change_size(report.cases[b].delta);
    });
    out.push_back(std::move(cases));
  }
  return out;
}

}  // namespace foliolab
