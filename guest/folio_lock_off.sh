#!/bin/sh
# Booted with "lockdep_folio_lock=off" by scripts/test.sh: folio locks are
# not tracked and their page_ext memory is not even allocated, while the
# rest of crossrelease stays on.  Prints one KTAP subtest.
. /xr/lib.sh
checks() {
	ktap_begin 3
	ktap_check "no page_ext allocated (dmesg has no 'bytes of page_ext')" \
		sh -c '! dmesg | grep -q "bytes of page_ext"'
	ktap_check "folio lock tracking not announced" \
		sh -c '! dmesg | grep -q "lockdep_folio_lock: tracking folio locks"'
	ktap_check "crossrelease tracking still on" \
		test "$(lockdep_stat "crossrelease tracking")" = on
	ktap_finish
}
ktap_begin 1
ktap_nest folio_lock_off checks
ktap_status $? folio_lock_off
ktap_finish
