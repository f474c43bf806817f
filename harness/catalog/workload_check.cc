#include "catalog/workload_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <regex>

#include "catalog/census_metrics.h"
#include "catalog/kselftest_catalog.h"
#include "catalog/metric_catalog.h"
#include "catalog/workload_catalog.h"
#include "model/problems.h"
#include "util/text.h"
#include "util/yaml_reader.h"

namespace foliolab {
namespace {

// /proc/vmstat names of the guest kernel config (Linux 6.12, kernel-config/guest-base and
// guest-full): the agent snapshots every line, so a config or a patch series may add names; a name
// not listed is accepted unless it is a likely typo of a listed one.
const std::vector<std::string> kVmstat = {"allocstall_dma32",
                                          "allocstall_movable",
                                          "allocstall_normal",
                                          "compact_fail",
                                          "compact_isolated",
                                          "compact_stall",
                                          "compact_success",
                                          "drop_pagecache",
                                          "drop_slab",
                                          "nr_active_anon",
                                          "nr_anon_pages",
                                          "nr_anon_transparent_hugepages",
                                          "nr_file_hugepages",
                                          "nr_file_pages",
                                          "nr_file_pmdmapped",
                                          "nr_free_pages",
                                          "nr_inactive_anon",
                                          "nr_mapped",
                                          "nr_page_table_pages",
                                          "nr_shmem",
                                          "nr_shmem_hugepages",
                                          "nr_shmem_pmdmapped",
                                          "numa_foreign",
                                          "numa_hit",
                                          "numa_interleave",
                                          "numa_local",
                                          "numa_miss",
                                          "numa_other",
                                          "oom_kill",
                                          "pgalloc_normal",
                                          "pgfault",
                                          "pgfree",
                                          "pgmajfault",
                                          "pgmigrate_fail",
                                          "pgmigrate_success",
                                          "pgreuse",
                                          "pswpin",
                                          "pswpout",
                                          "thp_collapse_alloc",
                                          "thp_collapse_alloc_failed",
                                          "thp_deferred_split_page",
                                          "thp_fault_alloc",
                                          "thp_fault_fallback",
                                          "thp_fault_fallback_charge",
                                          "thp_file_alloc",
                                          "thp_file_fallback",
                                          "thp_file_fallback_charge",
                                          "thp_file_mapped",
                                          "thp_migration_fail",
                                          "thp_migration_split",
                                          "thp_migration_success",
                                          "thp_scan_exceed_none_pte",
                                          "thp_scan_exceed_share_pte",
                                          "thp_scan_exceed_swap_pte",
                                          "thp_split_page",
                                          "thp_split_page_failed",
                                          "thp_split_pmd",
                                          "thp_split_pud",
                                          "thp_swpout",
                                          "thp_swpout_fallback",
                                          "thp_underused_split_page",
                                          "thp_zero_page_alloc",
                                          "thp_zero_page_alloc_failed"};
// hugepages-<N>kB/stats/ in Linux 6.12 (mm/huge_memory.c, stats_attrs).
const std::vector<std::string> kMthpStats = {"anon_fault_alloc",
                                             "anon_fault_fallback",
                                             "anon_fault_fallback_charge",
                                             "nr_anon",
                                             "nr_anon_partially_mapped",
                                             "shmem_alloc",
                                             "shmem_fallback",
                                             "shmem_fallback_charge",
                                             "split",
                                             "split_deferred",
                                             "split_failed",
                                             "swpout",
                                             "swpout_fallback"};
// The /proc/meminfo fields the agent snapshots (images/agent/sysfs.c, `wanted`).
const std::vector<std::string> kMeminfo = {
    "MemFree", "AnonPages", "AnonHugePages", "ShmemHugePages", "Shmem", "SwapTotal", "SwapFree"};
// The state values of images/agent/state.c (state.before.<key>, state.after.<key>).
const std::vector<std::string> kStatePrefixes = {"buddy",      "unusable", "extfrag", "pagetype",
                                                 "pageblocks", "swap",     "zram",    "memcg"};
// The success rates and fallbacks protocol/run_report.cc derives from the fault counters.
const std::vector<std::string> kSuccess = {"thp", "anon", "shmem"};
const std::vector<std::string> kTap = {"pass", "fail", "skip"};

bool any_patched(const Experiment& exp) {
  return std::any_of(exp.kernels.begin(), exp.kernels.end(), [](const KernelSpec& k) {
    return !k.patches.empty() || k.source != "debian";
  });
}

std::string output_of(const WorkloadSpec& w) { return param_value(w, "output", "foliolab"); }

std::string listing(const std::vector<std::string>& valid) { return join(valid, ", "); }

// vmstat.<counter>: a /proc/vmstat name; an unknown one near a known one is a typo.
Result<void> check_vmstat(const std::string& rest) {
  if (!is_word(rest, "_")) return make_error("invalid vmstat counter name '" + rest + "'");
  if (std::find(kVmstat.begin(), kVmstat.end(), rest) != kVmstat.end()) return {};
  if (auto near = closest_match(rest, kVmstat)) {
    return make_error("unknown /proc/vmstat counter '" + rest + "'" +
                      did_you_mean_text("vmstat." + *near));
  }
  return {};
}

// mthp.<size>kB.<stat>: a hugepages-<size>kB/stats file (a patched kernel may add some).
Result<void> check_mthp(const std::string& rest, bool patched) {
  const size_t dot2 = rest.find('.');
  const std::string size = rest.substr(0, dot2);
  const std::string stat = dot2 == std::string::npos ? "" : rest.substr(dot2 + 1);
  const auto kb = size.ends_with("kB") ? parse_int(size.substr(0, size.size() - 2)) : std::nullopt;
  if (!kb || *kb < 8 || (*kb & (*kb - 1)) != 0 || stat.empty()) {
    return make_error(
        "expected mthp.<size>kB.<stat> with a power-of-two size of at least "
        "8kB, e.g. mthp.64kB.anon_fault_alloc");
  }
  if (std::find(kMthpStats.begin(), kMthpStats.end(), stat) != kMthpStats.end()) return {};
  const std::string near = did_you_mean(stat, kMthpStats);
  if (patched && near.empty()) return {};
  return make_error("unknown hugepages-" + size + "/stats file '" + stat + "'" + near +
                    (near.empty() ? " (Linux 6.12 has: " + listing(kMthpStats) + ")" : ""));
}

// state.before.<key> / state.after.<key>: what a prepared machine state recorded.
Result<void> check_state(const std::string& rest) {
  const std::string phase = rest.substr(0, rest.find('.'));
  const std::string key =
      rest.find('.') == std::string::npos ? "" : rest.substr(rest.find('.') + 1);
  const std::string family = key.substr(0, key.find('.'));
  if ((phase != "before" && phase != "after") || key.empty() ||
      std::find(kStatePrefixes.begin(), kStatePrefixes.end(), family) == kStatePrefixes.end()) {
    return make_error("expected state.before.<key> or state.after.<key> with a key of " +
                      listing(kStatePrefixes) + ", e.g. state.after.unusable.all.9");
  }
  return {};
}

// success.thp, success.anon.<size>kB, success.shmem.<size>kB, and fallback. the same way.
Result<void> check_fault_outcome(const std::string& prefix, const std::string& rest) {
  const std::string kind = rest.substr(0, rest.find('.'));
  if (std::find(kSuccess.begin(), kSuccess.end(), kind) == kSuccess.end() ||
      (kind != "thp" && rest.find('.') == std::string::npos)) {
    return make_error(
        fmt::format("expected {0}.thp, {0}.anon.<size>kB or {0}.shmem.<size>kB", prefix));
  }
  return {};
}

Result<void> check_counter(const Experiment& exp, const std::string& metric, bool tap_output) {
  const size_t dot = metric.find('.');
  const std::string prefix = metric.substr(0, dot);
  const std::string rest = metric.substr(dot + 1);
  if (prefix == "vmstat") return check_vmstat(rest);
  if (prefix == "mthp") return check_mthp(rest, any_patched(exp));
  if (prefix == "meminfo") {
    if (std::find(kMeminfo.begin(), kMeminfo.end(), rest) != kMeminfo.end()) return {};
    return make_error("the agent does not record meminfo field '" + rest + "'" +
                      did_you_mean(rest, kMeminfo) + " (it records: " + listing(kMeminfo) + ")");
  }
  if (prefix == "tap") {
    if (std::find(kTap.begin(), kTap.end(), rest) == kTap.end()) {
      return make_error("unknown TAP metric '" + metric + "'" + did_you_mean(rest, kTap) +
                        " (tap.pass, tap.fail, tap.skip)");
    }
    if (!tap_output) return make_error("'" + metric + "' needs a custom workload with output: tap");
    return {};
  }
  if (prefix == "state") return check_state(rest);
  if (prefix == "census") {
    if (!exp.evidence.census) return make_error("'" + metric + "' needs evidence: {census: true}");
    return check_census_metric(rest);
  }
  if (prefix == "success" || prefix == "fallback") return check_fault_outcome(prefix, rest);
  const std::vector<std::string> prefixes = {"vmstat", "mthp",    "meminfo",  "tap",
                                             "state",  "success", "fallback", "census"};
  return make_error("unknown counter prefix '" + prefix + ".'" + did_you_mean(prefix, prefixes) +
                    " (valid: vmstat., mthp.<size>kB., meminfo., tap., state., success., "
                    "fallback., census.)");
}

// Metric names the selected workloads print; `open` when one of them may print anything.
void workload_metrics(const WorkloadSpec& w, std::vector<std::string>* names, bool* open,
                      bool* tap) {
  const WorkloadInfo* info = find_workload(w.name);
  if (!info) {
    *open = true;
    return;
  }
  for (const auto& m : info->metrics) names->push_back(m.name);
  if (!info->open_metrics) return;
  const std::string output = output_of(w);
  if (output == "tap") *tap = true;
  for (const auto& [name, info2] : w.metrics) names->push_back(name);
  for (const auto& [name, pattern] : w.metric_patterns) names->push_back(name);
  // A foliolab-speaking program without declarations may print any field.
  if (output == "foliolab" && w.metrics.empty()) *open = true;
}

void check_custom(const WorkloadSpec& w, const std::string& path, Problems* out) {
  const int given = !param_value(w, "source", "").empty() + !param_value(w, "program", "").empty() +
                    !param_value(w, "build", "").empty();
  if (given != 1) {
    out->add(w.loc, path + ".params",
             "custom needs exactly one of params.source (C files), params.program (a static "
             "binary) and params.build (a build command)");
  }
  const std::string output = output_of(w);
  if (output == "regex" && w.metric_patterns.empty()) {
    out->add(w.loc, path + ".metrics",
             "output: regex needs metrics: {name: 'pattern with one (capture)'}");
  }
  for (size_t i = 0; i < w.metric_patterns.size(); ++i) {
    const auto& [name, pattern] = w.metric_patterns[i];
    const std::string at = path + ".metrics." + name;
    if (output != "regex") {
      out->add(w.pattern_locs[i], at,
               "a pattern needs params.output: regex (output is " + output + ")");
      continue;
    }
    try {
      const std::regex re(pattern, std::regex::ECMAScript);
      if (re.mark_count() != 1) {
        out->add(w.pattern_locs[i], at,
                 fmt::format("pattern '{}' has {} capture groups; it needs exactly one (use "
                             "(?:...) for the others)",
                             pattern, re.mark_count()));
      }
    } catch (const std::regex_error& e) {
      out->add(w.pattern_locs[i], at, "invalid regular expression '" + pattern + "': " + e.what());
    }
  }
}

void check_workload(const WorkloadSpec& w, size_t index, Problems* out) {
  const std::string path = "workloads[" + std::to_string(index) + "]";
  const WorkloadInfo* info = find_workload(w.name);
  if (!info) {
    const std::vector<std::string> names = workload_names();
    const std::string near = did_you_mean(w.name, names);
    out->add(w.name_loc.line ? w.name_loc : w.loc, path + ".name",
             "unknown workload '" + w.name + "'" +
                 (near.empty() ? " (workloads: " + listing(names) + ")" : near));
    return;
  }
  std::vector<std::string> param_names;
  for (const auto& p : info->params) param_names.push_back(p.name);
  for (size_t i = 0; i < w.params.size(); ++i) {
    const auto& [key, value] = w.params[i];
    const std::string at = path + ".params." + key;
    const ParamInfo* p = info->param(key);
    if (!p) {
      const std::string near = did_you_mean(key, param_names);
      out->add(w.param_key_locs.at(i), at,
               "unknown parameter '" + key + "' of workload '" + w.name + "'" +
                   (near.empty() ? " (parameters: " + listing(param_names) + ")" : near));
      continue;
    }
    if (Result<void> st = check_param_value(*p, value); !st.ok()) {
      out->add(w.param_locs.at(i), at, st.error().message);
    }
  }
  if (is_kselftest(w)) {
    if (auto sel = kselftest_selection(w); !sel.ok()) {
      SourceLoc at = w.loc;
      for (size_t i = 0; i < w.params.size(); ++i) {
        if (w.params[i].first == "tests") at = w.param_locs.at(i);
      }
      out->add(at, path + ".params.tests", sel.error().message);
    }
  }
  if (info->open_metrics) {
    check_custom(w, path, out);
  } else if (!w.metric_patterns.empty() || !w.metrics.empty()) {
    out->add(w.loc, path + ".metrics",
             "workload '" + w.name + "' declares its own metrics (see foliolab workloads " +
                 w.name + "); metrics: is for custom");
  }
}

// The per-program deadlines of kselftest-mm (and thp-swap-allocator's) must fit in the run's:
// otherwise a hung program ends the whole run (the host kills the guest) instead of failing one
// result (or one rep).
void check_kselftest_time(const Experiment& exp, size_t index, Problems* out) {
  const WorkloadSpec& w = exp.workloads[index];
  if (!runs_tree_programs(w)) return;
  auto tests = tree_program_selection(w);
  const auto timeout = parse_int(param_or_default(w, "timeout"));
  if (!tests.ok() || !timeout) return;
  const int64_t need = static_cast<int64_t>(tests->size()) * *timeout * exp.repeat;
  if (need + 120 > exp.timeout_s) {
    out->add(
        exp.timeout_loc.line ? exp.timeout_loc : w.loc, "timeout",
        fmt::format("run timeout {} s is shorter than workloads[{}]'s {} program(s) × {} s × {} "
                    "rep(s) + 120 s to boot = {} s; a hung selftest would end the whole run",
                    exp.timeout_s, index, tests->size(), *timeout, exp.repeat, need + 120));
  }
}

}  // namespace

std::string param_value(const WorkloadSpec& w, std::string_view key, std::string_view def) {
  for (const auto& [k, v] : w.params) {
    if (k == key) return v;
  }
  return std::string(def);
}

std::string param_or_default(const WorkloadSpec& w, std::string_view key) {
  const WorkloadInfo* info = find_workload(w.name);
  const ParamInfo* p = info ? info->param(key) : nullptr;
  return param_value(w, key, p ? std::string_view(p->def) : std::string_view());
}

Result<void> check_metric(const Experiment& exp, const RunSelector& sel,
                          const std::string& metric) {
  std::vector<std::string> names;
  bool open = false, tap = false;
  for (const auto& w : exp.workloads) {
    if (sel.workload.empty() || sel.workload == w.label) workload_metrics(w, &names, &open, &tap);
  }
  if (metric.find('.') != std::string::npos &&
      std::find(names.begin(), names.end(), metric) == names.end()) {
    return check_counter(exp, metric, tap);
  }
  if (open || std::find(names.begin(), names.end(), metric) != names.end()) return {};
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  const std::string near = did_you_mean(metric, names);
  return make_error("no workload of these runs prints '" + metric + "'" +
                    (near.empty() ? " (they print: " + listing(names) +
                                        "; counters: vmstat.<name>, mthp.<size>kB.<stat>, "
                                        "meminfo.<field>)"
                                  : near));
}

namespace {

constexpr std::array<std::string_view, 8> kCounterFamilies = {
    "vmstat.", "mthp.", "meminfo.", "tap.", "state.", "success.", "fallback.", "census."};

// A `thresholds:` entry names a count the experiment's runs can have, or a prefix of some.
Result<void> check_threshold(const Experiment& exp, const ThresholdRule& rule) {
  const std::string& name = rule.metric;
  if (name.ends_with('*')) {
    const std::string prefix = name.substr(0, name.size() - 1);
    std::vector<std::string> names;
    bool open = false, tap = false;
    for (const auto& w : exp.workloads) workload_metrics(w, &names, &open, &tap);
    const auto family = [&](std::string_view f) {
      return f.starts_with(prefix) || std::string_view(prefix).starts_with(f);
    };
    const auto hit = [&](const std::string& n) { return n.starts_with(prefix); };
    if (std::any_of(kCounterFamilies.begin(), kCounterFamilies.end(), family)) return {};
    if (open || std::any_of(names.begin(), names.end(), hit)) return {};
    return make_error("no metric of these runs starts with '" + prefix + "'");
  }
  FL_TRY(check_metric(exp, {}, name));
  MetricDecls declared;
  for (const auto& w : exp.workloads) {
    declared.insert(declared.end(), w.metrics.begin(), w.metrics.end());
  }
  if (metric_info(name, declared).kind == MetricKind::kTiming) {
    return make_error("'" + name +
                      "' is a timing: thresholds are for counts (timings are judged "
                      "by their confidence interval and `compare --min-effect`)");
  }
  return {};
}

// A census is taken at a workload's peak, which the program signals (FL_PEAK in its .def; a
// custom program may, through FOLIOLAB_CENSUS_FD): a built-in one that does not would give none.
void check_census_peak(const Experiment& exp, size_t index, Problems* out) {
  const WorkloadInfo* info = find_workload(exp.workloads[index].name);
  if (!exp.evidence.census || !info || info->open_metrics || !info->peak.empty()) return;
  std::vector<std::string> with_peak;
  for (const WorkloadInfo& w : workload_catalog()) {
    if (!w.peak.empty()) with_peak.push_back(w.name);
  }
  out->add(exp.evidence.census_loc, "evidence.census",
           fmt::format("workload '{}' does not signal its peak, so no census can be taken (those "
                       "that do: {}; a custom program may, docs/evidence.md)",
                       info->name, listing(with_peak)));
}

}  // namespace

Result<void> validate_workloads(const Experiment& exp) {
  Problems out;
  for (size_t i = 0; i < exp.workloads.size(); ++i) {
    check_workload(exp.workloads[i], i, &out);
    check_kselftest_time(exp, i, &out);
    check_census_peak(exp, i, &out);
  }
  for (size_t i = 0; i < exp.expectations.size(); ++i) {
    const Expectation& e = exp.expectations[i];
    if (Result<void> st = check_metric(exp, e.runs, e.metric); !st.ok()) {
      out.add(e.metric_loc.line ? e.metric_loc : e.loc, "expect[" + std::to_string(i) + "].metric",
              st.error().message);
    }
  }
  for (size_t i = 0; i < exp.gate_rules.size(); ++i) {
    const GateRule& g = exp.gate_rules[i];
    if (Result<void> st = check_metric(exp, g.runs, g.metric); !st.ok()) {
      out.add(g.metric_loc.line ? g.metric_loc : g.loc, "gate[" + std::to_string(i) + "].metric",
              st.error().message);
    }
  }
  for (const ThresholdRule& rule : exp.thresholds) {
    if (Result<void> st = check_threshold(exp, rule); !st.ok()) {
      out.add(rule.loc, yaml_key_path("thresholds", rule.metric), st.error().message);
    }
  }
  return out.status();
}

}  // namespace foliolab
