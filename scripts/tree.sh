#!/bin/bash
# Generate build/linux: the pinned base committed and tagged "base", then
# the series in patches/ applied with git am. Refuses to throw away work
# in build/linux that patches/ does not hold (FORCE=1 overrides).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# The base commit is made with a fixed identity and date so that its hash,
# and so every exported patch, is the same on every machine.
export GIT_AUTHOR_NAME="dmap_pool base" GIT_AUTHOR_EMAIL="base@localhost"
export GIT_COMMITTER_NAME="dmap_pool base" GIT_COMMITTER_EMAIL="base@localhost"
export GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z"

make_base() {
	check_disk
	msg "extracting $BASE_PACKAGE $BASE_VERSION into $SRC"
	rm -rf "$SRC.tmp"
	mkdir -p "$SRC.tmp"
	tar -xJf "$BASE_TARBALL" -C "$SRC.tmp" --strip-components=1 ||
		die "extracting $BASE_TARBALL"
	(
		cd "$SRC.tmp"
		git init -q -b series
		git config core.autocrlf false
		git add -A -f
		git commit -q -m "Linux $BASE_VERSION ($BASE_PACKAGE)"
		git tag base
	) >"$LOGS/base.log" 2>&1 || die "committing the base" "$LOGS/base.log"
	mv "$SRC.tmp" "$SRC"
}

# True when build/linux holds nothing that patches/ lacks.
tree_is_exported() {
	local tmp
	if ! git -C "$SRC" diff --quiet HEAD || ! git -C "$SRC" diff --cached --quiet; then
		return 1
	fi
	tmp=$(mktemp -d)
	"$TOP/scripts/export.sh" --to "$tmp" >/dev/null
	diff -q -r -x 0000-cover-letter.patch -x cover-letter.txt "$tmp" "$TOP/patches" >/dev/null
	local rc=$?
	rm -rf "$tmp"
	return $rc
}

if [ ! -d "$SRC/.git" ] || ! git -C "$SRC" rev-parse -q --verify base >/dev/null; then
	rm -rf "$SRC"
	make_base
elif tree_is_exported; then
	# Already base + patches/: leave the files, and their timestamps, alone.
	msg "tree up to date: $SRC is base + patches/"
	exit 0
elif [ "${FORCE:-0}" != 1 ]; then
	die "$SRC has commits or changes that patches/ lacks: run 'make export' first (or FORCE=1 to discard them)"
fi

cd "$SRC"
git am --abort >/dev/null 2>&1 || true
git checkout -q -B series base 2>/dev/null || git checkout -q -f -B series base
git reset -q --hard base

n=0
while read -r p; do
	case "$p" in '' | '#'*) continue ;; esac
	[ -f "$TOP/patches/$p" ] || die "patches/series names $p, which does not exist"
	if ! git am -q --keep-cr "$TOP/patches/$p" >"$LOGS/am.log" 2>&1; then
		git am --abort >/dev/null 2>&1 || true
		die "patch $p does not apply" "$LOGS/am.log"
	fi
	n=$((n + 1))
done < <(cat "$TOP/patches/series" 2>/dev/null || true)
msg "tree ready: $SRC at base + $n patches"
