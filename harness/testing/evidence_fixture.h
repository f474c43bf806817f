// Test helper: records with kernel evidence as the `events` and `census` work writes it
// (issue 56): tracepoint and kprobe hit counts, a function profile, a folio census and a kprobe
// latency distribution of the `fault 64M` workload, with the small jitter identical sessions
// show under TCG (where the agent's own faults and the timer's interrupts land).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "testing/record_fixture.h"
#include "testing/seeded_normal.h"

namespace foliolab {

// A run of `fault 64M` at "4K" or "64K" mTHP, `reps` reps; `seed` picks the jitter.
inline RunRecord evidence_run(const std::string& knobs, int reps, uint64_t seed) {
  SeededNormal g(seed);
  const bool mthp = knobs == "64K";
  const auto jitter = [&](int64_t base, int64_t most) {  // base + 0..most, uniformly
    return base + static_cast<int64_t>(g.uniform() * static_cast<double>(most + 1));
  };
  FakeRun f;
  f.knobs = knobs;
  const int64_t faults = mthp ? 1024 + 36 : 16384 + 36;
  for (int r = 0; r < reps; ++r) {
    f.metrics["faults"].push_back(static_cast<double>(faults));
    f.deltas["kprobe.handle_mm_fault"].push_back(jitter(faults, 4));
    f.deltas["kprobe.folio_zero_user"].push_back(mthp ? 1024 : 0);
    f.deltas["event.kmem:mm_page_alloc[order=0]"].push_back(jitter(mthp ? 310 : 16690, 3));
    f.deltas["event.kmem:mm_page_alloc[order=4]"].push_back(mthp ? 1024 : 0);
    f.deltas["event.huge_memory:mm_khugepaged_scan_pmd"].push_back(jitter(0, 1));
    // A function profile: 60 functions from a few hits to hundreds of thousands, each moving
    // by up to 3 hits (or 0.1 %) between reps.
    for (int fn = 0; fn < 60; ++fn) {
      const int64_t base = static_cast<int64_t>(std::pow(1.25, fn)) + (mthp ? 0 : fn);
      f.deltas[fmt::format("func.fn_{:02}", fn)].push_back(jitter(base, 3 + base / 1000));
    }
    // The census: the 64M buffer in 64K or 4K folios, the stack and heap in 4K ones.
    f.metrics["census.anon.4K.folios"].push_back(static_cast<double>(jitter(mthp ? 14 : 16398, 2)));
    f.metrics["census.anon.4K.kb"].push_back(4.0 *
                                             static_cast<double>(jitter(mthp ? 14 : 16398, 2)));
    f.metrics["census.anon.64K.folios"].push_back(mthp ? 1024 : 0);
    f.metrics["census.anon.64K.kb"].push_back(mthp ? 65536 : 0);
    f.metrics["census.file.4K.kb"].push_back(static_cast<double>(jitter(212, 8)));
    // handle_mm_fault's latency in instruction time: a 64K fault zeroes 16 pages.
    DistributionBuilder lat("ns");
    for (int64_t i = 0; i < faults; ++i) {
      lat.add(std::round((mthp ? 9000 : 900) * std::exp(0.2 * g.normal())));
    }
    f.distributions["kprobe.handle_mm_fault.latency_ns"].push_back(lat.take());
  }
  RunRecord r = fake_record(f);
  r.provenance.timing = "icount";
  r.provenance.guests_beside = 0;
  return r;
}

}  // namespace foliolab
