// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_load: load many trivial BPF programs with the JIT on.
 *
 *	bpf_load [-n N]
 *
 * Loads N (default 2000) socket filters "r0 = 0; exit" through bpf(2),
 * keeps every program's file descriptor open so that all JIT images are
 * alive at once, prints the count and the time taken, then closes them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PROG "bpf_load"
#include "util.h"

#define JIT_SYSCTL	"/proc/sys/net/core/bpf_jit_enable"

static void enable_jit(void)
{
	int fd = open(JIT_SYSCTL, O_WRONLY);

	if (fd < 0 || write(fd, "1\n", 2) != 2)
		fprintf(stderr, "bpf_load: warning: cannot enable the JIT (%s): %s\n",
			JIT_SYSCTL, strerror(errno));
	if (fd >= 0)
		close(fd);
}

static int load_prog(void)
{
	static const struct bpf_insn insns[] = {
		/* r0 = 0 */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		/* exit */
		{ .code = BPF_JMP | BPF_EXIT },
	};
	static const char license[] = "GPL";
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (uintptr_t)insns;
	attr.insn_cnt = sizeof(insns) / sizeof(insns[0]);
	attr.license = (uintptr_t)license;
	return syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
}

int main(int argc, char **argv)
{
	uint64_t t0, ns;
	long n = 2000, i;
	int *fds, opt;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n')
			goto usage;
		n = strtol(optarg, NULL, 0);
	}
	if (optind != argc || n <= 0 || n > 1000000)
		goto usage;

	set_limit(RLIMIT_NOFILE, n + 64, "setrlimit(RLIMIT_NOFILE)");
	set_limit(RLIMIT_MEMLOCK, RLIM_INFINITY, "setrlimit(RLIMIT_MEMLOCK)");
	enable_jit();

	fds = calloc(n, sizeof(*fds));
	if (!fds)
		die("calloc");
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		fds[i] = load_prog();
		if (fds[i] < 0) {
			fprintf(stderr, "bpf_load: BPF_PROG_LOAD %ld of %ld: %s\n",
				i + 1, n, strerror(errno));
			return 1;
		}
	}
	ns = now_ns() - t0;
	printf("bpf_progs: %ld\n", n);
	printf("bpf_load_ns: %llu\n", (unsigned long long)ns);
	fflush(stdout);

	for (i = 0; i < n; i++)
		close(fds[i]);
	free(fds);
	return 0;

usage:
	fprintf(stderr, "usage: bpf_load [-n N]\n");
	return 2;
}
