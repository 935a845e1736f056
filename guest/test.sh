#!/bin/sh
# Guest test runner: KUnit already ran at boot; run the crossrelease
# kselftests (run_*.sh) as one KTAP document, each script a subtest whose
# own KTAP/TAP output is indented below it.  With xr.scenario=NAME on the
# kernel command line (scripts/test.sh: one boot per scenario that expects
# a lockdep report) only run_scenarios.sh runs, and it runs only NAME.
dir=/xr/selftests/crossrelease
set -- $(ls "$dir"/run_*.sh 2>/dev/null)
case " $(cat /proc/cmdline) " in
*" xr.scenario="*) set -- "$dir/run_scenarios.sh" ;;
esac
if [ $# -eq 0 ]; then
	echo "# no crossrelease kselftests in $dir"
	exit 0
fi
echo "KTAP version 1"
echo "1..$#"
n=0; fail=0
for t in "$@"; do
	n=$((n + 1))
	name=$(basename "$t" .sh)
	echo "    # Subtest: $name"
	{ (cd "$dir" && sh "./$name.sh") 2>&1; echo $? > /tmp/.xr_rc; } | sed 's/^/    /'
	rc=$(cat /tmp/.xr_rc)
	case $rc in
	0) echo "ok $n $name" ;;
	4) echo "ok $n $name # SKIP" ;;	# kselftest KSFT_SKIP
	*) echo "not ok $n $name # exit=$rc"; fail=1 ;;
	esac
done
exit $fail
