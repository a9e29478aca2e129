#!/bin/bash
# Static checks over the series in build/linux (base..HEAD). Prints one
# "ok NAME" or "not ok NAME" line per check, and writes details to
# $LOGS/checks/. Exits non-zero if any check failed.
#
#  - checkpatch.pl --strict on every patch
#  - kernel-doc -none -Wall on every C file and header the series adds
#  - the Coccinelle report of open-coded direct-map changes: none in the
#    users the series converts; the rest of the tree's report in the log
#  - W=1 and sparse (C=2) on every C file the series adds or changes:
#    no warning beyond those the base version of the file already has
#  - every patch builds on its own (bisectability): the C files it and
#    the patches before it touch, compiled without a link
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$LOGS/checks
rm -rf "$out"
mkdir -p "$out"
cd "$SRC"
failed=0

result() {	# result NAME LOG STATUS
	if [ "$3" -eq 0 ]; then
		echo "ok $1"
	else
		echo "not ok $1 (log: $2)"
		failed=$((failed + 1))
	fi
}

mapfile -t commits < <(git rev-list --reverse base..HEAD)
if [ ${#commits[@]} -eq 0 ]; then
	echo "ok series-empty (nothing to check)"
	exit 0
fi

# checkpatch, one patch at a time, as a maintainer would run it, on the
# patch as scripts/export.sh writes it: the histogram diff shows code
# moved between files as moved, where the default one may show an
# unchanged line (a __setup()) as new.
n=0
for c in "${commits[@]}"; do
	n=$((n + 1))
	log=$out/checkpatch-$n.log
	rc=0
	git -c diff.algorithm=histogram format-patch -1 --stdout "$c" |
		scripts/checkpatch.pl --strict --no-summary --show-types - >"$log" 2>&1 || rc=$?
	result "checkpatch patch $n: $(git log -1 --format=%s "$c")" "$log" "$rc"
done

# kernel-doc on the files the series adds.
mapfile -t added < <(git diff --name-only --diff-filter=A base..HEAD -- '*.c' '*.h')
for f in "${added[@]}"; do
	log=$out/kernel-doc-${f//\//_}.log
	rc=0
	scripts/kernel-doc -none -Wall "$f" >"$log" 2>&1 || rc=$?
	[ -s "$log" ] && rc=1
	result "kernel-doc $f" "$log" "$rc"
done

# The Coccinelle report of open-coded direct-map permission changes
# (scripts/coccinelle/api/direct_map_perm.cocci), with CONFIG_DMAP_POOL
# as the test kernel has it: none in the users that the series puts on
# pools. Its report over the rest of the tree goes to the log: the next
# candidates, listed in the cover letter.
cocci=scripts/coccinelle/api/direct_map_perm.cocci
if [ -f "$cocci" ]; then
	command -v spatch >/dev/null ||
		die "spatch not found: install coccinelle (make deps)"
	# spatch's own failure, or a parse error it reports, fails the check.
	spatch_report() {	# spatch_report LOG FILE...
		local log=$1 rc=0
		shift
		spatch -D report --very-quiet --no-show-diff --no-includes \
			--include-headers --defined CONFIG_DMAP_POOL \
			--cocci-file "$cocci" "$@" >"$log.raw" 2>&1 || rc=$?
		grep -v '^warning:' "$log.raw" | sort -V >"$log"
		[ "$rc" -eq 0 ] && ! grep -qE '^(EXN|Fatal|error|minus: parse error)' "$log"
	}
	users=(mm/secretmem.c mm/execmem.c kernel/bpf/core.c
	       kernel/module/main.c kernel/module/strict_rwx.c)
	log=$out/coccinelle-users.log
	rc=0
	spatch_report "$log" "${users[@]}" || rc=1
	n=$(grep -c ': WARNING: ' "$log" || true)
	[ "$n" -eq 0 ] || rc=1
	result "coccinelle direct_map_perm: $n reports in ${users[*]}" "$log" "$rc"

	log=$out/coccinelle-tree.log
	mapfile -t cand < <(git grep -l -E \
		'set_direct_map_|set_pages_(ro|rw|x|nx)\>|set_memory_(ro|rw|np|nx|x|rox|p|np_noalias)\>' \
		-- '*.c' '*.h' ':!tools' ':!Documentation')
	rc=0
	spatch_report "$log" "${cand[@]}" || rc=1
	n=$(grep -c ': WARNING: ' "$log" || true)
	result "coccinelle direct_map_perm over the tree: $n reports, ${#cand[@]} files read" "$log" "$rc"
fi

# W=1 and sparse on the C files the series touches, against the base
# version of each file. A file included by another (#include "x.c") is
# checked through the object that includes it.
count_warnings() {	# count_warnings OBJECT LOG
	touch "$SRC/${1%.o}.c"
	kmake W=1 C=2 "$1" >"$2" 2>&1 || { echo 9999; return; }
	grep -cE '(warning|error):' "$2" || true
}

mapfile -t touched < <(git diff --name-only --diff-filter=AM base..HEAD -- '*.c')
for f in "${touched[@]}"; do
	obj=${f%.c}.o
	# Included by another C file: checked through that file's object.
	if grep -qsF "#include \"${f##*/}\"" "$(dirname "$f")"/*.c; then
		continue
	fi
	[ -f "$OBJ/$obj" ] || continue
	log=$out/w1-sparse-${f//\//_}.log
	now=$(count_warnings "$obj" "$log")
	was=0
	if git cat-file -e "base:$f" 2>/dev/null; then
		git show "base:$f" >"$f"
		was=$(count_warnings "$obj" "$log.base")
		git checkout -q HEAD -- "$f"
		touch "$f"
	fi
	rc=0
	[ "$now" -le "$was" ] || rc=1
	echo "warnings: $now (base: $was)" >>"$log"
	result "W=1 and sparse $f ($now warnings, base $was)" "$log" "$rc"
done
kmake bzImage >"$out/rebuild.log" 2>&1 ||
	die "rebuilding the kernel after the checks" "$out/rebuild.log"

# Bisectability: every patch builds on its own. Each patch compiles, in
# objects of their own (build/obj-bisect), every C file that the series
# has touched up to it and that the configuration builds, with the
# configuration of the final tree less the options that the patch does
# not know yet. Nothing is linked: the last patch is the kernel that
# make test built and booted. A patch that touches one file compiles one.
if [ "${CHECK_BISECT:-1}" = 1 ]; then
	bobj=$BUILD/obj-bisect
	mkdir -p "$bobj"
	head=$(git symbolic-ref -q --short HEAD || git rev-parse HEAD)
	# An interrupted check must not leave build/linux on an old patch.
	trap 'git checkout -q "$head"' EXIT
	n=0
	for c in "${commits[@]}"; do
		n=$((n + 1))
		log=$out/bisect-$n.log
		rc=0
		git checkout -q "$c"
		objs=()
		while IFS= read -r f; do
			[ -f "$f" ] || continue
			grep -qsF "#include \"${f##*/}\"" "$(dirname "$f")"/*.c && continue
			# Only what the final configuration builds.
			[ -f "$OBJ/${f%.c}.o" ] && objs+=("${f%.c}.o")
		done < <(git diff --name-only --diff-filter=AM base.."$c" -- '*.c')
		{
			cp "$OBJ/.config" "$bobj/.config" &&
			OBJ=$bobj kmake olddefconfig &&
			if [ ${#objs[@]} -gt 0 ]; then
				OBJ=$bobj kmake "${objs[@]}"
			fi
		} >"$log" 2>&1 || rc=$?
		result "patch $n builds on its own (${#objs[@]} objects)" "$log" "$rc"
	done
	git checkout -q "$head"
	trap - EXIT
fi

[ "$failed" -eq 0 ]
