#!/usr/bin/env bash
# Install the Debian packages the workbench needs (skips apt if all present)
# and verify the pinned base kernel tarball.  ARCH=arm64 adds the cross
# compiler and qemu-system-aarch64, and extracts Debian's arm64 packages
# of the guest's user space (busybox-static, e2fsprogs, coreutils' timeout,
# their libraries) into build/arm64-root (dpkg --add-architecture arm64).
set -euo pipefail
. "$(dirname "$0")/common.sh"

PKGS=(qemu-system-x86 busybox-static ccache flex bison bc libelf-dev libssl-dev
      cpio xz-utils rsync kmod python3 perl e2fsprogs util-linux gcc make git)
[ "$ARCH" = arm64 ] && PKGS+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm)
# make series: sparse, the docs build
[ "${SERIES:-0}" = 1 ] && PKGS+=(sparse python3-sphinx python3-sphinx-rtd-theme)
# arm64 guest user space: downloaded and extracted, not installed
GUEST_DEBS=(busybox-static e2fsprogs libext2fs2 libcom-err2 libblkid1 libuuid1 libc6 coreutils)
installed() { [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]; }

# A base from another Debian suite (base.version's APT_SUITE): its package
# is fetched with a private apt state under build/, not installed, and the
# host's apt configuration is left as it is.
fetch_private() {
	local dir=$BUILD/apt deb
	local opts=(-o Dir::Etc::sourcelist="$dir/sources.list" -o Dir::Etc::sourceparts=/nonexistent
		-o Dir::State::Lists="$dir/lists" -o Dir::Cache="$dir" -o Dir::Cache::archives="$dir/archives"
		-o Dir::State::status=/var/lib/dpkg/status -o Debug::NoLocking=1)
	mkdir -p "$dir/lists/partial" "$dir/archives/partial" "$BUILD/pkg"
	printf 'deb [signed-by=%s] %s %s main\ndeb-src [signed-by=%s] %s %s main\n' \
		"$APT_KEYRING" "$APT_MIRROR" "$APT_SUITE" "$APT_KEYRING" "$APT_MIRROR" "$APT_SUITE" \
		> "$dir/sources.list"
	say "deps: apt-get update ($APT_SUITE, private state in ${dir#"$ROOT"/})"
	apt-get "${opts[@]}" update -q >/dev/null
	# The source package's orig tarball is upstream's; the binary package
	# linux-source-* is Debian's patched tree: used only if the first fails.
	say "deps: apt-get source --download-only $SRC_PKG=$PKG_VERSION"
	if (cd "$BUILD/pkg" && apt-get "${opts[@]}" source -q --download-only "$SRC_PKG=$PKG_VERSION") \
		> "$BUILD/pkg/source.log" 2>&1; then
		warn "the orig tarball is served now: point base.version's TARBALL at it"
	else
		warn "$SRC_PKG $PKG_VERSION source: $(grep -m1 -o '[0-9]* *Not Found' "$BUILD/pkg/source.log" || echo failed);" \
			"using the binary package $PKG (Debian's patched tree)"
	fi
	say "deps: apt-get download $PKG=$PKG_VERSION"
	(cd "$BUILD/pkg" && apt-get "${opts[@]}" download -q "$PKG=$PKG_VERSION" 2>&1 | grep -v unsandboxed) || true
	deb=$(ls "$BUILD"/pkg/"${PKG}"_*.deb)
	dpkg-deb -x "$deb" "$BUILD/pkg/root"
}

missing=()
for p in "${PKGS[@]}"; do installed "$p" || missing+=("$p"); done
if [ -n "${APT_SUITE:-}" ]; then
	[ -f "$TARBALL" ] || fetch_private
	src_ver=$PKG_VERSION	# not installed: fetched above
else
	src_ver=$(dpkg-query -W -f='${Version}' "$PKG" 2>/dev/null || true)
	installed "$PKG" || src_ver=""
fi

if [ ${#missing[@]} -eq 0 ] && [ "$src_ver" = "$PKG_VERSION" ]; then
	say "deps: all packages present ($PKG $src_ver)"
else
	[ "$(id -u)" = 0 ] && SUDO="" || SUDO=sudo
	export DEBIAN_FRONTEND=noninteractive
	say "deps: apt-get update"
	$SUDO apt-get update -q
	if [ ${#missing[@]} -gt 0 ]; then
		say "deps: installing ${missing[*]}"
		$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
	fi
	if [ "$src_ver" != "$PKG_VERSION" ]; then
		if apt-cache madison "$PKG" | awk '{print $3}' | grep -qxF "$PKG_VERSION"; then
			say "deps: installing $PKG=$PKG_VERSION"
			$SUDO apt-get install -y -q --no-install-recommends --allow-downgrades "$PKG=$PKG_VERSION"
		else
			warn "################################################################"
			warn "$PKG=$PKG_VERSION is NOT available from apt; installing newest."
			warn "Patches were written against $PKG_VERSION and may not apply."
			warn "################################################################"
			$SUDO apt-get install -y -q --no-install-recommends "$PKG"
		fi
	fi
fi

if [ "$ARCH" = arm64 ] && [ ! -f "$SYSROOT/.done" ]; then
	[ "$(id -u)" = 0 ] && SUDO="" || SUDO=sudo
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		say "deps: dpkg --add-architecture arm64; apt-get update"
		$SUDO dpkg --add-architecture arm64
		$SUDO apt-get update -q
	fi
	say "deps: arm64 guest user space: apt-get download ${GUEST_DEBS[*]/%/:arm64}"
	rm -rf "$SYSROOT" "$BUILD/arm64-debs"; mkdir -p "$BUILD/arm64-debs"
	(cd "$BUILD/arm64-debs" && apt-get download -q "${GUEST_DEBS[@]/%/:arm64}")
	for d in "$BUILD"/arm64-debs/*.deb; do dpkg-deb -x "$d" "$SYSROOT"; done
	touch "$SYSROOT/.done"
	say "deps: extracted into $SYSROOT"
fi

[ -f "$TARBALL" ] || die "$TARBALL missing after install"
stamp=$BUILD/tarball.sha256
mkdir -p "$BUILD"
key="$(stat -c '%s %Y' "$TARBALL")"
if [ -f "$stamp" ] && [ "$(head -1 "$stamp")" = "$key" ]; then
	sum=$(sed -n 2p "$stamp")
else
	say "deps: verifying $TARBALL sha256"
	sum=$(sha256sum "$TARBALL" | cut -d' ' -f1)
	printf '%s\n%s\n' "$key" "$sum" > "$stamp"
fi
if [ "$sum" != "$TARBALL_SHA256" ]; then
	warn "################################################################"
	warn "tarball sha256 mismatch: got $sum"
	warn "                    expected $TARBALL_SHA256"
	warn "Continuing; the tree step stops if the patch series does not apply."
	warn "################################################################"
else
	say "deps: tarball sha256 OK"
fi
