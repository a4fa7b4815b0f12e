#!/bin/bash
# Every C file of the project is clean under clang-tidy's default checks
# (less the Annex K one, see .clang-tidy), with the flags it is built with.
set -u
# shellcheck source=../lib/host/preamble.sh
. "$(dirname "$0")/../lib/host/preamble.sh"
cd "$top" || exit 1

if [ ! -d build/headers/include ] || [ ! -r build/linux/tools/testing/selftests/kselftest_harness.h ]; then
	skip "clang-tidy" "build/headers or the kernel tree missing (make headers)"
	done_testing
fi
common=(-std=gnu11 -Wall -Wextra -isystem build/headers/include -Iinclude)
read -ra pcviz_flags <<<"$(pkg-config --cflags libtracefs libtraceevent libtracecmd ncursesw)"
while read -r f; do
	case "$f" in
	pcviz/*) flags=("${common[@]}" -DPCVIZ_REPLAY -Ipcviz -Itests/lib/both "${pcviz_flags[@]}") ;;
	tests/guest/* | tests/fixtures/* | labs/kernel-exercises/selftest/* | labs/solutions/selftest.c) flags=("${common[@]}" -Itests/lib/both -Itests/lib/guest -isystem build/linux/tools/testing/selftests) ;;
	# the Makefile passes the version (scripts/version) to this file alone
	lib/version.c) flags=("${common[@]}" -DPCLAB_VERSION='"tidy"') ;;
	*) flags=("${common[@]}" -Itests/lib/both) ;;
	esac
	if out=$(clang-tidy -quiet "$f" -- "${flags[@]}" 2>&1) && ! grep -qE 'warning:|error:' <<<"$out"; then
		pass "clang-tidy: $f"
	else
		fail "clang-tidy: $f" "$(grep -E -A2 'warning:|error:' <<<"$out" | head -n 12)"
	fi
done < <(git ls-files '*.c')
done_testing
