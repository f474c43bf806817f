// Plan-time checks of an experiment's `evidence:` (model/evidence.h), before anything is built:
// - each tracepoint against the kernel source tree where the tree can be read before the build
//   (a directory source, a git checkout built as it is, Debian's tarball once unpacked in the
//   cache): an unknown event of a system the tree defines, a near miss of a system's name, a
//   `by:` field the event's record lacks, each a located error with a did-you-mean. Events of
//   systems the tree does not define in include/trace/events are left to the guest, which checks
//   every name against its kernel's available_events and available_filter_functions before rep 0;
// - `backend: host`: this machine's tracefs has what the agent uses, else refused with the file
//   it lacks. kexec kernels get the tracing fragment like any other (KernelSpec::tracing).
#pragma once

#include <filesystem>
#include <vector>

#include "catalog/plan_limits.h"
#include "kernel/trace_events.h"
#include "model/experiment.h"
#include "util/result.h"

namespace foliolab {

// The problems of `exp.evidence` against `tables` (one per kernel, parallel to exp.kernels; an
// empty table: that kernel's tree is not readable before the build) and `host`, one per line.
Result<void> check_evidence(const Experiment& exp, const std::vector<TraceEventTable>& tables,
                            const HostFacts& host);

// The tree a kernel's tracepoints are read from before its build ("" when none is readable):
// the source directory, or Debian's tarball unpacked under `cache`/src.
std::filesystem::path readable_tree(const Experiment& exp, const KernelSpec& kernel,
                                    const std::filesystem::path& cache);

// check_evidence with each kernel's readable_tree read (nothing read without `evidence:`).
Result<void> validate_evidence(const Experiment& exp, const HostFacts& host,
                               const std::filesystem::path& cache);

}  // namespace foliolab
