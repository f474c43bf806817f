// The guest agent's folio census (images/agent/census.c, compiled into this test as the guest has
// it) over synthetic page tables: a fake /proc/PID/pagemap and /proc/kpageflags in which folios
// are laid out by hand, each test saying what thpmaps (tools/mm/thpmaps) would count.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>

#include "../../images/agent/census.h"

namespace foliolab {
namespace {

// Virtual page -> pagemap entry, pfn -> kpageflags entry; absent entries read as 0.
struct FakeMemory {
  std::map<uint64_t, uint64_t> pagemap, flags;
  uint64_t max_pfn = 1 << 20;  // kpageflags ends here
  bool fail = false;

  // A folio of 2^order pages at pfn (naturally aligned), its pages flagged `kind`.
  void folio(uint64_t pfn, unsigned order, uint64_t kind) {
    const uint64_t n = 1ULL << order;
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t f = CENSUS_KPF_MMAP | kind;
      if (order > 0) f |= (i == 0 ? CENSUS_KPF_HEAD : CENSUS_KPF_TAIL) | CENSUS_KPF_THP;
      flags[pfn + i] = f;
    }
  }
  // Virtual pages [vpn, vpn + n) mapped to pfns [pfn, pfn + n).
  void map(uint64_t vpn, uint64_t pfn, uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) pagemap[vpn + i] = CENSUS_PM_PRESENT | (pfn + i);
  }
};

long fake_read(void* ctx, enum census_file file, uint64_t index, uint64_t* out, size_t n) {
  auto* m = static_cast<FakeMemory*>(ctx);
  if (m->fail) return -1;
  const auto& table = file == CENSUS_PAGEMAP ? m->pagemap : m->flags;
  size_t got = 0;
  for (; got < n; ++got) {
    if (file == CENSUS_KPAGEFLAGS && index + got >= m->max_pfn) break;
    auto it = table.find(index + got);
    out[got] = it == table.end() ? 0 : it->second;
  }
  return static_cast<long>(got);
}

struct Census {
  FakeMemory mem;
  census_walk walk{};
  census_counts c{};
  explicit Census(unsigned cont_pages = 0) { census_init(&walk, fake_read, &mem, cont_pages); }
  int run(uint64_t start, uint64_t end) { return census_mapping(&walk, start, end, &c); }
  const census_kind_counts& anon() const { return c.kind[CENSUS_ANON]; }
};

constexpr uint64_t kAnon = CENSUS_KPF_ANON | CENSUS_KPF_SWAPBACKED;

// fault 64M at 64K mTHP, scaled: 4 order-4 folios behind 64 pages, nothing at order 0.
TEST(AgentCensus, CountsFullyMappedFoliosByOrder) {
  Census t;
  for (uint64_t i = 0; i < 4; ++i) t.mem.folio(0x1000 + 32 * i, 4, kAnon);  // not adjacent
  for (uint64_t i = 0; i < 4; ++i) t.mem.map(0x500 + 16 * i, 0x1000 + 32 * i, 16);
  ASSERT_EQ(t.run(0x500, 0x540), 0);
  EXPECT_EQ(t.anon().folios[4], 4u);
  EXPECT_EQ(t.anon().pages[4], 64u);
  EXPECT_EQ(t.anon().folios[0], 0u);
  EXPECT_EQ(t.anon().partial_folios, 0u);
  EXPECT_EQ(census_rss_pages(&t.c), 64u);
}

TEST(AgentCensus, BasePagesAreOrderZeroFolios) {
  Census t;
  for (uint64_t i = 0; i < 16; ++i) t.mem.folio(0x2000 + 7 * i, 0, kAnon);
  for (uint64_t i = 0; i < 16; ++i) t.mem.map(0x100 + i, 0x2000 + 7 * i, 1);
  ASSERT_EQ(t.run(0x100, 0x200), 0);  // the rest of the mapping is not present
  EXPECT_EQ(t.anon().folios[0], 16u);
  EXPECT_EQ(t.anon().pages[0], 16u);
  EXPECT_EQ(census_rss_pages(&t.c), 16u);
}

// An order-4 folio of which the mapping maps 10 pages (the rest munmapped): partial, and its
// pages still counted at order 4, so the census sums to Rss.
TEST(AgentCensus, PartiallyMappedFolio) {
  Census t;
  t.mem.folio(0x3000, 4, kAnon);
  t.mem.map(0x700, 0x3000, 10);
  ASSERT_EQ(t.run(0x700, 0x710), 0);
  EXPECT_EQ(t.anon().folios[4], 0u);
  EXPECT_EQ(t.anon().partial_folios, 1u);
  EXPECT_EQ(t.anon().partial_pages, 10u);
  EXPECT_EQ(t.anon().pages[4], 10u);
}

