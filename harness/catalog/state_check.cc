#include "catalog/state_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "catalog/page_size.h"
#include "catalog/workload_catalog.h"
#include "catalog/workload_check.h"

namespace foliolab {
namespace {

// Workloads that create and enter their own memory cgroup (workloads/cgroup.h): under `cgroup:`
// they would leave the experiment's.
const std::set<std::string> kOwnCgroup = {"memcg-stress", "kbuild"};

void add(std::vector<std::string>* problems, const SourceLoc& at, const std::string& key,
         const std::string& message) {
  problems->push_back(fmt::format("{}: {}: {}", at.str(), key, message));
}

void check_backend(const Experiment& exp, std::vector<std::string>* problems) {
  const MachineSpec& m = exp.machine;
  if (m.backend == "qemu") return;
  const std::string why = m.backend == "host"
                              ? "the host backend runs on this machine's own memory and swap"
                              : "backend " + m.backend + " cannot attach a swap disk yet";
  if (m.swap.enabled()) add(problems, m.swap.loc, "machine.swap", why + "; use backend qemu");
  if (m.zswap.enabled) add(problems, m.zswap.loc, "machine.zswap", why + "; use backend qemu");
  if (exp.state.cgroup.enabled()) add(problems, exp.state.cgroup.loc, "cgroup", why);
  for (size_t i = 0; i < exp.state.prepare.size(); ++i) {
    add(problems, exp.state.prepare[i].loc, fmt::format("prepare[{}]", i), why);
  }
  for (const KnobSet& ks : exp.knob_sets) {
    for (size_t i = 0; i < ks.prepare.size(); ++i) {
      add(problems, ks.prepare[i].loc, fmt::format("knobs.{}.prepare[{}]", ks.name, i), why);
    }
  }
}

// The lower of the experiment cgroup's memory.max and memory.high, in bytes (none: no limit).
std::optional<uint64_t> cgroup_limit(const CgroupSpec& cg) {
  std::optional<uint64_t> out;
  for (const auto& [file, value] : cg.limits) {
    if (file != "memory.max" && file != "memory.high") continue;
    const auto bytes = parse_workload_size(value);
    if (bytes && (!out || *bytes < *out)) out = bytes;
  }
  return out;
}

// The workloads that swap need a swap device; `swap` also a memory limit below its size, the
// experiment's `cgroup:` or its own memory_max (not both: it would leave the experiment's).
void check_swapping(const Experiment& exp, std::vector<std::string>* problems) {
  for (size_t i = 0; i < exp.workloads.size(); ++i) {
    const WorkloadSpec& w = exp.workloads[i];
    if (w.name != "swap" && w.name != "thp-swap-allocator") continue;
    const std::string at = fmt::format("workloads[{}]", i);
    if (!exp.machine.swap.enabled()) {
      add(problems, w.loc, at,
          "workload " + w.label +
              " swaps out: it needs machine.swap (e.g. {type: zram, size: 64M})");
    }
    if (w.name != "swap") continue;
    const auto size = parse_workload_size(param_or_default(w, "size"));
    const auto own = parse_workload_size(param_or_default(w, "memory_max"));
    if (!size || !own) continue;  // validate_workloads reports the value
    if (*own && exp.state.cgroup.enabled()) {
      add(problems, exp.state.cgroup.loc, "cgroup",
          "workload " + w.label +
              " has its own memory_max, a cgroup of its own, so it would not run in this one; "
              "drop one of them");
    } else if (*own && *own >= *size) {
      add(problems, w.loc, at + ".params.memory_max",
          fmt::format("{} bytes is not below size ({} bytes): nothing would swap", *own, *size));
    } else if (!*own) {
      const auto limit = cgroup_limit(exp.state.cgroup);
      if (!limit || *limit >= *size) {
        add(problems, exp.state.cgroup.enabled() ? exp.state.cgroup.loc : w.loc, at,
            fmt::format("workload {} writes {} bytes and needs a memory limit below that: "
                        "cgroup: {{memory.max: ...}} or params.memory_max",
                        w.label, *size));
      }
    }
  }
}

void check_step(const Experiment& exp, const PrepareStep& p, const std::string& at,
                std::vector<std::string>* problems) {
  const std::string key = fmt::format("{}.{}", at, prepare_kind_name(p.kind));
  const uint64_t memory_mb = exp.machine.memory_mb;
  if (p.kind == PrepareStep::Kind::kReclaim) {
    if (p.reclaim_bytes >= memory_mb << 20) {
      add(problems, p.loc, key, fmt::format("reclaims at least the guest's {} MiB", memory_mb));
    }
    return;
  }
  if (p.reserve_mb >= memory_mb) {
    add(problems, p.loc, key + ".reserve",
        fmt::format("{} MiB leaves nothing of the guest's {} MiB to fragment", p.reserve_mb,
                    memory_mb));
  }
  std::set<std::string> seen;
  for (const KernelSpec& k : exp.kernels) {
    for (Arch arch : exp.archs) {
      if (!k.archs.empty() && std::find(k.archs.begin(), k.archs.end(), arch) == k.archs.end()) {
        continue;
      }
      const int page_kb = guest_page_size_kb(k, arch);
      const std::string where =
          fmt::format("kernel {} ({}, {}K pages)", k.name, arch_info(arch).name, page_kb);
      if (!seen.insert(where).second) continue;
      if (p.method == "thpscale" && page_kb == 64) {
        add(problems, p.loc, key,
            "thpscale fills with PMD THPs, 512M each at 64K pages: too big for " + where +
                "; use {order: N, unusable: X}");
      }
      if (p.order > max_page_order(page_kb)) {
        add(problems, p.loc, key + ".order",
            fmt::format("order {} is beyond the largest buddy order {} of {}", p.order,
                        max_page_order(page_kb), where));
      }
    }
  }
}

}  // namespace

int max_page_order(int page_size_kb) {
  if (page_size_kb >= 64) return 13;
  if (page_size_kb >= 16) return 11;
  return 10;
}

Result<void> check_machine_state(const Experiment& exp) {
  std::vector<std::string> problems;
  check_backend(exp, &problems);
  for (size_t i = 0; i < exp.state.prepare.size(); ++i) {
    check_step(exp, exp.state.prepare[i], fmt::format("prepare[{}]", i), &problems);
  }
  for (const KnobSet& ks : exp.knob_sets) {
    for (size_t i = 0; i < ks.prepare.size(); ++i) {
      check_step(exp, ks.prepare[i], fmt::format("knobs.{}.prepare[{}]", ks.name, i), &problems);
    }
  }
  if (exp.state.cgroup.enabled()) {
    for (const WorkloadSpec& w : exp.workloads) {
      if (kOwnCgroup.count(w.name)) {
        add(&problems, exp.state.cgroup.loc, "cgroup",
            "workload " + w.label +
                " makes and enters its own memory cgroup, so it would not run in this one; give "
                "it its own limit parameter instead");
      }
    }
  }
  check_swapping(exp, &problems);
  const MonitorSpec& mon = exp.state.monitor;
  for (const std::string& c : mon.counters) {
    if (c.starts_with("memcg.") && !exp.state.cgroup.enabled()) {
      add(&problems, mon.loc, "monitor.counters",
          c + ": memcg counters are the workload cgroup's memory.stat; needs cgroup:");
    }
  }
  if (problems.empty()) return {};
  std::string all;
  for (const std::string& p : problems) all += (all.empty() ? "" : "\n") + p;
  return make_error(all);
}

}  // namespace foliolab
