#!/bin/bash
# The labs whose self-checks depend on something having happened (reclaim
# started, a writer throttled, a hot set evicted), in quick mode on the
# debug kernel, with the host busy: a CPU hog beside QEMU, as on a
# student's laptop running other work.  Their steps are sized by
# data and by the guest's measured speed, not by seconds, so the checks
# must hold at any speed.
set -u
# shellcheck source=../lib/both/tap.sh
. "$(dirname "$0")/../lib/both/tap.sh"
# shellcheck source=../lib/host/vm.sh
. "$(dirname "$0")/../lib/host/vm.sh"
# shellcheck source=../lib/host/labs.sh
. "$(dirname "$0")/../lib/host/labs.sh"

sh -c 'while :; do :; done' &
hog=$!
trap 'kill "$hog" 2>/dev/null' EXIT
diag "a CPU hog is running beside QEMU ($(nproc) host CPUs)"
for lab in $speed_dependent_labs; do
	lab_checks "$lab" "$lab-busy-host"
done
done_testing
