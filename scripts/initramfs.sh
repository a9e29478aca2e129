#!/bin/bash
# Build $BUILD/initramfs.cpio.gz (or $INITRD): busybox, guest/init as
# /init, the guest programs, the memfd_secret selftest and, once the
# kernel's modules are built, the modules of the kernel in $OBJ.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=${INITRD:-$BUILD/initramfs.cpio.gz}
root=${out%.cpio.gz}-root
tag=${out##*/initramfs}
log=$LOGS/initramfs${tag%.cpio.gz}.log
BUSYBOX=${BUSYBOX:-/bin/busybox}
: >"$log"

[ -d "$SRC/tools/testing/selftests/mm" ] ||
	die "no kernel tree in $SRC: run 'make tree' first"
[ -x "$BUSYBOX" ] || die "$BUSYBOX missing: install busybox-static"
if readelf -d "$BUSYBOX" 2>>"$log" | grep NEEDED >/dev/null; then
	die "$BUSYBOX is dynamically linked: install busybox-static" "$log"
fi

msg "building the guest programs"
make -C "$TOP/guest" OUT="$BUILD/guest" >>"$log" 2>&1 ||
	die "building the guest programs (guest/)" "$log"

# The selftests' Makefile writes local_config.{h,mk} next to itself, so
# build from a copy of the few parts of the tree it uses: the tree in
# $SRC stays untouched. tar keeps the timestamps: make rebuilds only what
# changed.
msg "building the memfd_secret selftest"
sel_src=$BUILD/selftests-src
rm -rf "$sel_src"
mkdir -p "$sel_src" "$BUILD/selftests"
tar -C "$SRC" -cf - tools/testing/selftests/lib.mk \
	tools/testing/selftests/kselftest.h \
	tools/testing/selftests/kselftest_harness.h \
	tools/testing/selftests/kselftest tools/testing/selftests/mm \
	tools/testing/selftests/x86/check_cc.sh \
	tools/include/uapi tools/arch/x86/include mm/gup_test.h 2>>"$log" |
	tar -C "$sel_src" -xf - 2>>"$log" ||
	die "copying the selftest sources from $SRC" "$log"
make -C "$sel_src/tools/testing/selftests/mm" OUTPUT="$BUILD/selftests" \
	LDFLAGS=-static "$BUILD/selftests/memfd_secret" >>"$log" 2>&1 ||
	die "building selftests/mm/memfd_secret (needs libcap-dev)" "$log"

msg "staging the initramfs in $root"
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,lib/modules}
cp "$BUSYBOX" "$root/bin/busybox"
"$BUSYBOX" --list-full >"$BUILD/busybox.list" 2>>"$log" ||
	die "$BUSYBOX --list-full" "$log"
while IFS= read -r applet; do
	[ -e "$root/$applet" ] || ln -s /bin/busybox "$root/$applet"
done <"$BUILD/busybox.list"
[ -e "$root/bin/sh" ] || die "busybox has no sh applet"
install -m 0755 "$TOP/guest/init" "$root/init"
for p in dmap_probe secret_fill secret_leak secret_poison memory_offline \
	bpf_load kcore_read; do
	install -m 0755 "$BUILD/guest/$p" "$root/bin/$p"
done
install -m 0755 "$BUILD/selftests/memfd_secret" "$root/bin/memfd_secret"
install -m 0755 "$TOP/guest/shrinker_test" "$root/bin/shrinker_test"
install -m 0755 "$TOP/guest/hibernate_test" "$root/bin/hibernate_test"
install -m 0755 "$TOP/guest/fault_inject_test" "$root/bin/fault_inject_test"
install -m 0755 "$TOP/guest/meminfo_test" "$root/bin/meminfo_test"
install -m 0755 "$TOP/guest/bench_module_test" "$root/bin/bench_module_test"
install -m 0755 "$TOP/guest/poison_test" "$root/bin/poison_test"
install -m 0755 "$TOP/guest/execmem_test" "$root/bin/execmem_test"
# make bench: the modules built for each kernel (pa_bench.ko and the
# modules its workloads load), as /bench/KERNEL/NAME.ko.
for m in "${BENCH_MODS:-/nonexistent}"/*/*.ko; do
	[ -f "$m" ] || continue
	k=${m%/*}
	install -D -m 0644 "$m" "$root/bench/${k##*/}/${m##*/}"
done
install -m 0755 "$BUILD/guest/fault_loop" "$root/bin/fault_loop"
# The kernel's built-in initramfs already has /dev/console; this is in
# case it does not (and needs root).
mknod -m 600 "$root/dev/console" c 5 1 2>/dev/null || true

# Modules: only once they are all built (the build may still be running).
modules_built() {
	local m
	[ -s "$OBJ/modules.order" ] || return 1
	while IFS= read -r m; do
		[ -f "$OBJ/${m%.o}.ko" ] || [ -f "$OBJ/${m%.ko}.ko" ] || return 1
	done <"$OBJ/modules.order"
}
if modules_built; then
	msg "installing the kernel modules"
	kmake modules_install INSTALL_MOD_PATH="$root" INSTALL_MOD_STRIP=1 \
		>>"$log" 2>&1 || die "modules_install into $root" "$log"
	# A link to the host's build tree, useless in the guest.
	rm -f "$root"/lib/modules/*/build
	# guest/modtest, built out of tree against this kernel, from a copy:
	# the objects stay out of guest/.
	mdir=$BUILD/guest/modtest${tag%.cpio.gz}
	rm -rf "$mdir"
	mkdir -p "$mdir"
	cp "$TOP"/guest/modtest/* "$mdir/"
	msg "building guest/modtest"
	kmake M="$mdir" modules >>"$log" 2>&1 ||
		die "building guest/modtest against $OBJ" "$log"
	install -m 0644 "$mdir/dmap_modtest.ko" "$root/lib/dmap_modtest.ko"
else
	msg "no modules built in $OBJ yet: the initramfs has none"
fi

msg "packing $out"
(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --quiet) 2>>"$log" |
	gzip -9n >"$out.tmp" 2>>"$log" || die "packing $out (cpio, gzip)" "$log"
mv "$out.tmp" "$out"
msg "initramfs: $out ($(du -k "$out" | cut -f1) KiB)"
