#include "protocol/job.h"

#include <fmt/format.h>

#include "catalog/repeat_plan.h"
#include "catalog/workload_catalog.h"
#include "image/custom_workload.h"
#include "protocol/output_adapter.h"

namespace foliolab {
namespace {

bool line_safe(const std::string& v) {
  return v.find_first_of(std::string("\t\n\r\0", 4)) == std::string::npos;
}

// A custom workload's setup commands (issue 20): `setup <n> <token>`, one line per token.
template <class Line>
void setup_lines(const WorkloadSpec& wl, Line& line) {
  for (size_t n = 0; n < wl.setup.size(); ++n) {
    for (const std::string& tok : wl.setup[n]) line("setup", std::to_string(n), tok);
  }
}

// The params that tell the host how to make and read a custom program, not the program.
bool host_only(const std::string& key) {
  return key == "source" || key == "program" || key == "output" || key == "build" || key == "setup";
}

// The machine's state (model/machine_state.h): swap, zswap, the workload's cgroup, the prepare
// steps in order, the monitor (docs/guest-protocol.md "Job file").
template <class Line>
void state_lines(const Experiment& exp, const Run& run, Line& line) {
  const SwapSpec& swap = exp.machine.swap;
  const std::string dash = "-";
  if (swap.type == SwapSpec::Type::kZram) {
    line(
        "swap", "zram",
        fmt::format("{} {}", swap.size_mb << 20, swap.compressor.empty() ? dash : swap.compressor));
  } else if (swap.type == SwapSpec::Type::kDisk) {
    line("swap", "disk", fmt::format("{} {}", swap.size_mb << 20, kSwapDiskSerial));
  }
  if (exp.machine.zswap.enabled) {
    line("zswap", exp.machine.zswap.compressor.empty() ? dash : exp.machine.zswap.compressor);
  }
  for (const auto& [file, value] : exp.state.cgroup.limits) line("cgroup", file, value);
  for (const PrepareStep& p : run_prepare_steps(exp, run)) {
    if (p.kind == PrepareStep::Kind::kReclaim) {
      line("prepare", "reclaim", std::to_string(p.reclaim_bytes));
      continue;
    }
    std::string fields = fmt::format("{} {} {} {} {} {}", p.method, p.order, p.unusable, p.seed,
                                     p.pin ? 1 : 0, p.reserve_mb << 20);
    if (is_churn(p)) {
      fields += fmt::format(" {} {} {} {}", churn_bytes(p, exp.machine.memory_mb), p.file_kb << 10,
                            p.passes, p.background ? 1 : 0);
    }
    line("prepare", "fragment", fields);
  }
  if (!exp.state.monitor.enabled()) return;
  line("monitor", std::to_string(exp.state.monitor.period_ms));
  for (const std::string& c : exp.state.monitor.counters) line("monitor_counter", c);
}

// `evidence:` (model/evidence.h): what the agent counts during each rep.
template <class Line>
void evidence_lines(const EvidenceSpec& e, Line& line) {
  for (const EventCount& ev : e.events) {
    if (ev.by.empty()) {
      line("event", ev.name());
    } else {
      line("event", ev.name(), ev.by);
    }
  }
  for (const KprobeCount& k : e.kprobes) line("kprobe", k.function);
  if (e.profile_top > 0) line("function_profile", std::to_string(e.profile_top));
}

}  // namespace

Result<std::string> render_job(const Experiment& exp, const Run& run) {
  const KnobSet& ks = exp.knob_sets.at(run.knob_set);
  const WorkloadSpec& wl = exp.workloads.at(run.workload);
  std::string out = std::string(kJobMagic) + "\n";
  std::string bad;
  auto line = [&](const std::string& key, const std::string& a, const std::string& b = "") {
    if (!line_safe(a) || !line_safe(b) || (!b.empty() && a.find(' ') != std::string::npos))
      bad = key + " " + a;
    out += b.empty() ? fmt::format("{} {}\n", key, a) : fmt::format("{} {} {}\n", key, a, b);
  };
  line("run_id", run.id);
  line("repeat", std::to_string(exp.repeat));
  const RepeatPlan reps = repeat_plan(exp, run);
  if (reps.adaptive()) {
    line("repeat_max", std::to_string(reps.max));
    line("repeat_ci", fmt::format("{}", *reps.ci));
    for (const std::string& m : reps.metrics) line("repeat_metric", m);
  }
  if (reps.warmup > 0) line("warmup", std::to_string(reps.warmup));
  for (const auto& [path, value] : ks.knobs) line("knob", path, value);
  for (const auto& [path, value] : ks.sysctls) line("sysctl", path, value);
  // machine.image: the root disk is the guest's first virtio-blk device (backend/qemu_args.h).
  if (!exp.machine.image.empty()) line("rootfs", "/dev/vda");
  state_lines(exp, run, line);
  evidence_lines(exp.evidence, line);
  if (exp.evidence.census) line("census", "1");  // docs/evidence.md "Folio census"
  line("workload", wl.name);
  if (is_custom(wl)) line("exec", kCustomGuestPath);
  // A TAP program exits non-zero when a test failed: a result the host reads, not the end.
  if (output_adapter_for(wl).format == OutputFormat::kTap) line("nonzero_exit_ok", "1");
  const WorkloadInfo* info = find_workload(wl.name);
  for (const auto& [key, value] : wl.params) {
    // The host's own keys: which program, and how its output is read.
    if (is_custom(wl) && host_only(key)) continue;
    const ParamInfo* p = info ? info->param(key) : nullptr;
    // Booleans reach programs as 1 or 0 whatever the YAML spelled (true, yes, on, ...).
    const bool is_bool = p && p->type == ParamType::kBool;
    const std::string v =
        is_bool ? (parse_workload_bool(value).value_or(false) ? "1" : "0") : value;
    if (is_custom(wl) && key == "args") {
      for (const auto& tok : split_args(value)) line("argv", tok);
    } else if (key == "prctl_thp_disable") {
      line("prctl_thp_disable", v);
    } else {
      line("arg", key, v);
    }
  }
  if (is_custom(wl)) setup_lines(wl, line);
  if (!bad.empty())
    return make_error(fmt::format("run {}: value not allowed in a job line: {}", run.id, bad));
  return out;
}

Result<std::string> render_setup_job(const std::string& run_id,
                                     const std::vector<std::vector<std::string>>& commands) {
  std::string out = std::string(kJobMagic) + "\n";
  auto line = [&](const std::string& text) -> Result<void> {
    if (!line_safe(text))
      return make_error(fmt::format("run {}: value not allowed in a job line: {}", run_id, text));
    out += text + "\n";
    return {};
  };
  FL_TRY(line("run_id " + run_id));
  FL_TRY(line("rootfs /dev/vda"));
  for (size_t n = 0; n < commands.size(); ++n) {
    for (const std::string& tok : commands[n]) FL_TRY(line(fmt::format("setup {} {}", n, tok)));
  }
  return out;
}

}  // namespace foliolab
