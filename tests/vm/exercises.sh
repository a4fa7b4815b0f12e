#!/bin/bash
# Every graded exercise's grader can fail and can pass.  Each
# labs/exercises/NAME/grade grades the untouched skeleton (it must score 0
# on every check) and the reference solution (full marks), on the release
# kernel the students boot, QUICK=1 (the sizes a grader has for make
# check, if any); make check builds both binaries (EXERCISE_BINS in the
# Makefile).
# Each kernel exercise (labs/kernel-exercises/NAME.patch) is built as
# make kernel EXERCISE=NAME builds it, in one tree for all of them, and
# graded QUICK=1: its bug must score 0, the series itself (the debug
# kernel: the fix) full marks.  For every grading, the score line,
# checks.jsonl and a second grading without a boot (GRADE=1) must agree.
# The testing exercise (labs/kernel-exercises/selftest) is graded on those
# bugs' kernels: the reference tests catch all, the skeleton's none.
set -u
# shellcheck source=../lib/both/tap.sh
. "$(dirname "$0")/../lib/both/tap.sh"
# shellcheck source=../lib/host/vm.sh
. "$(dirname "$0")/../lib/host/vm.sh"

# grade NAME VARIANT GRADER...: one run of the command GRADER..., whose
# results are NAME's, as TAP tests.  The VARIANT solution must score full
# marks, any other (skeleton, bug) 0.
grade() {
	local name=$1 variant=$2 results=$CHECK_RESULTS/exercises/$2 log status passed total
	shift 2
	log=$CHECK_RESULTS/exercises/$name-$variant.out
	mkdir -p "$results"
	status=0
	# no predictions (lab 7's, for backup): make check is no student
	PREDICT=skip LAB_KERNEL=$VM_KERNEL LAB_RESULTS=$results "$@" >"$log" 2>&1 || status=$?
	passed=$(jq -s 'map(select(.passed)) | length' "$results/$name/checks.jsonl" 2>/dev/null || echo -)
	total=$(jq -s 'length' "$results/$name/checks.jsonl" 2>/dev/null || echo 0)
	if [ "$variant" != solution ]; then
		ok "[ '$passed' = 0 ] && [ $total -gt 0 ] && [ $status = 1 ]" \
			"$name: the $variant scores 0/$total, status $status (log: $log)"
	else
		ok "[ '$passed' = $total ] && [ $total -gt 0 ] && [ $status = 0 ]" \
			"$name: the solution scores $passed/$total, status $status (log: $log)"
	fi
	[ "$variant" != solution ] || [ "$status" = 0 ] || tail -n 20 "$log" | sed 's/^/# /'
	ok "grep -qx '  score: $passed/$total self-checks passed' '$log'" "$name ($variant): the score line says $passed/$total"
	# grading apart from running: the facts alone give the same verdicts
	verdicts() { jq -c '[.check, .passed]' "$results/$name/checks.jsonl" 2>/dev/null; }
	local first
	first=$(verdicts)
	GRADE=1 LAB_RESULTS=$results "$@" >"$log.grade" 2>&1
	if [ -n "$first" ] && [ "$(verdicts)" = "$first" ]; then
		pass "$name ($variant): GRADE=1 grades the run again, no boot, with the same verdicts"
	else
		fail "$name ($variant): GRADE=1 grades the run again, no boot, with the same verdicts" \
			"first: $first; again: $(verdicts)"
	fi
	# a planted bug may well oops: that is what the student is to find;
	# the testing exercise boots each of them, and the series once
	if [ "$name" = selftest ]; then
		CHECK_RESULTS=$results/selftest/boots vm_check_console series
	elif [ "$variant" != bug ]; then
		CHECK_RESULTS=$results vm_check_console "$name"
	fi
}

# exercise NAME VARIANT BINARY: the program exercise NAME graded with BINARY
exercise() {
	if [ ! -x "$3" ]; then
		fail "$1: the $2 is built" "$3 is missing (make check builds it)"
		return
	fi
	grade "$1" "$2" env QUICK=1 LAB_KERNEL="$VM_RELEASE_KERNEL" EXERCISE_BIN="$3" "$top/labs/exercises/$1/grade"
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
		exercise "$name" skeleton "$top/build/exercises/$name/bin/$name"
	fi
	exercise "$name" solution "$top/build/exercises/$name/solution/bin/$name"
done

# The kernel exercises share one tree, reset in place for each: kbuild then
# rebuilds only what the bugs touch.
kex_top=build/kernel-exercise/check
mkdir -p "$CHECK_RESULTS/exercises"
mutants=""
for patch in "$top"/labs/kernel-exercises/*.patch; do
	name=$(basename "$patch" .patch)
	log=$CHECK_RESULTS/exercises/kernel-$name-build.out
	if { make -C "$top" -s kernel-reset EXERCISE="$name" KEX_TOP="$kex_top" &&
		make -C "$top" -s kernel-exercise EXERCISE="$name" KEX_TOP="$kex_top"; } >"$log" 2>&1; then
		pass "kernel exercise $name: make kernel EXERCISE=$name builds the kernel with the bug"
		# kept for the testing exercise below: the tree is reset for the next bug
		cp "$top/$kex_top/build/kernel/debug/arch/x86/boot/bzImage" "$CHECK_RESULTS/exercises/mutant-$name.bzImage"
		mutants="$mutants $name=$CHECK_RESULTS/exercises/mutant-$name.bzImage"
		grade "kernel-$name" bug env QUICK=1 EXERCISE_KERNEL="$top/$kex_top/build/kernel/debug/arch/x86/boot/bzImage" \
			"$top/labs/kernel-exercises/grade" "$name"
	else
		fail "kernel exercise $name: make kernel EXERCISE=$name builds the kernel with the bug" \
			"$(tail -n 5 "$log")"
	fi
	grade "kernel-$name" solution env QUICK=1 EXERCISE_KERNEL="$VM_KERNEL" "$top/labs/kernel-exercises/grade" "$name"
done

# The testing exercise, graded by mutation on the bugs' kernels built above:
# the reference tests catch every bug, the skeleton's catch none.
for variant in solution skeleton; do
	if [ -z "$mutants" ]; then
		fail "selftest: the $variant is graded" "no kernel with a bug was built above"
		continue
	fi
	bin=$top/build/exercises/selftest/bin/selftest
	[ "$variant" = skeleton ] || bin=$top/build/exercises/selftest/solution/bin/selftest
	grade selftest "$variant" env MUTANT_KERNELS="$mutants" EXERCISE_BIN="$bin" SERIES_KERNEL="$VM_KERNEL" \
		"$top/labs/kernel-exercises/selftest/grade"
done
done_testing
