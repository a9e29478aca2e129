// SPDX-License-Identifier: GPL-2.0
/*
 * dmap_probe: how fragmented is the direct map?
 *
 * Prints one "key: value" line for each of the split counters in
 * /proc/vmstat, the DirectMap sizes in /proc/meminfo and the number of
 * direct-map entries of each size found in the kernel page-table dump
 * (/sys/kernel/debug/page_tables/kernel, CONFIG_PTDUMP_DEBUGFS). A value
 * that cannot be read is printed as -1.
 *
 * With --map FILE, it also writes one line per 2 MiB region of the
 * direct map, "<index> <1G|2M|4K|NP|MIX>", index 0 being the region at
 * physical address 0. --ptdump FILE reads another dump than the kernel's
 * (to test the parser).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PTDUMP_FILE	"/sys/kernel/debug/page_tables/kernel"
#define DMAP_MARKER	"---[ Low Kernel Mapping ]---"

#define SZ_4K		(1ULL << 12)
#define SZ_2M		(1ULL << 21)
#define SZ_1G		(1ULL << 30)

/* Levels as arch/x86/mm/dump_pagetables.c names them. */
enum level { L_PGD, L_P4D, L_PUD, L_PMD, L_PTE, L_UNKNOWN };

static const char * const level_names[] = { "pgd", "p4d", "pud", "pmd", "pte" };

struct range {
	uint64_t start;
	uint64_t end;
	enum level level;
	int present;
};

struct ptdump {
	uint64_t base;		/* PAGE_OFFSET */
	struct range *r;
	size_t nr;
	size_t alloc;
};

/* What a 2 MiB region of the map holds. */
#define R_1G	0x1
#define R_2M	0x2
#define R_4K	0x4
#define R_NP	0x8

static long long read_keyed(const char *path, const char *key)
{
	char line[256];
	size_t len = strlen(key);
	long long val = -1;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p;

		if (strncmp(line, key, len))
			continue;
		p = line + len;
		if (*p == ':')
			p++;
		if (*p != ' ' && *p != '\t')
			continue;
		if (sscanf(p, "%lld", &val) != 1)
			val = -1;
		break;
	}
	fclose(f);
	return val;
}

static enum level parse_level(const char *tok)
{
	int i;

	for (i = 0; i < L_UNKNOWN; i++)
		if (!strcmp(tok, level_names[i]))
			return i;
	return L_UNKNOWN;
}

/* Parse one line of the dump; returns 0 when it is not a range line. */
static int parse_line(char *line, struct range *r)
{
	char *tok, *save, *last = NULL;
	int n = 0;

	if (sscanf(line, "0x%" SCNx64 "-0x%" SCNx64 "%n",
		   &r->start, &r->end, &n) != 2 || !n)
		return 0;
	r->present = 0;
	for (tok = strtok_r(line + n, " \t\r\n", &save); tok;
	     tok = strtok_r(NULL, " \t\r\n", &save)) {
		if (!strcmp(tok, "RW") || !strcmp(tok, "ro"))
			r->present = 1;
		last = tok;
	}
	if (!last)
		return 0;
	r->level = parse_level(last);
	return r->level != L_UNKNOWN && r->end > r->start;
}

static void add_range(struct ptdump *pd, const struct range *r)
{
	if (pd->nr == pd->alloc) {
		size_t n = pd->alloc ? 2 * pd->alloc : 1024;
		struct range *p = realloc(pd->r, n * sizeof(*p));

		if (!p) {
			fprintf(stderr, "dmap_probe: out of memory\n");
			exit(1);
		}
		pd->r = p;
		pd->alloc = n;
	}
	pd->r[pd->nr++] = *r;
}

/*
 * Read the direct map's entries from the dump; returns -1 if unavailable.
 *
 * The direct map starts at PAGE_OFFSET, which is 1 GiB aligned, and ends
 * where the "Low Kernel Mapping" section ends. The section's first line
 * does not always start at PAGE_OFFSET: ptdump moves on by one marker per
 * line, so when another marker starts at the same address (the LDT remap
 * with 5-level paging), the first entries of the direct map are printed
 * under that marker. So keep every line from PAGE_OFFSET on.
 */
static int read_ptdump(struct ptdump *pd, const char *path)
{
	uint64_t base = 0, end = 0;
	struct ptdump all = { 0 };
	int inside = 0, found = 0;
	char *line = NULL;
	size_t cap = 0, i;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		struct range r;

		if (!strncmp(line, "---[", 4)) {
			if (inside)
				break;
			inside = !strncmp(line, DMAP_MARKER, strlen(DMAP_MARKER));
			continue;
		}
		if (!parse_line(line, &r))
			continue;
		if (inside) {
			if (!found)
				base = r.start & ~(SZ_1G - 1);
			found = 1;
			end = r.end;
		}
		add_range(&all, &r);
	}
	free(line);
	fclose(f);

	for (i = 0; found && i < all.nr; i++)
		if (all.r[i].start >= base && all.r[i].end <= end)
			add_range(pd, &all.r[i]);
	free(all.r);
	if (found)
		pd->base = base;
	return found ? 0 : -1;
}

