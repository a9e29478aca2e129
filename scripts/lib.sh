# shellcheck shell=bash
# Shared helpers for the harness scripts: sourced, never run.

# Debian's python3 (with python3-ply and python3-git for checkpatch's SPDX check) first.
export PATH=/usr/bin:$PATH

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
# KSRC: another kernel tree (make bench builds the base in its own).
SRC=${KSRC:-$BUILD/linux}
OBJ=${OBJ:-$BUILD/obj}
LOGS=$BUILD/logs
JOBS=${JOBS:-$(nproc)}
mkdir -p "$LOGS"

# shellcheck source=base.conf
. "$TOP/base.conf"

msg() { printf '==> %s\n' "$*"; }

# die MESSAGE [LOG]: one line saying what failed and where its log is.
die() {
	if [ -n "${2:-}" ]; then
		printf 'FAILED: %s (log: %s)\n' "$1" "$2" >&2
	else
		printf 'FAILED: %s\n' "$1" >&2
	fi
	exit 1
}

# Fail early, and clearly, when the disk is nearly full.
check_disk() {
	local avail
	avail=$(df -Pk "$TOP" | awk 'NR == 2 { print $4 }')
	[ "$avail" -ge $((4 * 1024 * 1024)) ] ||
		die "less than 4 GiB free on $(df -P "$TOP" | awk 'NR == 2 { print $6 }'); free some space"
}

kmake() {
	make -C "$SRC" O="$OBJ" -j"$JOBS" CC="ccache gcc" HOSTCC="ccache gcc" "$@"
}
