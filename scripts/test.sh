#!/bin/bash
# make test: generate the tree from patches/, build it, boot it under QEMU,
# run every KUnit suite and the guest tests, then the static checks over
# the series. Ends with one line "N passed, N failed".
set -euo pipefail
. "$(dirname "$0")/lib.sh"

passed=0
failed=0
start=$(date +%s)

pass() { echo "ok $*"; passed=$((passed + 1)); }
fail() { echo "not ok $*"; failed=$((failed + 1)); }

finish() {
	msg "make test took $(( $(date +%s) - start )) s; logs in $LOGS"
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}

# The steps everything else needs: a failure here ends the run.
step() {
	local name=$1
	shift
	if "$@"; then
		pass "$name"
	else
		fail "$name"
		finish
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
if "$TOP/scripts/boot.sh" test "$boot_log"; then
	pass "boot: the guest ran to the end"
else
	fail "boot: see $boot_log"
fi

# KUnit: the tree's own parser reads the KTAP output.
kunit_log=$LOGS/kunit.log
python3 "$SRC/tools/testing/kunit/kunit.py" parse "$boot_log" >"$kunit_log" 2>&1 || true
summary=$(grep -o 'Ran [0-9]* tests.*' "$kunit_log" | tail -n 1 || true)
ran=$(sed -n 's/^Ran \([0-9]*\) tests.*/\1/p' <<<"$summary")
ok=$(sed -n 's/.*passed: \([0-9]*\).*/\1/p' <<<"$summary")
ran=${ran:-0}
ok=${ok:-0}
grep -E '\[(FAILED|CRASHED|ERROR)\]' "$kunit_log" | sed 's/^/  /' || true
msg "KUnit: ${summary:-no results} (log: $kunit_log)"
passed=$((passed + ok))
failed=$((failed + ran - ok))
# A suite that the configuration enables must have run.
if grep -q '^CONFIG_DMAP_POOL_KUNIT_TEST=y' "$OBJ/.config"; then
	if grep -q '\[PASSED\] dmap_pool ==' "$kunit_log"; then
		pass "kunit: suite dmap_pool ran and passed"
	else
		fail "kunit: suite dmap_pool did not pass (log: $kunit_log)"
	fi
fi

# The guest ran the suites again once the system was running, when the
# direct-map split counters count (they do not during boot).
rerun=$LOGS/kunit-rerun.ktap
sed -n 's/^KTAP: //p' "$boot_log" >"$rerun"
if [ -s "$rerun" ]; then
	python3 "$SRC/tools/testing/kunit/kunit.py" parse "$rerun" \
		>"$LOGS/kunit-rerun.log" 2>&1 || true
	summary=$(grep -o 'Ran [0-9]* tests.*' "$LOGS/kunit-rerun.log" | tail -n 1 || true)
	ran=$(sed -n 's/^Ran \([0-9]*\) tests.*/\1/p' <<<"$summary")
	ok=$(sed -n 's/.*passed: \([0-9]*\).*/\1/p' <<<"$summary")
	msg "KUnit on the running system: ${summary:-no results} (log: $LOGS/kunit-rerun.log)"
	grep -E '\[(FAILED|CRASHED|ERROR)\]' "$LOGS/kunit-rerun.log" | sed 's/^/  /' || true
	if [ "${ran:-0}" -gt 0 ] && [ "${ok:-0}" -eq "$ran" ]; then
		pass "kunit on the running system: $ran tests"
	else
		fail "kunit on the running system: ${summary:-no results} (log: $LOGS/kunit-rerun.log)"
	fi
fi

# Guest tests print "GUEST: ok NAME" or "GUEST: not ok NAME REASON".
while IFS= read -r line; do
	case "$line" in
	"GUEST: ok "*) pass "guest: ${line#GUEST: ok }" ;;
	"GUEST: not ok "*) fail "guest: ${line#GUEST: not ok } (log: $boot_log)" ;;
	"GUEST: skip "*) echo "skip guest: ${line#GUEST: skip }" ;;
	esac
done <"$boot_log"

# The console must show no lockdep report and no warning but the one that
# dmap_pool_bad_free_refused provokes on purpose.
console=$LOGS/console-problems.log
awk '
	/possible circular locking|inconsistent lock state|possible recursive locking|suspicious RCU usage|BUG: sleeping function|DEBUG_LOCKS_WARN_ON|INFO: task .* blocked/ { print; bad = 1 }
	/^WARNING: / && prev !~ /dmap_pool: .*: bad free of pfn/ { print prev; print; bad = 1 }
	{ prev = $0 }
	END { exit bad }
' "$boot_log" >"$console" 2>&1 && rc=0 || rc=$?
if [ "$rc" -eq 0 ]; then
	pass "console: no lockdep report or unexpected warning"
else
	sed 's/^/  /' "$console"
	fail "console: unexpected report (log: $boot_log)"
fi

# Static checks over the series.
msg "static checks over the series (logs: $LOGS/checks)"
checks=$LOGS/checks.log
rc=0
"$TOP/scripts/checks.sh" >"$checks" 2>&1 || rc=$?
nfail=0
while IFS= read -r line; do
	case "$line" in
	"ok "*) pass "${line#ok }" ;;
	"not ok "*) fail "${line#not ok }"; nfail=$((nfail + 1)) ;;
	"FAILED: "*) fail "checks: ${line#FAILED: }"; nfail=$((nfail + 1)) ;;
	esac
done <"$checks"
[ "$rc" -eq 0 ] || [ "$nfail" -gt 0 ] || fail "static checks exited $rc (log: $checks)"

finish
