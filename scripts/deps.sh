#!/bin/bash
# Install the Debian packages the harness needs, when missing, and check
# that the pinned base is the one installed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PKGS=(build-essential bc bison flex cpio xz-utils libelf-dev libssl-dev
      ccache sparse python3 qemu-system-x86 qemu-system-data busybox-static
      libcap-dev git rsync python3-ply python3-git coccinelle
      python3-matplotlib)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done

have_base=$(dpkg-query -W -f='${Version}' "$BASE_PACKAGE" 2>/dev/null || true)
[ "$have_base" = "$BASE_VERSION" ] || missing+=("$BASE_PACKAGE=$BASE_VERSION")

if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" -eq 0 ] || die "missing packages (${missing[*]}); install them as root"
	msg "installing: ${missing[*]}"
	apt-get update -qq >"$LOGS/apt.log" 2>&1 ||
		die "apt-get update" "$LOGS/apt.log"
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends --allow-downgrades "${missing[@]}" \
		>>"$LOGS/apt.log" 2>&1; then
		if ! apt-cache madison "$BASE_PACKAGE" | grep -qF " $BASE_VERSION "; then
			die "$BASE_PACKAGE $BASE_VERSION can no longer be installed; to use another base, set BASE_VERSION and BASE_SHA256 in base.conf" "$LOGS/apt.log"
		fi
		die "apt-get install ${missing[*]}" "$LOGS/apt.log"
	fi
fi

sum=$(sha256sum "$BASE_TARBALL" | cut -d' ' -f1)
[ "$sum" = "$BASE_SHA256" ] ||
	die "$BASE_TARBALL has sha256 $sum, base.conf pins $BASE_SHA256; refusing to build another kernel"
