#!/bin/bash
# make test: generate the tree from patches/, build it, boot it under QEMU,
# run every KUnit suite and the guest tests, then the static checks over
# the series, then the KASAN tier: the same kernel with KASAN and KFENCE,
# booted through the same tests. Ends with one line "N passed, N failed".
set -euo pipefail
. "$(dirname "$0")/lib.sh"

passed=0
failed=0
start=$(date +%s)
steps=()

pass() { echo "ok $*"; passed=$((passed + 1)); }
fail() { echo "not ok $*"; failed=$((failed + 1)); }

# timed NAME CMD...: run a step and note how long it took.
timed() {
	local name=$1 t=$SECONDS rc=0
	shift
	"$@" || rc=$?
	steps+=("$name: $((SECONDS - t)) s")
	return "$rc"
}

finish() {
	msg "time per step:"
	printf '    %s\n' "${steps[@]:-none}"
	msg "make test took $(( $(date +%s) - start )) s; logs in $LOGS"
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}

# The steps everything else needs: a failure here ends the run.
step() {
	local name=$1
	shift
	if timed "$name" "$@"; then
		pass "$name"
	else
		fail "$name"
		finish
	fi
}

# kunit_summary LOG: "ran ok skipped" of a kunit.py parse log.
kunit_summary() {
	local summary
	summary=$(grep -o 'Ran [0-9]* tests.*' "$1" | tail -n 1 || true)
	echo "$(sed -n 's/^Ran \([0-9]*\) tests.*/\1/p' <<<"$summary" | grep . || echo 0)" \
	     "$(sed -n 's/.*passed: \([0-9]*\).*/\1/p' <<<"$summary" | grep . || echo 0)" \
	     "$(sed -n 's/.*skipped: \([0-9]*\).*/\1/p' <<<"$summary" | grep . || echo 0)"
}

# kunit_results TAG BOOTLOG OBJ: the suites run at boot, each case counted,
# and those the guest ran again on the running system, as one result.
kunit_results() {
	local tag=$1 boot_log=$2 obj=$3 log ran ok skipped rerun
	log=$LOGS/kunit$tag.log
	python3 "$SRC/tools/testing/kunit/kunit.py" parse "$boot_log" >"$log" 2>&1 || true
	read -r ran ok skipped < <(kunit_summary "$log")
	grep -E '\[(FAILED|CRASHED|ERROR)\]' "$log" | sed 's/^/  /' || true
	# What failed, so that a run elsewhere says it without its logs.
	grep -E -A4 '(EXPECTATION|ASSERTION) FAILED' "$log" | sed 's/^/  /' || true
	grep -E '\[SKIPPED\]' "$log" | sed 's/^/  skip /' || true
	msg "KUnit$tag: $ran tests, $ok passed, $skipped skipped (log: $log)"
	passed=$((passed + ok))
	failed=$((failed + ran - ok - skipped))
	# A suite that the configuration enables must have run.
	if grep -q '^CONFIG_DMAP_POOL_KUNIT_TEST=y' "$obj/.config"; then
		if grep -q '\[PASSED\] dmap_pool ==' "$log"; then
			pass "${tag#-}${tag:+: }kunit: suite dmap_pool ran and passed"
		else
			fail "${tag#-}${tag:+: }kunit: suite dmap_pool did not pass (log: $log)"
		fi
	fi

	# The guest ran the suites again once the system was running, when
	# the direct-map split counters count (they do not during boot).
	rerun=$LOGS/kunit-rerun$tag.ktap
	sed -n 's/^KTAP: //p' "$boot_log" >"$rerun"
	[ -s "$rerun" ] || return 0
	log=$LOGS/kunit-rerun$tag.log
	python3 "$SRC/tools/testing/kunit/kunit.py" parse "$rerun" >"$log" 2>&1 || true
	read -r ran ok skipped < <(kunit_summary "$log")
	msg "KUnit$tag on the running system: $ran tests, $ok passed, $skipped skipped (log: $log)"
	grep -E '\[(FAILED|CRASHED|ERROR)\]' "$log" | sed 's/^/  /' || true
	# What failed, so that a run elsewhere says it without its logs.
	grep -E -A4 '(EXPECTATION|ASSERTION) FAILED' "$log" | sed 's/^/  /' || true
	grep -E '\[SKIPPED\]' "$log" | sed 's/^/  skip /' || true
	if [ "$ran" -gt 0 ] && [ "$ok" -gt 0 ] && [ $((ok + skipped)) -eq "$ran" ]; then
		pass "${tag#-}${tag:+: }kunit on the running system: $ran tests ($ok passed, $skipped skipped)"
	else
		fail "${tag#-}${tag:+: }kunit on the running system: $ok of $ran passed (log: $log)"
	fi
}

