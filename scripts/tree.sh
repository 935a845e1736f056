#!/usr/bin/env bash
# Prepare build/linux: the pristine tree (tag "pristine"), the
# prerequisites it lacks (tag "base": what the series applies to), then the
# series: every patch in patches/series applied with git am, one commit
# each (BASE=6.12: build/6.12/linux and 6.12/patches/series).  The
# pristine commit is reproducible (fixed author, committer and dates), so
# its id, which base.version records as BASE_COMMIT and the mails name as
# base-commit, is the same on every machine.  Prerequisites are the mails
# listed in patches/prereq-*/series, but for those the base's sublevel
# has already; the mails name them by prerequisite-patch-id.  The
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

# base <- pristine + each prerequisite the tree lacks
make_base() {
	local list p n=0
	g reset -q --hard pristine
	for list in "$PATCHES"/prereq-*/series; do
		[ -f "$list" ] || continue
		while read -r p upto; do
			# "<mail> <sublevel>": in the base from that sublevel on
			[ -n "$upto" ] && [ "$SUBLEVEL" -ge "$upto" ] && continue
			p=$(dirname "$list")/$p
			g am -q --keep-cr "$p" || { g am --abort; die "prerequisite $p does not apply"; }
			n=$((n + 1))
		done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$list")
	done
	g tag -f base >/dev/null
	say "tree: base = pristine + $n prerequisites"
}
prereq_stamp() { { cat "$PATCHES"/prereq-*/series "$PATCHES"/prereq-*/*.patch 2>/dev/null || true; } | sha256sum | cut -d' ' -f1; }

if ! git -C "$TREE" rev-parse -q --verify pristine >/dev/null 2>&1 &&
   git -C "$TREE" rev-parse -q --verify base >/dev/null 2>&1 &&
   [ "$(git -C "$TREE" rev-parse base)" = "$BASE_COMMIT" ]; then
	git -C "$TREE" tag pristine base	# a tree made before prerequisites
fi
if ! git -C "$TREE" rev-parse -q --verify pristine >/dev/null 2>&1; then
	[ -f "$TARBALL" ] || die "$TARBALL missing: run scripts/deps.sh"
	say "tree: extracting $TARBALL -> $TREE"
	rm -rf "$TREE" "$TREE.tmp"; mkdir -p "$TREE.tmp"
	tar -xf "$TARBALL" -C "$TREE.tmp"
	mv "$TREE.tmp"/*/ "$TREE"; rmdir "$TREE.tmp"	# its one top directory
	say "tree: creating base commit"
	g init -q -b main
	# No background "git gc --auto": it would inherit the build lock (fd 9)
	g config gc.auto 0
	g add -f .
	GIT_AUTHOR_DATE=$BASE_DATE GIT_COMMITTER_DATE=$BASE_DATE \
		g commit -q -m "base: Debian $PKG $PKG_VERSION"
	g tag pristine
	[ "$(g rev-parse pristine)" = "$BASE_COMMIT" ] ||
		warn "tree: pristine commit $(g rev-parse pristine), base.version says $BASE_COMMIT (another git?)"
fi
g config gc.auto 0
if [ "$(cat "$STAMP.prereq" 2>/dev/null)" != "$(prereq_stamp)" ] ||
   ! g rev-parse -q --verify base >/dev/null; then
	make_base
	prereq_stamp > "$STAMP.prereq"
	FULL=1
fi

stamp_now=$( { cd "$PATCHES"; sha256sum [0-9]*.patch cover-letter.txt series; g rev-parse base; } | sha256sum | cut -d' ' -f1)
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
		[ -f "$PATCHES/$patch" ] || die "series entry $n: $PATCHES/$patch not found"
		if ! g am -q --keep-cr "$PATCHES/$patch"; then
			g am --abort || true
			die "$PATCHES/$patch does not apply ($PKG $PKG_VERSION)"
		fi
	done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$PATCHES/series")
	echo "$stamp_now" > "$STAMP"
	g rev-parse HEAD > "$STAMP.head"
	say "tree: $n patches applied, HEAD $(g rev-parse --short HEAD)"
else
	say "tree: series unchanged (HEAD $(g rev-parse --short HEAD))"
fi

# The overlay on top, for builds: only files that differ from the tree are
# copied, so that unchanged files keep their mtime.
bash "$ROOT/scripts/overlay.sh" sync
