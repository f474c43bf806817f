#include "guest/job.h"

#include <fmt/format.h>

#include "image/custom_workload.h"

namespace foliolab {
namespace {

bool line_safe(const std::string& v) { return v.find_first_of(std::string("\t\n\r\0", 4)) == std::string::npos; }

bool truthy(const std::string& v) { return v == "1" || v == "true" || v == "yes" || v == "on"; }

}  // namespace

Result<std::string> render_job(const Experiment& exp, const Run& run) {
  const KnobSet& ks = exp.knob_sets.at(run.knob_set);
  const WorkloadSpec& wl = exp.workloads.at(run.workload);
  std::string out = std::string(kJobMagic) + "\n";
  std::string bad;
  auto line = [&](const std::string& key, const std::string& a, const std::string& b = "") {
    if (!line_safe(a) || !line_safe(b) || (!b.empty() && a.find(' ') != std::string::npos)) bad = key + " " + a;
    out += b.empty() ? fmt::format("{} {}\n", key, a) : fmt::format("{} {} {}\n", key, a, b);
  };
  line("run_id", run.id);
  line("repeat", std::to_string(exp.repeat));
  for (const auto& [path, value] : ks.knobs) line("knob", path, value);
  for (const auto& [path, value] : ks.sysctls) line("sysctl", path, value);
  line("workload", wl.name);
  if (is_custom(wl)) line("exec", kCustomGuestPath);
  for (const auto& [key, value] : wl.params) {
    if (is_custom(wl) && (key == "source" || key == "program")) continue;
    if (is_custom(wl) && key == "args") {
      for (const auto& tok : split_args(value)) line("argv", tok);
    } else if (key == "prctl_thp_disable") {
      line("prctl_thp_disable", truthy(value) ? "1" : "0");
    } else {
      line("arg", key, value);
    }
  }
  if (!bad.empty()) return make_error(fmt::format("run {}: value not allowed in a job line: {}", run.id, bad));
  return out;
}

}  // namespace foliolab
