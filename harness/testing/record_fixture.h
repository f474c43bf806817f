// Test helper: a RunRecord with given identity and per-repetition values, as the runner would
// store it for an ok run under TCG.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "results/run_record.h"

namespace foliolab {

struct FakeRun {
  std::string experiment = "quickstart", kernel = "6.12-mthp-vmstat", arch = "x86_64", knobs = "4K",
              workload = "fault";
  std::map<std::string, std::vector<double>> metrics;              // workload metric -> per rep
  std::map<std::string, std::vector<int64_t>> deltas;              // counter -> per rep
  std::map<std::string, std::vector<Distribution>> distributions;  // name -> per rep
  bool emulated = true;
  std::string status = "ok";
};

inline RunRecord fake_record(const FakeRun& f) {
  RunRecord r;
  r.id.run_id = f.arch + "." + f.kernel + "." + f.knobs + "." + f.workload + ".00000000";
  for (char& c : r.id.run_id) {
    if (c == ' ') c = '-';
  }
  r.id.experiment = f.experiment;
  r.id.arch = f.arch;
  r.id.kernel.name = f.kernel;
  r.id.kernel.source = "debian";
  r.id.knob_set.name = f.knobs;
  r.id.knob_set.knobs = {{"hugepages-64kB/enabled", f.knobs == "4K" ? "never" : "always"}};
  r.id.workload = {f.workload, f.workload, {{"size", "64M"}}};
  r.id.repeat = 3;
  r.status = f.status;
  r.failure = f.status == "ok" ? FailureClass::kNone : FailureClass::kGuest;
  r.reason = f.status == "ok" ? "" : "guest error";
  r.started = "2026-11-30T05:14:30Z";
  r.finished = "2026-11-30T05:14:40Z";
  r.provenance.accel = f.emulated ? "tcg" : "kvm";
  r.provenance.accel_requested = "auto";
  r.provenance.guests_beside = 1;
  r.provenance.accel_reason = f.emulated ? "auto: /dev/kvm: No such file or directory"
                                         : "a KVM probe boot reached the guest agent in 0.4s";
  r.provenance.timings_emulated = f.emulated;
  r.provenance.kernel_build_id = "b1d0000000000001";
  r.provenance.backend = "qemu";
  r.provenance.host.hostname = "testhost";
  r.knobs_set = r.id.knob_set.knobs;
  r.knobs_found = {{"hugepages-64kB/enabled", "never"}};
  size_t reps = 0;
  for (const auto& [_, v] : f.metrics) reps = std::max(reps, v.size());
  for (const auto& [_, v] : f.deltas) reps = std::max(reps, v.size());
  for (const auto& [_, v] : f.distributions) reps = std::max(reps, v.size());
  for (size_t i = 0; i < reps; ++i) {
    Repetition rep;
    rep.rep = static_cast<int>(i);
    for (const auto& [name, v] : f.metrics) {
      if (i < v.size()) rep.metrics[name] = v[i];
    }
    for (const auto& [name, v] : f.deltas) {
      if (i < v.size()) rep.deltas[name] = v[i];
    }
    for (const auto& [name, v] : f.distributions) {
      if (i < v.size()) rep.distributions[name] = v[i];
    }
    r.reps.push_back(rep);
  }
  return r;
}

}  // namespace foliolab