static uint64_t entry_size(enum level level)
{
	switch (level) {
	case L_PTE:
		return SZ_4K;
	case L_PMD:
		return SZ_2M;
	case L_PUD:
		return SZ_1G;
	default:
		return 0;
	}
}

static void print_ptdump_counts(const struct ptdump *pd, int ok)
{
	long long n4k = 0, n2m = 0, n1g = 0, np4k = 0;
	size_t i;

	if (!ok) {
		printf("ptdump_4k: -1\nptdump_2m: -1\nptdump_1g: -1\n");
		printf("ptdump_np_4k: -1\n");
		return;
	}
	for (i = 0; i < pd->nr; i++) {
		const struct range *r = &pd->r[i];
		uint64_t sz = entry_size(r->level);
		long long n;

		if (!sz)
			continue;
		n = (r->end - r->start) / sz;
		if (!r->present) {
			if (r->level == L_PTE)
				np4k += n;
			continue;
		}
		if (r->level == L_PTE)
			n4k += n;
		else if (r->level == L_PMD)
			n2m += n;
		else
			n1g += n;
	}
	printf("ptdump_4k: %lld\nptdump_2m: %lld\nptdump_1g: %lld\n",
	       n4k, n2m, n1g);
	printf("ptdump_np_4k: %lld\n", np4k);
}

static const char *region_kind(unsigned char m)
{
	switch (m) {
	case R_1G:
		return "1G";
	case R_2M:
		return "2M";
	case R_4K:
		return "4K";
	case R_NP:
		return "NP";
	default:
		return "MIX";
	}
}

/*
 * One line per 2 MiB region from the start of the direct map to the end
 * of its last present mapping; holes in between are NP.
 */
static int write_map(const struct ptdump *pd, int ok, const char *path)
{
	uint64_t base, top = 0, nregions, i;
	unsigned char *map;
	size_t k;
	FILE *f;

	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "dmap_probe: cannot write %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	if (!ok || !pd->nr) {
		fprintf(stderr, "dmap_probe: no page-table dump, empty map\n");
		fclose(f);
		return 0;
	}

	base = pd->base;
	for (k = 0; k < pd->nr; k++)
		if (pd->r[k].present && pd->r[k].end > top)
			top = pd->r[k].end;
	nregions = top > base ? (top - base + SZ_2M - 1) / SZ_2M : 0;
	map = calloc(nregions ? nregions : 1, 1);
	if (!map) {
		fprintf(stderr, "dmap_probe: out of memory\n");
		fclose(f);
		return -1;
	}

	for (k = 0; k < pd->nr; k++) {
		const struct range *r = &pd->r[k];
		uint64_t first, last;
		unsigned char bit;

		if (r->start >= top)
			break;
		first = (r->start - base) / SZ_2M;
		last = ((r->end < top ? r->end : top) - base - 1) / SZ_2M;
		if (!r->present)
			bit = R_NP;
		else if (r->level == L_PTE)
			bit = R_4K;
		else if (r->level == L_PMD)
			bit = R_2M;
		else if (r->level == L_PUD)
			bit = R_1G;
		else
			bit = R_NP | R_4K;	/* cannot happen: MIX */
		for (i = first; i <= last && i < nregions; i++)
			map[i] |= bit;
	}

	for (i = 0; i < nregions; i++)
		fprintf(f, "%" PRIu64 " %s\n", i,
			map[i] ? region_kind(map[i]) : "NP");
	free(map);
	if (fclose(f)) {
		fprintf(stderr, "dmap_probe: error writing %s\n", path);
		return -1;
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: dmap_probe [--map FILE] [--ptdump FILE]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct ptdump pd = { 0 };
	const char *ptdump_path = PTDUMP_FILE;
	const char *map_path = NULL;
	int i, ok, ret = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--map") && i + 1 < argc)
			map_path = argv[++i];
		else if (!strcmp(argv[i], "--ptdump") && i + 1 < argc)
			ptdump_path = argv[++i];
		else
			usage();
	}

	printf("direct_map_level2_splits: %lld\n",
	       read_keyed("/proc/vmstat", "direct_map_level2_splits"));
	printf("direct_map_level3_splits: %lld\n",
	       read_keyed("/proc/vmstat", "direct_map_level3_splits"));
	printf("DirectMap4k_kB: %lld\n",
	       read_keyed("/proc/meminfo", "DirectMap4k"));
	printf("DirectMap2M_kB: %lld\n",
	       read_keyed("/proc/meminfo", "DirectMap2M"));
	printf("DirectMap1G_kB: %lld\n",
	       read_keyed("/proc/meminfo", "DirectMap1G"));

	ok = read_ptdump(&pd, ptdump_path) == 0;
	print_ptdump_counts(&pd, ok);

	if (map_path && write_map(&pd, ok, map_path))
		ret = 1;
	free(pd.r);
	if (fflush(stdout))
		ret = 1;
	return ret;
}
