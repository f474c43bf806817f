// The quickstart's claims on both arches, checked the same way whichever backend booted the
// guests: 64K mTHP shows in the per-size stats and in the counter the patch series adds, with
// about 16x fewer minor faults; 4K allocates no 64K folios.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/arch.h"
#include "results/run_record.h"

namespace foliolab {

inline const RunRecord* find_run(const std::vector<RunRecord>& records, const std::string& arch,
                                 const std::string& knob_set) {
  for (const auto& r : records) {
    if (r.id.arch == arch && r.id.knob_set.name == knob_set) return &r;
  }
  return nullptr;
}

inline void expect_quickstart_claims(const std::vector<RunRecord>& records) {
  ASSERT_EQ(records.size(), 4u);
  for (const char* arch : {"x86_64", "arm64"}) {
    SCOPED_TRACE(arch);
    const RunRecord* r4 = find_run(records, arch, "4K");
    const RunRecord* r64 = find_run(records, arch, "64K mTHP");
    ASSERT_TRUE(r4 && r64);
    ASSERT_EQ(r4->status, "ok") << r4->reason;
    ASSERT_EQ(r64->status, "ok") << r64->reason;
    // The accelerator is the probe's verdict, with its reason; an arm64 guest here is TCG.
    const std::string accel = r64->provenance.accel;
    EXPECT_TRUE(accel == "kvm" || accel == "tcg") << accel;
    EXPECT_FALSE(r64->provenance.accel_reason.empty());
    if (*parse_arch(arch) != host_arch()) {
      EXPECT_EQ(accel, "tcg");
    }
    EXPECT_EQ(r4->provenance.accel, accel);
    ASSERT_EQ(r4->reps.size(), 3u);
    ASSERT_EQ(r64->reps.size(), 3u);
    EXPECT_EQ(r64->provenance.guest.release.substr(0, 5), "6.12.");
    // The knob was read back as set.
    ASSERT_EQ(r64->knob_results.size(), 1u);
    EXPECT_EQ(r64->knob_results[0].readback, "always");
    for (size_t i = 0; i < 3; ++i) {
      const auto& a = r4->reps[i];
      const auto& b = r64->reps[i];
      EXPECT_EQ(a.deltas.at("mthp.64kB.anon_fault_alloc"), 0);
      EXPECT_GE(b.deltas.at("mthp.64kB.anon_fault_alloc"), 1000);  // 64 MiB / 64 KiB = 1024
      // The counter patches/mthp-vmstat adds agrees with the per-size stat.
      EXPECT_EQ(b.deltas.at("vmstat.mthp_anon_fault_alloc"),
                b.deltas.at("mthp.64kB.anon_fault_alloc"));
      EXPECT_EQ(a.deltas.at("vmstat.mthp_anon_fault_alloc"), 0);
      const double ratio = a.metrics.at("faults") / b.metrics.at("faults");
      EXPECT_GT(ratio, 14.0);
      EXPECT_LT(ratio, 17.0);
    }
  }
}

}  // namespace foliolab
