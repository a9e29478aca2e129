#!/bin/bash
# Export base..HEAD of build/linux into patches/ as git format-patch files,
# with a cover letter and a series file. The output is stable: no commit
# hashes, no version signature, blob names of a fixed length, a cover
# letter dated like the last patch.
#
# The cover letter's subject and text are kept in patches/cover-letter.txt
# (first line the subject, then a blank line, then the body).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

DEST=$TOP/patches
if [ "${1:-}" = "--to" ]; then
	DEST=$2
fi

[ -d "$SRC/.git" ] || die "no tree in $SRC: run 'make tree' first"
cd "$SRC"
if ! git diff --quiet HEAD || ! git diff --cached --quiet; then
	die "$SRC has uncommitted changes: commit them first"
fi

count=$(git rev-list --count base..HEAD)
mkdir -p "$DEST"
find "$DEST" -maxdepth 1 -name '*.patch' -delete
: >"$DEST/series.tmp"
if [ "$count" -gt 0 ]; then
	cover=$TOP/patches/cover-letter.txt
	[ -f "$cover" ] || die "patches/cover-letter.txt is missing (subject, blank line, body)"
	git config branch.series.description "$(cat "$cover")"
	GIT_COMMITTER_DATE=$(git log -1 --format=%aD HEAD) \
	git -c core.abbrev=12 -c diff.algorithm=histogram format-patch -q --cover-letter --cover-from-description=subject \
		--no-signature --zero-commit --base=base --no-thread \
		-o "$DEST" base..HEAD
	for p in "$DEST"/0*.patch; do
		p=${p##*/}
		[ "$p" = 0000-cover-letter.patch ] || echo "$p"
	done >"$DEST/series.tmp"
fi
mv "$DEST/series.tmp" "$DEST/series"
msg "exported $count patches to $DEST"
