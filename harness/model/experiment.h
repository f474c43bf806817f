// The experiment model: pure data loaded from YAML, validated, expanded into Runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/arch.h"

namespace foliolab {

// Where a value came from, for error messages ("file:line:col").
struct SourceLoc {
  std::string file;
  int line = 0;    // 1-based; 0 = unknown
  int column = 0;  // 1-based
  std::string str() const;
};

using KeyValues = std::vector<std::pair<std::string, std::string>>;  // ordered as written

struct KernelSpec {
  std::string name;
  // "debian" (default: Debian's linux-source-6.12 tarball in /usr/src), or a path to a local
  // source directory or a .tar.{xz,gz,bz2} tarball (relative paths: to the YAML file's folder).
  std::string source = "debian";
  std::vector<std::string> config;  // extra fragments: kernel-config/<name>.config
  KeyValues options;                // inline CONFIG_FOO: y|n|m|value, verified like fragments
  std::string patches;              // series folder under patches/, "" = none
  std::string cmdline;              // extra kernel command-line parameters
  SourceLoc loc;
  SourceLoc source_loc;              // of the `source:` value (unknown when defaulted)
  std::vector<SourceLoc> config_locs;  // parallel to `config`
  SourceLoc patches_loc;
};

struct NumaNode {
  std::vector<int> cpus;
  uint64_t memory_mb = 0;
};

struct MachineSpec {
  int cpus = 1;
  uint64_t memory_mb = 1024;
  std::vector<NumaNode> numa;  // empty: no NUMA topology given
  std::vector<std::vector<int>> numa_distance;  // [from][to], empty = QEMU default
};

struct KnobSet {
  std::string name;
  KeyValues knobs;    // path relative to /sys/kernel/mm/transparent_hugepage/ -> value
  KeyValues sysctls;  // path relative to /proc/sys/ -> value
  std::string cmdline;  // extra kernel command-line parameters for this knob set
  SourceLoc loc;
};

struct WorkloadSpec {
  std::string name;   // executable /workloads/<name> in the guest
  std::string label;  // display name; defaults to name
  KeyValues params;   // passed as key=value
  SourceLoc loc;
};

struct Experiment {
  std::string file;  // path of the YAML file it came from
  std::string name;
  std::string description;
  std::vector<KernelSpec> kernels;
  std::vector<Arch> archs;
  MachineSpec machine;
  std::vector<KnobSet> knob_sets;
  std::vector<WorkloadSpec> workloads;
  int repeat = 3;
  int timeout_s = 600;  // per run (one guest boot), host wall-clock
  std::vector<SourceLoc> arch_locs;  // parallel to `archs`
};

// One guest boot: kernel x arch x knob set x workload; runs `repeat` repetitions inside.
struct Run {
  std::string id;  // stable: same experiment content -> same id (slug + content hash)
  size_t kernel = 0;
  Arch arch = Arch::kX86_64;
  size_t knob_set = 0;
  size_t workload = 0;
};

}  // namespace foliolab
