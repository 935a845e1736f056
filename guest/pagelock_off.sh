#!/bin/sh
# Booted with "lockdep_pagelock=off" by scripts/test.sh: folio locks are
# not tracked and their page_ext memory is not even allocated, while the
# rest of crossrelease stays on.  Prints one KTAP subtest.
echo "KTAP version 1"
echo "1..1"
echo "    # Subtest: pagelock_off"
echo "    1..3"
n=0; fail=0
check() { # description, command...
	d=$1; shift
	n=$((n + 1))
	if "$@" > /dev/null 2>&1; then echo "    ok $n $d"; else echo "    not ok $n $d"; fail=1; fi
}
check "no page_ext allocated (dmesg has no 'bytes of page_ext')" \
	sh -c '! dmesg | grep -q "bytes of page_ext"'
check "folio lock tracking not announced" \
	sh -c '! dmesg | grep -q "lockdep_pagelock: tracking folio locks"'
check "crossrelease tracking still on" \
	grep -q "crossrelease tracking: *on" /proc/lockdep_stats
if [ $fail = 0 ]; then echo "ok 1 pagelock_off"; else echo "not ok 1 pagelock_off"; fi
exit $fail
