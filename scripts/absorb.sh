#!/usr/bin/env bash
# make absorb: fold edits of overlay files into the series.  Each file that
# differs from the end of the series becomes a fixup of the last patch that
# touched it; the series is then rebased (git rebase --autosquash) in
# build/linux and exported (patches/ and the overlay).  A change that
# belongs to an earlier patch, or a new file, is made in build/linux with
# git rebase -i instead, followed by "make export".
set -euo pipefail
. "$(dirname "$0")/common.sh"
g() { git -C "$TREE" "${GIT_ID[@]}" "$@"; }
bash "$ROOT/scripts/tree.sh"
exec 9>"$KLOCK"
flock 9
mapfile -t new < <(g ls-files --others --exclude-standard)
[ ${#new[@]} = 0 ] || die "absorb: new files ${new[*]}: add them to a patch in build/linux (git rebase -i base), then make export"
mapfile -t changed < <(g diff --name-only HEAD)
[ ${#changed[@]} -gt 0 ] || { say "absorb: the overlay equals the end of the series"; exit 0; }
for f in "${changed[@]}"; do
	c=$(g log -1 --format=%H base..HEAD -- "$f")
	[ -n "$c" ] || die "absorb: no patch touches $f"
	say "absorb: $f -> $(g log -1 --format='%h %s' "$c")"
	g add -f -- "$f"
	g commit -q --fixup="$c" -- "$f"
done
GIT_SEQUENCE_EDITOR=: g rebase -q -i --autosquash base
flock -u 9
bash "$ROOT/scripts/export.sh"
