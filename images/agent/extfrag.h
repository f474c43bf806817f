/* foliolab guest agent: the kernel's fragmentation indices from free-list counts (pure, libc
 * only: compiled into the host's unit tests too, harness/analysis/extfrag_test.cc). */
#ifndef FOLIOLAB_AGENT_EXTFRAG_H
#define FOLIOLAB_AGENT_EXTFRAG_H

#ifdef __cplusplus
extern "C" {
#endif

/* The kernel's unusable_free_index() and __fragmentation_index() (mm/vmstat.c) over count[o],
 * the free blocks of order o, in 1/1000 as its debugfs extfrag files print them: the share of
 * free memory in blocks smaller than 2^order pages (1000 with nothing free), and -1000 when a
 * 2^order block is free (else how much of the failure fragmentation explains, 0 with no free
 * block at all). */
int unusable_permille(const unsigned long long *count, int norders, int order);
int extfrag_permille(const unsigned long long *count, int norders, int order);

#ifdef __cplusplus
}
#endif

#endif
