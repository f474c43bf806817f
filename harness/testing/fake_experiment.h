// The experiment the fakes script (testing/fake_backend.h, testing/fake_artifacts.h): kernels
// "good" and "broken" (whose build fails), one x86_64 guest, knob sets whose guests finish
// (ok-a, ok-b), panic (panics) and hang (hangs), one workload, two repetitions: 8 runs, of which
// 2 end ok, 4 never boot and 2 fail in the guest.
#pragma once

namespace foliolab {

inline constexpr const char* kFakeExperimentYaml = R"(name: fake
kernels:
  - name: good
  - name: broken
archs: [x86_64]
knobs:
  ok-a: {enabled: always}
  panics: {enabled: panic}
  hangs: {enabled: hang}
  ok-b: {enabled: never}
workloads:
  - name: fault
repeat: 2
timeout: 5
)";

}  // namespace foliolab
