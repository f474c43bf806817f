// The guest agent's fragmentation indices (images/agent/extfrag.c, compiled into this test as
// the guest has it) against the kernel's formulas (mm/vmstat.c unusable_free_index and
// __fragmentation_index) worked by hand.
#include <gtest/gtest.h>

#include "../../images/agent/extfrag.h"

namespace foliolab {
namespace {

TEST(AgentExtfrag, MatchesTheKernelsFormulas) {
  // 10 free pages and one free 2 MiB block (order 9), nothing else.
  const unsigned long long count[11] = {10, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0};
  EXPECT_EQ(unusable_permille(count, 11, 0), 0);      // every free page serves order 0
  EXPECT_EQ(unusable_permille(count, 11, 9), 19);     // (522 - 512) * 1000 / 522
  EXPECT_EQ(unusable_permille(count, 11, 10), 1000);  // no order-10 block
  EXPECT_EQ(extfrag_permille(count, 11, 9), -1000);   // a block that fits is free
  EXPECT_EQ(extfrag_permille(count, 11, 10), 863);    // 1000 - (1000 + 522000 / 1024) / 11
}

TEST(AgentExtfrag, NothingFree) {
  const unsigned long long none[11] = {};
  EXPECT_EQ(unusable_permille(none, 11, 9), 1000);
  EXPECT_EQ(extfrag_permille(none, 11, 9), 0);
}

// A fragmented zone as thpscale leaves it: the free memory in order-8 holes only.
TEST(AgentExtfrag, HalfBlocksAreUnusableForAPmd) {
  const unsigned long long holes[11] = {3, 1, 0, 0, 0, 0, 0, 0, 200, 0, 0};
  EXPECT_EQ(unusable_permille(holes, 11, 9), 1000);
  EXPECT_EQ(unusable_permille(holes, 11, 8), 0);   // (51205 - 51200) * 1000 / 51205 = 0.09
  EXPECT_EQ(extfrag_permille(holes, 11, 9), 505);  // 1000 - (1000 + 51205000 / 512) / 204
}

}  // namespace
}  // namespace foliolab
