// A lab machine a run's kernel was kexec'ed on (machine.backend: kexec): what foliolab read of it
// over ssh before the run, kept in the run's record (boot.machine) beside what the agent said.
#pragma once

#include <cstdint>
#include <string>

namespace foliolab {

struct LabMachineInfo {
  std::string name;         // "root@lab1:22"
  std::string own_release;  // the kernel it runs when the run's is not (it came back on this)
  std::string cpu_model;    // /proc/cpuinfo's model name (uname -m where there is none: arm64)
  int64_t cpus = 0;         // online CPUs
  int64_t mem_total_kb = 0;
  int64_t numa_nodes = 0;
  bool empty() const { return name.empty(); }
};

}  // namespace foliolab