// A folio cut in two mappings (mprotect of its middle): partial in each; the second mapping
// starts on a tail page, whose head the walk finds below it.
TEST(AgentCensus, FolioAcrossTwoMappingsFromATail) {
  Census t;
  t.mem.folio(0x4000, 5, kAnon);
  t.mem.map(0x800, 0x4000, 32);
  ASSERT_EQ(t.run(0x800, 0x80b), 0);
  ASSERT_EQ(t.run(0x80b, 0x820), 0);
  EXPECT_EQ(t.anon().partial_folios, 2u);
  EXPECT_EQ(t.anon().partial_pages, 32u);
  EXPECT_EQ(t.anon().pages[5], 32u);
  EXPECT_EQ(t.anon().folios[5], 0u);
}

// Shared anon (shmem: swap-backed, not anon) and page cache are kinds of their own.
TEST(AgentCensus, KindsFromKpageflags) {
  Census t;
  t.mem.folio(0x5000, 2, CENSUS_KPF_SWAPBACKED);  // shmem
  t.mem.folio(0x5004, 0, 0);                      // page cache
  t.mem.map(0x900, 0x5000, 5);
  ASSERT_EQ(t.run(0x900, 0x905), 0);
  EXPECT_EQ(t.c.kind[CENSUS_SHMEM].folios[2], 1u);
  EXPECT_EQ(t.c.kind[CENSUS_FILE].folios[0], 1u);
  EXPECT_EQ(t.anon().pages[0] + t.anon().pages[2], 0u);
  EXPECT_STREQ(census_kind_name(CENSUS_SHMEM), "shmem");
}

// The zero page (touch=read) and a PFN map are present in pagemap but are no folio of the
// mapping (no KPF_MMAP): not in Rss.
TEST(AgentCensus, ZeroAndSpecialPagesAreNotRss) {
  Census t;
  t.mem.flags[0x6000] = CENSUS_KPF_ZERO_PAGE;
  t.mem.flags[0x6001] = 0;  // a PFN map
  t.mem.map(0xa00, 0x6000, 1);
  t.mem.map(0xa01, 0x6000, 1);
  t.mem.map(0xa02, 0x6001, 1);
  ASSERT_EQ(t.run(0xa00, 0xa03), 0);
  EXPECT_EQ(t.c.zero_pages, 2u);
  EXPECT_EQ(t.c.special_pages, 1u);
  EXPECT_EQ(census_rss_pages(&t.c), 0u);
}

// arm64 at 4K pages: CONT_PTES = 16. An order-5 folio aligned virtually and physically is two
// blocks; the same folio mapped at a virtual offset that disagrees with its pfn's is none; an
// order-4 folio is one.
TEST(AgentCensus, ContiguousPteBlocks) {
  Census t(16);
  t.mem.folio(0x8000, 5, kAnon);
  t.mem.map(0xb00, 0x8000, 32);
  ASSERT_EQ(t.run(0xb00, 0xb20), 0);
  EXPECT_EQ(t.anon().cont_blocks, 2u);

  Census shifted(16);
  shifted.mem.folio(0x8000, 5, kAnon);
  shifted.mem.map(0xb03, 0x8000, 32);
  ASSERT_EQ(shifted.run(0xb00, 0xb30), 0);
  EXPECT_EQ(shifted.anon().cont_blocks, 0u);
  EXPECT_EQ(shifted.anon().folios[5], 1u);  // still one whole folio

  Census small(16);
  small.mem.folio(0x9000, 4, kAnon);
  small.mem.folio(0x9010, 0, kAnon);
  small.mem.map(0xc00, 0x9000, 17);
  ASSERT_EQ(small.run(0xc00, 0xc11), 0);
  EXPECT_EQ(small.anon().cont_blocks, 1u);
  EXPECT_EQ(small.anon().folios[0], 1u);
}

TEST(AgentCensus, AReadFailureFailsTheMapping) {
  Census t;
  t.mem.fail = true;
  EXPECT_EQ(t.run(0, 16), -1);
}

TEST(AgentCensus, SizeNames) {
  char buf[16];
  ::census_size_name(4, buf, sizeof buf);
  EXPECT_STREQ(buf, "4K");
  ::census_size_name(64, buf, sizeof buf);
  EXPECT_STREQ(buf, "64K");
  ::census_size_name(2048, buf, sizeof buf);
  EXPECT_STREQ(buf, "2M");
  ::census_size_name(1 << 20, buf, sizeof buf);
  EXPECT_STREQ(buf, "1G");
}

}  // namespace
}  // namespace foliolab
