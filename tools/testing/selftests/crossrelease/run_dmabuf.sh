#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The dma-buf selftests (CONFIG_DMABUF_SELFTESTS=m) wait for and signal
# thousands of fences, in chains, arrays and reservation objects, from
# several kthreads: with dma-fences as crosslocks they must still pass and
# leave lockdep silent.  Output is KTAP; exit 0 on pass, 4 (KSFT_SKIP) if
# the kernel lacks what the test needs.

. ./ktap_helpers.sh

require_lockdep_on
grep -q dmabuf_selftests "/lib/modules/$(uname -r)/modules.dep" 2>/dev/null ||
	ktap_skip_all "no dmabuf_selftests module (CONFIG_DMABUF_SELFTESTS=m)"
ktap_header 4
mark=$(dmesg | wc -l)

if modprobe dmabuf_selftests; then
	ktap_ok "dmabuf_selftests loaded (all its selftests passed)"
	rmmod dmabuf_selftests
else
	ktap_fail "dmabuf_selftests loaded (all its selftests passed)"
fi
ran=$(dmesg | tail -n +"$((mark + 1))" | grep -c "dma-buf: Running")
echo "# dma-buf selftests run: $ran"
if [ "$ran" -gt 0 ] && ! dmesg | tail -n +"$((mark + 1))" | grep "failed with error"; then
	ktap_ok "dma-buf selftests ran ($ran) and none failed"
else
	ktap_fail "dma-buf selftests ran ($ran) and none failed"
fi
check_no_report_since "$mark" "no lockdep report during the dma-buf selftests"
check_lockdep_on "lockdep still on after the dma-buf selftests"
ktap_finish
