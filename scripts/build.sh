#!/bin/bash
# Configure (allnoconfig + configs/*.config via merge_config.sh) and build
# the test kernel in build/obj, with ccache. OBJ picks another object
# directory, CONFIGS_EXTRA adds fragments merged last (make bench).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -e "$SRC/.git" ] || die "no tree in $SRC: run 'make tree' first"
check_disk
# Logs of another object directory than build/obj carry its name.
tag=${OBJ##*/}
[ "$tag" = obj ] && tag= || tag=-$tag
mkdir -p "$OBJ"
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
ccache -M 10G >/dev/null

# Only rerun the configuration when a fragment or the tree's Kconfig changed.
frags=("$TOP"/configs/*.config)
# shellcheck disable=SC2206 # a list of paths without spaces
[ -z "${CONFIGS_EXTRA:-}" ] || frags+=($CONFIGS_EXTRA)
stamp=$OBJ/.config.stamp
want=$(cat "${frags[@]}" | sha256sum | cut -d' ' -f1)-$(git -C "$SRC" rev-parse HEAD)
if [ ! -f "$OBJ/.config" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	msg "configuring: allnoconfig + ${frags[*]##*/}"
	{
		kmake allnoconfig &&
		(cd "$OBJ" && "$SRC/scripts/kconfig/merge_config.sh" -m -O "$OBJ" \
			"$OBJ/.config" "${frags[@]}") &&
		kmake olddefconfig
	} >"$LOGS/config$tag.log" 2>&1 || die "kernel configuration" "$LOGS/config$tag.log"

	# merge_config.sh drops unmet options silently: check every one we
	# asked for, except symbols this tree does not define at all (the
	# series' own options when the series is empty).
	# The last setting of a symbol wins, as in merge_config.sh.
	bad=()
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*) sym=${line%%=*} ;;
		"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *} ;;
		*) continue ;;
		esac
		grep -rqsE "^(menu)?config ${sym#CONFIG_}\$" --include='Kconfig*' "$SRC" || continue
		if [ "${line#\#}" != "$line" ]; then
			grep -q "^$sym=" "$OBJ/.config" && bad+=("$line")
		else
			grep -qx "$line" "$OBJ/.config" || bad+=("$line")
		fi
	done < <(cat "${frags[@]}" | awk '
		/^CONFIG_[A-Za-z0-9_]+=/ { s = $0; sub(/=.*/, "", s) }
		/^# CONFIG_[A-Za-z0-9_]+ is not set$/ { s = $2 }
		s != "" { if (!(s in v)) o[n++] = s; v[s] = $0; s = "" }
		END { for (i = 0; i < n; i++) print v[o[i]] }')
	if [ ${#bad[@]} -gt 0 ]; then
		printf '%s\n' "${bad[@]}" >>"$LOGS/config$tag.log"
		die "options not in the final .config: ${bad[*]}" "$LOGS/config$tag.log"
	fi
	echo "$want" >"$stamp"
fi

msg "building the kernel and modules (log: $LOGS/build$tag.log)"
start=$(date +%s)
kmake ${W:+W=$W} bzImage modules >"$LOGS/build$tag.log" 2>&1 ||
	{ grep -E 'error:|Error [0-9]' "$LOGS/build$tag.log" | head -20 >&2
	  die "kernel build" "$LOGS/build$tag.log"; }
msg "kernel built in $(( $(date +%s) - start )) s"
