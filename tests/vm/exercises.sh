#!/bin/bash
# Every graded exercise's grader can fail and can pass: each
# labs/exercises/NAME/grade grades the untouched skeleton (it must score 0
# on every check) and the reference solution (full marks), on the debug
# kernel; the score line, checks.jsonl and a second grading without a boot
# (GRADE=1) must agree.  make check builds both binaries (EXERCISE_BINS in
# the Makefile).
set -u
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/vm.sh
. "$(dirname "$0")/../lib/vm.sh"

# grade NAME VARIANT BINARY: one grader run, as TAP tests
grade() {
	local name=$1 variant=$2 bin=$3 results=$CHECK_RESULTS/exercises/$2 log status passed total
	log=$CHECK_RESULTS/exercises/$name-$variant.out
	mkdir -p "$results"
	if [ ! -x "$bin" ]; then
		fail "$name: the $variant is built" "$bin is missing (make check builds it)"
		return
	fi
	status=0
	EXERCISE_BIN=$bin LAB_KERNEL=$VM_KERNEL LAB_RESULTS=$results "$top/labs/exercises/$name/grade" \
		>"$log" 2>&1 || status=$?
	passed=$(jq -s 'map(select(.passed)) | length' "$results/$name/checks.jsonl" 2>/dev/null || echo -)
	total=$(jq -s 'length' "$results/$name/checks.jsonl" 2>/dev/null || echo 0)
	if [ "$variant" = skeleton ]; then
		ok "[ '$passed' = 0 ] && [ $total -gt 0 ] && [ $status = 1 ]" \
			"$name: the untouched skeleton scores 0/$total, status $status (log: $log)"
	else
		ok "[ '$passed' = $total ] && [ $total -gt 0 ] && [ $status = 0 ]" \
			"$name: the reference solution scores $passed/$total, status $status (log: $log)"
	fi
	[ "$variant" = skeleton ] || [ "$status" = 0 ] || tail -n 20 "$log" | sed 's/^/# /'
	ok "grep -qx '  score: $passed/$total self-checks passed' '$log'" "$name ($variant): the score line says $passed/$total"
	# grading apart from running: the facts alone give the same verdicts
	verdicts() { jq -c '[.check, .passed]' "$results/$name/checks.jsonl" 2>/dev/null; }
	local first
	first=$(verdicts)
	GRADE=1 LAB_RESULTS=$results "$top/labs/exercises/$name/grade" >"$log.grade" 2>&1
	if [ -n "$first" ] && [ "$(verdicts)" = "$first" ]; then
		pass "$name ($variant): GRADE=1 grades the run again, no boot, with the same verdicts"
	else
		fail "$name ($variant): GRADE=1 grades the run again, no boot, with the same verdicts" \
			"first: $first; again: $(verdicts)"
	fi
	CHECK_RESULTS=$results vm_check_console "$name"
}

for grader in "$top"/labs/exercises/*/grade; do
	name=$(basename "$(dirname "$grader")")
	skeleton=labs/exercises/$name/$name.c
	# a student's edits are not the skeleton: nothing to prove with them
	if ! git -C "$top" diff --quiet HEAD -- "$skeleton" 2>/dev/null; then
		skip "$name: the untouched skeleton scores 0" "$skeleton has local changes"
	elif [ "$(cat "$top/build/exercises/$name/source" 2>/dev/null)" != "$skeleton" ]; then
		fail "$name: the skeleton is built from $skeleton" \
			"build/exercises/$name/bin/$name was built from $(cat "$top/build/exercises/$name/source" 2>/dev/null)"
	else
		grade "$name" skeleton "$top/build/exercises/$name/bin/$name"
	fi
	grade "$name" solution "$top/build/exercises/$name/solution/bin/$name"
done
done_testing
