#!/usr/bin/env bash
# make series: the series as a maintainer receives it, proved step by step.
# Prints one table row per check and writes it to build/series/table.md:
#   overlay     the overlay equals the end of the series
#   git am      the exported mails (build/series, with the cover letter)
#               apply onto the pinned base and give the same tree
#   checkpatch  --strict on every patch: 0 errors
#   bisect      every patch builds (x86_64, the xr test config)
#   matrix      the final tree builds with each option alone, PROC_FS=n,
#               SMP=n, MODULES=n, i386, PROVE_LOCKING=n
#   sparse      C=2 on the series' C files: no warning the base lacks
#   kernel-doc  -none on the new headers and sources: no warning
#   htmldocs    Documentation/locking renders crossrelease.rst: no warning
#   footprint   the lines the series adds and removes in existing files
#               outside kernel/locking/, lib/ and Documentation/, per file
#               (build/series/footprint.md, printed)
# SERIES_STEPS="overlay am checkpatch" runs a subset (CI uses a subset);
# SERIES_BISECT_FROM=N starts the bisect at patch N (the patches before it
# built in an earlier run: build/series/bisect.txt lists each result).
# Builds share build/ccache; cold, the whole run takes about 90 minutes.
set -euo pipefail
. "$(dirname "$0")/common.sh"
STEPS=${SERIES_STEPS:-overlay am checkpatch bisect matrix sparse kerneldoc htmldocs footprint}
OUTD=$BUILD/series
CHK=$BUILD/series-check
TABLE=$OUTD/table.md
export CCACHE_DIR=${CCACHE_DIR:-$BUILD/ccache} CCACHE_BASEDIR=${CCACHE_BASEDIR:-$BUILD}
g() { git -C "$TREE" "${GIT_ID[@]}" "$@"; }
want() { [[ " $STEPS " == *" $1 "* ]]; }
rows=(); fails=0
row() { # check, result (ok|FAIL), figure
	rows+=("| $1 | $2 | $3 |")
	[ "$2" = ok ] || fails=$((fails + 1))
	say "series: $1: $2 ($3)"
}
kmake() { # source dir, out dir, make args...
	local src=$1 out=$2; shift 2
	make -C "$src" O="$out" -j2 CC="ccache gcc" HOSTCC="ccache gcc" \
		KBUILD_BUILD_USER=xr KBUILD_BUILD_HOST=workbench "$@"
}

bash "$ROOT/scripts/tree.sh"
mkdir -p "$OUTD" "$BUILD/logs"
n=$(g rev-list --count base..HEAD)

if want overlay; then
	if bash "$ROOT/scripts/overlay.sh" check > "$BUILD/logs/series-overlay.log" 2>&1; then
		row overlay ok "$(git -C "$ROOT" ls-files -- kernel include lib mm fs arch drivers Documentation tools | wc -l) files = end of series"
	else
		cat "$BUILD/logs/series-overlay.log"; row overlay FAIL "see build/logs/series-overlay.log"
	fi
fi