# guest_results TAG BOOTLOG: "GUEST: ok NAME" or "GUEST: not ok NAME REASON".
guest_results() {
	local tag=$1 boot_log=$2 line p
	p="${tag#-}${tag:+: }guest"
	while IFS= read -r line; do
		case "$line" in
		"GUEST: ok "*) pass "$p: ${line#GUEST: ok }" ;;
		"GUEST: not ok "*) fail "$p: ${line#GUEST: not ok } (log: $boot_log)" ;;
		"GUEST: skip "*) echo "skip $p: ${line#GUEST: skip }" ;;
		esac
	done <"$boot_log"
}

# console_check TAG BOOTLOG: no lockdep report, no KASAN or KFENCE report,
# and no warning but those that KUnit provokes on purpose: bad frees, and
# the refusals of __GFP_UNMAPPED.
console_check() {
	local tag=$1 boot_log=$2 console rc=0
	console=$LOGS/console-problems$tag.log
	awk '
		/possible circular locking|inconsistent lock state|possible recursive locking|suspicious RCU usage|BUG: sleeping function|DEBUG_LOCKS_WARN_ON|INFO: task .* blocked|BUG: KASAN|BUG: KFENCE/ { print; bad = 1 }
		/^WARNING: / && prev !~ /dmap_pool: .*: bad free of pfn|__GFP_UNMAPPED refused by|dmap_pool: pfn .* refused by an accessible mapping/ { print prev; print; bad = 1 }
		{ prev = $0 }
		END { exit bad }
	' "$boot_log" >"$console" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ]; then
		pass "${tag#-}${tag:+: }console: no lockdep, KASAN or KFENCE report, no unexpected warning"
	else
		sed 's/^/  /' "$console"
		fail "${tag#-}${tag:+: }console: unexpected report (log: $boot_log)"
	fi
}

step "dependencies installed" "$TOP/scripts/deps.sh"
if [ "${KEEP_TREE:-0}" != 1 ]; then
	step "tree generated from patches/" "$TOP/scripts/tree.sh"
fi
step "kernel built" "$TOP/scripts/build.sh"
step "initramfs built" "$TOP/scripts/initramfs.sh"

# One boot runs the KUnit suites (built in) and then the guest tests.
boot_log=$LOGS/boot-test.log
msg "booting the test kernel (log: $boot_log)"
if timed "boot" "$TOP/scripts/boot.sh" test "$boot_log"; then
	pass "boot: the guest ran to the end"
else
	fail "boot: see $boot_log"
fi
kunit_results "" "$boot_log" "$OBJ"
guest_results "" "$boot_log"
console_check "" "$boot_log"

# Static checks over the series.
msg "static checks over the series (logs: $LOGS/checks)"
checks=$LOGS/checks.log
rc=0
timed "static checks" "$TOP/scripts/checks.sh" >"$checks" 2>&1 || rc=$?
nfail=0
while IFS= read -r line; do
	case "$line" in
	"ok "*) pass "${line#ok }" ;;
	"not ok "*) fail "${line#not ok }"; nfail=$((nfail + 1)) ;;
	"FAILED: "*) fail "checks: ${line#FAILED: }"; nfail=$((nfail + 1)) ;;
	esac
done <"$checks"
[ "$rc" -eq 0 ] || [ "$nfail" -gt 0 ] || fail "static checks exited $rc (log: $checks)"

# The KASAN tier: KASAN (generic) and KFENCE, without lockdep (a bad page
# report would turn it off), in objects of its own.
if [ "${KASAN_TIER:-1}" = 1 ]; then
	kobj=$BUILD/obj-kasan
	kinitrd=$BUILD/initramfs-kasan.cpio.gz
	kboot=$LOGS/boot-test-kasan.log
	msg "KASAN tier: building in $kobj"
	if timed "kasan build" env OBJ="$kobj" \
		CONFIGS_EXTRA="$TOP/configs/kasan/kasan.config" "$TOP/scripts/build.sh" &&
	   timed "kasan initramfs" env OBJ="$kobj" INITRD="$kinitrd" \
		"$TOP/scripts/initramfs.sh"; then
		pass "kasan: kernel and initramfs built"
		msg "booting the KASAN kernel (log: $kboot)"
		if timed "kasan boot" env OBJ="$kobj" INITRD="$kinitrd" \
			EXTRA_CMDLINE="dmap.timeout=840" BOOT_TIMEOUT=900 \
			"$TOP/scripts/boot.sh" test "$kboot"; then
			pass "kasan: boot: the guest ran to the end"
		else
			fail "kasan: boot: see $kboot"
		fi
		kunit_results "-kasan" "$kboot" "$kobj"
		guest_results "-kasan" "$kboot"
		console_check "-kasan" "$kboot"
	else
		fail "kasan: kernel or initramfs (logs: $LOGS/build-obj-kasan.log, $LOGS/initramfs-kasan.log)"
	fi
fi

finish
