// SPDX-License-Identifier: GPL-2.0
/*
 * secret_leak: secret pages must not carry data from one user to the next.
 *
 * Fills FILL_PAGES pages of memfd_secret memory with a distinctive
 * pattern, frees them (munmap, close), then a forked child, a later
 * memfd_secret user, maps twice as many pages and checks that every byte
 * of every newly faulted page reads zero and that the pattern is found
 * nowhere. Prints "ok - secret_leak" or "not ok - secret_leak: <why>".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef __NR_memfd_secret
#define __NR_memfd_secret 447
#endif

#define PAGE_SZ		4096
#define FILL_PAGES	512
#define CHECK_PAGES	(2 * FILL_PAGES)
#define PATTERN		0x5ec12e7d3a7a1eafULL

static char reason[256];

/* Map a new secret file of @pages pages; NULL with reason set on error. */
static uint64_t *secret_map(size_t pages, int *fdp)
{
	size_t len = pages * PAGE_SZ;
	void *mem;
	int fd;

	fd = syscall(__NR_memfd_secret, 0);
	if (fd < 0) {
		snprintf(reason, sizeof(reason), "memfd_secret: %s",
			 strerror(errno));
		return NULL;
	}
	if (ftruncate(fd, len)) {
		snprintf(reason, sizeof(reason), "ftruncate: %s",
			 strerror(errno));
		close(fd);
		return NULL;
	}
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED) {
		snprintf(reason, sizeof(reason), "mmap: %s", strerror(errno));
		close(fd);
		return NULL;
	}
	*fdp = fd;
	return mem;
}

static int fill(void)
{
	size_t i, words = (size_t)FILL_PAGES * PAGE_SZ / 8;
	uint64_t *mem;
	int fd;

	mem = secret_map(FILL_PAGES, &fd);
	if (!mem)
		return -1;
	for (i = 0; i < words; i++)
		mem[i] = PATTERN;
	for (i = 0; i < words; i += PAGE_SZ / 8) {
		if (mem[i] != PATTERN) {
			snprintf(reason, sizeof(reason),
				 "fill did not stick at page %zu",
				 i / (PAGE_SZ / 8));
			return -1;
		}
	}
	if (munmap(mem, (size_t)FILL_PAGES * PAGE_SZ)) {
		snprintf(reason, sizeof(reason), "munmap: %s", strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

/* The later user: every word of every new page must be zero. */
static int check(void)
{
	size_t i, words = (size_t)CHECK_PAGES * PAGE_SZ / 8;
	size_t nonzero = 0, hits = 0, first = 0;
	uint64_t pat = PATTERN;
	uint64_t *mem;
	int fd;

	mem = secret_map(CHECK_PAGES, &fd);
	if (!mem)
		return -1;
	for (i = 0; i < words; i++) {
		if (!mem[i])
			continue;
		if (!nonzero++)
			first = i;
		if (mem[i] == PATTERN)
			hits++;
	}
	if (!hits && memmem(mem, words * 8, &pat, sizeof(pat)))
		hits = 1;
	if (nonzero || hits) {
		snprintf(reason, sizeof(reason),
			 "%zu non-zero words (first in page %zu), pattern found %zu times",
			 nonzero, first / (PAGE_SZ / 8), hits);
		return -1;
	}
	munmap(mem, words * 8);
	close(fd);
	return 0;
}

static int child_check(void)
{
	int status, p[2];
	ssize_t n;
	pid_t pid;

	if (pipe(p)) {
		snprintf(reason, sizeof(reason), "pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(reason, sizeof(reason), "fork: %s", strerror(errno));
		return -1;
	}
	if (!pid) {
		int ret = check();

		close(p[0]);
		if (ret && write(p[1], reason, strlen(reason)) < 0)
			_exit(2);
		_exit(ret ? 1 : 0);
	}
	close(p[1]);
	n = read(p[0], reason, sizeof(reason) - 1);
	reason[n > 0 ? n : 0] = '\0';
	close(p[0]);
	if (waitpid(pid, &status, 0) < 0) {
		snprintf(reason, sizeof(reason), "waitpid: %s", strerror(errno));
		return -1;
	}
	if (WIFSIGNALED(status)) {
		snprintf(reason, sizeof(reason), "checker killed by signal %d",
			 WTERMSIG(status));
		return -1;
	}
	if (WEXITSTATUS(status)) {
		if (!reason[0])
			snprintf(reason, sizeof(reason), "checker exited %d",
				 WEXITSTATUS(status));
		return -1;
	}
	return 0;
}

int main(void)
{
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };

	if (setrlimit(RLIMIT_MEMLOCK, &rl)) {
		snprintf(reason, sizeof(reason), "setrlimit(RLIMIT_MEMLOCK): %s",
			 strerror(errno));
		goto fail;
	}
	if (fill() || child_check())
		goto fail;
	printf("ok - secret_leak\n");
	return 0;
fail:
	printf("not ok - secret_leak: %s\n", reason);
	return 1;
}