# 1. export with the cover letter; git am onto a pristine worktree at base
rm -f "$OUTD"/*.patch
g format-patch -q --cover-letter --zero-commit --no-signature --base=pristine -o "$OUTD" base..HEAD
python3 - "$OUTD/0000-cover-letter.patch" "$PATCHES/cover-letter.txt" <<'PY'
import sys
cover, text = sys.argv[1], open(sys.argv[2]).read().split('\n', 1)
s = open(cover).read()
s = s.replace('*** SUBJECT HERE ***', text[0].strip())
s = s.replace('*** BLURB HERE ***', text[1].strip() if len(text) > 1 else '')
open(cover, 'w').write(s)
PY
mapfile -t patches < <(ls "$OUTD"/*.patch | grep -v '/0000-cover-letter.patch$')
g worktree remove --force "$CHK" 2>/dev/null || rm -rf "$CHK"
g worktree prune
g worktree add -q --detach "$CHK" base
if want am; then
	if git -C "$CHK" "${GIT_ID[@]}" am -q "${patches[@]}" &&
	   [ "$(git -C "$CHK" rev-parse 'HEAD^{tree}')" = "$(g rev-parse 'HEAD^{tree}')" ]; then
		row "git am" ok "$n patches + cover letter apply onto $PKG $PKG_VERSION, same tree"
	else
		git -C "$CHK" am --abort 2>/dev/null || true
		row "git am" FAIL "the mails do not apply or differ from build/linux"
	fi
else
	git -C "$CHK" "${GIT_ID[@]}" am -q "${patches[@]}"
fi

if want checkpatch; then
	errs=0; warns=0; checks=0
	printf '%-72s %6s %8s %6s\n' PATCH ERRORS WARNINGS CHECKS > "$OUTD/checkpatch.txt"
	for p in "${patches[@]}"; do
		out=$(cd "$CHK" && perl scripts/checkpatch.pl --strict --no-color "$p" 2>&1 || true)
		[[ $(grep -E '^total: ' <<<"$out" | tail -1) =~ ([0-9]+)\ errors,\ ([0-9]+)\ warnings,\ ([0-9]+)\ checks ]] ||
			die "checkpatch gave no summary for $p"
		e=${BASH_REMATCH[1]} w=${BASH_REMATCH[2]} c=${BASH_REMATCH[3]}
		errs=$((errs + e)); warns=$((warns + w)); checks=$((checks + c))
		printf '%-72s %6s %8s %6s\n' "$(basename "$p")" "$e" "$w" "$c" >> "$OUTD/checkpatch.txt"
		[ "$e$w$c" = 000 ] || grep -E '^(ERROR|WARNING|CHECK):' <<<"$out" | sed 's/^/    /' >> "$OUTD/checkpatch.txt"
	done
	cat "$OUTD/checkpatch.txt"
	[ $errs = 0 ] && r=ok || r=FAIL
	row checkpatch $r "$errs errors, $warns warnings, $checks checks in $n patches (${OUTD#"$ROOT"/}/checkpatch.txt)"
fi

exec 9>"$KLOCK"; flock 9	# the builds below hold the build lock

# 2. every patch builds: the xr config of the final tree, olddefconfig'd at
# each step (options a patch has not added yet simply drop out)
if want bisect; then
	out=$BUILD/out-bisect; mkdir -p "$out"
	[ -f "$BUILD/out-xr/.config" ] || die "bisect: build the xr kernel first (make build)"
	bad=(); t0=$SECONDS; i=0; from=${SERIES_BISECT_FROM:-1}
	[ "$from" = 1 ] && : > "$OUTD/bisect.txt"
	for c in $(git -C "$CHK" rev-list --reverse base..HEAD); do
		i=$((i + 1)); [ $i -ge "$from" ] || continue
		git -C "$CHK" checkout -q "$c"
		cp "$BUILD/out-xr/.config" "$out/.config"
		s=$(git -C "$CHK" log -1 --format=%s "$c")
		log=$BUILD/logs/series-bisect.log
		if kmake "$CHK" "$out" -s olddefconfig > "$log" 2>&1 &&
		   kmake "$CHK" "$out" -s bzImage modules >> "$log" 2>&1 &&
		   ! grep -q 'warning:' "$log"; then
			say "series: bisect: builds without warnings: $s"
			printf '%02d ok   %s\n' $i "$s" >> "$OUTD/bisect.txt"
		else
			printf '%02d FAIL %s\n' $i "$s" >> "$OUTD/bisect.txt"
			grep -E 'warning:|error:' "$log" | head -10 || tail -20 "$log"
			cp "$log" "$BUILD/logs/series-bisect-fail-$((${#bad[@]} + 1)).log"
			bad+=("$s")
		fi
	done
	[ ${#bad[@]} = 0 ] && row bisect ok "each of patches $from..$n builds, no warning ($(( (SECONDS - t0) / 60 )) min)" ||
		row bisect FAIL "${#bad[@]} of $n do not build cleanly: ${bad[*]}"
fi
git -C "$CHK" checkout -q --detach "$(g rev-parse HEAD)"

# 3. the final tree in other configurations: allnoconfig + debug + one change
matrix_build() { # name, arch, fragment lines...
	local name=$1 arch=$2; shift 2
	local out=$BUILD/out-m-$name frag log=$BUILD/logs/series-m-$name.log
	mkdir -p "$out"; frag=$out/matrix.config; : > "$log"
	cat "$ROOT/configs/debug.config" "$ROOT/configs/x86_64.config" > "$frag"
	printf '%s\n' "$@" >> "$frag"
	# kconfig's "override: reassigning" notes are the point of a change
	# line, so the configuration has a log of its own, not checked
	(cd "$CHK" && ARCH=$arch scripts/kconfig/merge_config.sh -n -O "$out" "$frag") \
		> "$BUILD/logs/series-m-$name-config.log" 2>&1 &&
	kmake "$CHK" "$out" ARCH="$arch" -s olddefconfig >> "$BUILD/logs/series-m-$name-config.log" 2>&1 || return 1
	local l; for l in "$@"; do	# each wanted line took its value
		case $l in
		*=y) grep -qx "$l" "$out/.config" || { echo "$name: $l did not apply" >> "$log"; return 1; } ;;
		"# CONFIG_"*) l=${l#\# }; l=${l%% is not set}
			! grep -q "^$l=y" "$out/.config" || { echo "$name: $l still set" >> "$log"; return 1; } ;;
		esac
	done
	kmake "$CHK" "$out" ARCH="$arch" -s > "$log" 2>&1 && ! grep -q 'warning:' "$log"
}
if want matrix; then
	XR=(CONFIG_LOCKDEP_CROSSRELEASE=y CONFIG_RUNTIME_TESTING_MENU=y)
	declare -A M=(
		[completions]="${XR[*]} CONFIG_LOCKDEP_COMPLETIONS=y"
		[folio_lock]="${XR[*]} CONFIG_LOCKDEP_FOLIO_LOCK=y"
		[dma_fence]="${XR[*]} CONFIG_DMABUF_HEAPS=y CONFIG_LOCKDEP_DMA_FENCE=y"
		[writeback]="${XR[*]} CONFIG_LOCKDEP_FOLIO_LOCK=y CONFIG_LOCKDEP_WRITEBACK=y"
		[buffer_lock]="${XR[*]} CONFIG_LOCKDEP_BUFFER_LOCK=y"
		[noproc]="${XR[*]} CONFIG_LOCKDEP_COMPLETIONS=y CONFIG_LOCKDEP_FOLIO_LOCK=y CONFIG_EXPERT=y"
		[nosmp]="${XR[*]} CONFIG_LOCKDEP_COMPLETIONS=y CONFIG_LOCKDEP_FOLIO_LOCK=y"
		[nomodules]="${XR[*]} CONFIG_LOCKDEP_COMPLETIONS=y CONFIG_LOCKDEP_FOLIO_LOCK=y"
		[i386]="${XR[*]} CONFIG_LOCKDEP_COMPLETIONS=y CONFIG_LOCKDEP_FOLIO_LOCK=y CONFIG_LOCKDEP_WRITEBACK=y CONFIG_LOCKDEP_BUFFER_LOCK=y CONFIG_LOCKDEP_DMA_FENCE=y CONFIG_DMABUF_HEAPS=y"
		[noprove]="CONFIG_RUNTIME_TESTING_MENU=y"
	)
	declare -A OFF=([noproc]="# CONFIG_PROC_FS is not set" [nosmp]="# CONFIG_SMP is not set"
		[nomodules]="# CONFIG_MODULES is not set" [noprove]="# CONFIG_PROVE_LOCKING is not set")
	for name in completions folio_lock dma_fence writeback buffer_lock noproc nosmp nomodules i386 noprove; do
		arch=x86_64; [ $name = i386 ] && arch=i386
		t0=$SECONDS
		read -r -a args <<<"${M[$name]}"
		[ -z "${OFF[$name]:-}" ] || args+=("${OFF[$name]}")
		if matrix_build "$name" "$arch" "${args[@]}"; then
			row "matrix $name" ok "builds ($(( (SECONDS - t0) / 60 )) min)"
		else
			tail -15 "$BUILD/logs/series-m-$name.log"; row "matrix $name" FAIL "build/logs/series-m-$name.log"
		fi
	done
fi

# the C files and headers the series adds or changes
mapfile -t cfiles < <(git -C "$CHK" diff --name-only base HEAD -- '*.c' | grep -v '^tools/' || true)
mapfile -t newsrc < <(git -C "$CHK" diff --name-only --diff-filter=A base HEAD -- '*.c' '*.h' | grep -v '^tools/' || true)

if want sparse; then
	command -v sparse >/dev/null || die "sparse missing: SERIES=1 scripts/deps.sh"
	[ -f "$BUILD/out-xr/.config" ] || die "sparse: build the xr kernel first (make build)"
	out=$BUILD/out-sparse; mkdir -p "$out"; objs=()
	for f in "${cfiles[@]}"; do [ -f "$BUILD/out-xr/${f%.c}.o" ] && objs+=("${f%.c}.o"); done
	sp() { # rev -> its sparse warnings on those objects, without line numbers
		local o have=()
		git -C "$CHK" checkout -q --detach "$1"
		cp "$BUILD/out-xr/.config" "$out/.config"
		kmake "$CHK" "$out" -s olddefconfig prepare > "$BUILD/logs/series-sparse.log" 2>&1
		for o in "${objs[@]}"; do [ -f "$CHK/${o%.o}.c" ] && have+=("$o"); done
		kmake "$CHK" "$out" C=2 -k "${have[@]}" 2>&1 | grep -E 'warning:|error:' |
			sed -E 's/:[0-9]+:[0-9]+:/:/' | sort -u || true
	}
	sp base > "$OUTD/sparse-base.txt"
	sp "$(g rev-parse HEAD)" > "$OUTD/sparse-series.txt"
	new=$(comm -23 "$OUTD/sparse-series.txt" "$OUTD/sparse-base.txt" | grep -c . || true)
	[ "$new" = 0 ] && r=ok || { r=FAIL; comm -23 "$OUTD/sparse-series.txt" "$OUTD/sparse-base.txt"; }
	row sparse $r "$new new warnings in ${#objs[@]} objects ($(grep -c . "$OUTD/sparse-base.txt" || true) in base)"
fi

if want kerneldoc; then
	# -v adds the missing "Return:" checks; its "contents before sections"
	# note fires on any description followed by a "Context:" section
	kdoc() { (cd "$CHK" && scripts/kernel-doc -none -v "${newsrc[@]}" 2>&1) |
		grep -E '^[^ ]+: (warning|error):' | grep -v 'contents before sections' || true; }
	kd=$(kdoc | grep -c . || true)
	[ "$kd" = 0 ] && r=ok || { r=FAIL; kdoc | head -20; }
	row kernel-doc $r "$kd warnings (-none -v) in ${#newsrc[@]} new files"
fi

if want htmldocs; then
	command -v sphinx-build >/dev/null || die "sphinx-build missing: SERIES=1 scripts/deps.sh"
	out=$BUILD/out-htmldocs; mkdir -p "$out"
	kmake "$CHK" "$out" SPHINXDIRS=locking htmldocs > "$BUILD/logs/series-htmldocs.log" 2>&1 || true
	hw=$(grep -E 'WARNING|ERROR' "$BUILD/logs/series-htmldocs.log" | grep -c -E 'crossrelease|lockdep_crossrelease|crosslock' || true)
	[ -f "$out/Documentation/output/locking/crossrelease.html" ] && [ "$hw" = 0 ] && r=ok || r=FAIL
	row htmldocs $r "Documentation/locking rendered, $hw warnings from the series"
fi

if want footprint; then
	# existing files only (--diff-filter=M): the series' new files are its own
	g diff --numstat --diff-filter=M base HEAD -- . ':!kernel/locking' ':!lib' \
		':!Documentation' | sort -k1,1nr -k3 | awk '
		BEGIN { print "| file | added | removed |"; print "|---|---:|---:|" }
		{ printf "| %s | %d | %d |\n", $3, $1, $2; a += $1; r += $2; n++ }
		END { printf "| **%d files** | **%d** | **%d** |\n", n, a, r }' > "$OUTD/footprint.md"
	cat "$OUTD/footprint.md"
	row footprint ok "$(tail -1 "$OUTD/footprint.md" | tr -d '*|' | awk '{print $3 " lines added, " $4 " removed in " $1 " files"}') outside lockdep (${OUTD#"$ROOT"/}/footprint.md)"
fi

g worktree remove --force "$CHK"
{ echo "| check | result | figure |"; echo "|---|---|---|"; printf '%s\n' "${rows[@]}"; } > "$TABLE"
say "series: summary (${TABLE#"$ROOT"/})"
cat "$TABLE"
[ $fails = 0 ] || die "series: $fails check(s) failed"
