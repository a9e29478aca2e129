/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the guest programs. Define PROG, the program's name
 * for messages, before including this file.
 */
#ifndef GUEST_UTIL_H
#define GUEST_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* Print what failed, with errno, and exit 1. */
static inline __attribute__((noreturn)) void die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", PROG, what, strerror(errno));
	exit(1);
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Set both limits of @resource to @val, or die naming @name. */
static inline void set_limit(int resource, rlim_t val, const char *name)
{
	struct rlimit rl = { .rlim_cur = val, .rlim_max = val };

	if (setrlimit(resource, &rl))
		die(name);
}

#endif /* GUEST_UTIL_H */
