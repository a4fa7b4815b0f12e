# shellcheck shell=bash
# Run one lab end to end in its quick mode, as a set of TAP tests (source
# after tap.sh and vm.sh), on the kernel $lab_kernel names (default: the
# debug kernel):
#
#   lab_checks LAB [LABEL]   each self-check of labs/LAB/run is a test named
#                            by the lab's own words; then one test that the
#                            lab ran to the end, one that grading its results
#                            again (GRADE=1) agrees, and one for its kernel
#                            log.
#                            LABEL (default LAB) names the tests and the
#                            results directory.
#
# The labs whose self-checks depend on something having happened (reclaim
# started, a writer throttled, a hot set evicted): tests/vm/labs-busy.sh
# runs them on a busy host, tests/vm/labs.sh the others.
# shellcheck disable=SC2034 # for the scripts that source this
speed_dependent_labs="lab2 lab4 lab5"

lab_checks() {
	local lab=$1 label=${2:-$1} log status checks line name
	local results=$CHECK_RESULTS/labs/$label
	mkdir -p "$results"
	log=$CHECK_RESULTS/labs/$label.out
	status=0
	# no predictions: make check is no student (PREDICT=skip)
	PREDICT=skip QUICK=1 LAB_KERNEL=${lab_kernel:-$VM_KERNEL} LAB_RESULTS=$results "${top:?}/labs/$lab/run" >"$log" 2>&1 ||
		status=$?
	checks=$(grep -cE ' (PASS|FAIL)$' "$log")
	while read -r line; do
		name=$(echo "$line" | sed -E 's/ \.+ .*//')
		case "$line" in
		*PASS) pass "$label: $name" ;;
		*) fail "$label: $name" "$line" ;;
		esac
	done < <(grep -E ' (PASS|FAIL)$' "$log")
	ok "[ $status = 0 ] && [ $checks -gt 0 ]" \
		"$label runs to the end: status $status, $checks self-checks (log: $log)"
	[ "$status" = 0 ] || tail -n 15 "$log" | sed 's/^/# /'
	# grading apart from running: the results alone give the same verdicts
	verdicts() { jq -c '[.check, .passed]' "$results/$lab/checks.jsonl" 2>/dev/null; }
	local first
	first=$(verdicts)
	GRADE=1 LAB_RESULTS=$results "$top/labs/$lab/run" >"$log.grade" 2>&1
	is "$(verdicts)" "$first" "$label: GRADE=1 grades the run again, no boot, with the same verdicts"
	CHECK_RESULTS=$results vm_check_console "$lab"
}
