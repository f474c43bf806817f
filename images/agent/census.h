/* foliolab guest agent: the folio census of one mapping (docs/evidence.md "Folio census"), a C
 * port of the kernel's tools/mm/thpmaps (Ryan Roberts, Linux 6.12). Pure computation on libc
 * only, below every other layer: it reads /proc/PID/pagemap and /proc/kpageflags entries through
 * a reader the caller hands it, so the host's unit tests compile this file as it is
 * (harness/protocol/census_walk_test.cc) and feed it synthetic page tables.
 *
 * What it counts, per kind of page (KPF_ANON: anon; else KPF_SWAPBACKED: shmem, the pages of
 * shared anonymous mappings, tmpfs, memfd and SysV shm; else file) and per folio order:
 *   - folios: folios whose every page this mapping maps (a fully mapped folio, counted once);
 *   - pages: the pages of folios of that order the mapping maps (partial folios included), so
 *     that the pages of all orders and kinds sum to the mapping's Rss;
 *   - partial folios and their mapped pages: large folios of which the mapping maps only some
 *     pages (a folio cut by munmap, mprotect or mremap, or spanning two mappings);
 *   - cont blocks (arm64's contiguous-PTE blocks, when cont_pages > 1): naturally aligned runs of
 *     cont_pages pages of one folio, virtually and physically contiguous with the same offset,
 *     as thpmaps' --cont infers them (the contiguous bit itself is invisible to user space).
 * Present pages the kernel does not count as mapped (no KPF_MMAP: the shared zero page, the huge
 * zero page, PFN maps such as [vvar]) are not folios of the mapping: zero pages are counted
 * apart, the rest as `special`, and neither is in Rss. PMD-mapped folios cannot be told from
 * pagemap; the caller takes them from smaps (AnonHugePages, ShmemPmdMapped, FilePmdMapped), as
 * thpmaps does.
 */
#ifndef FOLIOLAB_AGENT_CENSUS_H
#define FOLIOLAB_AGENT_CENSUS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CENSUS_MAX_ORDER 20 /* folio orders 0..19: 2M at 4K pages is order 9 */

/* pagemap entry bits (Documentation/admin-guide/mm/pagemap.rst) */
#define CENSUS_PM_PRESENT (1ULL << 63)
#define CENSUS_PM_PFN_MASK ((1ULL << 55) - 1)
/* kpageflags bits (include/uapi/linux/kernel-page-flags.h) */
#define CENSUS_KPF_MMAP (1ULL << 11)
#define CENSUS_KPF_ANON (1ULL << 12)
#define CENSUS_KPF_SWAPBACKED (1ULL << 14)
#define CENSUS_KPF_HEAD (1ULL << 15)
#define CENSUS_KPF_TAIL (1ULL << 16)
#define CENSUS_KPF_HUGE (1ULL << 17)
#define CENSUS_KPF_THP (1ULL << 22)
#define CENSUS_KPF_ZERO_PAGE (1ULL << 24)

enum census_kind { CENSUS_ANON, CENSUS_SHMEM, CENSUS_FILE, CENSUS_NKINDS };
enum census_file { CENSUS_PAGEMAP, CENSUS_KPAGEFLAGS };

/* Reads n 64-bit entries from index `index` of the file into out: the number read (fewer at the
 * end of the file), or -1. */
typedef long (*census_read_fn)(void *ctx, enum census_file file, uint64_t index, uint64_t *out,
                               size_t n);

struct census_kind_counts {
  uint64_t folios[CENSUS_MAX_ORDER]; /* fully mapped folios by order */
  uint64_t pages[CENSUS_MAX_ORDER];  /* mapped pages by the order of their folio */
  uint64_t partial_folios, partial_pages;
  uint64_t cont_blocks;
};

struct census_counts {
  struct census_kind_counts kind[CENSUS_NKINDS];
  uint64_t zero_pages;    /* present pages of the zero page or the huge zero page */
  uint64_t special_pages; /* other present pages that are not mapped folios (PFN maps) */
  uint64_t hugetlb_pages; /* hugetlbfs pages (KPF_HUGE), not folios of THP's kind */
};

/* The walker's state across calls: a window of kpageflags entries read once, the folio being
 * counted. One per process walk; zero it with census_init. */
struct census_walk {
  census_read_fn read;
  void *ctx;
  unsigned cont_pages; /* arm64 contiguous-PTE block in pages, or 0 */
  uint64_t win_base;   /* kpageflags window: entries [win_base, win_base + win_n) */
  size_t win_n;
  uint64_t win[512];
  int failed; /* a read failed: the counts are incomplete */
};

void census_init(struct census_walk *w, census_read_fn read, void *ctx, unsigned cont_pages);

/* Counts the pages of virtual page numbers [start, end) (one mapping) into *c (added to what it
 * holds). 0, or -1 when a read failed. */
int census_mapping(struct census_walk *w, uint64_t start, uint64_t end, struct census_counts *c);

/* Pages of *c that Rss counts: the pages of every kind and order (zero and special pages
 * excluded). */
uint64_t census_rss_pages(const struct census_counts *c);

/* The kind's name: "anon", "shmem", "file". */
const char *census_kind_name(enum census_kind k);

/* A folio size as the census names it: "4K", "64K", "2M", "512M", "1G". */
void census_size_name(uint64_t kb, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
