#include "analysis/report.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <sstream>

#include "report/render_comparison.h"
#include "model/matrix.h"

namespace foliolab {

MetricDecls declared_metrics(const Experiment& exp) {
  MetricDecls out;
  for (const WorkloadSpec& w : exp.workloads) out.insert(out.end(), w.metrics.begin(), w.metrics.end());
  return out;
}

std::vector<std::string> SessionReport::extra_lines() const {
  std::vector<std::string> lines = test_result_lines(tests);
  if (!expectations.empty()) {
    lines.push_back("expectations:");
    for (const ExpectationResult& r : expectations) {
      lines.push_back((r.held ? "  held: " : "  NOT HELD: ") + r.name);
      for (const auto& d : r.details) lines.push_back("      " + d);
    }
    lines.push_back("");
  }
  if (!failures.empty()) {
    lines.push_back("failed runs:");
    for (const auto& f : failures) lines.push_back("  " + f);
  }
  if (!runs_by_host.empty()) {
    lines.push_back("runs per host:");
    for (const auto& [host, ids] : runs_by_host) {
      lines.push_back(fmt::format("  {} ({} run{}):", host.empty() ? "(unknown)" : host, ids.size(),
                                  ids.size() == 1 ? "" : "s"));
      for (const auto& id : ids) lines.push_back("    " + id);
    }
  }
  if (!moved.empty()) {
    lines.push_back("runs moved off a lost host:");
    for (const auto& m : moved) lines.push_back("  " + m);
  }
  if (ignored > 0) {
    lines.push_back(fmt::format("({} stored run(s) not in the current plan were left out)", ignored));
  }
  return lines;
}

std::string SessionReport::text() const {
  std::ostringstream out;
  render_comparison(model, Format::kText, out, extra_lines());
  return out.str();
}

SessionReport build_session_report(const Experiment& exp, const std::vector<RunRecord>& all,
                                   const CompareOptions& given) {
  SessionReport out;
  CompareOptions options = given;
  const MetricDecls declared = declared_metrics(exp);
  options.declared.insert(options.declared.end(), declared.begin(), declared.end());
  out.model.kind = "report";
  // A resumed session may hold records of runs the experiment no longer plans (an edited
  // exclude:, a filtered arch): they are kept on disk but not reported.
  const std::vector<Run> plan = expand(exp);
  std::set<std::string> planned;
  for (const auto& run : plan) planned.insert(run.id);
  std::vector<RunRecord> records;
  for (const RunRecord& r : all) {
    if (planned.count(r.id.run_id)) {
      records.push_back(r);
    } else {
      ++out.ignored;
    }
  }
  // Where the guest ran: the libvirt host and its URI for libvirt runs (two URIs may reach one
  // machine), else the machine foliolab ran on.
  for (const RunRecord& r : records) {
    const Provenance& p = r.provenance;
    const std::string where = p.hypervisor_uri.empty() ? p.host.hostname
                                                       : fmt::format("{} ({})", p.hypervisor_host, p.hypervisor_uri);
    out.runs_by_host[where].push_back(r.id.run_id);
    for (const std::string& lost : p.lost_hosts) {
      out.moved.push_back(fmt::format("{}: ran on {} after a host was lost: {}", r.id.run_id, where, lost));
    }
  }
  if (out.runs_by_host.size() < 2) out.runs_by_host.clear();
  for (const RunRecord& r : records) {
    if (r.ok()) continue;
    ++out.runs_failed;
    out.failures.push_back(fmt::format("{}: {} ({}): {}", r.id.run_id, r.status,
                                       failure_class_name(r.failure), r.reason));
  }
  out.tests = collect_test_results(records);
  // Groups in experiment order: kernels × archs × workloads; variants in knob-set order.
  for (const auto& k : exp.kernels) {
    for (Arch a : exp.archs) {
      for (const auto& w : exp.workloads) {
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
        if (g.variants.empty()) continue;
        if (g.variants.size() == 1) g.knobs = g.variants[0].label;
        out.model.groups.push_back(compare_group(g, options));
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
