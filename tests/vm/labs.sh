#!/bin/bash
# Every lab end to end in its quick mode (QUICK=1: data 2x RAM, 3-second
# timed runs) on the release kernel, as students run them: each self-check
# of each lab is a test, and so is each lab's kernel log.  The labs whose
# checks depend on the machine's speed run in labs-busy.sh instead, on a
# busy host and the debug kernel (slower still; and its checking runs
# under a lab's load there, as in the guest suites).
set -u
# shellcheck source=../lib/both/tap.sh
. "$(dirname "$0")/../lib/both/tap.sh"
# shellcheck source=../lib/host/vm.sh
. "$(dirname "$0")/../lib/host/vm.sh"
# shellcheck source=../lib/host/labs.sh
. "$(dirname "$0")/../lib/host/labs.sh"

lab_kernel=$VM_RELEASE_KERNEL
for run in "$top"/labs/lab*/run; do
	lab=$(basename "$(dirname "$run")")
	case " $speed_dependent_labs " in *" $lab "*) continue ;; esac
	lab_checks "$lab"
done

# Predict, then run, as a student does: lab 1 (the quickest) once more.
# Without predictions it writes the form and stops before it boots; with
# them it runs, keeps the earlier run, scores the predictions; compare
# sets the runs side by side.
root=$CHECK_RESULTS/labs/lab1
predictions=$root/predictions/lab1.md
first=$(md5sum <"$root/lab1/results.jsonl")
rm -f "$predictions"
status=0
PREDICT='' QUICK=1 LAB_KERNEL=$lab_kernel LAB_RESULTS=$root "$top/labs/lab1/run" >"$root.predict.out" 2>&1 || status=$?
ok "[ $status = 1 ] && grep -q 'predict first' '$root.predict.out' && ! grep -q booting '$root.predict.out'" \
	"lab1 without predictions stops before it boots: status $status (log: $root.predict.out)"
ok "[ ! -e '$root/lab1.runs' ] && [ \"\$(md5sum <'$root/lab1/results.jsonl')\" = '$first' ]" "... the last run untouched"
# the slots of lab 1's own run (not its variant runs')
keys=$(grep -v '^#' "$top/labs/lab1/predictions.txt" | grep . | grep -v '^[^|]*|[0-9]* ' | cut -d'|' -f1)
n=$(wc -w <<<"$keys")
blank=0
for k in $keys; do grep -q "^$k: *\$" "$predictions" || blank=1; done
ok "[ $n -gt 0 ] && [ $blank = 0 ]" "... and wrote the form, a blank slot for each of the run's $n numbers"
# every slot the measured value of the first run (data: printed, never
# part of a program), but the first 4242
measured=$("$top/labs/grading/evaluate" "$root/lab1" "$top/labs/lab1/checks.jq")
key=$(head -n 1 <<<"$keys")
while IFS= read -r line; do
	k=${line%%:*}
	if [ "$line" != "$k: " ] || ! grep -qx -- "$k" <<<"$keys"; then
		printf '%s\n' "$line"
	elif [ "$k" = "$key" ]; then
		printf '%s: 4242\n' "$k"
	else
		printf '%s: %s\n' "$k" "$(jq -r --arg k "$k" '.measured[$k] | if . == "-" then 1 else . end' <<<"$measured")"
	fi
done <"$predictions" >"$predictions.new"
mv "$predictions.new" "$predictions"
PREDICT='' QUICK=1 LAB_KERNEL=$lab_kernel LAB_RESULTS=$root "$top/labs/lab1/run" >"$root.again.out" 2>&1
is "$?" 0 "lab1 runs once the form is filled in (log: $root.again.out)"
kept=("$root"/lab1.runs/*)
is "${#kept[@]}" 1 "the first run is kept in lab1.runs/"
is "$(md5sum <"${kept[0]}/results.jsonl")" "$first" "... with its results unchanged"
ok "grep -qE '^  1 +$key +4242 .* outside\$' '$root.again.out'" \
	"the student's prediction is printed beside the measured value, scored"
ok "grep -qE '^  your predictions: [0-9]+ of [0-9]+ within band' '$root.again.out'" \
	"... counted apart from the self-checks"
ok "cmp -s '$predictions' '$root/lab1/predictions.md' && [ -s '$root/lab1/predictions.jsonl' ]" \
	"... and kept with the run, scored in predictions.jsonl"
LAB_RESULTS=$root "$top/labs/compare" lab1 >"$root.compare.out" 2>&1
ok "grep -q '^runs: .* | last\$' '$root.compare.out' && [ \$(grep -c '|' '$root.compare.out') -ge 7 ]" \
	"make lab1-compare sets both runs' checks side by side"
done_testing
