#!/bin/bash
# pcviz's C unit tests: the model, parsers, residency (cachestat on files in
# a scratch directory), batch formatting and options (test-model), the event
# decoder (test-decode).  Each runs twice: as built, and built with
# AddressSanitizer and UBSan, where any report ends the test with a failure.
# No tracing.  The TAP of every run is merged into one stream here.
set -u
# shellcheck source=../lib/host/preamble.sh
. "$(dirname "$0")/../lib/host/preamble.sh"
# a sanitizer report fails the run: no recovery, no leak tolerated
export ASAN_OPTIONS=abort_on_error=0:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1

for build in pcviz-tests pcviz-asan-tests; do
	for src in "$top"/pcviz/tests/*.c; do
		name=$(basename "$src" .c)
		bin=$top/build/host/$build/$name
		if [ ! -x "$bin" ]; then
			fail "$build/$name is built (make check builds it)"
			continue
		fi
		mkdir -p "$tmp/scratch"
		"$bin" "$tmp/scratch" >"$tmp/out" 2>"$tmp/err"
		status=$?
		# each check of the program becomes one of ours, named after the build
		while IFS= read -r line; do
			case "$line" in
			"ok "* | "not ok "*)
				desc=${line#* - }
				case "$line" in
				"ok "*"# SKIP "*) skip "$build/$name: ${desc%% # SKIP *}" "${desc#* # SKIP }" ;;
				"ok "*) pass "$build/$name: $desc" ;;
				*) fail "$build/$name: $desc" ;;
				esac
				;;
			"#"*) echo "$line" ;;
			esac
		done <"$tmp/out"
		if [ "$status" -eq 0 ] && ! grep -q . "$tmp/err"; then
			pass "$build/$name: exits 0, nothing on stderr"
		else
			fail "$build/$name: exits 0, nothing on stderr" \
				"status $status; $(head -n 30 "$tmp/err")"
		fi
	done
done
done_testing
