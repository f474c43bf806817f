#include "analysis/session_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "catalog/metric_catalog.h"
#include "model/loader.h"
#include "model/matrix.h"
#include "results/store.h"
#include "util/text.h"

namespace foliolab {

MetricDecls declared_metrics(const Experiment& exp) {
  MetricDecls out;
  for (const WorkloadSpec& w : exp.workloads) {
    out.insert(out.end(), w.metrics.begin(), w.metrics.end());
    // `metrics: {value: 'value: (\d+)'}`: a pattern alone declares its metric too, with what
    // the catalog knows (or guesses from the name) about it.
    for (const auto& [name, pattern] : w.metric_patterns) {
      const bool described = std::any_of(w.metrics.begin(), w.metrics.end(),
                                         [&](const auto& d) { return d.first == name; });
      if (!described) out.emplace_back(name, metric_info(name));
    }
  }
  return out;
}

namespace {

// A resumed session may hold records of runs the experiment no longer plans (an edited
// exclude:, a filtered arch): they are kept on disk but not reported.
std::vector<RunRecord> planned_records(const Experiment& exp, const std::vector<RunRecord>& all,
                                       size_t* ignored) {
  std::set<std::string> planned;
  for (const auto& run : expand(exp)) planned.insert(run.id);
  std::vector<RunRecord> records;
  for (const RunRecord& r : all) {
    if (planned.count(r.id.run_id)) {
      records.push_back(r);
    } else {
      ++*ignored;
    }
  }
  return records;
}

// Where the guest ran: the libvirt host and its URI for libvirt runs (two URIs may reach one
// machine), else the machine foliolab ran on.
void add_hosts(const std::vector<RunRecord>& records, SessionReport* out) {
  for (const RunRecord& r : records) {
    const Provenance& p = r.provenance;
    const std::string where = p.hypervisor_uri.empty()
                                  ? p.host.hostname
                                  : fmt::format("{} ({})", p.hypervisor_host, p.hypervisor_uri);
    out->runs_by_host[where].push_back(r.id.run_id);
    for (const std::string& lost : p.lost_hosts) {
      out->moved.push_back(
          fmt::format("{}: ran on {} after a host was lost: {}", r.id.run_id, where, lost));
    }
  }
  if (out->runs_by_host.size() < 2) out->runs_by_host.clear();
}

// One step as the report says it: "fragment thpscale ok (order 9: unusable 0.012 -> 0.987,
// 450000 kB freed)", "swap zram ok (262140 kB)", "cgroup ok (memory.max 33554432)".
std::string prepared_text(const PreparedStep& s) {
  auto field = [&](const char* k) { return s.find(k) ? *s.find(k) : std::string("?"); };
  auto index = [&](const char* k) {
    auto n = parse_int(field(k));
    return n ? fmt::format("{:.3f}", *n / 1000.0) : std::string("?");
  };
  std::string text = s.step;
  if (s.find("method")) text += " " + field("method");
  if (s.find("type")) text += " " + field("type");
  text += " " + field("status");
  if (s.step == "fragment" && field("method") == "churn") {
    text += fmt::format(
        " (order {}: unusable {} -> {}, {} files, {} kB written, {} kB cached, slab {} -> {} kB, "
        "{} ms)",
        field("order"), index("unusable_before"), index("unusable_after"), field("files"),
        field("written_kb"), field("cached_kb"), field("slab_kb_before"), field("slab_kb"),
        field("churn_ms"));
  } else if (s.step == "fragment") {
    text += fmt::format(" (order {}: unusable {} -> {}, {} kB freed of {} kB)", field("order"),
                        index("unusable_before"), index("unusable_after"), field("freed_kb"),
                        field("region_kb"));
  } else if (s.step == "swap") {
    text += fmt::format(" ({} kB)", field("swap_total_kb"));
  } else if (s.step == "cgroup") {
    std::vector<std::string> limits;
    for (const auto& [k, v] : s.fields) {
      if (k.starts_with("memory.")) limits.push_back(k + " " + v);
    }
    text += " (" + join(limits, ", ") + ")";
  }
  if (s.find("why")) text += ": " + field("why");
  return text;
}

void add_prepared(const std::vector<RunRecord>& records, SessionReport* out) {
  for (const RunRecord& r : records) {
    if (r.prepared.empty()) continue;
    std::vector<std::string> steps;
    for (const PreparedStep& s : r.prepared) steps.push_back(prepared_text(s));
    out->prepared.push_back(r.id.run_id + ": " + join(steps, "; "));
  }
}

void add_failures(const std::vector<RunRecord>& records, SessionReport* out) {
  for (const RunRecord& r : records) {
    if (r.ok()) continue;
    ++out->runs_failed;
    out->failures.push_back(fmt::format("{}: {} ({}): {}", r.id.run_id, r.status,
                                        failure_class_name(r.failure), r.reason));
  }
}

// One group: a kernel × arch × workload, its variants in knob-set order.
GroupRuns group_runs(const Experiment& exp, const KernelSpec& k, Arch a, const WorkloadSpec& w,
                     const std::vector<RunRecord>& records) {
  GroupRuns g;
  g.kernel = k.name;
  g.arch = arch_info(a).name;
  g.workload = w.label;
  g.title = fmt::format("{} · {} · {}", g.kernel, g.arch, g.workload);
  for (const auto& ks : exp.knob_sets) {
    VariantRuns v{ks.name, {}, ""};
    for (const RunRecord& r : records) {
      if (r.ok() && r.id.kernel.name == k.name && r.id.arch == g.arch &&
          r.id.workload.label == w.label && r.id.knob_set.name == ks.name) {
        v.runs.push_back(&r);
      }
    }
    if (!v.runs.empty()) g.variants.push_back(std::move(v));
  }
  if (g.variants.size() == 1) g.knobs = g.variants[0].label;
  return g;
}

}  // namespace

SessionReport build_session_report(const Experiment& exp, const std::vector<RunRecord>& all,
                                   const CompareOptions& given) {
  SessionReport out;
  CompareOptions options = given;
  const MetricDecls declared = declared_metrics(exp);
  options.declared.insert(options.declared.end(), declared.begin(), declared.end());
  options.thresholds.insert(options.thresholds.end(), exp.thresholds.begin(), exp.thresholds.end());
  out.model.kind = "report";
  const std::vector<RunRecord> records = planned_records(exp, all, &out.ignored);
  add_hosts(records, &out);
  add_failures(records, &out);
  add_prepared(records, &out);
  out.tests = collect_test_results(records);
  // Groups in experiment order: kernels × archs × workloads.
  for (const auto& k : exp.kernels) {
    for (Arch a : exp.archs) {
      for (const auto& w : exp.workloads) {
        const GroupRuns g = group_runs(exp, k, a, w, records);
        if (!g.variants.empty()) out.model.groups.push_back(compare_group(g, options));
      }
    }
  }
  if (!exp.expectations.empty()) {
    out.expectations = evaluate_expectations(exp, records);
    for (const ExpectationResult& r : out.expectations) {
      ++(r.held ? out.expectations_held : out.expectations_failed);
    }
  }
  return out;
}

}  // namespace foliolab

namespace foliolab {

Result<SessionReport> load_session_report(const std::filesystem::path& session_dir) {
  auto store = ResultStore::open(session_dir);
  if (!store.ok()) return store.error();
  auto exp = load_experiment((store->dir() / "experiment.yaml").string());
  if (!exp.ok()) return exp.error();
  auto records = store->load_all();
  if (!records.ok()) return records.error();
  // Report what the session planned (a run with --arch planned only some archs).
  if (auto planned = store->planned_archs(); !planned.empty()) {
    std::vector<Arch> archs;
    for (Arch a : exp->archs) {
      if (std::find(planned.begin(), planned.end(), arch_info(a).name) != planned.end()) {
        archs.push_back(a);
      }
    }
    exp->archs = archs;
  }
  SessionReport report = build_session_report(*exp, *records);
  report.model.title = fmt::format("{} {}", exp->name, store->dir().filename().string());
  return report;
}

}  // namespace foliolab
