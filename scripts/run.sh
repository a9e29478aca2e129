#!/bin/bash
# make run: build the patched kernel, boot it, run the demo workloads and
# show, for each, the direct map before and after, then every pool's
# debugfs file.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$TOP/scripts/deps.sh"
# A tree that exists is used as it is, with any work not yet exported.
[ -d "$SRC/.git" ] || "$TOP/scripts/tree.sh"
"$TOP/scripts/build.sh"
"$TOP/scripts/initramfs.sh"

log=$LOGS/boot-run.log
msg "booting the patched kernel and running the workloads (log: $log)"
"$TOP/scripts/boot.sh" run "$log"
echo
sed -n 's/^GUEST: //p' "$log"
