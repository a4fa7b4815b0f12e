#!/bin/bash
# Every lab end to end in its quick mode (QUICK=1: data 2x RAM, 3-second
# timed runs) on the debug kernel: each self-check of each lab is a test,
# and so is each lab's kernel log.  The labs whose checks depend on the
# machine's speed run in labs-busy.sh instead, on a busy host.
set -u
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/vm.sh
. "$(dirname "$0")/../lib/vm.sh"
# shellcheck source=../lib/labs.sh
. "$(dirname "$0")/../lib/labs.sh"

for run in "$top"/labs/lab*/run; do
	lab=$(basename "$(dirname "$run")")
	case " $speed_dependent_labs " in *" $lab "*) continue ;; esac
	lab_checks "$lab"
done
done_testing
