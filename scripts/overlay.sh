#!/usr/bin/env bash
# The overlay: the repo's files at kernel paths, a copy of the files the
# series adds, at their version at the end of the series.
#   overlay.sh sync    copy overlay files that differ into build/linux's
#                      working tree (a build then uses them) and list them
#   overlay.sh check   fail unless the overlay equals the end of the series
#                      (the tree's HEAD): same files, same contents
# BASE=6.12: a file under 6.12/<path> stands for <path> (it differs on
# 6.12), and the 6.1 files listed in 6.12/omit are not part of that series.
# Call with the build lock held (tree.sh does) or from make check-overlay.
set -euo pipefail
. "$(dirname "$0")/common.sh"
MODE=${1:-check}
OWN_DIRS=(kernel include lib mm fs arch drivers Documentation tools)
g() { git -C "$TREE" "$@"; }
git -C "$TREE" rev-parse -q --verify base >/dev/null || die "no tree: run scripts/tree.sh"

own_files() { (cd "$1" && git ls-files -co --exclude-standard -- "${OWN_DIRS[@]}"); }
omit=/dev/null; [ "$BDIR" = "$ROOT" ] || omit=$BDIR/omit
mapfile -t own < <({ own_files "$ROOT" | grep -vxF -f <(sed 's/#.*//' "$omit" 2>/dev/null | grep .) || true
	[ "$BDIR" = "$ROOT" ] || own_files "$BDIR"; } | sort -u)
# the overlay's copy of a kernel path: 6.12/<path> if the series differs there
src() { if [ -f "$BDIR/$1" ]; then echo "$BDIR/$1"; else echo "$ROOT/$1"; fi; }
mapfile -t added < <(g diff --name-only --diff-filter=A base HEAD -- "${OWN_DIRS[@]}" | sort)
mapfile -t extra < <(comm -23 <(printf '%s\n' "${own[@]}") <(printf '%s\n' "${added[@]}") | grep . || true)
mapfile -t missing < <(comm -13 <(printf '%s\n' "${own[@]}") <(printf '%s\n' "${added[@]}") | grep . || true)
differ=()
for f in "${own[@]}"; do
	[ -f "$(src "$f")" ] || continue
	if ! g cat-file -e "HEAD:$f" 2>/dev/null ||
	   [ "$(g rev-parse "HEAD:$f")" != "$(git hash-object "$(src "$f")")" ]; then
		differ+=("$f")
	fi
done

case $MODE in
sync)
	if [ ${#differ[@]} -gt 0 ]; then
		for f in "${differ[@]}"; do
			mkdir -p "$TREE/$(dirname "$f")"
			cmp -s "$(src "$f")" "$TREE/$f" || cp "$(src "$f")" "$TREE/$f"
		done
		say "overlay: ${#differ[@]} file(s) differ from the series, copied on top (make absorb folds them in):"
		printf '     %s\n' "${differ[@]}"
	fi
	# edits copied earlier and since undone in the overlay: back to HEAD
	mapfile -t dirty < <(g diff --name-only HEAD -- "${OWN_DIRS[@]}")
	for f in "${dirty[@]}"; do
		case " ${differ[*]} " in *" $f "*) ;; *) g checkout -q HEAD -- "$f" ;; esac
	done
	# a file the series has but the overlay lost: the tree keeps the series' one
	[ ${#missing[@]} = 0 ] || warn "overlay lacks files the series adds: ${missing[*]} (make export writes them)"
	;;
check)
	bad=0
	for f in "${differ[@]}"; do
		case " ${extra[*]} " in *" $f "*) continue ;; esac
		echo "   differs from the end of the series: $f"; bad=1
	done
	for f in "${extra[@]}"; do echo "   not added by any patch: $f"; bad=1; done
	for f in "${missing[@]}"; do echo "   added by the series, not in the overlay: $f"; bad=1; done
	[ $bad = 0 ] || die "overlay differs from the end of the series (make absorb, or make export)"
	say "overlay: ${#own[@]} files, identical to the end of the series ($(g rev-parse --short HEAD))"
	;;
*) die "usage: overlay.sh sync|check" ;;
esac
