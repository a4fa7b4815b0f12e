#!/bin/sh
# A kernel exercise, guest side (run from /extra, where the grader puts it,
# under busybox sh): runs one guest test suite on the exercise's kernel,
# all of it or only the tests named, its TAP to /results/tap/SUITE.tap,
# and records the suite's exit status as a fact.  A kernel that oopses
# records nothing: the guest panics (oops=panic) and the grader says so.
#
# Usage: guest.sh SUITE [TEST...]
set -eu
LAB=kernel
# shellcheck source=../lib/guest.sh
. /usr/share/pclab/labs/lib/guest.sh

suite=$1
shift
filters=""
for t in "$@"; do
	filters="$filters -t $t"
done
mkdir -p "$out/tap"
say "the $suite suite${1:+ (only $*)} on $(uname -r)"
status=0
# shellcheck disable=SC2086 # a list of options
"/usr/lib/pclab/tests/suites/$suite" $filters >"$out/tap/$suite.tap" 2>&1 || status=$?
fact suite "{\"name\": \"$suite\", \"status\": $status}"
