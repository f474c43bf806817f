#include "analysis/report.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

#include "analysis/expectations.h"
#include "analysis/stats.h"
#include "analysis/table.h"
#include "model/matrix.h"
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
  for (const char* prefix : {"vmstat.thp_", "vmstat.mthp_", "vmstat.pgfault", "vmstat.nr_anon_transparent",
                             "mthp.", "meminfo.AnonHugePages", "meminfo.ShmemHugePages"}) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

// Counters read better transposed: a row per counter, a column per knob set (mean per rep,
// "± sd" only when reps differ), then the ratio of each later knob set to the first.
std::string format_counter_table(const std::string& title, const std::vector<Variant>& variants,
                                 const std::vector<std::string>& counters) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"counter (delta/rep)"};
  for (const auto& v : variants) header.push_back(v.label);
  for (size_t i = 1; i < variants.size(); ++i) header.push_back(variants[i].label + " / " + variants[0].label);
  rows.push_back(header);
  auto mean_of = [](const std::vector<double>& xs) {
    double sum = 0;
    for (double x : xs) sum += x;
    return xs.empty() ? 0.0 : sum / static_cast<double>(xs.size());
  };
  for (const auto& c : counters) {
    std::vector<std::string> row = {c};
    std::vector<double> means;
    for (const auto& v : variants) {
      auto it = v.samples.find(c);
      if (it == v.samples.end() || it->second.empty()) {
        row.push_back("-");
        means.push_back(0);
        continue;
      }
      const Summary s = summarize(it->second);
      const double m = mean_of(it->second);
      means.push_back(m);
      row.push_back(std::isnan(s.stddev) || s.stddev == 0 ? format_number(m, m == std::floor(m) ? 0 : 1)
                                                          : format_number(m, 1) + " ± " + format_number(s.stddev, 1));
    }
    for (size_t i = 1; i < variants.size(); ++i) row.push_back(means[0] == 0 ? "-" : format_ratio(means[i] / means[0]));
    rows.push_back(row);
  }
  std::vector<size_t> width(header.size(), 0);
  auto display_width = [](const std::string& s) {
    size_t n = 0;
    for (unsigned char ch : s) n += (ch & 0xC0) != 0x80;
    return n;
  };
  for (const auto& r : rows) {
    for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], display_width(r[i]));
  }
  std::string out = title + "\n";
  for (const auto& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i) {
      const std::string pad(width[i] - display_width(r[i]), ' ');
      line += (i == 0 ? r[i] + pad : pad + r[i]) + (i + 1 < r.size() ? "  " : "");
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace

std::vector<std::string> headline_metrics(const std::string& workload) {
  if (workload == "fault") return {"user_s", "sys_s", "faults_per_sec_per_cpu", "faults_per_sec", "faults"};
  return {};
}

SessionReport build_session_report(const Experiment& exp, const std::vector<json>& all_records) {
  SessionReport out;
  // A resumed session may hold records of runs the experiment no longer plans (an edited
  // exclude:, a filtered arch): they are kept on disk but not reported.
  std::set<std::string> planned;
  for (const auto& run : expand(exp)) planned.insert(run.id);
  std::vector<json> records;
  size_t ignored = 0;
  for (const auto& r : all_records) {
    if (planned.count(r.value("run_id", ""))) {
      records.push_back(r);
    } else {
      ++ignored;
    }
  }
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
      out.text += format_counter_table(title + " · kernel counters", g.variants, cols) + "\n";
    }
  }
  if (!exp.expectations.empty()) {
    out.text += "expectations:\n";
    for (const ExpectationResult& r : evaluate_expectations(exp, records)) {
      ++(r.held ? out.expectations_held : out.expectations_failed);
      out.text += (r.held ? "  held: " : "  NOT HELD: ") + r.name + "\n";
      for (const auto& line : r.details) out.text += "      " + line + "\n";
    }
    out.text += "\n";
  }
  if (!failures.empty()) out.text += "failed runs:\n" + failures;
  if (ignored > 0) {
    out.text += fmt::format("({} stored run(s) not in the current plan were left out)\n", ignored);
  }
  return out;
}

}  // namespace foliolab
