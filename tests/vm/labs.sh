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

# Every run is kept, the predictions carry over, and compare sets the runs
# side by side: lab 1 (the quickest) once more, a prediction written first.
root=$CHECK_RESULTS/labs/lab1
predictions=$root/predictions/lab1.md
key=$(grep -v '^#' "$top/labs/lab1/predictions.txt" | grep . | head -n 1 | cut -d'|' -f1)
ok "[ -n '$key' ] && grep -q '^$key: *\$' '$predictions'" "the first run of lab1 wrote the predictions template ($key)"
sed -i "s/^$key:.*/$key: 4242/" "$predictions"
first=$(md5sum <"$root/lab1/results.jsonl")
QUICK=1 LAB_KERNEL=$VM_KERNEL LAB_RESULTS=$root "$top/labs/lab1/run" >"$root.again.out" 2>&1
is "$?" 0 "lab1 runs again (log: $root.again.out)"
kept=("$root"/lab1.runs/*)
is "${#kept[@]}" 1 "the first run is kept in lab1.runs/"
is "$(md5sum <"${kept[0]}/results.jsonl")" "$first" "... with its results unchanged"
ok "grep -q ' 4242 ' '$root.again.out'" "the student's prediction is printed beside the measured value"
ok "[ -r '$root/lab1/predictions.md' ]" "... and kept with the run"
LAB_RESULTS=$root "$top/labs/compare" lab1 >"$root.compare.out" 2>&1
ok "grep -q '^runs: .* | last\$' '$root.compare.out' && [ \$(grep -c '|' '$root.compare.out') -ge 7 ]" \
	"make lab1-compare sets both runs' checks side by side"
done_testing
