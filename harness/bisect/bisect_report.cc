#include "bisect/bisect_report.h"

#include <fmt/format.h>

#include "analysis/session_report.h"
#include "bisect/reproduce.h"
#include "kernel/kconfig.h"
#include "kernel/series_mail.h"
#include "results/store.h"
#include "util/fs.h"

namespace foliolab {
namespace fs = std::filesystem;
namespace {

const BisectConfirmation* confirmed_exact(const BisectOutcome& out) {
  if (!out.confirmed() || out.culprits.size() != 1 || !out.culprits[0].exact()) return nullptr;
  for (const BisectConfirmation& c : out.confirmations) {
    if (c.confirmed) return &c;
  }
  return nullptr;
}

Result<std::vector<RunRecord>> session_records(const std::vector<std::string>& sessions) {
  std::vector<RunRecord> all;
  for (const std::string& s : sessions) {
    auto store = ResultStore::open(s);
    FL_TRY(store);
    auto records = store->load_all();
    FL_TRY(records);
    for (RunRecord& r : *records) all.push_back(std::move(r));
  }
  return all;
}

const std::string& kernel_name(const BisectCandidates& c, size_t candidate) {
  return c.exp.kernels[c.runs[candidate].kernel].name;
}

// The kernel the pinned ones copy: the one naming the series, or the range's git kernel.
std::string base_kernel_name(const BisectCandidates& c) {
  if (!c.series_kernel.name.empty()) return c.series_kernel.name;
  const std::string& derived = kernel_name(c, 0);  // "<kernel>.<commit>"
  return derived.substr(0, derived.rfind('.'));
}

// Candidate `i` as a pinned kernel: the first patches it applies, or its commit.
PinnedKernel pinned(const BisectCandidates& c, const Series* series, size_t i, std::string label) {
  PinnedKernel k{.label = std::move(label)};
  const KernelSpec& spec = c.exp.kernels[c.runs[i].kernel];
  if (!series) {
    k.commit = spec.source_ref;
    return k;
  }
  for (size_t p : spec.patches_pick.value_or(std::vector<size_t>{})) {
    k.patches.push_back(series->patches[p].path);
  }
  return k;
}

Result<fs::path> reproduce(const BisectReportSpec& s, const BisectConfirmation& conf, int reps) {
  const BisectCandidates& c = *s.candidates;
  std::optional<Series> series;
  if (!c.series_kernel.name.empty()) {
    auto loaded = load_patch_series(*s.runner, s.series_dir, s.scratch);
    FL_TRY(loaded);
    series = std::move(*loaded);
  }
  const Series* sp = series ? &*series : nullptr;
  ReproduceSpec spec{
      .exp = &c.exp,
      .kernel = base_kernel_name(c),
      .cell = c.runs[conf.culprit],
      .repeat = reps,
      .kernels = {pinned(c, sp, conf.parent, "parent"), pinned(c, sp, conf.culprit, "culprit")}};
  if (conf.culprit + 1 < c.runs.size())
    spec.extra.push_back(pinned(c, sp, c.runs.size() - 1, "tip"));
  return write_reproduce(spec, s.dir);
}

}  // namespace

GroupRuns kernel_columns(const std::vector<RunRecord>& records,
                         const std::vector<std::pair<std::string, std::string>>& label_kernel,
                         const RunRecord** first) {
  GroupRuns g;
  for (const auto& [label, kernel] : label_kernel) {
    VariantRuns v{.label = label};
    for (const RunRecord& r : records) {
      if (r.status == "ok" && r.id.kernel.name == kernel) v.runs.push_back(&r);
    }
    g.variants.push_back(std::move(v));
  }
  const RunRecord* one =
      g.variants.empty() || g.variants[0].runs.empty() ? nullptr : g.variants[0].runs[0];
  if (one) {
    g.arch = one->id.arch;
    g.workload = one->id.workload.label;
    g.knobs = one->id.knob_set.name;
    g.title = fmt::format("{} · {} · {}", g.arch, g.knobs, g.workload);
  }
  if (first) *first = one;
  return g;
}

std::vector<std::string> kernel_config_difference(const fs::path& cache, const std::string& a,
                                                  const std::string& b) {
  if (a.empty() || b.empty()) return {};
  auto left = read_file(cache / "kernels" / a / "config");
  auto right = read_file(cache / "kernels" / b / "config");
  if (!left.ok() || !right.ok()) return {};
  return config_difference(*left, *right);
}

Result<std::optional<RegressionReport>> bisection_report(const BisectReportSpec& s) {
  const BisectCandidates& c = *s.candidates;
  const BisectConfirmation* conf = confirmed_exact(*s.outcome);
  // A knob-set bisection names no patch or commit: one kernel's knob sets, which `compare` shows.
  if (!conf || c.kind == "knob sets") return std::optional<RegressionReport>();
  auto records = session_records(conf->sessions);
  FL_TRY(records);
  const RunRecord* first = nullptr;
  GroupRuns g = kernel_columns(
      *records,
      {{"parent", kernel_name(c, conf->parent)}, {"culprit", kernel_name(c, conf->culprit)}},
      &first);
  if (!first || g.variants[1].runs.empty()) {
    return make_error("the confirmation's sessions hold no completed run of parent and culprit");
  }
  g.kernel = base_kernel_name(c);
  CompareOptions options{
      .declared = declared_metrics(c.exp), .thresholds = c.exp.thresholds, .keep = {s.metric}};
  RegressionReport r =
      regression_of(compare_group(g, options), s.metric, {"parent", "culprit"}, *first);
  r.origin = fmt::format("bisection {}, confirmed in {} fresh boots of each",
                         (s.dir.parent_path().filename() / s.dir.filename()).string(),
                         conf->sessions.size());
  r.culprit = c.names[conf->culprit];
  r.config_diff = kernel_config_difference(s.cache, r.columns[0].build_id, r.columns[1].build_id);
  auto dir = reproduce(s, *conf, first->id.repeat);
  FL_TRY(dir);
  r.reproduce_dir = dir->string();
  r.reproduce = reproduce_command();
  return std::optional<RegressionReport>(std::move(r));
}

}  // namespace foliolab
