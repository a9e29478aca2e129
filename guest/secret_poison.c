// SPDX-License-Identifier: GPL-2.0
/*
 * secret_poison: memory_failure() on dmap_pool pages, through the real
 * paths. Secret pages (memfd_secret, from the "secretmem" pool) are
 * poisoned with the hwpoison injector (debugfs hwpoison/corrupt-pfn, which
 * calls memory_failure()): one while it is mapped and in use, one after
 * it went back to its pool. The kernel must carry on (an oops panics the
 * test kernel), the poisoned page in use must no longer be reachable
 * (SIGBUS), its neighbours must keep their contents, and neither page may
 * ever be handed out again; the free one is counted lost by the pool.
 *
 * Exit 0: passed; 1: failed; 4: the kernel lacks memfd_secret, dmap_pool
 * or the injector.
 */
#define PROG "secret_poison"
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "util.h"

#ifndef __NR_memfd_secret
#define __NR_memfd_secret 447
#endif

#define POOL	"/sys/kernel/debug/dmap_pool/secretmem"
#define INJECT	"/sys/kernel/debug/hwpoison/corrupt-pfn"
#define NPAGES	8
#define REFILL	1024	/* secret pages taken afterwards: none may be poisoned */

static long page_size;
static sigjmp_buf bus_jmp;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

static long pool_stat(const char *name)
{
	char key[64], line[128];
	long val = -1;
	FILE *f = fopen(POOL, "r");

	if (!f)
		die(POOL);
	snprintf(key, sizeof(key), "%s: %%ld", name);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, key, &val) == 1)
			break;
	fclose(f);
	if (val < 0) {
		fprintf(stderr, "%s: no %s in %s\n", PROG, name, POOL);
		exit(1);
	}
	return val;
}

/* The PFN behind @addr, from /proc/self/pagemap (root sees PFNs). */
static uint64_t pfn_of(const void *addr)
{
	uint64_t ent;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		die("/proc/self/pagemap");
	if (pread(fd, &ent, sizeof(ent),
		  (uintptr_t)addr / page_size * sizeof(ent)) != sizeof(ent))
		die("pagemap read");
	close(fd);
	if (!(ent & (1ULL << 63)) || !(ent & ((1ULL << 55) - 1))) {
		fprintf(stderr, "%s: page at %p not present in pagemap\n",
			PROG, addr);
		exit(1);
	}
	return ent & ((1ULL << 55) - 1);
}

static int inject(uint64_t pfn)
{
	char buf[32];
	int fd = open(INJECT, O_WRONLY), n, ret = 0;

	if (fd < 0)
		die(INJECT);
	n = snprintf(buf, sizeof(buf), "%llu\n", (unsigned long long)pfn);
	if (write(fd, buf, n) != n)
		ret = errno;
	close(fd);
	return ret;
}

static char *secret_map(int *fdp, long npages)
{
	int fd = syscall(__NR_memfd_secret, 0);
	char *p;

	if (fd < 0) {
		if (errno == ENOSYS) {
			printf("%s: no memfd_secret\n", PROG);
			exit(4);
		}
		die("memfd_secret");
	}
	if (ftruncate(fd, npages * page_size))
		die("ftruncate");
	p = mmap(NULL, npages * page_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd, 0);
	if (p == MAP_FAILED)
		die("mmap");
	*fdp = fd;
	return p;
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_sigbus };
	uint64_t pfn_used, pfn_free;
	long lost0, lost, i;
	volatile char c;
	int fd, err;
	char *p;

	page_size = sysconf(_SC_PAGESIZE);
	if (access(POOL, R_OK) || access(INJECT, W_OK)) {
		printf("%s: no %s or no %s\n", PROG, POOL, INJECT);
		return 4;
	}
	if (sigaction(SIGBUS, &sa, NULL))
		die("sigaction");

	p = secret_map(&fd, NPAGES);
	memset(p, 0xa5, NPAGES * page_size);
	pfn_used = pfn_of(p);
	pfn_free = pfn_of(p + page_size);
	lost0 = pool_stat("lost_pages");

	/* 1. A page in use: unmapped from its user, who gets SIGBUS. */
	err = inject(pfn_used);
	printf("corrupt-pfn %#llx (in use): %s\n",
	       (unsigned long long)pfn_used, err ? strerror(err) : "ok");
	if (sigsetjmp(bus_jmp, 1) == 0) {
		c = p[0];
		(void)c;
		fprintf(stderr, "%s: poisoned page still readable\n", PROG);
		return 1;
	}
	printf("read of the poisoned page: SIGBUS\n");
	for (i = 1; i < NPAGES; i++)
		if (p[i * page_size] != (char)0xa5 ||
		    p[(i + 1) * page_size - 1] != (char)0xa5) {
			fprintf(stderr, "%s: page %ld lost its contents\n",
				PROG, i);
			return 1;
		}

	/*
	 * The file goes: every page back to the pool but the poisoned one.
	 * Where recovery failed (a dirty page cache page, as secret pages
	 * are), memory_failure() keeps its reference for good: the pool
	 * never gets it back, and its chunk stays in use. Where recovery
	 * succeeded, the page comes back poisoned and the pool loses it.
	 */
	munmap(p, NPAGES * page_size);
	close(fd);
	lost = pool_stat("lost_pages");
	printf("lost_pages: %ld -> %ld after the free\n", lost0, lost);
	if (lost != lost0 && lost != lost0 + 1) {
		fprintf(stderr, "%s: lost_pages %ld, expected %ld or %ld\n",
			PROG, lost, lost0, lost0 + 1);
		return 1;
	}
	lost0 = lost;

	/* 2. A free page in the pool: lost before it is handed out again. */
	err = inject(pfn_free);
	printf("corrupt-pfn %#llx (free in the pool): %s\n",
	       (unsigned long long)pfn_free, err ? strerror(err) : "ok");
	p = secret_map(&fd, REFILL);
	for (i = 0; i < REFILL; i++) {
		uint64_t pfn;

		p[i * page_size] = 1;
		pfn = pfn_of(p + i * page_size);
		if (pfn == pfn_used || pfn == pfn_free) {
			fprintf(stderr, "%s: poisoned pfn %#llx handed out\n",
				PROG, (unsigned long long)pfn);
			return 1;
		}
	}
	munmap(p, REFILL * page_size);
	close(fd);
	lost = pool_stat("lost_pages");
	printf("lost_pages: %ld -> %ld after %d more secret pages\n",
	       lost0, lost, REFILL);
	if (lost != lost0 + 1) {
		fprintf(stderr, "%s: lost_pages %ld, expected %ld\n",
			PROG, lost, lost0 + 1);
		return 1;
	}
	printf("ok - secret_poison\n");
	return 0;
}
