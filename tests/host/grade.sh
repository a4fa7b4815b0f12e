#!/bin/bash
# Grading apart from running: a lab grades the facts of a run (results.jsonl)
# without booting (GRADE=1, make grade-labN), a changed fact changes the
# verdict, and labs/grade adds the labs up into one score and grade.json.
# The run here is lab 1's, written by hand: what its guest script records.
set -u
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# write_lab1 WARM-READ-KIB: lab 1's facts for a 64 MiB file whose warm read
# read WARM-READ-KIB from the disk (0 when it came from the cache)
write_lab1() {
	mkdir -p "$tmp/lab1"
	cat >"$tmp/lab1/results.jsonl" <<-JSON
	{"name": "file-mib", "value": 64}
	{"name": "baseline", "value": {"cached_kib": 10000, "pgpgin_kib": 0, "seconds": 0}}
	{"name": "cold_read", "value": {"cached_kib": 76000, "pgpgin_kib": 65536, "seconds": 0.5}}
	{"name": "warm_read", "value": {"cached_kib": 76000, "pgpgin_kib": $1, "seconds": 0.1}}
	{"name": "drop_caches", "value": {"cached_kib": 10100, "pgpgin_kib": 0, "seconds": 0.2}}
	{"name": "partial-map", "value": "########........########........"}
	{"name": "partial-pcviz", "value": {"pages": 16384, "cached": 8704}}
	{"name": "run", "value": {"mem_mib": 256, "data_mib": 512, "seconds": 3, "fs": "ext4"}}
	JSON
}
# verdict CHECK: PASS or FAIL, as checks.jsonl has it
verdict() {
	jq -r --arg c "$1" 'select(.check == $c) | if .passed then "PASS" else "FAIL" end' "$tmp/lab1/checks.jsonl"
}

write_lab1 0
GRADE=1 LAB_RESULTS=$tmp "$top/labs/lab1/run" >"$tmp/out" 2>&1
is "$?" 0 "GRADE=1 labs/lab1/run grades a good run: status 0"
ok "grep -q 'grading the last run' '$tmp/out' && ! grep -q booting '$tmp/out'" "... without booting"
is "$(grep -c ' PASS$' "$tmp/out")" 6 "... six self-checks pass"
is "$(jq -s 'length' "$tmp/lab1/checks.jsonl")" 6 "... and are six lines of checks.jsonl"
is "$(verdict 'warm read is served from memory')" PASS "... the warm-read check among them"

LAB1_SIZE_MIB=128 MEM=1024 GRADE=1 LAB_RESULTS=$tmp "$top/labs/lab1/run" >"$tmp/out" 2>&1
is "$?" 0 "grading uses the run's sizes, not this shell's (LAB1_SIZE_MIB=128 MEM=1024 here)"

write_lab1 65536
GRADE=1 LAB_RESULTS=$tmp "$top/labs/lab1/run" >"$tmp/out" 2>&1
is "$?" 1 "a warm read that went to the disk: status 1"
is "$(verdict 'warm read is served from memory')" FAIL "... that check fails"
is "$(grep -c ' FAIL$' "$tmp/out")" 1 "... and no other"

rm "$tmp/lab1/results.jsonl"
GRADE=1 LAB_RESULTS=$tmp "$top/labs/lab1/run" >"$tmp/out" 2>&1
is "$?" 1 "nothing to grade: status 1"
ok "grep -q '(make lab1 runs it)' '$tmp/out'" "... and the message says what to run"

write_lab1 0
sed -i '/partial-pcviz/d' "$tmp/lab1/results.jsonl"
GRADE=1 LAB_RESULTS=$tmp "$top/labs/lab1/run" >"$tmp/out" 2>&1
is "$?" 1 "a run cut short (its last fact missing): status 1"
ok "grep -q 'the guest did not finish' '$tmp/out'" "... named as such"

write_lab1 0
LAB_RESULTS=$tmp "$top/labs/grade" >"$tmp/grade.out" 2>&1
is "$?" 1 "labs/grade with only lab 1 run: status 1"
n=$(($(find "$top/labs" -name run -path '*/lab*/run' | wc -l) + $(find "$top/labs/exercises" -name grade | wc -l) +
	$(find "$top/labs/kernel-exercises" -name '*.tests' | wc -l)))
is "$(jq '.labs | length' "$tmp/grade/grade.json")" "$n" "grade.json lists all $n labs, exercises and kernel exercises"
is "$(jq -r '"\(.passed)/\(.points)"' "$tmp/grade/grade.json")" 6/6 "... lab 1's 6 points of 6"
is "$(jq -r '.not_run | length' "$tmp/grade/grade.json")" $((n - 1)) "... the others not run"
ok "grep -q '^Score: 6/6 (not run: lab2' '$tmp/grade.out'" "the score line: Score: 6/6, and what was not run"
# Predictions: a student's answer is printed beside the measured value
write_lab1 0
mkdir -p "$tmp/predictions"
printf 'cold_read_cache_growth_mib: 63\nwarm_read_disk_mib:  7\n' >"$tmp/predictions/lab1.md"
GRADE=1 LAB_RESULTS=$tmp "$top/labs/lab1/run" >"$tmp/out" 2>&1
ok "grep -qE 'cold_read_cache_growth_mib +63 +64 MiB\$' '$tmp/out'" \
	"a prediction (63 MiB) is printed beside the measured value (64 MiB)"
ok "grep -qE 'warm_read_disk_mib +7 +0 MiB\$' '$tmp/out'" "... another (7 against 0)"
ok "grep -qE 'drop_caches_above_baseline_mib +- +0 MiB\$' '$tmp/out'" "... and an unanswered one as -"
ok "cmp -s '$tmp/predictions/lab1.md' '$tmp/lab1/predictions.md'" "the predictions are kept with the run"
# every question of every lab is answered by its run script
for q in "$top"/labs/lab*/predictions.txt; do
	lab=$(basename "$(dirname "$q")")
	run=$top/labs/$lab/run
	# a capstone graded as an exercise: the grader that names the handout
	[ -e "$run" ] || run=$(grep -l "^LAB_HANDOUT=$lab\$" "$top"/labs/exercises/*/grade | head -n 1)
	want=$(grep -v '^#' "$q" | cut -d'|' -f1 | grep . | sort)
	have=$(grep -oE '^(\[.*\] \|\| )?measured [a-z0-9_]+' "$run" | awk '{ print $NF }' | sort)
	is "$have" "$want" "$lab: each prediction question has a measured value ($(wc -l <<<"$want"))"
done

write_lab1 65536
LAB_RESULTS=$tmp "$top/labs/grade" >"$tmp/grade.out" 2>&1
is "$(jq -r '.labs[0] | "\(.passed)/\(.checks | length)"' "$tmp/grade/grade.json")" 5/6 \
	"a failed check costs its point"
done_testing
