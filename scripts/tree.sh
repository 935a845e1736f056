#!/usr/bin/env bash
# Prepare build/linux: the pristine base (tag "base"), then the series:
# every patch in patches/series applied with git am, one commit each.  The
# patches carry everything, new files included; the repo's files at
# kernel paths (the overlay) are a copy of their version at the end of the
# series, written by "make export" and checked by "make check-overlay".
# An overlay file edited since is copied into the working tree on top of
# the series, so that a build uses it; "make absorb" folds such edits into
# the patches that last touched those files.
#   tree.sh          re-apply the series only if patches/ changed
#   tree.sh --full   always re-apply it
set -euo pipefail
. "$(dirname "$0")/common.sh"
FULL=0; [ "${1:-}" = --full ] && FULL=1
STAMP=$BUILD/tree.stamp
g() { git -C "$TREE" "${GIT_ID[@]}" "$@"; }

# The tree is shared with kernel builds: change it only under the build lock.
mkdir -p "$BUILD"
exec 9>"$KLOCK"
say "tree: waiting for $KLOCK"; flock 9

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
g config gc.auto 0

stamp_now=$( { cd "$ROOT"; sha256sum patches/[0-9]*.patch patches/cover-letter.txt patches/series; g rev-parse base; } | sha256sum | cut -d' ' -f1)
if [ $FULL = 1 ] || [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$stamp_now" ] ||
   [ "$(cat "$STAMP.head" 2>/dev/null)" != "$(g rev-parse HEAD)" ]; then
	say "tree: applying the series onto base"
	rm -f "$STAMP"
	[ -d "$TREE/.git/rebase-apply" ] && g am --abort || true
	g reset -q --hard base
	g clean -q -fdx
	n=0
	while read -r patch; do
		n=$((n + 1))
		[ -f "$ROOT/patches/$patch" ] || die "series entry $n: patches/$patch not found"
		if ! g am -q --keep-cr "$ROOT/patches/$patch"; then
			g am --abort || true
			die "patches/$patch does not apply ($PKG $PKG_VERSION)"
		fi
	done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$ROOT/patches/series")
	echo "$stamp_now" > "$STAMP"
	g rev-parse HEAD > "$STAMP.head"
	say "tree: $n patches applied, HEAD $(g rev-parse --short HEAD)"
else
	say "tree: series unchanged (HEAD $(g rev-parse --short HEAD))"
fi

# The overlay on top, for builds: only files that differ from the tree are
# copied (rsync -c), so that unchanged files keep their mtime.
bash "$ROOT/scripts/overlay.sh" sync
