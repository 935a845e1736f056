#!/usr/bin/env bash
# Write patches/*.patch back from the commits of a kernel tree (default
# build/linux): commit N of base..HEAD becomes series entry N, without the
# own files that patches/series folds into it.  Commits past the end of
# the series become new entries.  Used after editing upstream files with
# "git commit --fixup" + "git rebase -i --autosquash base" in the tree.
#   export.sh [tree]
set -euo pipefail
. "$(dirname "$0")/common.sh"
SRC=${1:-$TREE}
SERIES=$ROOT/patches/series
mapfile -t commits < <(git -C "$SRC" rev-list --reverse base..HEAD)
mapfile -t entries < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$SERIES")
[ ${#commits[@]} -ge ${#entries[@]} ] || die "tree has fewer commits than patches/series"
for i in "${!commits[@]}"; do
	c=${commits[$i]}
	if [ "$i" -lt ${#entries[@]} ]; then
		read -r patch own <<<"${entries[$i]}"
	else
		slug=$(git -C "$SRC" log -1 --format=%f "$c" | tr 'A-Z' 'a-z' | cut -c1-60)
		patch=$(printf '%04d-%s.patch' $((i + 1)) "$slug"); own=""
		echo "$patch" >> "$SERIES"
	fi
	excl=()
	for f in $own; do excl+=(":(exclude)$f"); done
	git -C "$SRC" format-patch -q --zero-commit --stdout -1 "$c" -- . "${excl[@]}" \
		> "$ROOT/patches/$patch"
	say "export: $(git -C "$SRC" log -1 --format=%s "$c") -> patches/$patch"
done
