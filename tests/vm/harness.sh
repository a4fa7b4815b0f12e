#!/bin/bash
# The harness must notice a failing in-guest test: run it on a suite that
# fails on purpose and check the verdict, the summary line and the exit code.
set -u
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${CHECK_RESULTS:-$top/results/check}/harness-selftest

status=0
"$top/tests/run-check" --only guest --suites fixtures/failing/fails.sh --out "$out" \
	>"$out.log" 2>&1 || status=$?
ok "[ $status -ne 0 ]" "run-check exits non-zero when an in-guest test fails (status $status)"
is "$(tail -n 1 "$out.log")" "3 passed, 1 failed, 0 skipped" \
	"the summary counts the failing check (and the two clean kernel-log checks)"
ok "grep -q '^  FAIL guest/fails' '$out.log'" "the failing suite is named"

done_testing
