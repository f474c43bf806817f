#include "catalog/plan_limits.h"

#include <unistd.h>

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "catalog/repeat_plan.h"
#include "model/matrix.h"
#include "model/problems.h"

namespace foliolab {
namespace {

constexpr std::string_view kStamp = "20261130T120000Z";  // a session folder's name

std::string duration(uint64_t s) {
  if (s >= 86400) return fmt::format("{}d {}h", s / 86400, s % 86400 / 3600);
  if (s >= 3600) return fmt::format("{}h {}m", s / 3600, s % 3600 / 60);
  if (s >= 60) return fmt::format("{}m {}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

void check_memory(const Experiment& exp, const HostFacts& host, Problems* out) {
  if (!host.mem_total_mb) return;
  const uint64_t want = exp.machine.memory_mb;
  if (want <= *host.mem_total_mb) return;
  // QEMU preallocates guest RAM (stable TCG timings): a guest larger than the host cannot boot.
  out->add(
      exp.machine.memory_loc, exp.machine.numa.empty() ? "machine.memory" : "machine.numa",
      fmt::format("the guest needs {} MiB{} but this host has {} MiB (MemTotal)", want,
                  exp.machine.numa.empty() ? "" : " (sum of the NUMA nodes)", *host.mem_total_mb));
}

void check_paths(const Experiment& exp, const std::vector<Run>& runs,
                 const std::string& results_root, Problems* out) {
  if (exp.name.size() > kNameMax) {
    out->add(exp.name_loc, "name",
             fmt::format("name of {} characters: results go to <results>/<name>/, and a path "
                         "component holds at most {} (NAME_MAX)",
                         exp.name.size(), kNameMax));
    return;
  }
  for (const Run& run : runs) {
    const WorkloadSpec& w = exp.workloads[run.workload];
    const std::string path =
        fmt::format("{}/{}/{}/runs/{}/console.log", results_root, exp.name, kStamp, run.id);
    if (run.id.size() > kNameMax) {
      out->add(w.loc, "workloads",
               fmt::format("run id '{}...' has {} characters, more than NAME_MAX ({}); shorten "
                           "the kernel, knob set or workload label names",
                           run.id.substr(0, 40), run.id.size(), kNameMax));
      return;
    }
    if (path.size() >= kPathMax) {
      out->add(exp.name_loc, "name",
               fmt::format("result paths would have {} characters, PATH_MAX is {}", path.size(),
                           kPathMax));
      return;
    }
  }
}

}  // namespace

std::optional<uint64_t> parse_mem_total_mb(const std::string& text) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("MemTotal:")) continue;
    std::istringstream fields(line.substr(9));
    uint64_t kb = 0;
    std::string unit;
    if (!(fields >> kb >> unit) || unit != "kB") return std::nullopt;
    return kb / 1024;
  }
  return std::nullopt;
}

HostFacts read_host_facts(const std::string& meminfo_path, const std::string& tracefs) {
  HostFacts facts;
  for (const char* f : kTracefsFiles) {
    if (::access((tracefs + "/" + f).c_str(), R_OK) != 0) facts.tracefs_missing.emplace_back(f);
  }
  std::ifstream in(meminfo_path);
  if (!in) return facts;
  std::ostringstream text;
  text << in.rdbuf();
  facts.mem_total_mb = parse_mem_total_mb(text.str());
  return facts;
}

Result<void> check_plan_limits(const Experiment& exp, const HostFacts& host,
                               const std::string& results_root) {
  Problems out;
  check_memory(exp, host, &out);
  const int most = exp.adaptive ? exp.adaptive->max : exp.repeat;
  if (exp.repeat > kMaxRepeat) {
    out.add(exp.repeat_loc, "repeat",
            fmt::format("at most {} repetitions per run, got {}", kMaxRepeat, exp.repeat));
  } else if (exp.warmup + most > kMaxRepeat) {
    out.add(exp.repeat_loc, "repeat",
            fmt::format("at most {} repetitions per run, got {} plus {} warm-up", kMaxRepeat, most,
                        exp.warmup));
  }
  if (exp.timeout_s > kMaxTimeoutS) {
    out.add(exp.timeout_loc, "timeout",
            fmt::format("at most {} seconds (7 days) per guest boot, got {}", kMaxTimeoutS,
                        exp.timeout_s));
  }
  const std::vector<Run> runs = expand(exp);
  if (runs.empty()) {
    const SourceLoc at = exp.excludes.empty() ? SourceLoc{exp.file, 1, 1} : exp.excludes[0].loc;
    out.add(
        at, exp.excludes.empty() ? "kernels" : "exclude",
        fmt::format("no runs left: the {} runs of the matrix are all excluded", full_product(exp)));
  }
  check_paths(exp, runs, results_root, &out);
  return out.status();
}

std::string format_time_estimate(const Experiment& exp, const std::vector<Run>& runs) {
  const uint64_t bound = static_cast<uint64_t>(runs.size()) * static_cast<uint64_t>(exp.timeout_s);
  const std::string reps = exp.adaptive ? fmt::format("{}..{}", exp.repeat, exp.adaptive->max)
                                        : std::to_string(exp.repeat);
  return fmt::format(
             "time: at most {} ({} run{} × {} s timeout, {} repetitions each), plus the builds "
             "below\n",
             duration(bound), runs.size(), runs.size() == 1 ? "" : "s", exp.timeout_s, reps) +
         format_repeat_plan(exp, runs);
}

}  // namespace foliolab
