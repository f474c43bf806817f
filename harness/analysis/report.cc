#include "analysis/report.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "analysis/table.h"
#include "guest/run_report.h"

namespace foliolab {
using json = nlohmann::json;

namespace {

struct Group {
  std::string kernel, arch, workload;
  bool emulated = false;
  std::vector<Variant> variants;  // knob-set order
};

bool interesting_counter(const std::string& name) {
  for (const char* prefix : {"vmstat.thp_", "vmstat.mthp_", "vmstat.pgfault", "mthp."}) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> headline_metrics(const std::string& workload) {
  if (workload == "fault") return {"user_s", "sys_s", "faults_per_sec_per_cpu", "faults_per_sec", "faults"};
  return {};
}

SessionReport build_session_report(const Experiment& exp, const std::vector<json>& records) {
  SessionReport out;
  std::map<std::tuple<std::string, std::string, std::string>, Group> groups;
  std::vector<std::tuple<std::string, std::string, std::string>> order;
  std::map<std::string, const json*> by_id;
  for (const auto& r : records) by_id[r.value("run_id", "")] = &r;
  std::string failures;
  // Walk kernels x archs x workloads x knob sets in experiment order.
  for (const auto& k : exp.kernels) {
    for (Arch a : exp.archs) {
      for (const auto& w : exp.workloads) {
        auto key = std::make_tuple(k.name, std::string(arch_info(a).name), w.label);
        Group& g = groups[key];
        g.kernel = k.name;
        g.arch = arch_info(a).name;
        g.workload = w.label;
        order.push_back(key);
      }
    }
  }
  for (const auto& r : records) {
    auto key = std::make_tuple(r["kernel_spec"].value("name", ""), r.value("arch", ""),
                               r["workload"].value("label", ""));
    auto it = groups.find(key);
    if (it == groups.end()) continue;
    if (r.value("status", "") != "ok") {
      ++out.runs_failed;
      failures += fmt::format("  {}: {}: {}\n", r.value("run_id", ""), r.value("status", ""), r.value("reason", ""));
      continue;
    }
    auto rep = run_report_from_json(r["report"]);
    if (!rep.ok()) {
      ++out.runs_failed;
      failures += fmt::format("  {}: unreadable report: {}\n", r.value("run_id", ""), rep.error().message);
      continue;
    }
    Group& g = it->second;
    g.emulated = g.emulated || r["provenance"].value("timings_emulated", false);
    Variant v;
    v.label = r["knob_set"].value("name", "");
    for (const auto& rr : rep->reps) {
      for (const auto& [name, value] : rr.metrics) v.samples[name].push_back(value);
      for (const auto& [name, delta] : rr.deltas) {
        if (interesting_counter(name)) v.samples[name].push_back(static_cast<double>(delta));
      }
    }
    // Keep knob-set order of the experiment.
    size_t pos = 0;
    for (const auto& ks : exp.knob_sets) {
      if (ks.name == v.label) break;
      for (const auto& existing : g.variants) pos += existing.label == ks.name ? 1 : 0;
    }
    g.variants.insert(g.variants.begin() + static_cast<long>(std::min(pos, g.variants.size())), std::move(v));
  }
  for (const auto& key : order) {
    const Group& g = groups[key];
    if (g.variants.empty()) continue;
    std::vector<std::string> metrics = headline_metrics(g.workload);
    if (metrics.empty()) {
      for (const auto& [name, _] : g.variants.front().samples) {
        if (!interesting_counter(name)) metrics.push_back(name);
      }
    }
    std::set<std::string> counters;
    for (const auto& v : g.variants) {
      for (const auto& [name, values] : v.samples) {
        if (!interesting_counter(name)) continue;
        for (double x : values) {
          if (x != 0) counters.insert(name);
        }
      }
    }
    TableOptions opt;
    opt.emulated = g.emulated;
    const std::string title = fmt::format("{} · {} · {}", g.kernel, g.arch, g.workload);
    out.text += format_table(title, g.variants, metrics, opt) + "\n";
    if (!counters.empty()) {
      std::vector<std::string> cols(counters.begin(), counters.end());
      TableOptions copt;
      out.text += format_table(title + " · kernel counters (delta per rep)", g.variants, cols, copt) + "\n";
    }
  }
  if (!failures.empty()) out.text += "failed runs:\n" + failures;
  return out;
}

}  // namespace foliolab
