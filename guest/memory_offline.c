// SPDX-License-Identifier: GPL-2.0
/*
 * memory_offline: offlining memory blocks that hold dmap_pool chunks,
 * through /sys/devices/system/memory/memoryN/state, as an administrator
 * does it. Pages of a chunk cannot be migrated, and its free pages are not
 * free to the page allocator, whose offlining alone would retry them for
 * ever: the pools must give free chunks back, or refuse.
 *
 *  1. Secret pages in use (memfd_secret): offlining a block with a chunk
 *     that holds pages of the test's own secret mapping (their pfns from
 *     /proc/self/pagemap) fails with EBUSY, refused by the pools (their
 *     "stays online" line, read from /dev/kmsg), never retried.
 *  2. The same pages freed: offlining a block whose chunks are all free
 *     succeeds, the chunks are gone from the chunk list, and the block
 *     goes back online.
 *
 * Blocks are tried whose pages outside chunks /proc/kpageflags shows free
 * or unused: no slab, page table, LRU, offline, reserved or absent page. A page
 * that flags do not tell from a free one (an allocated kernel page) makes
 * offlining fail with EBUSY before the pools are asked; such a block is
 * passed over. Each write runs under alarm(): a write still retrying when
 * it fires fails with EINTR, and the test with it.
 *
 * "memory_offline -b" shows the first case only, "-f" the second only.
 *
 * Exit 0: passed; 1: failed; 4: the kernel lacks memory offlining,
 * memfd_secret or the chunk list, or no block could show a case.
 */
#define PROG "memory_offline"
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "util.h"

#ifndef __NR_memfd_secret
#define __NR_memfd_secret 447
#endif

#define MEMORY		"/sys/devices/system/memory"
#define CHUNKS		"/sys/kernel/debug/dmap_pool/chunks"
#define SECRET_MB	320	/* 160 chunks: enough to fill whole blocks */
#define WAIT_S		60	/* a write that takes longer is retrying */
#define MAX_TRIES	8	/* blocks tried per case */

/* /proc/kpageflags bits (Documentation/admin-guide/mm/pagemap.rst) */
#define KPF_LRU		5
#define KPF_SLAB	7
#define KPF_COMPOUND_HEAD 15
#define KPF_COMPOUND_TAIL 16
#define KPF_NOPAGE	20
#define KPF_OFFLINE	23
#define KPF_PGTABLE	26
#define KPF_RESERVED	32
#define KPF_HELD	((1ULL << KPF_LRU) | (1ULL << KPF_SLAB) | \
			 (1ULL << KPF_COMPOUND_HEAD) | \
			 (1ULL << KPF_COMPOUND_TAIL) | (1ULL << KPF_NOPAGE) | \
			 (1ULL << KPF_OFFLINE) | (1ULL << KPF_PGTABLE) | \
			 (1ULL << KPF_RESERVED))

struct chunk {
	uint64_t pfn;
	unsigned int order;
	unsigned long busy;	/* pages neither free nor clean: used, dirty, lost */
	unsigned long mine;	/* pages of the test's secret mapping */
};

static struct chunk *chunks;
static size_t nr_chunks;
static uint64_t block_pages;
static uint64_t *mine;		/* pfns of the secret mapping, sorted */
static size_t nr_mine;

static void on_alarm(int sig)
{
	(void)sig;
}

static __attribute__((noreturn)) void skip(const char *why)
{
	printf("skip: %s\n", why);
	exit(4);
}

static int cmp_pfn(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The pfns of the @len bytes at @p, mapped and touched, from pagemap. */
static void read_mine(const char *p, size_t len, long page_size)
{
	size_t i, n = len / page_size;
	uint64_t *map = malloc(n * sizeof(*map));
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (!map)
		die("malloc");
	if (fd < 0)
		die("/proc/self/pagemap");
	if (pread(fd, map, n * sizeof(*map),
		  (uintptr_t)p / page_size * sizeof(*map)) !=
	    (ssize_t)(n * sizeof(*map)))
		die("reading /proc/self/pagemap");
	close(fd);
	nr_mine = 0;
	for (i = 0; i < n; i++)	/* bit 63: present; bits 0-54: pfn */
		if (map[i] >> 63 && (map[i] & ((1ULL << 55) - 1)))
			map[nr_mine++] = map[i] & ((1ULL << 55) - 1);
	qsort(map, nr_mine, sizeof(*map), cmp_pfn);
	mine = map;
}

/* Pages of the secret mapping in [@first, @first + @nr). */
static unsigned long count_mine(uint64_t first, uint64_t nr)
{
	size_t lo = 0, hi = nr_mine, start;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (mine[mid] < first)
			lo = mid + 1;
		else
			hi = mid;
	}
	start = lo;
	while (lo < nr_mine && mine[lo] < first + nr)
		lo++;
	return lo - start;
}

