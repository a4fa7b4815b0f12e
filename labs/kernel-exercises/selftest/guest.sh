#!/bin/sh
# The testing exercise, guest side (run from /extra, where the grader puts
# it and the student's tests, /extra/bin/selftest): runs the tests on this
# boot's kernel, their TAP to /results/tap/selftest.tap, and records their
# exit status and how many tests ran as the fact "selftest".
set -eu
LAB=selftest
# shellcheck source=../../lib/guest.sh
. /usr/share/pclab/labs/lib/guest.sh

mkdir -p "$out/tap"
say "the tests on $(uname -r)"
status=0
# a test that hangs is a test that fails
timeout 600 selftest >"$out/tap/selftest.tap" 2>&1 || status=$?
ran=$(grep -cE '^(not )?ok [0-9]+ ' "$out/tap/selftest.tap" || true)
fact selftest "{\"status\": $status, \"tests\": $ran}"
