#include "catalog/state_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "catalog/page_size.h"

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

Status check_machine_state(const Experiment& exp) {
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
