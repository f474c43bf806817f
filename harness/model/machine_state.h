// The state a run's guest is put in before its first repetition (issue 29): real machines are
// fragmented, under memory-cgroup pressure and swapping, a fresh boot is none of these. Read by
// the loader (model/loader_state.cc), checked against the kernel and backend at plan
// (catalog/validate.cc), rendered into the guest's job (protocol/job.cc) and done by the agent
// (images/agent/prepare.c). Everything here is part of run ids but the monitor, which observes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "model/source_loc.h"

namespace foliolab {

// `machine.swap`: {type: zram, size: 256M, compressor: lz4} or {type: disk, size: 512M}. A zram
// device (/dev/zram0) or a sparse raw file made in the run's folder for this run alone, attached
// as a non-rotational virtio-blk disk and removed after the boot.
struct SwapSpec {
  enum class Type { kNone, kZram, kDisk };
  Type type = Type::kNone;
  uint64_t size_mb = 0;
  std::string compressor;  // zram's comp_algorithm ("" = the kernel's default, lzo-rle)
  SourceLoc loc;
  bool enabled() const { return type != Type::kNone; }
};
const char* swap_type_name(SwapSpec::Type t);  // "none", "zram", "disk"

// `machine.zswap`: {enabled: true, compressor: lz4}, a compressed cache in front of the swap.
struct ZswapSpec {
  bool enabled = false;
  std::string compressor;  // "" = the kernel's default (lzo)
  SourceLoc loc;
};

// Compressors the full guest kernel carries (kernel-config/guest-full.config).
inline const std::vector<std::string>& zram_compressors() {
  static const std::vector<std::string> k = {"lzo-rle", "lzo", "lz4"};
  return k;
}
inline const std::vector<std::string>& zswap_compressors() {
  static const std::vector<std::string> k = {"lzo", "lz4"};
  return k;
}

// Top-level `cgroup:` {memory.max: 64M, memory.high: 48M, memory.swap.max: 0}: every repetition
// of every workload runs in one cgroup v2 memory cgroup with these limits (bytes or "max").
struct CgroupSpec {
  std::vector<std::pair<std::string, std::string>> limits;  // file -> value ("67108864", "max")
  SourceLoc loc;
  bool enabled() const { return !limits.empty(); }
};
// The cgroup files `cgroup:` may set.
inline const std::vector<std::string>& cgroup_limit_files() {
  static const std::vector<std::string> k = {
      "memory.max",      "memory.high",      "memory.low",      "memory.min",
      "memory.swap.max", "memory.swap.high", "memory.zswap.max"};
  return k;
}

// One `prepare:` step, run by the agent after the knobs and setup, before the first rep.
struct PrepareStep {
  enum class Kind { kFragment, kReclaim };
  Kind kind = Kind::kFragment;
  // fragment: method thpscale (mmtests' thpscale layout: fill with PMD THPs, free the first
  // half of each, refill half the holes with a tmpfs file) or unusable (the same fill, freeing
  // every other 2^(order-1)-page block, until the unusable free space index at `order` reaches
  // `unusable`). The filling process stays alive through the reps, so the state does too.
  // Or churn (mmtests' thpchallenge background: files of `file_kb` KiB, `churn_mb` in all, written
  // to an ext4 scratch disk made for the run, then read at random `passes` times: page cache
  // larger than memory, reclaimed and refaulted, with an inode and dentry slab beside it;
  // `background` keeps the reads going through every rep).
  std::string method;
  int order = 0;            // unusable: the order whose index is the target
  double unusable = 0;      // unusable: the target index, in (0, 1]
  uint64_t seed = 1;        // which half of each block is freed (xorshift), reproducibly
  bool pin = false;         // mlock the kept halves and vm.compact_unevictable_allowed=0
  uint64_t reserve_mb = 0;  // memory left unfilled (0: the agent's default, 1/16 of MemTotal)
  uint64_t churn_mb = 0;    // churn: the files' total (0: 1.5 x machine.memory, churn_bytes)
  uint64_t file_kb = 64;    // churn: each file's size
  int passes = 1;           // churn: random reads over the whole set before rep 0
  bool background = false;  // churn: the reads go on during the reps
  // reclaim: bytes written to the root cgroup's memory.reclaim (needs swap for anonymous memory).
  uint64_t reclaim_bytes = 0;
  SourceLoc loc;
};
const char* prepare_kind_name(PrepareStep::Kind k);  // "fragment", "reclaim"
inline bool is_churn(const PrepareStep& p) {
  return p.kind == PrepareStep::Kind::kFragment && p.method == "churn";
}
// A churn step's files in all: churn_mb, or 1.5 x the guest's memory.
inline uint64_t churn_bytes(const PrepareStep& p, uint64_t memory_mb) {
  return (p.churn_mb ? p.churn_mb : memory_mb * 3 / 2) << 20;
}
// The scratch disk a run with churn steps gets (sparse, ext4, this run's alone): room for the
// largest step's files, their inodes and the journal.
inline uint64_t scratch_disk_bytes(const std::vector<PrepareStep>& steps, uint64_t memory_mb) {
  uint64_t most = 0;
  for (const PrepareStep& p : steps) {
    if (is_churn(p)) most = std::max(most, churn_bytes(p, memory_mb));
  }
  return most ? most + most / 8 + (128ULL << 20) : 0;
}
inline constexpr uint64_t kMaxChurnFileKb = 64 * 1024;
inline constexpr int kMaxChurnPasses = 100;

// Top-level `monitor:` {period: 100ms, counters: [vmstat.pswpout, meminfo.MemFree]}: the agent
// samples the counters every period during each rep (at most kMaxMonitorSamples samples a rep),
// stored with the rep and drawn in the HTML report.
struct MonitorSpec {
  int period_ms = 0;  // 0: no monitor
  std::vector<std::string> counters;
  SourceLoc loc;
  bool enabled() const { return period_ms > 0; }
};
inline constexpr int kMaxMonitorCounters = 16;

// The counters `monitor: {period: 100ms}` samples when it lists none: /proc/vmstat's THP, swap,
// compaction and fault counters (docs/machine-state.md lists them, generated from this list).
inline const std::vector<std::string>& default_monitor_counters() {
  static const std::vector<std::string> kDefault = {"vmstat.thp_fault_alloc",
                                                    "vmstat.thp_fault_fallback",
                                                    "vmstat.thp_collapse_alloc",
                                                    "vmstat.thp_split_page",
                                                    "vmstat.pswpin",
                                                    "vmstat.pswpout",
                                                    "vmstat.compact_stall",
                                                    "vmstat.compact_success",
                                                    "vmstat.compact_fail",
                                                    "vmstat.pgfault",
                                                    "vmstat.pgmajfault"};
  return kDefault;
}

// docs/machine-state.md's list of the default counters: "`vmstat.thp_fault_alloc`, ...".
inline std::string default_monitor_counters_markdown() {
  std::string out;
  for (const std::string& c : default_monitor_counters()) {
    out += (out.empty() ? "`" : ", `") + c + "`";
  }
  return out + "\n";
}
inline constexpr int kMaxMonitorSamples = 2000;
inline constexpr int kMinMonitorPeriodMs = 10;

// What a monitor sampled during one rep: t_ms[i] after the rep's start, values[c][i] of
// counters[c] (-1 where the guest could not read it).
struct MonitorSeries {
  int period_ms = 0;
  std::vector<std::string> counters;
  std::vector<int64_t> t_ms;
  std::vector<std::vector<int64_t>> values;
  bool empty() const { return t_ms.empty(); }
};

// What one `prepare` record said: the step (swap, zswap, cgroup, fragment, reclaim) and its
// fields as the guest wrote them (status ok|failed, what it reached).
struct PreparedStep {
  std::string step;
  std::vector<std::pair<std::string, std::string>> fields;
  const std::string* find(const std::string& key) const {
    for (const auto& [k, v] : fields) {
      if (k == key) return &v;
    }
    return nullptr;
  }
};

// Everything above for one experiment.
struct MachineState {
  std::vector<PrepareStep> prepare;
  CgroupSpec cgroup;
  MonitorSpec monitor;
  bool prepared() const { return !prepare.empty() || cgroup.enabled(); }
};

}  // namespace foliolab