static void read_chunks(void)
{
	static size_t cap;
	char line[160], perm[16], owner[40];
	unsigned long free, lost;
	struct chunk c;
	FILE *f = fopen(CHUNKS, "r");

	if (!f)
		skip(CHUNKS " is missing");
	nr_chunks = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 " %u %15s %39s %lu %lu", &c.pfn,
			   &c.order, perm, owner, &free, &lost) != 6)
			continue;	/* the heading */
		c.busy = (1UL << c.order) - free;
		c.mine = count_mine(c.pfn, 1ULL << c.order);
		if (nr_chunks == cap) {
			cap = cap ? 2 * cap : 256;
			chunks = realloc(chunks, cap * sizeof(*chunks));
			if (!chunks)
				die("realloc");
		}
		chunks[nr_chunks++] = c;
	}
	fclose(f);
}

static int in_chunk(uint64_t pfn)
{
	size_t i;

	for (i = 0; i < nr_chunks; i++)
		if (pfn >= chunks[i].pfn &&
		    pfn < chunks[i].pfn + (1ULL << chunks[i].order))
			return 1;
	return 0;
}

/*
 * Chunks in block @b: their number; in *@busy, those not wholly free; in
 * *@ours, those that hold pages of the secret mapping.
 */
static size_t block_chunks(uint64_t b, size_t *busy, size_t *ours)
{
	size_t i, n = 0;

	*busy = 0;
	*ours = 0;
	for (i = 0; i < nr_chunks; i++) {
		if (chunks[i].pfn / block_pages != b)
			continue;
		n++;
		*busy += chunks[i].busy != 0;
		*ours += chunks[i].mine != 0;
	}
	return n;
}

/* Is block @b online, with no page outside its chunks that holds it? */
static int candidate(uint64_t b)
{
	static uint64_t *flags;
	uint64_t first = b * block_pages, i;
	size_t len = block_pages * sizeof(uint64_t);
	char path[96], state[32] = "";
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), MEMORY "/memory%" PRIu64 "/state", b);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(state, sizeof(state), f))
		state[0] = 0;
	fclose(f);
	if (strncmp(state, "online", 6))
		return 0;

	if (!flags) {
		flags = malloc(len);
		if (!flags)
			die("malloc");
	}
	fd = open("/proc/kpageflags", O_RDONLY);
	if (fd < 0)
		skip("no /proc/kpageflags");
	if (pread(fd, flags, len, first * 8) != (ssize_t)len)
		die("reading /proc/kpageflags");
	close(fd);
	for (i = 0; i < block_pages; i++)
		if ((flags[i] & KPF_HELD) && !in_chunk(first + i))
			return 0;
	return 1;
}

/* /dev/kmsg, positioned after the last record. */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd < 0)
		die("/dev/kmsg");
	if (lseek(fd, 0, SEEK_END) < 0)
		die("seeking /dev/kmsg");
	return fd;
}

/* Did a record logged since kmsg_open() say that the pools refused? */
static int kmsg_refused(int fd)
{
	char rec[8192];
	ssize_t n;
	int found = 0;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		/* Records overwritten meanwhile, or one too long to read. */
		if (n < 0 && (errno == EPIPE || errno == EINVAL))
			continue;
		if (n <= 0)
			break;
		rec[n] = 0;
		if (strstr(rec, "dmap_pool: pfn ") && strstr(rec, " stays online"))
			found = 1;
	}
	close(fd);
	return found;
}

/* Write @what to block @b's state; return 0 or the errno of the write. */
static int set_state(uint64_t b, const char *what)
{
	char path[96];
	int fd, err = 0;

	snprintf(path, sizeof(path), MEMORY "/memory%" PRIu64 "/state", b);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		die(path);
	alarm(WAIT_S);
	if (write(fd, what, strlen(what)) < 0)
		err = errno;
	alarm(0);
	close(fd);
	return err;
}

