/* The kernel's fragmentation indices (extfrag.h). */
#include "extfrag.h"

/* fill_contig_page_info(): free pages, free blocks, and blocks of 2^order pages that fit. */
static void contig(const unsigned long long *count, int norders, int order,
                   unsigned long long *pages, unsigned long long *blocks,
                   unsigned long long *suitable) {
  *pages = *blocks = *suitable = 0;
  for (int o = 0; o < norders; o++) {
    *blocks += count[o];
    *pages += count[o] << o;
    if (o >= order) *suitable += count[o] << (o - order);
  }
}

int unusable_permille(const unsigned long long *count, int norders, int order) {
  unsigned long long pages, blocks, suitable;
  contig(count, norders, order, &pages, &blocks, &suitable);
  if (!pages) return 1000;
  return (int)((pages - (suitable << order)) * 1000ULL / pages);
}

int extfrag_permille(const unsigned long long *count, int norders, int order) {
  unsigned long long pages, blocks, suitable;
  contig(count, norders, order, &pages, &blocks, &suitable);
  if (!blocks) return 0;
  if (suitable) return -1000;
  return (int)(1000 - (1000 + pages * 1000ULL / (1ULL << order)) / blocks);
}
