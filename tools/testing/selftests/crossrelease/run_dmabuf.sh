#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The dma-buf selftests wait for and signal thousands of fences, in
# chains, arrays and reservation objects, from several kthreads: with
# dma-fences as crosslocks they must still pass and leave lockdep silent.
# Older kernels build them as the dmabuf_selftests module
# (CONFIG_DMABUF_SELFTESTS=m), newer ones as the KUnit module dmabuf_kunit
# (CONFIG_DMABUF_KUNIT_TEST=m), whose suites run when it is loaded.
# Output is KTAP; exit 0 on pass, 4 (KSFT_SKIP) if the kernel lacks both.

. ./ktap_helpers.sh

has_module() {
	grep -q "/$1\.ko" "/lib/modules/$(uname -r)/modules.dep" 2>/dev/null
}

# The KUnit module's suites run only if they match kunit.filter_glob, which
# the boot may have set for other suites: match every dma-buf suite while
# the module loads (printf: a newline would become part of the glob).
# KUnit also prints its KTAP to the console, where a reader of this test's
# output would take it for ours: keep it to the kernel log (KERN_INFO)
# meanwhile; warnings, and so lockdep reports, still reach the console.
load_kunit_module() {
	glob=/sys/module/kunit/parameters/filter_glob
	saved=$(cat "$glob" 2>/dev/null || true)
	[ "$saved" = "(null)" ] && saved="*"	# unset: every suite
	[ -w "$glob" ] && printf '%s' "dma-buf*" > "$glob"
	read -r level rest < /proc/sys/kernel/printk
	echo 5 > /proc/sys/kernel/printk
	modprobe dmabuf_kunit
	rc=$?
	echo "$level" > /proc/sys/kernel/printk
	[ -w "$glob" ] && printf '%s' "$saved" > "$glob"
	return $rc
}

# since_mark: the kernel log after the line counted at the start
since_mark() {
	dmesg | tail -n +"$((mark + 1))"
}

require_lockdep_on
if has_module dmabuf_selftests; then
	mod=dmabuf_selftests
elif has_module dmabuf_kunit; then
	mod=dmabuf_kunit
else
	need="CONFIG_DMABUF_SELFTESTS=m or CONFIG_DMABUF_KUNIT_TEST=m"
	ktap_skip_all "no dma-buf selftests ($need)"
fi
ktap_header 4
mark=$(dmesg | wc -l)

if [ "$mod" = dmabuf_selftests ]; then
	modprobe "$mod"
	loaded=$?
	ran=$(since_mark | grep -c "dma-buf: Running")
	failed=$(since_mark | grep -c "failed with error")
else
	load_kunit_module
	loaded=$?
	ran=$(since_mark | grep -cE "^[[:space:]]*(\[[^]]*\] *)?ok [0-9]+ ")
	failed=$(since_mark | grep -cE "not ok [0-9]+ ")
fi
if [ $loaded -eq 0 ]; then
	ktap_ok "dma-buf selftests loaded"
	rmmod "$mod"
else
	ktap_fail "dma-buf selftests loaded"
fi
echo "# dma-buf selftests ($mod) run: $ran, failed: $failed"
if [ "$ran" -gt 0 ] && [ "$failed" -eq 0 ]; then
	ktap_ok "dma-buf selftests ran ($ran) and none failed"
else
	since_mark | grep -E "not ok|failed with error" | sed 's/^/# /'
	ktap_fail "dma-buf selftests ran ($ran) and none failed"
fi
check_no_report_since "$mark" "no lockdep report during the dma-buf selftests"
check_lockdep_on "lockdep still on after the dma-buf selftests"
ktap_finish
