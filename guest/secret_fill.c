// SPDX-License-Identifier: GPL-2.0
/*
 * secret_fill: fault in many small memfd_secret files.
 *
 *	secret_fill [-f files] [-p pages_per_file] [-b] [-s seconds]
 *
 * Each file is created with memfd_secret(), sized, mapped shared and
 * every page is written once, so that each page is taken out of the
 * direct map. With -b ("busy guest") a pipe holding 64 KiB is created
 * and kept before each file: unmovable kernel allocations interleaved
 * with the secret pages. All files stay open until the end, when the
 * time spent faulting the secret pages is printed; with -s they stay open
 * that many seconds more, for a test that needs secret memory in use.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PROG "secret_fill"
#include "util.h"

#ifndef __NR_memfd_secret
#define __NR_memfd_secret 447
#endif

#define PAGE_SZ		4096
#define PIPE_FILL	(64 * 1024)

struct secret {
	int fd;
	char *mem;
};

/* A pipe with 64 KiB of data in it, both ends kept open. */
static void busy_pipe(int *fds)
{
	static char buf[PIPE_FILL];
	ssize_t n;

	if (pipe2(fds, O_NONBLOCK))
		die("pipe2");
	if (fcntl(fds[1], F_SETPIPE_SZ, PIPE_FILL) < 0)
		die("F_SETPIPE_SZ");
	memset(buf, 0xa5, sizeof(buf));
	n = write(fds[1], buf, sizeof(buf));
	if (n < 0)
		die("write to pipe");
	if (n != sizeof(buf)) {
		fprintf(stderr, "secret_fill: short write to pipe: %zd\n", n);
		exit(1);
	}
}

static void usage(void)
{
	fprintf(stderr,
		"usage: secret_fill [-f files] [-p pages_per_file] [-b] [-s seconds]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	long files = 256, pages = 4, i, j;
	uint64_t fault_ns = 0, t0, total;
	struct secret *s;
	size_t len;
	int *pipes;
	int busy = 0, opt;
	long hold = 0;

	while ((opt = getopt(argc, argv, "f:p:bs:")) != -1) {
		switch (opt) {
		case 'f':
			files = strtol(optarg, NULL, 0);
			break;
		case 'p':
			pages = strtol(optarg, NULL, 0);
			break;
		case 'b':
			busy = 1;
			break;
		case 's':
			hold = strtol(optarg, NULL, 0);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || files <= 0 || pages <= 0 ||
	    files > 100000 || pages > 1000000 || hold < 0 || hold > 3600)
		usage();

	set_limit(RLIMIT_MEMLOCK, RLIM_INFINITY, "setrlimit(RLIMIT_MEMLOCK)");
	set_limit(RLIMIT_NOFILE, files * 3 + 64 > 8192 ? files * 3 + 64 : 8192,
		  "setrlimit(RLIMIT_NOFILE)");

	len = (size_t)pages * PAGE_SZ;
	s = calloc(files, sizeof(*s));
	pipes = calloc(files * 2, sizeof(*pipes));
	if (!s || !pipes)
		die("calloc");

	for (i = 0; i < files; i++) {
		if (busy)
			busy_pipe(&pipes[2 * i]);

		s[i].fd = syscall(__NR_memfd_secret, 0);
		if (s[i].fd < 0)
			die("memfd_secret");
		if (ftruncate(s[i].fd, len))
			die("ftruncate");
		s[i].mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
				s[i].fd, 0);
		if (s[i].mem == MAP_FAILED)
			die("mmap");

		t0 = now_ns();
		for (j = 0; j < pages; j++)
			s[i].mem[j * PAGE_SZ] = (char)(i + j + 1);
		fault_ns += now_ns() - t0;
	}

	total = (uint64_t)files * pages;
	printf("secret_pages: %llu\n", (unsigned long long)total);
	printf("secret_fault_ns: %llu\n", (unsigned long long)fault_ns);
	printf("secret_pages_per_s: %.0f\n",
	       fault_ns ? total * 1e9 / fault_ns : 0.0);
	fflush(stdout);
	if (hold)
		sleep(hold);

	for (i = 0; i < files; i++) {
		if (munmap(s[i].mem, len))
			die("munmap");
		close(s[i].fd);
		if (busy) {
			close(pipes[2 * i]);
			close(pipes[2 * i + 1]);
		}
	}
	free(pipes);
	free(s);
	return 0;
}
