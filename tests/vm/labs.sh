#!/bin/bash
# Every lab end to end in its quick mode (QUICK=1: data 3x RAM, 3-second
# timed runs) on the debug kernel: each self-check of each lab is a test,
# and so is each lab's kernel log.
set -u
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/vm.sh
. "$(dirname "$0")/../lib/vm.sh"

for run in "$top"/labs/lab*/run; do
	lab=$(basename "$(dirname "$run")")
	log=$CHECK_RESULTS/labs/$lab.out
	mkdir -p "$CHECK_RESULTS/labs"
	status=0
	QUICK=1 LAB_KERNEL=$VM_KERNEL LAB_RESULTS=$CHECK_RESULTS/labs "$run" >"$log" 2>&1 || status=$?
	checks=$(grep -cE ' (PASS|FAIL)$' "$log")
	# one test per self-check, named by the lab's own words
	while read -r line; do
		name=$(echo "$line" | sed -E 's/ \.+ .*//')
		case "$line" in
		*PASS) pass "$lab: $name" ;;
		*) fail "$lab: $name" "$line" ;;
		esac
	done < <(grep -E ' (PASS|FAIL)$' "$log")
	ok "[ $status = 0 ] && [ $checks -gt 0 ]" \
		"$lab runs to the end: status $status, $checks self-checks (log: $log)"
	[ "$status" = 0 ] || tail -n 15 "$log" | sed 's/^/# /'
	vm_check_console "labs/$lab"
done
done_testing
