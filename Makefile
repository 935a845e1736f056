# Crossrelease for Linux 7.3, backported to 6.12 and 6.1 -- workbench.
#   make          build the xr kernel and run the demo in QEMU (default)
#   make test     KUnit + kselftests in QEMU, ends with "N passed, N failed"
#   make series   the series proved: git am, checkpatch, every patch builds,
#                 a config matrix, sparse, kernel-doc, htmldocs (table in
#                 build/series/table.md); SERIES_STEPS="..." for a subset
#   make export   write the base's patches and the overlay back from its
#                 tree's commits (build/7.3/linux; after git rebase -i there)
#   make absorb   fold overlay edits into the patches that last touched them
#   make check-overlay  the overlay equals the end of the series
#   make shell    boot the xr kernel into an interactive busybox shell
#   make kunit    the crossrelease KUnit suites with the kernel's kunit.py
#   make bench    plain vs crossrelease off/on: one table, build/bench/table.md
#   make soak     distro-class kernel under stress-ng/fio/fs/dm/md/swap/OOM/
#                 hotplug/modules, crossrelease on then off; build/soak/table.md
#   make bugs     real deadlocks written back: buggy tree with crossrelease,
#                 with stock lockdep, fixed tree; build/bugs/table.md
#   make torture  lockdep selftests, locktorture/rcutorture, KASAN, debug
#                 objects, small tables, lifecycle faults; build/torture/table.md
#   make xfstests fstests (xfstests) under crossrelease, kvm-xfstests style:
#                 Debian image (mmdebstrap), FS=ext4|xfs|btrfs, TESTS=/GROUP=,
#                 else xfstests/<fs>.list (LIST=) in shards (SHARD=i/n);
#                 results in build/xfstests/results/<fs>/<V>/
# BASE selects the series: 7.3 (default; 7.3/patches, build/7.3/), 6.12
# (6.12/patches, build/6.12/) or 6.1 (patches/, build/).  Every target
# takes it (bench, torture, kunit and ARCH=arm64 have run on 6.1 only);
# bugs runs the cases whose bug is in the base's code.
# V=plain|xr selects the kernel variant (default xr); ARGS="..." adds
# kernel command line arguments for the guest boot.  ARCH=arm64 cross-builds
# and boots the arm64 kernel (build/out-<V>-arm64, qemu-system-aarch64
# -M virt) for demo, test, shell, build and initramfs.
V ?= xr
ARCH ?= x86_64
BASE ?= 7.3
export ARCH BASE
ARGS ?=
S := scripts

.NOTPARALLEL:
.PHONY: demo test series export absorb check-overlay bench soak torture bugs xfstests shell kunit deps tree build initramfs clean distclean

demo: initramfs
	@bash $(S)/demo.sh $(V) $(ARGS)

test: initramfs
	@bash $(S)/test.sh $(V) $(ARGS)

shell: initramfs
	@bash $(S)/boot.sh $(V) shell $(ARGS)

kunit: deps tree
	@bash $(S)/kunit.sh $(ARGS)

deps:
	@bash $(S)/deps.sh

tree: deps
	@bash $(S)/tree.sh

build: tree
	@bash $(S)/build.sh $(V)

initramfs: build
	@bash $(S)/initramfs.sh $(V)

series:
	@SERIES=1 bash $(S)/deps.sh
	@bash $(S)/series.sh

export:
	@bash $(S)/export.sh

absorb: tree
	@bash $(S)/absorb.sh

check-overlay: tree
	@bash $(S)/overlay.sh check

# both kernels (plain and xr) are built, then booted in turns
bench: deps tree
	@bash $(S)/bench.sh $(ARGS)

# the "soak" kernel (defconfig-based, build/out-soak), its initramfs, two boots
soak: deps tree
	@bash $(S)/soak.sh all

# the "torture" and "tables" kernels (build/out-torture, build/out-tables)
torture: deps tree
	@bash $(S)/torture.sh all

# real deadlocks written back (bugs/*/), three boots each (build/bugs/
# table.md); BUGS="case ..." runs some of them.  Not part of CI.
bugs: deps tree
	@bash $(S)/bugs.sh all $(BUGS)

# fstests in QEMU on the "xfstests" kernel (build/out-xfstests: the soak
# kernel + configs/xfstests.config), a Debian root image built with
# mmdebstrap (build/xfstests/); V=plain boots it with crossrelease=off.
# FS="ext4 xfs", TESTS="generic/001 ...", GROUP=quick, EXCLUDE=...  Not part of CI.
FS ?= ext4
TESTS ?=
GROUP ?=
EXCLUDE ?=
LIST ?=
SHARD ?=
xfstests: deps tree
	@FS="$(FS)" TESTS="$(TESTS)" GROUP="$(GROUP)" EXCLUDE="$(EXCLUDE)" LIST="$(LIST)" SHARD="$(SHARD)" V=$(V) bash $(S)/xfstests.sh all $(ARGS)

clean:
	@echo ">> clean: removing build outputs (keeping the trees and build/ccache)"
	rm -rf build/out-* build/initramfs-* build/logs build/series build/series-check
	for b in 6.12 7.3; do rm -rf build/$$b/out-* build/$$b/initramfs-* build/$$b/logs build/$$b/series build/$$b/series-check; done
	-for t in build/linux build/6.12/linux build/7.3/linux; do git -C $$t worktree prune 2>/dev/null; done

distclean:
	@echo ">> distclean: removing build/"
	rm -rf build
