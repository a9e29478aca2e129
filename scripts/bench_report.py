#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the console logs of a 'make bench' run into a table and pictures.

Usage: bench_report.py DIR

DIR holds vanilla.log and patched.log, the consoles of the two guests
booted in bench mode. Writes DIR/report.txt (also printed) and, for each
kernel, DIR/<kernel>-dmap.png: one cell per 2 MiB region of the direct
map, coloured by the entry that maps it.
"""

import re
import struct
import sys
import zlib

KERNELS = ("vanilla", "patched")
WORKLOADS = (
    ("secret_fill", "(a) memfd_secret, fresh guest: 256 files x 4 pages"),
    ("secret_fill_busy", "(b) memfd_secret, busy guest: a pipe filled between files"),
)
EXEC_WORKLOADS = (
    ("bpf_filters", "(e) 2000 BPF filters, JIT on, loaded and each run once; "
     "3 runs"),
    ("modules", "(f) 100 rounds of insmod/rmmod test_module, then test_bpf; "
     "3 runs"),
)
# Region kinds from dmap_probe --map, and their colours.
COLOURS = {
    "1G": (40, 90, 200),
    "2M": (60, 170, 80),
    "4K": (220, 50, 40),
    "NP": (30, 30, 30),
    "MIX": (240, 160, 30),
}


def parse(path):
    """Return (blocks, outputs, map, kernel_bench) from one console log."""
    blocks, outputs, regions, kbench = {}, {}, [], {}
    cur = None
    with open(path, errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not line.startswith("GUEST: "):
                continue
            text = line[len("GUEST: "):]
            m = re.match(r"BENCH (\S+) (before|output|after|result|end)", text)
            if m:
                name, part = m.groups()
                cur = None if part == "end" else (name, part)
                continue
            if text == "BENCH map":
                cur = ("map", "map")
                continue
            if cur is None:
                continue
            name, part = cur
            if part == "map":
                kind = text.split()
                if len(kind) == 2:
                    regions.append(kind[1])
            elif part == "output":
                outputs.setdefault(name, []).append(text)
                kv = text.split(": ", 1)
                if len(kv) == 2:
                    blocks.setdefault((name, "output"), {})[kv[0]] = kv[1]
            else:
                kv = text.split(": ", 1)
                if len(kv) == 2:
                    blocks.setdefault((name, part), {})[kv[0]] = kv[1]
    return blocks, outputs, regions, kbench


def hotpath(path):
    """Return {row: [ns per page of each run]} from pa_bench and fault_loop."""
    rows = {}
    pat = re.compile(r"GUEST: (?:pa_bench: order=(\d+)|fault_loop:) "
                     r"run=\d+ ns_per_page=([\d.]+)")
    with open(path, errors="replace") as f:
        for line in f:
            m = pat.match(line.rstrip("\n"))
            if m:
                key = "order%s" % m.group(1) if m.group(1) else "fault"
                rows.setdefault(key, []).append(float(m.group(2)))
    return rows


def values(output, key):
    """Every value of @key in a workload's output lines, as floats."""
    out = []
    for text in output:
        kv = text.split(": ", 1)
        if len(kv) == 2 and kv[0] == key:
            try:
                out.append(float(kv[1]))
            except ValueError:
                pass
    return out


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2.0


def spread(v):
    """Half the range of the runs, in percent of their median."""
    return 100.0 * (max(v) - min(v)) / 2.0 / median(v)


def num(block, key):
    try:
        return int(block.get(key, ""))
    except ValueError:
        return None


def delta(blocks, name, key):
    a = num(blocks.get((name, "before"), {}), key)
    b = num(blocks.get((name, "after"), {}), key)
    if a is None or b is None or a < 0 or b < 0:
        return None
    return b - a


def fmt(v, signed=True):
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return "%.2f" % v
    return ("%+d" % v) if signed else str(v)


