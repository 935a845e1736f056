TITLE="crossrelease KUnit: crosslock -> mutex cycle closed by a work item (from the boot log)"
run() {
	dmesg | awk '
		/=====/ { hdr = $0; next }
		/possible circular locking dependency detected/ { n = 0; grab = 1; buf[n++] = hdr }
		grab { buf[n++] = $0 }
		grab && /stack backtrace:/ {
			grab = 0; s = ""
			for (i = 0; i < n; i++) s = s buf[i] "\n"
			if (s ~ /\(xr\)test_X/) { printf "%s", s; found = 1; exit }
		}
		END { if (!found) print "(no crossrelease report from the KUnit suite in the boot log)" }'
}
