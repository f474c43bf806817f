#include "runner/record_builder.h"

#include <gtest/gtest.h>

namespace foliolab {
namespace {

TEST(RecordBuilder, TimingIsTheSpecsModeForATcgBootAndWallOtherwise) {
  BootOutcome tcg{.accel = Accel::kTcg, .backend = "qemu"};
  RunRecord r;
  record_boot(r, tcg, TimingMode::kIcount);
  EXPECT_EQ(r.provenance.timing, "icount");
  EXPECT_TRUE(r.provenance.icount());
  EXPECT_TRUE(r.provenance.timings_emulated);
  RunRecord wall;
  record_boot(wall, tcg, TimingMode::kWall);
  EXPECT_EQ(wall.provenance.timing, "wall");
  EXPECT_FALSE(wall.provenance.icount());
  for (Accel a : {Accel::kKvm, Accel::kNone}) {  // plan refuses icount there; never recorded
    RunRecord other;
    record_boot(other, BootOutcome{.accel = a, .backend = "host"}, TimingMode::kIcount);
    EXPECT_EQ(other.provenance.timing, "wall");
  }
}

}  // namespace
}  // namespace foliolab
