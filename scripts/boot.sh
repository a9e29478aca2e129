#!/bin/bash
# Boot a kernel under QEMU (TCG: -enable-kvm hangs on these hosts) with the
# test initramfs, saving the console to a log.
#
#   boot.sh MODE LOG [KERNEL]
#
# MODE is passed to the guest's /init (test, run or bench), EXTRA_CMDLINE
# to the kernel, INITRD picks another initramfs. Exits 0 when the
# guest reached "GUEST: done" and the kernel neither panicked nor oopsed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mode=$1
log=$2
kernel=${3:-$OBJ/arch/x86/boot/bzImage}
timeout=${BOOT_TIMEOUT:-900}
initrd=${INITRD:-$BUILD/initramfs.cpio.gz}

[ -f "$kernel" ] || die "no kernel at $kernel: run 'make build' first"
[ -f "$initrd" ] || die "no initramfs at $initrd"
bios=/usr/share/qemu/qboot.rom
[ -f "$bios" ] || die "$bios is missing (package qemu-system-data)"

rc=0
timeout --foreground -k 10 "$timeout" \
	qemu-system-x86_64 -nodefaults -nographic -no-reboot \
	-bios "$bios" -cpu max -m 4G -smp 2 \
	-serial stdio -kernel "$kernel" -initrd "$initrd" \
	-append "console=ttyS0 panic=-1 oops=panic loglevel=7 dmap.mode=$mode ${EXTRA_CMDLINE:-}" \
	</dev/null >"$log" 2>&1 || rc=$?

# The console uses CRLF line ends.
sed -i 's/\r$//' "$log"

if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
	tail -n 20 "$log" >&2
	die "guest ($mode) timed out after ${timeout}s" "$log"
fi
# The first crash report that no test asked for: its line number, or
# nothing. The guest brackets the oopses its LKDTM tests provoke, and a
# KUnit case announces the bad page report it provokes.
crash_line() {
	awk '
	/^GUEST: expect-oops begin/ { expect = 1; next }
	/^GUEST: expect-oops end/ { expect = 0; next }
	expect && /BUG: unable to handle page fault|Oops: / { next }
	/a bad page report follows on purpose/ { badpage = 1; next }
	badpage && /BUG: Bad page state/ { badpage = 0; next }
	/Kernel panic|BUG: |Oops|general protection fault/ { print NR; exit }
	' "$1"
}
bad=$(crash_line "$log")
if [ -n "$bad" ]; then
	sed -n "$((bad > 2 ? bad - 2 : 1)),$((bad + 25))p" "$log" >&2
	die "guest ($mode) crashed" "$log"
fi
grep -q '^GUEST: done' "$log" || {
	tail -n 20 "$log" >&2
	die "guest ($mode) did not finish (qemu exit $rc)" "$log"
}
