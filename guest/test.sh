#!/bin/sh
# Guest test runner: KUnit already ran at boot; run the crossrelease
# kselftests with the kselftest runner.  Its output is rewritten into one
# KTAP document for scripts/ktap.py: the runner's "# selftests: crossrelease:
# NAME.sh" becomes "# Subtest: NAME", and each test's own output, which the
# runner prefixes with "# ", is indented one level below it.
dir=/xr/kselftest
if [ ! -x $dir/run_kselftest.sh ]; then
	echo "# no kselftests in $dir"
	exit 0
fi
cd $dir || exit 1
./run_kselftest.sh -c crossrelease | sed \
	-e 's/^# selftests: crossrelease: \(.*\)\.sh$/    # Subtest: \1/' \
	-e 's/^\(\(not \)\{0,1\}ok [0-9]*\) selftests: crossrelease: \(.*\)\.sh/\1 \3/' \
	-e 's/^TAP version 13$/KTAP version 1/' \
	-e 's/^# \{0,1\}/    /'
