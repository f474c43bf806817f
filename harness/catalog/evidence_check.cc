#include "catalog/evidence_check.h"

#include <fmt/format.h>

#include <system_error>

#include "catalog/validate.h"
#include "kernel/source.h"
#include "util/text.h"

namespace foliolab {
namespace fs = std::filesystem;
namespace {

template <class Map>
std::vector<std::string> keys_of(const Map& m) {
  std::vector<std::string> out;
  for (const auto& [k, _] : m) out.push_back(k);
  return out;
}

// One event of one kernel's table: "" when fine or not knowable, else the problem.
std::string event_problem(const EventCount& ev, const TraceEventTable& table) {
  auto sys = table.find(ev.system);
  if (sys == table.end()) {
    const std::string near = did_you_mean(ev.system, keys_of(table));
    return near.empty()
               ? ""
               : fmt::format("no tracepoint system '{}' in the kernel tree{}", ev.system, near);
  }
  if (ev.event == "*") return "";
  auto e = sys->second.events.find(ev.event);
  if (e == sys->second.events.end()) {
    if (sys->second.partial) return "";
    return fmt::format("no event '{}' in tracepoint system '{}'{}", ev.event, ev.system,
                       did_you_mean(ev.event, keys_of(sys->second.events)));
  }
  if (ev.by.empty() || is_common_trace_field(ev.by) || e->second.empty() ||
      e->second.contains(ev.by)) {
    return "";
  }
  const std::vector<std::string> fields(e->second.begin(), e->second.end());
  return fmt::format("event {} has no field '{}'{} (its fields: {})", ev.name(), ev.by,
                     did_you_mean(ev.by, fields), join(fields, ", "));
}

}  // namespace

Result<void> check_evidence(const Experiment& exp, const std::vector<TraceEventTable>& tables,
                            const HostFacts& host) {
  const EvidenceSpec& e = exp.evidence;
  if (!e.enabled()) return {};
  std::string problems;
  auto fail = [&](const SourceLoc& at, const std::string& path, const std::string& what) {
    problems += fmt::format("{}{}: {}: {}", problems.empty() ? "" : "\n", at.str(), path, what);
  };
  for (size_t i = 0; i < e.events.size(); ++i) {
    for (size_t k = 0; k < tables.size() && k < exp.kernels.size(); ++k) {
      const std::string why = event_problem(e.events[i], tables[k]);
      if (why.empty()) continue;
      fail(e.events[i].loc, fmt::format("evidence.events[{}]", i),
           fmt::format("{} (kernel {})", why, exp.kernels[k].name));
      break;
    }
  }
  if (exp.machine.backend == "host" && !host.tracefs_missing.empty()) {
    fail(exp.machine.backend_loc.line ? exp.machine.backend_loc : e.loc, "evidence",
         fmt::format("backend host counts kernel events on this machine's own kernel, whose "
                     "tracefs (/sys/kernel/tracing) lacks {}: refused (the kernel needs "
                     "CONFIG_FTRACE, KPROBE_EVENTS, HIST_TRIGGERS, FUNCTION_PROFILER and "
                     "DYNAMIC_FTRACE, and tracefs mounted and readable)",
                     join(host.tracefs_missing, ", ")));
  }
  return problems.empty() ? Result<void>() : make_error(problems);
}

fs::path readable_tree(const Experiment& exp, const KernelSpec& kernel, const fs::path& cache) {
  std::error_code ec;
  if (kernel.source_git && !kernel.source_ref.empty()) return {};  // a ref: not checked out
  const fs::path source = resolve_source(exp, kernel);
  if (!source.empty()) return fs::is_directory(source, ec) ? source : fs::path();
  // Debian's tarball, unpacked by an earlier build: <cache>/src/<stem>-<digest>/pristine.
  std::string stem = debian_source_tarball().filename().string();
  stem = stem.substr(0, stem.find(".tar"));
  for (fs::directory_iterator it(cache / "src", ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path pristine = it->path() / "pristine";
    if (it->path().filename().string().starts_with(stem + "-") &&
        fs::is_directory(pristine / "include" / "trace" / "events", ec)) {
      return pristine;
    }
  }
  return {};
}

Result<void> validate_evidence(const Experiment& exp, const HostFacts& host,
                               const fs::path& cache) {
  if (!exp.evidence.enabled()) return {};
  std::vector<TraceEventTable> tables;
  for (const KernelSpec& k : exp.kernels) {
    const fs::path tree = readable_tree(exp, k, cache);
    tables.push_back(tree.empty() ? TraceEventTable() : read_trace_events(tree));
  }
  return check_evidence(exp, tables, host);
}

}  // namespace foliolab
