#!/usr/bin/env bash
# make export: write the series back from the commits of a kernel tree
# (default build/linux), after editing it with git commit --fixup and
# git rebase -i --autosquash base (or any history rewrite on base):
#   - commit N of base..HEAD becomes patches/NNNN-<subject>.patch, new
#     files included, and patches/series lists them in order;
#   - the overlay (the repo's files at kernel paths) gets every file the
#     series adds, at its version in HEAD.
#   export.sh [tree]
set -euo pipefail
. "$(dirname "$0")/common.sh"
SRC=${1:-$TREE}
OWN_DIRS=(kernel include lib mm fs arch drivers Documentation tools)
g() { git -C "$SRC" "$@"; }
[ -z "$(g status --porcelain --untracked-files=no)" ] ||
	die "$SRC has uncommitted changes: commit them (git commit --fixup) first"
n=$(g rev-list --count base..HEAD)
[ "$n" -gt 0 ] || die "no commits on base in $SRC"

say "export: $n commits of $SRC -> patches/"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
g format-patch -q --zero-commit --no-signature -o "$tmp" base..HEAD
git -C "$ROOT" rm -q --ignore-unmatch 'patches/[0-9][0-9][0-9][0-9]-*.patch' || true
rm -f "$ROOT"/patches/[0-9][0-9][0-9][0-9]-*.patch
cp "$tmp"/*.patch "$ROOT/patches/"
{
	echo "# The series, in order: git format-patch mails written by \"make export\""
	echo "# (scripts/export.sh); scripts/tree.sh applies them onto base with git am."
	(cd "$tmp" && ls ./*.patch | sed 's|^\./||')
} > "$ROOT/patches/series"

say "export: overlay <- the files the series adds, at HEAD"
mapfile -t added < <(g diff --name-only --diff-filter=A base HEAD -- "${OWN_DIRS[@]}")
for f in "${added[@]}"; do
	mkdir -p "$ROOT/$(dirname "$f")"
	g show "HEAD:$f" > "$ROOT/$f.tmp"
	if cmp -s "$ROOT/$f.tmp" "$ROOT/$f"; then rm "$ROOT/$f.tmp"; else mv "$ROOT/$f.tmp" "$ROOT/$f"; fi
	[ -x "$SRC/$f" ] && chmod +x "$ROOT/$f"
done
mapfile -t stale < <(cd "$ROOT" && git ls-files -- "${OWN_DIRS[@]}" |
	grep -vxF -f <(printf '%s\n' "${added[@]}") || true)
for f in "${stale[@]}"; do
	warn "export: $f is not added by any patch: add it to one, or git rm it"
done
say "export: done ($n patches, ${#added[@]} overlay files); review with git -C $ROOT status"
