/* regex-probe: prints its results in its own words, like will-it-scale ("min:.. max:..
 * total:N") and pgbench ("tps = X"), and is read by `output: regex` patterns
 * (experiments/examples/adapters.yaml). Writes one byte per page of 32 MiB of anonymous memory
 * in each of 4 passes (fresh mappings) and reports pages per second and the minor faults taken.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#define SIZE (32UL << 20)
#define PASSES 4

int main(void)
{
	struct rusage r0, r1;
	struct timespec t0, t1;
	unsigned long pages = 0;
	getrusage(RUSAGE_SELF, &r0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int pass = 0; pass < PASSES; pass++) {
		unsigned char *p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		for (size_t i = 0; i < SIZE; i += 4096, pages++)
			p[i] = 1;
		munmap(p, SIZE);
		printf("pass %d done\n", pass);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	getrusage(RUSAGE_SELF, &r1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("min:%lu max:%lu total:%lu\n", pages / PASSES, pages / PASSES, pages);
	printf("tps = %.1f (pages per second)\n", s > 0 ? (double)pages / s : 0.0);
	printf("minor faults = %ld\n", r1.ru_minflt - r0.ru_minflt);
	return 0;
}
