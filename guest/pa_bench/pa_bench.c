// SPDX-License-Identifier: GPL-2.0
/*
 * pa_bench: what the page allocator costs for alloc_pages() plus
 * __free_pages() in a tight loop, at orders 0 and 3, in ns per page.
 *
 * Built out of tree against each kernel that "make bench" boots (the
 * vanilla base and the series), so that the two run the same code. Each
 * run allocates a batch of blocks and frees them, again and again; the
 * module prints one line per order and run, and its init then fails so
 * that nothing stays loaded:
 *
 *	pa_bench: order=0 run=1 ns_per_page=123.45
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched.h>

#define PA_BENCH_BATCH	64

static unsigned int loops = 2000;
module_param(loops, uint, 0444);
MODULE_PARM_DESC(loops, "batches per run (default 2000)");

static unsigned int runs = 7;
module_param(runs, uint, 0444);
MODULE_PARM_DESC(runs, "runs per order (default 7)");

static struct page *pa_bench_pages[PA_BENCH_BATCH];

/* One run: @loops batches. Return: ps per page, 0 if an allocation failed. */
static u64 pa_bench_run(unsigned int order)
{
	unsigned int i, j, n = 0;
	u64 start, ns;

	start = ktime_get_ns();
	for (i = 0; i < loops; i++) {
		for (j = 0; j < PA_BENCH_BATCH; j++) {
			pa_bench_pages[j] = alloc_pages(GFP_KERNEL, order);
			n += !pa_bench_pages[j];
		}
		for (j = 0; j < PA_BENCH_BATCH; j++)
			if (pa_bench_pages[j])
				__free_pages(pa_bench_pages[j], order);
		cond_resched();
	}
	ns = ktime_get_ns() - start;
	if (n)
		return 0;
	return div64_u64(ns * 1000, (u64)loops * PA_BENCH_BATCH << order);
}

static int __init pa_bench_init(void)
{
	static const unsigned int orders[] = { 0, 3 };
	unsigned int r, o;
	u64 ps;

	/* One untimed run of each, so that the first timed run is warm. */
	for (o = 0; o < ARRAY_SIZE(orders); o++)
		pa_bench_run(orders[o]);
	for (r = 1; r <= runs; r++) {
		for (o = 0; o < ARRAY_SIZE(orders); o++) {
			ps = pa_bench_run(orders[o]);
			if (!ps) {
				pr_err("order=%u run=%u allocation failed\n",
				       orders[o], r);
				continue;
			}
			pr_info("order=%u run=%u ns_per_page=%llu.%02llu\n",
				orders[o], r, ps / 1000, ps % 1000 / 10);
		}
	}
	/* Nothing to keep loaded. */
	return -EAGAIN;
}
module_init(pa_bench_init);

MODULE_DESCRIPTION("page allocator alloc+free cost, for make bench");
MODULE_LICENSE("GPL");
