#!/bin/bash
# make bench: boot the vanilla base and the patched series, built from the
# same configuration, run the same workloads in each, and print one table
# of the direct map's state, vanilla against patched. Writes the table and
# a picture of each kernel's direct map to build/bench/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$BUILD/bench
mkdir -p "$out"

"$TOP/scripts/deps.sh"
"$TOP/scripts/tree.sh"

# The series from build/linux, as it is committed; the base from a
# worktree of its own, build/linux-base, so that build/linux is never
# checked out to another commit (which would make every file the series
# touches look changed to the next build of build/obj).
if ! git -C "$SRC" diff --quiet HEAD; then
	die "$SRC has uncommitted changes: commit or export them first"
fi
base_src=$BUILD/linux-base
if [ "$(git -C "$base_src" rev-parse -q --verify HEAD 2>/dev/null)" != \
     "$(git -C "$SRC" rev-parse base)" ]; then
	rm -rf "$base_src"
	git -C "$SRC" worktree prune
	git -C "$SRC" worktree add -q --detach "$base_src" base ||
		die "a worktree of the base in $base_src"
fi
# Neither is the test kernel: both drop the lock and VM debugging (see
# configs/bench/), which would otherwise dominate the timings.
export CONFIGS_EXTRA=$TOP/configs/bench/nodebug.config
# pa_bench (guest/pa_bench/) is built out of tree against each kernel,
# against that kernel's own tree: both run the same code.
pa_bench() {	# pa_bench KERNEL OBJ SRC
	local dir=$out/mods/$1
	rm -rf "$dir"
	mkdir -p "$dir"
	cp "$TOP"/guest/pa_bench/* "$dir/"
	msg "building pa_bench.ko for the $1 kernel"
	SRC=$3 OBJ=$2 kmake M="$dir" modules >"$LOGS/pa_bench-$1.log" 2>&1 ||
		die "building pa_bench for the $1 kernel" "$LOGS/pa_bench-$1.log"
	# The modules that workloads (e) and (f) load, of the same kernel.
	cp "$2/lib/test_module.ko" "$2/lib/test_bpf.ko" "$dir/" ||
		die "no test_module.ko or test_bpf.ko in $2"
	# The patched kernel's benchmark of its pools, (c).
	if [ "$1" = patched ]; then
		cp "$2/mm/dmap_pool/dmap_pool_bench.ko" "$dir/" ||
			die "no mm/dmap_pool/dmap_pool_bench.ko in $2"
	fi
}
msg "building the vanilla base in $BUILD/obj-vanilla"
KSRC=$base_src OBJ=$BUILD/obj-vanilla "$TOP/scripts/build.sh"
pa_bench vanilla "$BUILD/obj-vanilla" "$base_src"
msg "building the patched kernel in $BUILD/obj-bench"
OBJ=$BUILD/obj-bench "$TOP/scripts/build.sh"
pa_bench patched "$BUILD/obj-bench" "$SRC"
BENCH_MODS=$out/mods "$TOP/scripts/initramfs.sh"

for k in vanilla patched; do
	if [ "$k" = vanilla ]; then
		kernel=$BUILD/obj-vanilla/arch/x86/boot/bzImage
	else
		kernel=$BUILD/obj-bench/arch/x86/boot/bzImage
	fi
	msg "booting the $k kernel (log: $out/$k.log)"
	# Three runs of each workload: longer than the tests' 270 s, and
	# the host waits longer for it. No KUnit at boot: the patched
	# kernel's suites leave 4K entries in the direct map (5629 against
	# 1536 without them, in one A/B boot of the patched kernel) and its
	# order-0 hot path 1.6 times slower; the tests run them, not this.
	BOOT_TIMEOUT=${BOOT_TIMEOUT:-1000} \
		EXTRA_CMDLINE="BENCH_PAGES=${BENCH_PAGES:-4096} BENCH_KERNEL=$k dmap.timeout=840 kunit.enable=0" \
		"$TOP/scripts/boot.sh" bench "$out/$k.log" "$kernel"
done

# Debian's python3, which has python3-matplotlib (make deps).
/usr/bin/python3 "$TOP/scripts/bench_report.py" "$out"
