#!/usr/bin/env bash
# Rebuild the series commits, export them with a cover letter to
# build/series, check they apply with git am onto a pristine base
# worktree and run checkpatch.pl --strict on each patch.
set -euo pipefail
. "$(dirname "$0")/common.sh"
bash "$ROOT/scripts/tree.sh" --full
g() { git -C "$TREE" "${GIT_ID[@]}" "$@"; }
OUTD=$BUILD/series
CHK=$BUILD/series-check
n=$(g rev-list --count base..HEAD)
[ "$n" -gt 0 ] || die "series is empty (patches/series has no entries)"

say "series: exporting $n patches to build/series"
rm -rf "$OUTD"
g format-patch -q --cover-letter --zero-commit -o "$OUTD" base..HEAD
cover=$(ls "$OUTD"/0000-cover-letter.patch)
subject=$(head -1 "$ROOT/patches/cover-letter.txt")
python3 - "$cover" "$ROOT/patches/cover-letter.txt" <<'PY'
import sys
cover, text = sys.argv[1], open(sys.argv[2]).read().split('\n', 1)
s = open(cover).read()
s = s.replace('*** SUBJECT HERE ***', text[0].strip())
s = s.replace('*** BLURB HERE ***', text[1].strip() if len(text) > 1 else '')
open(cover, 'w').write(s)
PY

say "series: git am onto a pristine worktree at base"
g worktree remove --force "$CHK" 2>/dev/null || rm -rf "$CHK"
g worktree prune
g worktree add -q --detach "$CHK" base
mapfile -t patches < <(ls "$OUTD"/*.patch | grep -v '/0000-cover-letter.patch$')
if ! git -C "$CHK" "${GIT_ID[@]}" am -q "${patches[@]}"; then
	git -C "$CHK" am --abort || true
	die "exported series does not apply onto base with git am"
fi
[ "$(git -C "$CHK" rev-parse 'HEAD^{tree}')" = "$(g rev-parse 'HEAD^{tree}')" ] ||
	die "applied series differs from the tree's HEAD"
say "series: applies cleanly, result identical to build/linux HEAD"

say "series: checkpatch.pl --strict"
printf '%-64s %6s %8s %6s\n' PATCH ERRORS WARNINGS CHECKS
bad=0
for p in "${patches[@]}"; do
	out=$(cd "$CHK" && perl scripts/checkpatch.pl --strict --no-color "$p" 2>&1 || true)
	tot=$(grep -E '^total: ' <<<"$out" | tail -1)
	[[ $tot =~ ([0-9]+)\ errors,\ ([0-9]+)\ warnings,\ ([0-9]+)\ checks ]] ||
		{ echo "$out"; die "checkpatch gave no summary for $p"; }
	e=${BASH_REMATCH[1]} w=${BASH_REMATCH[2]} c=${BASH_REMATCH[3]}
	printf '%-64s %6s %8s %6s\n' "$(basename "$p")" "$e" "$w" "$c"
	if [ "$e$w$c" != 000 ]; then
		echo "$out" | grep -E '^(ERROR|WARNING|CHECK):|^#[0-9]+:' | sed 's/^/    /' | awk 'NR <= 40'
		[ "$e" = 0 ] || bad=1
	fi
done
g worktree remove --force "$CHK"
say "series: build/series ready ($n patches + cover letter)"
[ $bad = 0 ] || die "checkpatch reported errors"
