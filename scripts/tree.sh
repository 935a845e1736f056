#!/usr/bin/env bash
# Prepare build/linux: pristine base commit (tag "base") + patches/series.
#   tree.sh          incremental: full re-apply only if patches/ changed
#   tree.sh --full   always rebuild the series commits from base
set -euo pipefail
. "$(dirname "$0")/common.sh"
FULL=0; [ "${1:-}" = --full ] && FULL=1
OWN_DIRS=(kernel include lib mm arch drivers Documentation tools)
SERIES=$ROOT/patches/series
STAMP=$BUILD/tree.stamp
g() { git -C "$TREE" "${GIT_ID[@]}" "$@"; }

# The tree is shared with kernel builds: change it only under the build lock.
mkdir -p "$BUILD"
exec 9>"$KLOCK"
say "tree: waiting for $KLOCK"; flock 9

# 1. extract the base once
if ! git -C "$TREE" rev-parse -q --verify base >/dev/null 2>&1; then
	[ -f "$TARBALL" ] || die "$TARBALL missing: run scripts/deps.sh"
	say "tree: extracting $TARBALL -> build/linux"
	rm -rf "$TREE" "$BUILD/linux.tmp"; mkdir -p "$BUILD/linux.tmp"
	tar -xf "$TARBALL" -C "$BUILD/linux.tmp"
	mv "$BUILD/linux.tmp/linux-source-6.1" "$TREE"; rmdir "$BUILD/linux.tmp"
	say "tree: creating base commit"
	g init -q -b main
	# No background "git gc --auto": it would inherit the build lock (fd 9)
	g config gc.auto 0
	g add -f .
	g commit -q -m "base: Debian $PKG $PKG_VERSION"
	g tag base
	FULL=1
fi

# own files: tracked + untracked-not-ignored files of the repo in OWN_DIRS
own_files() { (cd "$ROOT" && git ls-files -co --exclude-standard -- "${OWN_DIRS[@]}" | sort -u |
	while read -r f; do [ -f "$f" ] && echo "$f"; done); }
# series entries without comments/blank lines
entries() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$SERIES"; }
listed() { entries | awk '{for (i = 2; i <= NF; i++) print $i}' | sort -u; }

copy_own() { # copy repo files into the tree, keeping mtime of unchanged ones
	[ $# -gt 0 ] || return 0
	(cd "$ROOT" && rsync -c --relative "$@" "$TREE/")
}

# Trees made before gc.auto was set: never let git gc hold the build lock.
g config gc.auto 0
stamp_now=$( { cd "$ROOT"; sha256sum patches/* 2>/dev/null; own_files; g rev-parse base; } | sha256sum | cut -d' ' -f1)

if [ $FULL = 0 ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$stamp_now" ]; then
	say "tree: patches unchanged, syncing own files only"
	mapfile -t files < <(own_files)
	copy_own "${files[@]}"
	exit 0
fi

say "tree: rebuilding series from base"
rm -f "$STAMP"
[ -d "$TREE/.git/rebase-apply" ] && g am --abort || true
g reset -q --hard base
g clean -q -fdx
n=0
while read -r patch own; do
	n=$((n + 1))
	[ -f "$ROOT/patches/$patch" ] || die "series entry $n: patches/$patch not found"
	say "tree: applying $patch"
	if ! g am -q --keep-cr "$ROOT/patches/$patch"; then
		g am --abort || true
		die "patch patches/$patch does not apply onto base ($PKG $PKG_VERSION)"
	fi
	if [ -n "$own" ]; then
		# shellcheck disable=SC2086
		set -- $own
		for f in "$@"; do [ -f "$ROOT/$f" ] || die "series: own file $f (for $patch) missing"; done
		copy_own "$@"
		g add -f -- "$@"
		g commit -q --amend --no-edit
	fi
done < <(entries)

mapfile -t unlisted < <(comm -23 <(own_files) <(listed))
if [ ${#unlisted[@]} -gt 0 ]; then
	warn "own files not listed in patches/series (copied, not committed):"
	printf '!!   %s\n' "${unlisted[@]}" >&2
	copy_own "${unlisted[@]}"
fi
echo "$stamp_now" > "$STAMP"
say "tree: ready ($n patches, HEAD $(g rev-parse --short HEAD))"
