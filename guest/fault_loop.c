// SPDX-License-Identifier: GPL-2.0
/*
 * fault_loop: the user-level cost of the page allocator's hot paths, as a
 * process sees them: map anonymous memory, touch every page (a fault that
 * allocates a page), unmap it (frees that go through free_pages_prepare()).
 *
 *	fault_loop [MIB [REPEATS [RUNS]]]
 *
 * Prints one line per run: "fault_loop: run=N ns_per_page=X.XX".
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long mib = argc > 1 ? atol(argv[1]) : 16;
	long repeats = argc > 2 ? atol(argv[2]) : 8;
	long runs = argc > 3 ? atol(argv[3]) : 7;
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)mib << 20;
	long run, rep;
	size_t off;

	if (mib <= 0 || repeats <= 0 || runs <= 0) {
		fprintf(stderr, "usage: fault_loop [MIB [REPEATS [RUNS]]]\n");
		return 2;
	}
	/* Run 0 is untimed: it warms what the timed runs use. */
	for (run = 0; run <= runs; run++) {
		double start = now_ns();

		for (rep = 0; rep < repeats; rep++) {
			char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED) {
				perror("mmap");
				return 1;
			}
			/* A fault per 4 KiB page, not one per THP. */
			madvise(p, len, MADV_NOHUGEPAGE);
			for (off = 0; off < len; off += page)
				p[off] = 1;
			if (munmap(p, len)) {
				perror("munmap");
				return 1;
			}
		}
		if (run)
			printf("fault_loop: run=%ld ns_per_page=%.2f\n", run,
			       (now_ns() - start) / ((double)repeats * len / page));
	}
	return 0;
}