def png(path, regions, columns=64, cell=6):
    """A plain RGB PNG, one cell per region, row by row."""
    rows = max(1, (len(regions) + columns - 1) // columns)
    width, height = columns * cell, rows * cell
    raw = bytearray()
    for y in range(height):
        raw.append(0)
        r = y // cell
        for x in range(width):
            i = r * columns + x // cell
            edge = (x % cell == cell - 1) or (y % cell == cell - 1)
            colour = COLOURS.get(regions[i], (255, 255, 255)) \
                if i < len(regions) else (255, 255, 255)
            raw += bytes((200, 200, 200) if edge and i < len(regions)
                         else colour)

    def chunk(tag, data):
        return (struct.pack(">I", len(data)) + tag + data +
                struct.pack(">I", zlib.crc32(tag + data) & 0xffffffff))

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height,
                                           8, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(bytes(raw), 9)))
        f.write(chunk(b"IEND", b""))


KIND_LABELS = (("1G", "1 GiB page"), ("2M", "2 MiB page"),
               ("4K", "split to 4 KiB pages"), ("MIX", "mixed"),
               ("NP", "not present"))


def picture(path, maps):
    """Vanilla beside patched, one row per GiB of physical address, one
    cell per 2 MiB region, coloured by the entry that maps it. Returns
    False without matplotlib (the plain pictures are still written)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.colors import ListedColormap
        from matplotlib.patches import Patch
    except ImportError:
        return False
    kinds = [k for k, _ in KIND_LABELS]
    per_gib = 512
    rows = max(1, max((len(r) + per_gib - 1) // per_gib
                      for r in maps.values()))
    cmap = ListedColormap([tuple(c / 255.0 for c in COLOURS[k])
                           for k in kinds] + [(1, 1, 1)])
    fig, axes = plt.subplots(1, len(maps), figsize=(18, 2.2 + 0.9 * rows),
                             sharey=True, squeeze=False)
    for ax, (name, regions) in zip(axes[0], maps.items()):
        grid = [[len(kinds)] * per_gib for _ in range(rows)]
        for i, kind in enumerate(regions):
            grid[i // per_gib][i % per_gib] = (kinds.index(kind)
                                               if kind in kinds else len(kinds))
        ax.imshow(grid, cmap=cmap, vmin=0, vmax=len(kinds), aspect="auto",
                  interpolation="nearest",
                  extent=(0, 1024, rows, 0))
        split = sum(1 for r in regions if r in ("4K", "MIX"))
        ax.set_title("%s: %d of %d regions split" % (name, split,
                                                     len(regions)))
        ax.set_xlabel("offset in the GiB, MiB")
        ax.set_xticks(range(0, 1025, 128))
        ax.set_yticks([y + 0.5 for y in range(rows)])
        ax.set_yticklabels(["%d GiB" % y for y in range(rows)])
    axes[0][0].set_ylabel("physical address")
    fig.suptitle("The direct map after the benchmark's workloads: each "
                 "2 MiB of physical memory, by the entry that maps it")
    fig.legend(handles=[Patch(color=tuple(c / 255.0 for c in COLOURS[k]),
                              label=l) for k, l in KIND_LABELS],
               loc="lower center", ncol=len(KIND_LABELS))
    fig.tight_layout(rect=(0, 0.08, 1, 0.95))
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


SPLIT_KEYS = (
    ("direct_map_level2_splits", "level-2 splits (2M split), delta"),
    ("direct_map_level3_splits", "level-3 splits (1G split), delta"),
    ("DirectMap4k_kB", "DirectMap4k kB, delta"),
    ("DirectMap2M_kB", "DirectMap2M kB, delta"),
    ("DirectMap1G_kB", "DirectMap1G kB, delta"),
    ("ptdump_4k", "4 KiB direct-map entries, delta"))


def split_rows(lines, row, data, name, keys):
    """One row per probe key: its delta over workload @name, both kernels."""
    for key, label in keys:
        lines.append(row % (label, fmt(delta(data["vanilla"][0], name, key)),
                            fmt(delta(data["patched"][0], name, key))))


def main():
    out = sys.argv[1]
    data = {k: parse("%s/%s.log" % (out, k)) for k in KERNELS}
    lines = ["dmap_pool benchmark: vanilla 6.12 base against the patched "
             "series, same configuration, same workloads, one boot of each",
             "(the test configuration without lockdep, DEBUG_VM and "
             "DEBUG_ATOMIC_SLEEP: configs/bench/)", ""]
    row = "  %-38s %14s %14s"

    for name, title in WORKLOADS:
        lines.append(title)
        lines.append(row % ("", "vanilla", "patched"))
        split_rows(lines, row, data, name, SPLIT_KEYS)
        after = [num(data[k][0].get((name, "after"), {}), "ptdump_4k")
                 for k in KERNELS]
        lines.append(row % ("4 KiB direct-map entries, after",
                            fmt(after[0], False), fmt(after[1], False)))

        pages = [num(data[k][0].get((name, "output"), {}), "secret_pages")
                 for k in KERNELS]
        rate = [num(data[k][0].get((name, "output"), {}), "secret_pages_per_s")
                for k in KERNELS]
        lines.append(row % ("secret pages faulted", fmt(pages[0], False),
                            fmt(pages[1], False)))
        lines.append(row % ("fault throughput, pages/s", fmt(rate[0], False),
                            fmt(rate[1], False)))
        if rate[0] and rate[1]:
            lines.append(row % ("  ratio patched/vanilla", "",
                                "%.2f" % (rate[1] / rate[0])))
        def per256(key, per_cpu=False):
            """@key's delta per 256 secret pages, over the CPUs if per_cpu."""
            out = []
            for k, p in zip(KERNELS, pages):
                d = delta(data[k][0], name, key)
                n = (num(data[k][0].get((name, "after"), {}), "online_cpus")
                     if per_cpu else 1)
                out.append(256.0 * d / n / p if d is not None and n and p
                           else None)
            return out

        per = per256("kernel_flush_calls", per_cpu=True)
        lines.append(row % ("kernel TLB flushes per 256 pages",
                            fmt(per[0]), fmt(per[1])))
        for key in ("nr_tlb_remote_flush", "nr_tlb_local_flush_all",
                    "nr_tlb_local_flush_one"):
            per = per256(key)
            lines.append(row % ("%s per 256 pages" % key,
                                fmt(per[0]), fmt(per[1])))
        lines.append("")

    # (e) and (f): execmem's users, timed over several runs.
    erow = "  %-38s %20s %20s"
    for name, title in EXEC_WORKLOADS:
        lines.append(title)
        lines.append(erow % ("", "vanilla", "patched"))
        split_rows(lines, erow, data, name,
                   [k for k in SPLIT_KEYS if k[0] not in
                    ("DirectMap2M_kB", "DirectMap1G_kB")])
        times = []
        for key, label in (("elapsed_ms", "time per run, ms"),
                           ("bpf_load_ns", "BPF_PROG_LOAD time per run, ms")):
            runs = [values(data[k][1].get(name, []), key) for k in KERNELS]
            if key == "bpf_load_ns":
                runs = [[x / 1e6 for x in r] for r in runs]
            if not runs[0] and not runs[1]:
                continue
            lines.append(erow % (label, *("%.0f +-%.1f%% (%d)" % (
                median(r), spread(r), len(r)) if r else "n/a" for r in runs)))
            if runs[0] and runs[1]:
                times.append((label, runs))
        for label, runs in times:
            ratio = median(runs[1]) / median(runs[0])
            noise = max(spread(runs[0]), spread(runs[1]))
            lines.append(erow % ("  patched/vanilla, " + label.split(",")[0],
                                 "", "%.3f (noise %.1f%%)" % (ratio, noise)))
        for key, label in (("pool_chunks_after_shrink",
                            "execmem pool chunks after a shrink"),
                           ("pool_pages_in_use", "  of which pages in use")):
            v = [data[k][0].get((name, "output"), {}).get(key, "none")
                 for k in KERNELS]
            lines.append(erow % (label, v[0], v[1]))
        for k in KERNELS:
            for text in data[k][1].get(name, []):
                if "Summary:" in text or "FAIL" in text or "bpf_load:" in text:
                    lines.append("  %s: %s" % (k, text))
        lines.append("")

    kb = data["patched"][0].get(("kernel", "result"), {})
    lines.append("(c) in the patched kernel, dmap_pool_bench.ko, ns per page, "
                 "%s pages" % kb.get("pages", "n/a"))
    crow = "  %-34s %8s %8s %8s %8s %6s"
    lines.append(crow % ("", "alloc", "free", "zero", "total", "L2"))
    methods = (("pool", "dmap_pool, chunks held"),
               ("pool_cold", "dmap_pool, new pool"))
    for key, label in methods:
        if ("%s_ns_per_page" % key) not in kb:
            lines.append(crow % (label, "n/a", "", "", "",
                                 kb.get("%s_error" % key, "")))
            continue
        lines.append(crow % ((label,) + tuple(
            kb.get("%s_%s" % (key, f), "?") for f in (
                "alloc_ns_per_page", "free_ns_per_page", "zero_ns_per_page",
                "ns_per_page", "level2_splits"))))
    if not kb:
        lines.append("  no dmap_pool_bench results in the patched console log")
    lines.append("  pages unmapped one by one: the vanilla kernel's "
                 "memfd_secret, (a) and (b)")
    lines.append("")

    hot = {k: hotpath("%s/%s.log" % (out, k)) for k in KERNELS}
    lines.append("(d) the page allocator's hot paths, ns per page: median of "
                 "the runs, +- half their range (the run-to-run noise)")
    hrow = "  %-34s %18s %18s %8s  %s"
    lines.append(hrow % ("", "vanilla", "patched", "p/v", ""))
    for key, label in (("order0", "alloc_pages+free, order 0"),
                       ("order3", "alloc_pages+free, order 3"),
                       ("fault", "fault+munmap, 4K pages, user")):
        v, p = hot["vanilla"].get(key), hot["patched"].get(key)
        if not v or not p:
            lines.append(hrow % (label, "n/a" if not v else "", "n/a" if not p
                                 else "", "", "no runs in a console log"))
            continue
        ratio = median(p) / median(v)
        noise = max(spread(v), spread(p))
        verdict = ("within the noise" if abs(ratio - 1) * 100 <= noise
                   else "beyond the noise")
        lines.append(hrow % (label,
                             "%.1f +-%.1f%% (%d)" % (median(v), spread(v), len(v)),
                             "%.1f +-%.1f%% (%d)" % (median(p), spread(p), len(p)),
                             "%.3f" % ratio, verdict))
    lines.append("")

    for k in KERNELS:
        regions = data[k][2]
        counts = {c: regions.count(c) for c in COLOURS}
        path = "%s/%s-dmap.png" % (out, k)
        png(path, regions)
        lines.append("%s direct map, %d regions of 2 MiB: %s; picture %s" % (
            k, len(regions),
            ", ".join("%s %d" % (c, n) for c, n in counts.items() if n), path))
    lines.append("colours: blue 1G, green 2M, red 4K, black not present, "
                 "orange mixed")
    both = "%s/dmap.png" % out
    if picture(both, {k: data[k][2] for k in KERNELS}):
        lines.append("vanilla beside patched, with axes and a legend: %s"
                     % both)
    else:
        lines.append("no %s: python3-matplotlib is not installed" % both)

    text = "\n".join(lines) + "\n"
    with open("%s/report.txt" % out, "w") as f:
        f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
