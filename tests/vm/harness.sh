#!/bin/bash
# The harness must notice a failing in-guest test: run it on two suites that
# fail on purpose, a shell one (tests/lib/both/tap.sh) and a C one on the kernel's
# kselftest harness, and check the verdicts, the summary line, the exit code
# and what the C suite's TAP says about each failure.
set -u
# shellcheck source=../lib/both/tap.sh
. "$(dirname "$0")/../lib/both/tap.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${CHECK_RESULTS:-$top/results/check}/harness-selftest

# One check: the C suite's TAP has a line matching the extended regex.
has() { # regex description
	if grep -qE "$1" "$out/guest/ksft-fails.tap" 2>/dev/null; then
		pass "$2"
	else
		fail "$2" "no line matching '$1' in $out/guest/ksft-fails.tap"
	fi
}

status=0
"$top/tests/run-check" --only guest --out "$out" \
	--suites "fixtures/failing/fails.sh fixtures/failing/ksft-fails" >"$out.log" 2>&1 || status=$?
ok "[ $status -ne 0 ]" "run-check exits non-zero when an in-guest test fails (status $status)"
# fails.sh: 1 passed, 1 failed; ksft-fails: 1 passed, 3 failed; the kernel
# log of the run and of each suite: 3 passed.
is "$(tail -n 1 "$out.log")" "5 passed, 4 failed, 0 skipped" \
	"the summary counts the failing checks, the passing ones and the clean kernel-log checks"
ok "grep -q '^  FAIL guest/fails' '$out.log'" "the failing shell suite is named"
ok "grep -q '^  FAIL guest/ksft-fails' '$out.log'" "the failing kselftest suite is named"

has '^# tests/fixtures/failing/ksft-fails\.c:[0-9]+:expect_fails:Expected 3 \(3\) == sum \(2\)$' \
	"a failed EXPECT reports its file:line and both values"
has '^# tests/fixtures/failing/ksft-fails\.c:[0-9]+:expect_fails:this check fails on purpose$' \
	"... and its TH_LOG message"
has '^# tests/fixtures/failing/ksft-fails\.c:[0-9]+:expect_fails:an EXPECT does not end its test' \
	"the test goes on after a failed EXPECT"
has '^not ok 1 fails\.expect_fails$' "the test with the failed EXPECT is not ok"
has '^# tests/lib/guest/suite\.h:[0-9]+:helper_fails:/nonexistent/pclab: No such file or directory$' \
	"a failing suite.h helper fails its test with file:line and the error"
has '^# tests/fixtures/failing/ksft-fails\.c:[0-9]+:helper_fails:teardown runs$' \
	"... and the fixture's teardown still runs"
has '^not ok 2 fails\.helper_fails$' "the test whose helper failed is not ok"
has '^# timeout: Test terminated by timeout$' "a test past its own time limit is killed"
has '^not ok 3 fails\.timeout$' "... and is not ok"
has '^ok 4 fails\.runs_after_failures$' "the test after the failures runs and passes"
has '^# Totals: pass:1 fail:3 xfail:0 xpass:0 skip:0 error:0$' "the harness's own totals agree"

done_testing
