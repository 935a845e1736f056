#!/usr/bin/env bash
# make export: write the series back from the commits of a kernel tree
# (default build/linux), after editing it with git commit --fixup and
# git rebase -i --autosquash base (or any history rewrite on base):
#   - commit N of base..HEAD becomes patches/NNNN-<subject>.patch, new
#     files included, each ending with the base-commit it applies to, and
#     patches/series lists them in order;
#   - the overlay (the repo's files at kernel paths) gets every file the
#     series adds, at its version in HEAD.
# BASE=6.12: the series goes to 6.12/patches/, and a file it adds goes to
# 6.12/<path> only where it differs from the 6.1 overlay's <path>.
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

base=$(g rev-parse pristine)
[ "$base" = "$BASE_COMMIT" ] || warn "export: pristine $base is not base.version's BASE_COMMIT $BASE_COMMIT"
say "export: $n commits of $SRC -> ${PATCHES#"$ROOT"/}/"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
g format-patch -q --zero-commit --no-signature --base=pristine -o "$tmp" base..HEAD
# format-patch names the base in the first mail only: every mail says it
for f in "$tmp"/*.patch; do
	grep -q '^base-commit: ' "$f" || printf '\nbase-commit: %s\n' "$base" >> "$f"
done
mkdir -p "$PATCHES"
git -C "$ROOT" rm -q --ignore-unmatch "${PATCHES#"$ROOT"/}/[0-9][0-9][0-9][0-9]-*.patch" || true
rm -f "$PATCHES"/[0-9][0-9][0-9][0-9]-*.patch
cp "$tmp"/*.patch "$PATCHES/"
{
	echo "# The series, in order: git format-patch mails written by \"make export\""
	echo "# (scripts/export.sh); scripts/tree.sh applies them onto base with git am."
	(cd "$tmp" && ls ./*.patch | sed 's|^\./||')
} > "$PATCHES/series"

say "export: overlay <- the files the series adds, at HEAD"
mapfile -t added < <(g diff --name-only --diff-filter=A base HEAD -- "${OWN_DIRS[@]}")
for f in "${added[@]}"; do
	g show "HEAD:$f" > "$tmp/file"
	dst=$BDIR/$f
	if [ "$BDIR" != "$ROOT" ] && cmp -s "$tmp/file" "$ROOT/$f"; then
		rm -f "$dst"	# the same as on 6.1: one copy, the 6.1 overlay's
		continue
	fi
	mkdir -p "$(dirname "$dst")"
	cmp -s "$tmp/file" "$dst" || cp "$tmp/file" "$dst"
	[ -x "$SRC/$f" ] && chmod +x "$dst"
done
[ "$BDIR" = "$ROOT" ] || find "$BDIR" -depth -type d -empty -delete
mapfile -t stale < <(cd "$BDIR" && git ls-files -- "${OWN_DIRS[@]}" |
	grep -vxF -f <(printf '%s\n' "${added[@]}") || true)
for f in "${stale[@]}"; do
	warn "export: $f is not added by any patch: add it to one, or git rm it"
done
say "export: done ($n patches, ${#added[@]} overlay files); review with git -C $ROOT status"
