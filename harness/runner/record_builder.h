// Builds a RunRecord from what the runner learns along the way: the planned run, the kernel
// and image artifacts, the boot outcome and the guest's report.
#pragma once

#include "backend/backend.h"
#include "image/image_builder.h"
#include "image/rootfs_builder.h"
#include "kernel/builder.h"
#include "model/experiment.h"
#include "protocol/run_report.h"
#include "results/run_record.h"

namespace foliolab {

RunIdentity record_identity(const Experiment& exp, const Run& run);

// Facts about this host recorded in every run (CPU model, CPUs, kernel, foliolab revision).
HostInfo host_provenance();

void record_kernel(RunRecord& r, const KernelArtifact& k);
// `rootfs`: the Debian root filesystem of a machine.image run, else null.
void record_image(RunRecord& r, const ImageArtifact& i, const RootfsArtifact* rootfs = nullptr);
// Provenance of the boot (accel, emulator, command, the spec's timing mode) and the artifact
// files it left. The timing is icount only for a TCG boot (plan refuses it elsewhere).
void record_boot(RunRecord& r, const BootOutcome& boot, TimingMode timing);
// Knob state, repetitions, guest errors and interpretation problems from the guest's report.
void record_guest_report(RunRecord& r, const RunReport& report);

// Who failed, for a report that is not ok: a repetition whose workload did not succeed (with
// no guest error record) is the workload's failure; anything else is the guest's.
FailureClass classify_report(const RunReport& report);

}  // namespace foliolab
