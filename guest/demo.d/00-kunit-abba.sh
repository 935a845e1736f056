TITLE="lockdep_capture KUnit: mutex ABBA report (from the boot log)"
run() {
	# print the report that names the suite's lock classes
	dmesg | awk '
		/=====/ { hdr = $0; next }
		/possible circular locking dependency detected/ { n = 0; grab = 1; buf[n++] = hdr }
		grab { buf[n++] = $0 }
		grab && /stack backtrace:/ {
			grab = 0; s = ""
			for (i = 0; i < n; i++) s = s buf[i] "\n"
			if (s ~ /lockdep_kunit_A/) { printf "%s", s; found = 1; exit }
		}
		END { if (!found) print "(no ABBA report from the lockdep_capture suite in the boot log)" }'
}
