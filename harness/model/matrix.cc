#include "model/matrix.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "util/hash.h"
#include "util/text.h"

namespace foliolab {
namespace {

// Appends fields as "<length>:<bytes>" so that no choice of values can collide.
class Canon {
 public:
  Canon& add(std::string_view field) {
    out_ += std::to_string(field.size());
    out_ += ':';
    out_ += field;
    return *this;
  }
  Canon& add(uint64_t n) { return add(std::to_string(n)); }
  Canon& add_sorted(std::string_view tag, KeyValues pairs) {
    std::sort(pairs.begin(), pairs.end());
    add(tag).add(pairs.size());
    for (const auto& [k, v] : pairs) add(k).add(v);
    return *this;
  }
  const std::string& str() const { return out_; }

 private:
  std::string out_;
};

std::string plural(size_t n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::string params_text(const KeyValues& params) {
  std::string out;
  for (const auto& [k, v] : params) out += (out.empty() ? "" : " ") + k + "=" + v;
  return out.empty() ? "-" : out;
}

// The machine's state (model/machine_state.h), only when given, so that fresh-boot runs keep
// their ids. The monitor observes and is not part of the id.
void add_prepare(Canon& c, const std::vector<PrepareStep>& steps) {
  c.add("prepare").add(steps.size());
  for (const PrepareStep& p : steps) {
    c.add(prepare_kind_name(p.kind)).add(p.method).add(static_cast<uint64_t>(p.order));
    c.add(fmt::format("{}", p.unusable)).add(p.seed).add(p.pin ? "pin" : "").add(p.reserve_mb);
    c.add(p.reclaim_bytes);
    if (is_churn(p)) {  // only then, so that the other steps' ids stay what they were
      c.add(p.churn_mb).add(p.file_kb).add(static_cast<uint64_t>(p.passes));
      c.add(p.background ? "background" : "");
    }
  }
}

void add_state(Canon& c, const Experiment& exp, const Run& run) {
  const MachineSpec& m = exp.machine;
  if (m.swap.enabled()) {
    c.add("swap").add(swap_type_name(m.swap.type)).add(m.swap.size_mb).add(m.swap.compressor);
  }
  if (m.zswap.enabled) c.add("zswap").add(m.zswap.compressor);
  if (exp.state.cgroup.enabled()) {
    c.add("cgroup").add(exp.state.cgroup.limits.size());
    for (const auto& [file, value] : exp.state.cgroup.limits) c.add(file).add(value);
  }
  const std::vector<PrepareStep> steps = run_prepare_steps(exp, run);
  if (!steps.empty()) add_prepare(c, steps);
}

// 1024 -> "1K", 33554432 -> "32M", 1000 -> "1000": a size as the YAML would write it.
std::string size_text(uint64_t bytes) {
  static constexpr std::pair<uint64_t, const char*> kUnits[] = {
      {1ULL << 30, "G"}, {1ULL << 20, "M"}, {1ULL << 10, "K"}};
  for (const auto& [unit, suffix] : kUnits) {
    if (bytes >= unit && bytes % unit == 0) return std::to_string(bytes / unit) + suffix;
  }
  return std::to_string(bytes);
}

std::string prepare_text(const PrepareStep& p) {
  if (p.kind == PrepareStep::Kind::kReclaim) return "reclaim " + size_text(p.reclaim_bytes);
  if (is_churn(p)) {
    std::string out =
        fmt::format("fragment churn {} of {}K files",
                    p.churn_mb ? size_text(p.churn_mb << 20) : "1.5x memory", p.file_kb);
    if (p.passes != 1) out += fmt::format(" {} passes", p.passes);
    if (p.seed != 1) out += fmt::format(" seed {}", p.seed);
    return p.background ? out + ", background" : out;
  }
  std::string out = p.method == "thpscale"
                        ? std::string("fragment thpscale")
                        : fmt::format("fragment order {} unusable {}", p.order, p.unusable);
  if (p.seed != 1) out += fmt::format(" seed {}", p.seed);
  if (p.reserve_mb) out += fmt::format(" reserve {}M", p.reserve_mb);
  if (p.pin) out += " pinned";
  return out;
}

}  // namespace

std::string machine_state_text(const Experiment& exp, const Run& run) {
  std::vector<std::string> parts;
  const MachineSpec& m = exp.machine;
  if (m.swap.enabled()) {
    parts.push_back(fmt::format("swap {} {}M{}", swap_type_name(m.swap.type), m.swap.size_mb,
                                m.swap.compressor.empty() ? "" : " " + m.swap.compressor));
  }
  if (m.zswap.enabled) {
    parts.push_back("zswap" + (m.zswap.compressor.empty() ? "" : " " + m.zswap.compressor));
  }
  if (exp.state.cgroup.enabled()) {
    std::vector<std::string> limits;
    for (const auto& [file, value] : exp.state.cgroup.limits) {
      const bool bytes =
          !value.empty() && value.find_first_not_of("0123456789") == std::string::npos;
      limits.push_back(file + "=" + (bytes ? size_text(std::stoull(value)) : value));
    }
    parts.push_back("cgroup " + join(limits, " "));
  }
  for (const PrepareStep& p : run_prepare_steps(exp, run)) parts.push_back(prepare_text(p));
  return parts.empty() ? "fresh" : join(parts, ", ");
}

std::string run_identity(const Experiment& exp, const Run& run) {
  const KernelSpec& k = exp.kernels[run.kernel];
  const KnobSet& ks = exp.knob_sets[run.knob_set];
  const WorkloadSpec& w = exp.workloads[run.workload];
  const MachineSpec& m = exp.machine;
  Canon c;
  c.add("foliolab-run-v1");
  c.add("kernel").add(k.name).add(k.source).add(k.patches).add(k.cmdline);
  // Only present when used, so that ids of kernels without git stay what they were.
  if (k.source_git) c.add("git-source").add(k.source_ref);
  if (!k.patches_range.empty()) c.add("git-range").add(k.patches_range).add(k.patches_repo);
  if (k.patches_pick) {
    c.add("pick").add(k.patches_pick->size());
    for (size_t i : *k.patches_pick) c.add(static_cast<uint64_t>(i));
  }
  c.add("config").add(k.config.size());
  for (const auto& fragment : k.config) c.add(fragment);
  c.add_sorted("options", k.options);
  c.add("arch").add(arch_info(run.arch).name);
  c.add("machine").add(static_cast<uint64_t>(m.cpus)).add(m.memory_mb).add(m.numa.size());
  for (const auto& node : m.numa) {
    c.add(node.memory_mb).add(node.cpus.size());
    for (int cpu : node.cpus) c.add(static_cast<uint64_t>(cpu));
  }
  c.add("distance").add(m.numa_distance.size());
  for (const auto& row : m.numa_distance) {
    c.add(row.size());
    for (int d : row) c.add(static_cast<uint64_t>(d));
  }
  // Only present when used, so that initramfs runs keep their ids.
  if (!m.image.empty()) c.add("image").add(m.image);
  c.add("knobset").add(ks.name).add(ks.cmdline);
  c.add_sorted("knobs", ks.knobs);
  c.add_sorted("sysctls", ks.sysctls);
  c.add("workload").add(w.name).add(w.label);
  c.add_sorted("params", w.params);
  c.add("repeat").add(static_cast<uint64_t>(exp.repeat));
  // Adaptive repetitions (max, ci) are how a run is done, decided in the guest, not part of the
  // id: `run --repeat-until-ci` must not move a session's runs away from its plan (`report`
  // expands the file without the flag). `repeat` (the minimum) and `warmup` are.
  if (exp.warmup) c.add("warmup").add(static_cast<uint64_t>(exp.warmup));
  add_state(c, exp, run);
  return c.str();
}

bool is_excluded(const Experiment& exp, const Run& run) {
  const std::vector<Arch>& only = exp.kernels[run.kernel].archs;
  if (!only.empty() && std::find(only.begin(), only.end(), run.arch) == only.end()) return true;
  return std::any_of(exp.excludes.begin(), exp.excludes.end(),
                     [&](const RunSelector& sel) { return selector_matches(sel, exp, run); });
}

size_t full_product(const Experiment& exp) {
  return exp.kernels.size() * exp.archs.size() * exp.knob_sets.size() * exp.workloads.size();
}

std::vector<Run> expand(const Experiment& exp) {
  std::vector<Run> runs;
  for (size_t k = 0; k < exp.kernels.size(); ++k) {
    for (Arch arch : exp.archs) {
      for (size_t s = 0; s < exp.knob_sets.size(); ++s) {
        for (size_t w = 0; w < exp.workloads.size(); ++w) {
          Run run{"", k, arch, s, w};
          if (is_excluded(exp, run)) continue;
          const std::string slug =
              slugify(arch_info(arch).name) + "." + slugify(exp.kernels[k].name) + "." +
              slugify(exp.knob_sets[s].name) + "." + slugify(exp.workloads[w].label);
          run.id = slug + "." + sha256_hex(run_identity(exp, run)).substr(0, 8);
          runs.push_back(std::move(run));
        }
      }
    }
  }
  return runs;
}

std::string format_plan(const Experiment& exp, const std::vector<Run>& runs) {
  std::ostringstream out;
  out << exp.name << ": " << plural(exp.kernels.size(), "kernel") << " × "
      << plural(exp.archs.size(), "arch") << " × " << plural(exp.knob_sets.size(), "knob set")
      << " × " << plural(exp.workloads.size(), "workload") << " = " << plural(runs.size(), "run");
  const size_t kept = expand(exp).size();
  const size_t product = full_product(exp);
  if (kept < product) out << " (" << product - kept << " excluded)";
  if (exp.adaptive) {
    out << ", " << exp.repeat << ".." << exp.adaptive->max << " repetitions each (adaptive)\n";
  } else {
    out << ", " << plural(static_cast<size_t>(exp.repeat), "repetition") << " each\n";
  }
  // The machine state column only where some run is not a fresh boot, so plans of fresh
  // experiments read as before.
  const bool stateful = std::any_of(runs.begin(), runs.end(), [&](const Run& run) {
    return machine_state_text(exp, run) != "fresh";
  });
  std::vector<std::string> header = {"RUN ID", "KERNEL", "ARCH", "KNOB SET", "WORKLOAD", "PARAMS"};
  if (stateful) header.insert(header.begin() + 1, "MACHINE STATE");
  std::vector<std::vector<std::string>> rows = {header};
  for (const Run& run : runs) {
    const WorkloadSpec& w = exp.workloads[run.workload];
    rows.push_back({run.id, exp.kernels[run.kernel].name, std::string(arch_info(run.arch).name),
                    exp.knob_sets[run.knob_set].name, w.label, params_text(w.params)});
    if (stateful) rows.back().insert(rows.back().begin() + 1, machine_state_text(exp, run));
  }
  std::vector<size_t> width(header.size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(width[i] - row[i].size() + 2, ' ');
    }
    out << line << "\n";
  }
  return out.str();
}

}  // namespace foliolab
