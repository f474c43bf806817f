#include "analysis/comparison.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <set>

#include "analysis/machine_state.h"
#include "catalog/metric_catalog.h"

namespace foliolab {
namespace {

// Workload metrics shown first, in this order (the cover letters' columns for `fault`).
const std::vector<std::string> kHeadline = {"faults", "faults_per_sec", "faults_per_sec_per_cpu",
                                            "user_s", "sys_s",          "wall_s"};

bool all_equal(const std::vector<const SampleStats*>& stats) {
  std::optional<double> first;
  for (const SampleStats* s : stats) {
    for (double x : s->values) {
      if (!first) first = x;
      if (x != *first) return false;
    }
  }
  return true;
}

bool listed(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Metrics of a group in display order: headline, other workload metrics, then counters.
std::vector<std::string> metric_order(const GroupRuns& in, const std::vector<std::string>& keep) {
  std::set<std::string> names;
  for (const VariantRuns& v : in.variants) {
    for (const RunRecord* r : v.runs) {
      for (const std::string& n : r->metric_names()) names.insert(n);
    }
  }
  std::vector<std::string> out;
  for (const std::string& h : kHeadline) {
    if (names.count(h)) out.push_back(h);
  }
  for (const std::string& n : names) {
    if (!is_counter(n) && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  }
  for (const std::string& n : names) {
    if (is_counter(n) && (shown_counter(n) || listed(keep, n))) out.push_back(n);
  }
  return out;
}

std::vector<double> pooled(const VariantRuns& v, const std::string& metric) {
  std::vector<double> out;
  for (const RunRecord* r : v.runs) {
    for (double x : r->samples(metric)) out.push_back(x);
  }
  return out;
}

// One sample a run: the mean of its reps (a boot of a fragmented guest; RunConditions).
std::vector<double> boot_means(const VariantRuns& v, const std::string& metric) {
  std::vector<double> out;
  for (const RunRecord* r : v.runs) {
    const std::vector<double> reps = r->samples(metric);
    if (!reps.empty()) out.push_back(sample_stats(reps).mean);
  }
  return out;
}

// The runs' stops as one (VariantInfo::repeat_stop).
std::optional<RepeatStop> pooled_stop(const VariantRuns& v) {
  std::optional<RepeatStop> out;
  for (const RunRecord* r : v.runs) {
    if (!r->repeat_stop) return std::nullopt;
    const RepeatStop& s = *r->repeat_stop;
    if (!out) {
      out = s;
      continue;
    }
    if (s.reason == RepeatStopReason::kMax) out->reason = s.reason;
    out->n = std::max(out->n, s.n);
    out->target = std::max(out->target, s.target);
    for (auto& [metric, hw] : out->half_width) {
      for (const auto& [m, other] : s.half_width) {
        if (m == metric) hw = hw && other ? std::optional(std::max(*hw, *other)) : std::nullopt;
      }
    }
  }
  return out;
}

VariantInfo variant_info(const VariantRuns& v) {
  VariantInfo info;
  info.label = v.label;
  std::set<std::string> accels, hosts;
  info.icount = !v.runs.empty();
  for (const RunRecord* r : v.runs) {
    info.runs.push_back(v.session.empty() ? r->id.run_id : v.session + "/" + r->id.run_id);
    accels.insert(r->provenance.accel);
    hosts.insert(r->provenance.host.hostname);
    info.emulated = info.emulated || r->provenance.timings_emulated;
    info.icount = info.icount && r->provenance.icount();
  }
  info.repeat_stop = pooled_stop(v);
  for (const std::string& a : accels) info.accel += (info.accel.empty() ? "" : "+") + a;
  for (const std::string& h : hosts) info.host += (info.host.empty() ? "" : "+") + h;
  if (!v.runs.empty()) {
    const RunRecord& r = *v.runs.front();
    info.knobs_set = r.knobs_set;
    info.kernel_build_id = r.provenance.kernel_build_id;
    info.kernel_version = r.provenance.kernel_version;
    info.emulator = r.provenance.emulator;
    info.guest_release = r.provenance.guest.release;
  }
  return info;
}

}  // namespace

bool is_counter(const std::string& name) {
  return name.starts_with("vmstat.") || name.starts_with("mthp.") || name.starts_with("meminfo.");
}

bool shown_counter(const std::string& name) {
  for (const char* prefix :
       {"vmstat.thp_", "vmstat.mthp_", "vmstat.pgfault", "vmstat.pgmajfault",
        "vmstat.nr_anon_transparent", "mthp.", "meminfo.AnonHugePages", "meminfo.ShmemHugePages"}) {
    if (name.starts_with(prefix)) return true;
  }
  return false;
}

bool ComparisonGroup::emulated() const {
  return std::any_of(variants.begin(), variants.end(),
                     [](const VariantInfo& v) { return v.emulated; });
}

bool ComparisonGroup::icount() const {
  return emulated() && std::all_of(variants.begin(), variants.end(),
                                   [](const VariantInfo& v) { return !v.emulated || v.icount; });
}

namespace {

bool declared(const MetricDecls& decls, const std::string& name) {
  return std::any_of(decls.begin(), decls.end(), [&](const auto& d) { return d.first == name; });
}

// Whether a metric says nothing in this group: a workload metric with no better direction
// that is the same in every run of a group of several variants (an echoed parameter such as
// `pages`), or a counter that never moved from zero. Kept metrics (gate rules), declared
// metrics (a custom workload's own) and every workload metric of a one-variant group (a
// session with one knob set: its numbers are all there is) are always shown.
bool says_nothing(const std::string& metric, const MetricRow& row, const GroupRuns& in,
                  const CompareOptions& options) {
  if (listed(options.keep, metric) || declared(options.declared, metric)) return false;
  std::vector<const SampleStats*> all;
  for (const SampleStats& s : row.stats) all.push_back(&s);
  if (!all_equal(all)) return false;
  if (!is_counter(metric)) return in.variants.size() > 1 && row.info.better == Better::kNone;
  return !row.stats.empty() && !row.stats.front().values.empty() &&
         row.stats.front().values.front() == 0;
}

// One metric of a group, or nothing for a metric that says nothing (says_nothing).
std::optional<MetricRow> metric_row(const GroupRuns& in, const std::string& metric, bool emulated,
                                    const CompareOptions& options) {
  const auto beside = [](const VariantRuns& v) {
    return std::any_of(v.runs.begin(), v.runs.end(),
                       [](const RunRecord* r) { return r->provenance.guests_beside > 0; });
  };
  const auto icount = [](const VariantRuns& v) {
    return std::all_of(v.runs.begin(), v.runs.end(),
                       [](const RunRecord* r) { return r->provenance.icount(); });
  };
  MetricRow row;
  row.metric = metric;
  row.info = metric_info(metric, options.declared, options.thresholds);
  row.emulated = emulated && row.info.kind == MetricKind::kTiming;
  const bool per_boot = row.info.kind == MetricKind::kCount &&
                        std::any_of(in.variants.begin(), in.variants.end(),
                                    [](const auto& v) { return fragmented_runs(v); });
  for (const VariantRuns& v : in.variants) {
    row.stats.push_back(sample_stats(per_boot ? boot_means(v, metric) : pooled(v, metric)));
  }
  if (says_nothing(metric, row, in, options)) return std::nullopt;
  row.deltas.emplace_back();
  for (size_t i = 1; i < row.stats.size(); ++i) {
    const VariantRuns &a = in.variants[0], &b = in.variants[i];
    const RunConditions cond{beside(a) || beside(b), icount(a) && icount(b), per_boot};
    row.deltas.push_back(compare_samples(row.info, row.stats[0], row.stats[i], options, cond));
  }
  return row;
}

void add_sample_warnings(ComparisonGroup* g) {
  size_t n_low = SIZE_MAX;
  for (const MetricRow& row : g->rows) {
    for (const SampleStats& s : row.stats) n_low = std::min(n_low, s.n);
  }
  if (n_low < kMinSamples) {
    g->warnings.push_back(
        fmt::format("fewer than {} samples somewhere: no aggregate there", kMinSamples));
  } else if (n_low != SIZE_MAX && min_rank_p(n_low, n_low) > kAlpha) {
    g->warnings.push_back(
        fmt::format("n={} per variant: low statistical power: no timing can be called improved "
                    "or regressed (the exact rank test's p cannot go below {:.2f}; repeat: 5 or "
                    "more)",
                    n_low, min_rank_p(n_low, n_low)));
  } else if (n_low != SIZE_MAX && n_low < kLowPowerSamples) {
    g->warnings.push_back(
        fmt::format("n={} per variant: low statistical power (9 or more "
                    "repetitions resolve small effects)",
                    n_low));
  }
}

// kcompactd's proactive compaction migrating pages under a measurement: those reps' faults
// and timings include waits on pages being migrated (seen on a 64K-page arm64 guest, whose
// PMD-order fragmentation score never settles: 46 faults instead of 32 in one rep of 12).
void add_compaction_warnings(const GroupRuns& in, ComparisonGroup* g) {
  for (const VariantRuns& v : in.variants) {
    const std::vector<double> scanned = pooled(v, "vmstat.compact_daemon_migrate_scanned");
    const auto hit = std::count_if(scanned.begin(), scanned.end(), [](double x) { return x > 0; });
    if (hit == 0) continue;
    g->warnings.push_back(
        fmt::format("{}: kcompactd compacted memory during {} of {} reps "
                    "(vmstat.compact_daemon_migrate_scanned): "
                    "their faults and timings include waits on migrating pages; "
                    "`sysctl: {{vm/compaction_proactiveness: 0}}` in the knob set keeps it out",
                    v.label, hit, scanned.size()));
  }
}

// Runs measured while other guests ran beside them (`run -j N`): their timings share the
// host's cores and caches; the counts do not depend on it. One line per group.
void add_crowded_warning(const GroupRuns& in, ComparisonGroup* g) {
  std::vector<std::string> crowded;
  int most = 0;
  for (const VariantRuns& v : in.variants) {
    const auto beside = std::count_if(v.runs.begin(), v.runs.end(), [](const RunRecord* r) {
      return r->provenance.guests_beside > 0;
    });
    for (const RunRecord* r : v.runs) most = std::max(most, r->provenance.guests_beside);
    if (beside > 0) crowded.push_back(fmt::format("{} {} of {}", v.label, beside, v.runs.size()));
  }
  if (!crowded.empty()) {
    g->warnings.push_back(
        fmt::format("runs with up to {} other guest(s) beside them (run -j): {}; their timings "
                    "share the host's CPUs "
                    "(`exclusive: true` or -j 1 runs them alone)",
                    most, fmt::join(crowded, ", ")));
  }
}

}  // namespace

ComparisonGroup compare_group(const GroupRuns& in, const CompareOptions& options) {
  ComparisonGroup g;
  g.title = in.title;
  g.kernel = in.kernel;
  g.arch = in.arch;
  g.workload = in.workload;
  g.knobs = in.knobs;
  for (const VariantRuns& v : in.variants) g.variants.push_back(variant_info(v));
  const bool emulated = g.emulated();
  for (const std::string& metric : metric_order(in, options.keep)) {
    if (auto row = metric_row(in, metric, emulated, options)) {
      row->icount = row->emulated && g.icount();
      g.rows.push_back(std::move(*row));
    }
  }
  g.evidence = evidence_section(in, g.rows);
  add_sample_warnings(&g);
  if (g.icount()) {
    g.warnings.push_back(
        "timings (†) are instruction-time (icount): guest time counts "
        "instructions, not the host's seconds");
  } else if (emulated) {
    g.warnings.push_back("timings (†) are TCG emulation timings: trust the counts");
  }
  add_compaction_warnings(in, &g);
  add_crowded_warning(in, &g);
  for (std::string& w : state_warnings(in)) g.warnings.push_back(std::move(w));
  if (std::string note = fragmented_note(in); !note.empty()) g.warnings.push_back(note);
  g.monitors = monitor_plots(in);
  return g;
}

}  // namespace foliolab
