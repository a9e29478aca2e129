// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_load: load many trivial BPF programs with the JIT on.
 *
 *	bpf_load [-n N] [-r] [-p SECONDS]
 *
 * Loads N (default 2000) socket filters "r0 = 0; exit" through bpf(2),
 * keeps every program's file descriptor open so that all JIT images are
 * alive at once, prints the count and the time taken, then closes them.
 * With -r, program i returns i % 4096 + 1 instead, and each is run once
 * with BPF_PROG_TEST_RUN before the files are closed: each must return
 * its own value, which only its JIT image in its pack can give. With -p,
 * it prints "holding" and keeps the programs loaded SECONDS longer.
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

static int load_prog(int ret)
{
	const struct bpf_insn insns[] = {
		/* r0 = ret */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0,
		  .imm = ret },
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

/* Run the program once on a zeroed 64-byte packet: its return value. */
static long run_prog(int fd)
{
	unsigned char pkt[64] = { 0 };
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.test.prog_fd = fd;
	attr.test.data_in = (uintptr_t)pkt;
	attr.test.data_size_in = sizeof(pkt);
	attr.test.repeat = 1;
	if (syscall(__NR_bpf, BPF_PROG_TEST_RUN, &attr, sizeof(attr)))
		return -1;
	return attr.test.retval;
}

int main(int argc, char **argv)
{
	uint64_t t0, ns;
	long n = 2000, i;
	int *fds, opt, run = 0, pause = 0;

	while ((opt = getopt(argc, argv, "n:rp:")) != -1) {
		if (opt == 'r')
			run = 1;
		else if (opt == 'p')
			pause = atoi(optarg);
		else if (opt == 'n')
			n = strtol(optarg, NULL, 0);
		else
			goto usage;
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
		fds[i] = load_prog(run ? i % 4096 + 1 : 0);
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

	for (i = 0; run && i < n; i++) {
		long got = run_prog(fds[i]);

		if (got != i % 4096 + 1) {
			fprintf(stderr, "bpf_load: program %ld of %ld returned %ld, not %ld%s%s\n",
				i + 1, n, got, i % 4096 + 1,
				got < 0 ? ": " : "", got < 0 ? strerror(errno) : "");
			return 1;
		}
	}
	if (run)
		printf("bpf_runs: %ld, each returned its own value\n", n);
	if (pause > 0) {
		printf("holding\n");
		fflush(stdout);
		sleep(pause);
	}

	for (i = 0; i < n; i++)
		close(fds[i]);
	free(fds);
	return 0;

usage:
	fprintf(stderr, "usage: bpf_load [-n N] [-r] [-p SECONDS]\n");
	return 2;
}