/*
 * Offline candidate blocks with a chunk not wholly free (@busy) or with
 * only free chunks, until one shows the case. Return: 1 if one did, 0 if
 * none could, -1 on a failure.
 */
static int try_blocks(int busy)
{
	uint64_t b, seen[MAX_TRIES];
	size_t i, j, n, nbusy, nours;
	int tried = 0, err, refused, kmsg;

	for (i = 0; i < nr_chunks && tried < MAX_TRIES; i++) {
		b = chunks[i].pfn / block_pages;
		for (j = 0; j < (size_t)tried && seen[j] != b; j++)
			;
		if (j < (size_t)tried)
			continue;
		n = block_chunks(b, &nbusy, &nours);
		if ((busy ? !nours : nbusy != 0) || !candidate(b))
			continue;
		seen[tried++] = b;
		kmsg = kmsg_open();
		err = set_state(b, "offline");
		refused = kmsg_refused(kmsg);
		printf("block %" PRIu64 " (pfn %#" PRIx64 "): %zu chunks, %zu not free, %zu with test pages: offline: %s\n",
		       b, b * block_pages, n, nbusy, nours,
		       err ? strerror(err) : "done");
		if (err == EINTR) {
			printf("offlining was still retrying after %d s\n",
			       WAIT_S);
			return -1;
		}
		if (err && err != EBUSY) {
			printf("expected success or EBUSY\n");
			return -1;
		}
		if (err) {
			if (!refused) {
				/* A page of no chunk held it: not our case. */
				printf("refused before the pools were asked\n");
				continue;
			}
			if (!busy) {
				printf("the pools refused free chunks\n");
				return -1;
			}
			printf("refused by the pools\n");
			return 1;
		}
		if (busy) {
			set_state(b, "online");
			printf("offlined under chunks in use\n");
			return -1;
		}
		read_chunks();
		if (block_chunks(b, &nbusy, &nours)) {
			printf("chunks left in the offline block\n");
			return -1;
		}
		err = set_state(b, "online");
		printf("block %" PRIu64 ": online again: %s\n", b,
		       err ? strerror(err) : "done");
		return err ? -1 : 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int only = argc > 1 && argv[1][0] ? argv[1][1] : 0;	/* 'b' or 'f' */
	struct sigaction sa = { .sa_handler = on_alarm };
	size_t len = (size_t)SECRET_MB << 20, off;
	long page_size = sysconf(_SC_PAGESIZE);
	int fd, busy, freed;
	char buf[32] = "";
	char *p;
	FILE *f;

	setvbuf(stdout, NULL, _IOLBF, 0);
	f = fopen(MEMORY "/block_size_bytes", "r");
	if (!f)
		skip("no " MEMORY);
	if (!fgets(buf, sizeof(buf), f))
		die("block_size_bytes");
	fclose(f);
	block_pages = strtoull(buf, NULL, 16) / page_size;
	/* No SA_RESTART: the alarm ends a write that retries. */
	if (sigaction(SIGALRM, &sa, NULL))
		die("sigaction");

	set_limit(RLIMIT_MEMLOCK, RLIM_INFINITY, "RLIMIT_MEMLOCK");
	fd = syscall(__NR_memfd_secret, 0);
	if (fd < 0)
		skip("no memfd_secret");
	if (ftruncate(fd, len))
		die("ftruncate");
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap");
	for (off = 0; off < len; off += page_size)
		p[off] = 1;
	read_mine(p, len, page_size);
	if (!nr_mine)
		skip("/proc/self/pagemap shows no pfn");

	read_chunks();
	printf("secret pages in use: %zu pages in %zu chunks\n", nr_mine,
	       nr_chunks);
	busy = only == 'f' ? 1 : try_blocks(1);
	if (busy < 0)
		return 1;

	munmap(p, len);
	close(fd);
	nr_mine = 0;
	/* Freed pages are zeroed within a second; then their chunks are free. */
	sleep(3);
	read_chunks();
	printf("secret pages freed: %zu chunks\n", nr_chunks);
	freed = only == 'b' ? 1 : try_blocks(0);
	if (freed < 0)
		return 1;

	printf("cases shown: in use %d, free %d\n", busy, freed);
	if (!busy || !freed)
		skip("no block held by chunks alone for a case");
	printf("offlining refused at once under chunks in use, done over free ones\n");
	return 0;
}
