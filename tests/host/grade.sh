#!/bin/bash
# Grading apart from running: a lab grades the facts of a run (results.jsonl)
# without booting (GRADE=1, make grade-labN), a changed fact changes the
# verdict, and labs/grade adds the labs up into one score and grade.json.
# The run here is lab 1's, written by hand: what its guest script records.
# Grading trusts nothing the guest wrote: facts that are shell or awk code,
# removed, of the wrong type, lines that are not JSON, huge, with a NUL, a
# BOM or CRLF, injected keys, forged checks, links, FIFOs and directories
# where grading reads or writes: each gets a clear verdict and the right
# score, and no file outside the run is written.
set -u
# shellcheck source=../lib/host/preamble.sh
. "$(dirname "$0")/../lib/host/preamble.sh"
# shellcheck source=../lib/host/lab1-facts.sh
. "$(dirname "$0")/../lib/host/lab1-facts.sh"

# write_lab1 WARM-READ-KIB: lab 1's facts for a 64 MiB file whose warm read
# read WARM-READ-KIB from the disk (0 when it came from the cache)
write_lab1() {
	mkdir -p "$tmp/lab1"
	lab1_facts 64 "$1" >"$tmp/lab1/results.jsonl"
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

# a run on a tick-based clock: its times mean nothing, and it fails saying so
for clock in tsc jiffies; do
	write_lab1 0
	echo "{\"name\": \"clocksource\", \"value\": \"$clock\"}" >>"$tmp/lab1/results.jsonl"
	status=0
	GRADE=1 LAB_RESULTS=$tmp "$top/labs/lab1/run" >"$tmp/out.$clock" 2>&1 || status=$?
	echo "$status" >"$tmp/status.$clock"
done
is "$(cat "$tmp/status.tsc")" 0 "a run on the TSC clock grades as ever"
is "$(cat "$tmp/status.jiffies")" 1 "a run on the jiffies clock fails"
ok "grep -q \"the guest's clock was jiffies, which counts in 1-4 ms ticks\" '$tmp/out.jiffies'" \
	"... naming the clock and why"

write_lab1 0
LAB_RESULTS=$tmp "$top/labs/grade" >"$tmp/grade.out" 2>&1
is "$?" 1 "labs/grade with only lab 1 run: status 1"
n=$(($(find "$top/labs" -name run -path '*/lab*/run' | wc -l) + $(find "$top/labs/exercises" -name grade | wc -l) +
	$(find "$top/labs/kernel-exercises" -name '*.tests' | wc -l) + 1))
is "$(jq '.labs | length' "$tmp/grade/grade.json")" "$n" "grade.json lists all $n labs, exercises and kernel exercises (the testing one among them)"
is "$(jq -r '"\(.passed)/\(.points)"' "$tmp/grade/grade.json")" 6/6 "... lab 1's 6 points of 6"
is "$(jq -r '.not_run | length' "$tmp/grade/grade.json")" $((n - 1)) "... the others not run"
ok "grep -q '^Score: 6/6 (not run: lab2' '$tmp/grade.out'" "the score line: Score: 6/6, and what was not run"
# Predictions: the answers kept with the run (make labN copies the form
# there before it boots) are printed beside the measured values and scored
write_lab1 0
mkdir -p "$tmp/predictions"
printf 'cold_read_cache_growth_mib: 63\nwarm_read_disk_mib:  7\n' >"$tmp/lab1/predictions.md"
GRADE=1 LAB_RESULTS=$tmp "$top/labs/lab1/run" >"$tmp/out" 2>&1
ok "grep -qE '^  1 +cold_read_cache_growth_mib +63 +64 MiB +.* within\$' '$tmp/out'" \
	"a prediction (63 MiB) is printed beside the measured value (64 MiB), within its band"
ok "grep -qE '^  3 +warm_read_disk_mib +7 +0 MiB +.* outside\$' '$tmp/out'" "... another (7 against 0), outside"
ok "grep -qE '^  5 +drop_caches_above_baseline_mib +- +0 MiB +.* no number\$' '$tmp/out'" "... and an unanswered one as -"
ok "grep -qx '  your predictions: 1 of 2 within band (4 without a number; 4 not measured in this run)' '$tmp/out'" \
	"... and counted apart from the self-checks"
is "$(jq -sc 'map(select(.within != null) | [.key, .within])' "$tmp/lab1/predictions.jsonl")" \
	'[["cold_read_cache_growth_mib",true],["warm_read_disk_mib",false]]' "... and in predictions.jsonl"
printf 'cold_read_cache_growth_mib: 64\nwarm_read_disk_mib: 0\n' >"$tmp/predictions/lab1.md"
GRADE=1 LAB_RESULTS=$tmp "$top/labs/lab1/run" >"$tmp/out" 2>&1
ok "grep -qx '  your predictions: 1 of 2 within band (4 without a number; 4 not measured in this run)' '$tmp/out'" \
	"a form written after the run changes no score: grading again scores the one kept with the run"
rm "$tmp/lab1/predictions.md"
GRADE=1 LAB_RESULTS=$tmp "$top/labs/lab1/run" >"$tmp/out" 2>&1
ok "grep -q 'no predictions were kept with this run' '$tmp/out' && ! grep -q 'your predictions:' '$tmp/out'" \
	"a run without predictions scores none"
# every slot of every lab is answered by its table of checks
for q in "$top"/labs/lab*/predictions.txt; do
	lab=$(basename "$(dirname "$q")")
	table=$top/labs/$lab/checks.jq
	# a capstone graded as an exercise: the grader that names the handout
	[ -e "$table" ] ||
		table=$(dirname "$(grep -l "^LAB_HANDOUT=$lab\$" "$top"/labs/exercises/*/grade | head -n 1)")/checks.jq
	want=$(grep -v '^#' "$q" | cut -d'|' -f1 | grep . | sort)
	have=$("$top/labs/grading/evaluate" "$tmp/none" "$table" | jq -r '.measured | keys[]' | sort)
	is "$have" "$want" "$lab: each prediction slot has a measured value ($(wc -l <<<"$want"))"
	is "$("$top/labs/grading/evaluate" "$tmp/none" "$table" | jq -r '.predictions[] | select(.band_text == "") | .key')" "" \
		"... and a band"
done

# Grading reads what the guest wrote as data, whatever it wrote.
# grade_lab1: grade $tmp/lab1 again, at most 20 s; status, output, and the
# score printed, in $status, $tmp/out and $score
grade_lab1() {
	status=0
	GRADE=1 LAB_RESULTS=$tmp timeout 20 "$top/labs/lab1/run" >"$tmp/out" 2>&1 || status=$?
	score=$(sed -n 's/^  score: \([0-9]*\/[0-9]*\) self-checks passed$/\1/p' "$tmp/out")
}
# tampered DESCRIPTION STATUS SCORE [VERDICT-LINE-PATTERN]: the last
# grading ended with STATUS, printed SCORE, and a line matching the pattern
tampered() {
	if [ "$status" = "$2" ] && [ "$score" = "$3" ] && { [ -z "${4:-}" ] || grep -qE -- "$4" "$tmp/out"; }; then
		pass "$1: status $2, score $3${4:+, $(grep -m 1 -E -- "$4" "$tmp/out" | sed 's/^ *//')}"
	else
		fail "$1: status $2, score $3${4:+, a line matching $4}" "status $status, score '$score'; $(cat "$tmp/out")"
	fi
}

# The review's two reproducers (R2-1): a fact whose value is shell
# arithmetic running a command, another awk program text running one.
write_lab1 0
sed -i -e "s|\"value\": 64}|\"value\": \"BASH_VERSINFO[\$(touch $tmp/PWNED-arith)0]\"}|" \
	-e "s|\"cached\": 8704|\"cached\": \"1) \|\| system(\\\\\"touch $tmp/PWNED-awk\\\\\") \|\| (1\"|" \
	"$tmp/lab1/results.jsonl"
ok "grep -q PWNED-arith '$tmp/lab1/results.jsonl' && grep -q 'system(..touch' '$tmp/lab1/results.jsonl'" \
	"(the two payloads are in the facts)"
grade_lab1
ok "[ ! -e '$tmp/PWNED-arith' ]" "a fact that is bash arithmetic running a command runs nothing"
ok "[ ! -e '$tmp/PWNED-awk' ]" "a fact that is awk code running a command runs nothing"
tampered "... the checks that read them are INVALID, none skipped" 1 1/6 \
	'^  cold read fills the cache by the file size \.+ INVALID file-mib: string, not a number FAIL$'

write_lab1 0
sed -i '/"warm_read"/d' "$tmp/lab1/results.jsonl"
grade_lab1
tampered "a fact removed: its check is MISSING, the others grade" 1 5/6 \
	'^  warm read is served from memory \.+ MISSING warm_read pgpgin_kib FAIL$'
ok "[ \"\$(jq -r 'select(.verdict == \"MISSING\") | .fact' '$tmp/lab1/checks.jsonl')\" = 'warm_read pgpgin_kib' ]" \
	"... checks.jsonl names the missing fact"
write_lab1 65536
sed -i '/"cold_read"/d' "$tmp/lab1/results.jsonl"
grade_lab1
tampered "a failing run's fact removed: no pass gained" 1 3/6 'cold read comes from the disk .* MISSING cold_read'
for bad in null '"lots"' true '{"a": 1}' '[1]' 1e999; do
	write_lab1 0
	sed -i "s/\"pgpgin_kib\": 0, \"seconds\": 0.1/\"pgpgin_kib\": $bad, \"seconds\": 0.1/" "$tmp/lab1/results.jsonl"
	grade_lab1
	tampered "the warm read's disk KiB $bad" 1 5/6 \
		'^  warm read is served from memory \.+ INVALID warm_read pgpgin_kib: .* FAIL$'
done
write_lab1 0
sed -i 's/"pgpgin_kib": 0, "seconds": 0.1/"pgpgin_kib": 99999999999999999999999, "seconds": 0.1/' \
	"$tmp/lab1/results.jsonl"
grade_lab1
tampered "a number too large for the shell: compared as one, and fails" 1 5/6 \
	'warm read is served from memory \.+ 97656250000000000000 <= 0.64 FAIL$'
write_lab1 0
sed -i 's/"name": "warm_read", "value": {/"name": "warm_read", "value": {{/' "$tmp/lab1/results.jsonl"
grade_lab1
tampered "a line that is not JSON: the file and line named, its checks MISSING" 1 5/6 \
	'results.jsonl line 4: not JSON'
write_lab1 0
{ printf '{"name": "junk", "value": "'; head -c 3000000 /dev/zero | tr '\0' x; printf '"}\n'; } \
	>>"$tmp/lab1/results.jsonl"
grade_lab1
tampered "a 3 MB line: graded all the same" 0 6/6
write_lab1 0
sed -i 's/"name": "warm_read",/"name": "warm_read",\x00/' "$tmp/lab1/results.jsonl"
grade_lab1
tampered "a NUL in a line: that line is no fact, the others grade" 1 5/6 'results.jsonl line 4: not JSON'
write_lab1 0
sed -i '1s/^/\xef\xbb\xbf/' "$tmp/lab1/results.jsonl"
grade_lab1
tampered "a byte-order mark before the first fact" 0 6/6
write_lab1 0
sed -i 's/$/\r/' "$tmp/lab1/results.jsonl"
grade_lab1
tampered "CRLF line ends" 0 6/6
write_lab1 65536
sed -i 's/"name": "cold_read", /"name": "cold_read", "passed": true, "check": "x", /' "$tmp/lab1/results.jsonl"
printf '{"check": "forged", "value": "", "passed": true}\n%.0s' 1 2 3 >"$tmp/lab1/checks.jsonl"
echo '{"name": "warm_read", "value": {"pgpgin_kib": 0}}' >"$tmp/lab1/host.jsonl"
grade_lab1
tampered "injected keys, forged checks.jsonl and host.jsonl from the guest: the failing check still fails" 1 5/6
is "$(jq -s 'map(select(.check == "forged")) | length' "$tmp/lab1/checks.jsonl")" 0 "... the forged checks are gone"
for kind in fifo directory; do
	write_lab1 0
	rm "$tmp/lab1/results.jsonl"
	if [ "$kind" = fifo ]; then mkfifo "$tmp/lab1/results.jsonl"; else mkdir "$tmp/lab1/results.jsonl"; fi
	grade_lab1
	tampered "a $kind in place of results.jsonl: not read, nothing passes, no hang" 1 0/6 \
		'results.jsonl: not a regular file'
	rm -rf "$tmp/lab1/results.jsonl"
done

# R2-2: links the guest planted where the host writes, and a FIFO: the
# host replaces them, and never writes through them.
write_lab1 0
for f in checks.jsonl host.jsonl predictions.jsonl predictions.md; do
	echo precious >"$tmp/victim-$f"
	ln -sf "$tmp/victim-$f" "$tmp/lab1/$f"
done
grade_lab1
tampered "links planted in the results" 0 6/6 'predictions.md: not a regular file'
ok "grep -q 'no predictions were kept with this run' '$tmp/out'" "... a link named predictions.md is not read"
rm "$tmp/lab1/predictions.md"
for f in checks.jsonl host.jsonl predictions.jsonl; do
	ok "[ \"\$(cat '$tmp/victim-$f')\" = precious ] && [ -f '$tmp/lab1/$f' ] && [ ! -L '$tmp/lab1/$f' ]" \
		"... the file $f pointed at is untouched, and $f is the host's"
done
rm "$tmp/lab1/checks.jsonl"
mkfifo "$tmp/lab1/checks.jsonl"
grade_lab1
tampered "a FIFO named checks.jsonl: replaced, no hang" 0 6/6
rm -f "$tmp/lab1/checks.jsonl"
mkdir "$tmp/lab1/checks.jsonl"
grade_lab1
ok "[ $status != 0 ] && [ $status != 124 ] && grep -q 'could not write .*checks.jsonl' '$tmp/out'" \
	"a directory named checks.jsonl: refused, not written into (status $status)"
rm -rf "$tmp/lab1/checks.jsonl"

# The report's writers (after a boot): a summed log and a plot, each where
# the guest left a link to a host file.
mkdir -p "$tmp/report/lab2"
printf 'seconds,mb_s,cached_kib\n1,10,100\n2,20,200\n' >"$tmp/report/lab2/cliff-buffered.1.csv"
cp "$tmp/report/lab2/cliff-buffered.1.csv" "$tmp/report/lab2/cliff-buffered.2.csv"
for f in cliff-buffered.sum.csv page-cache.png; do
	echo precious >"$tmp/victim-$f"
	ln -s "$tmp/victim-$f" "$tmp/report/lab2/$f"
done
# shellcheck disable=SC2016 # the script's own variables
LAB=lab2 LAB_RESULTS=$tmp/report bash -c '. "$1/labs/lib/host.sh" && sum_csv "$out/cliff-buffered" &&
	lab_plot page-cache.png "a plot" MiB "(column(\"cached_kib\")/1024)" cliff-buffered.1' _ "$top" >"$tmp/out" 2>&1
is "$(sed -n 2p "$tmp/report/lab2/cliff-buffered.sum.csv")" 1,20,100 "sum_csv adds the streams up"
for f in cliff-buffered.sum.csv page-cache.png; do
	ok "[ \"\$(cat '$tmp/victim-$f')\" = precious ] && [ -s '$tmp/report/lab2/$f' ] && [ ! -L '$tmp/report/lab2/$f' ]" \
		"the report replaces a link named $f, and leaves the file it named untouched"
done

# An exercise grades the same way: the review's ucat run whose program
# crashed (R2-3) scored "exit status 0" as passed.
# write_ucat EXT4-STATUS: a good ucat run's facts, ext4's status given
write_ucat() {
	mkdir -p "$tmp/ucat"
	{
		for fs in ext4 xfs tmpfs; do
			cached=0 dropped=4101 fallbacks=0
			[ "$fs" != tmpfs ] || cached=4101 dropped=0 fallbacks=1
			status=0
			[ "$fs" != ext4 ] || status=$1
			printf '{"name": "%s", "value": {"status": %s, "sha256_ok": true, "pages": 4101, "cached_before": %s,' \
				"$fs" "$status" "$cached"
			printf ' "cached_after": %s, "dropbehind_read": %s, "fallbacks": %s, "reported_before": %s,' \
				"$cached" "$dropped" "$fallbacks" "$cached"
			printf ' "reported_after": %s, "stderr": ""}}\n' "$cached"
		done
		echo '{"name": "finished", "value": true}'
	} >"$tmp/ucat/results.jsonl"
}
write_ucat 0
GRADE=1 LAB_RESULTS=$tmp "$top/labs/exercises/ucat/grade" >"$tmp/out" 2>&1
is "$?" 0 "GRADE=1 grades a good ucat run: status 0"
is "$(jq -s 'map(select(.passed)) | length' "$tmp/ucat/checks.jsonl")" 7 "... its 7 checks pass"
write_ucat '"segfault"'
GRADE=1 LAB_RESULTS=$tmp "$top/labs/exercises/ucat/grade" >"$tmp/out" 2>&1
is "$?" 1 "an exit status \"segfault\" fails the ucat grade"
ok "grep -qE '^  ext4: ucat prints the file, exit status 0 \.+ INVALID ext4 status: string, not a number FAIL$' '$tmp/out'" \
	"... its check is INVALID, naming the fact"
is "$(jq -s 'map(select(.passed)) | length' "$tmp/ucat/checks.jsonl")" 6 "... and the other 6 pass"

write_lab1 65536
LAB_RESULTS=$tmp "$top/labs/grade" >"$tmp/grade.out" 2>&1
is "$(jq -r '.labs[0] | "\(.passed)/\(.checks | length)"' "$tmp/grade/grade.json")" 5/6 \
	"a failed check costs its point"
# whose work each point measures: ucat's run (6 of 7) is the student's, lab 1's
# self-checks (5 of 6) are the run's
ok "grep -q '^  Your work: 6/7 (the exercises and the kernel track' '$tmp/grade.out'" \
	"make grade says the student's own work apart: ucat's 6/7"
ok "grep -q '^  The labs ran: 5/6 (' '$tmp/grade.out'" "... and the labs' self-checks apart: lab 1's 5/6"
is "$(jq -c '[.your_work, .labs_ran]' "$tmp/grade/grade.json")" \
	'[{"passed":6,"points":7},{"passed":5,"points":6}]' "... and so does grade.json"
# the predictions kept with the run: counted apart, never in the score
score=$(grep '^Score:' "$tmp/grade.out")
printf 'cold_read_cache_growth_mib: 64\nwarm_read_disk_mib: 30\n' >"$tmp/lab1/predictions.md"
LAB_RESULTS=$tmp "$top/labs/grade" >"$tmp/grade.out" 2>&1
ok "grep -qx 'Predictions: 1 of 2 within band (apart from the score)' '$tmp/grade.out'" \
	"make grade counts the predictions kept with the runs apart: 1 of 2 within band"
is "$(grep '^Score:' "$tmp/grade.out")" "$score" "... the score as without them"
is "$(jq -c '[.predictions, .labs[0].predictions]' "$tmp/grade/grade.json")" \
	'[{"within":1,"scored":2},{"within":1,"scored":2}]' "... and so does grade.json"

# The testing exercise: graded by the bugs the tests catch, from the boots'
# facts (no boot here).  write_selftest SERIES MUTANT...: the tests' fact
# on the series' kernel and on each mutant, in the patches' order ("-" for
# a boot that left nothing).
mutant_names=$(find "$top/labs/kernel-exercises" -maxdepth 1 -name '*.patch' -printf '%f\n' | sed 's/\.patch$//' | sort)
write_selftest() {
	local dir=$tmp/selftest/boots name
	rm -rf "$tmp/selftest"
	mkdir -p "$dir/series"
	echo "{\"name\": \"selftest\", \"value\": $1}" >"$dir/series/results.jsonl"
	shift
	for name in $mutant_names; do
		mkdir -p "$dir/mutant-$name"
		[ "$1" = - ] || echo "{\"name\": \"selftest\", \"value\": $1}" >"$dir/mutant-$name/results.jsonl"
		shift
	done
}
selftest_score() {
	GRADE=1 LAB_RESULTS=$tmp "$top/labs/kernel-exercises/selftest/grade" >"$tmp/out" 2>&1
	jq -s '"\(map(select(.passed)) | length)/\(length)"' -r "$tmp/selftest/checks.jsonl"
}
nmut=$(echo "$mutant_names" | wc -l)
# mutants VALUE: VALUE once for each mutant
mutants() {
	local i
	for ((i = 0; i < nmut; i++)); do printf '%s\n' "$1"; done
}
caught='{"status": 1, "tests": 6}'
# the second mutant crashes
mapfile -t facts < <(mutants "$caught")
facts[1]='{"status": "crashed", "tests": 0}'
write_selftest '{"status": 0, "tests": 6}' "${facts[@]}"
is "$(selftest_score)" "$nmut/$nmut" "selftest: tests passing on the series and failing (or crashing) on every mutant score full"
mapfile -t facts < <(mutants '{"status": 0, "tests": 2}')
write_selftest '{"status": 0, "tests": 2}' "${facts[@]}"
is "$(selftest_score)" "0/$nmut" "selftest: tests that pass everywhere (the skeleton's) score zero"
mapfile -t facts < <(mutants "$caught")
write_selftest "$caught" "${facts[@]}"
is "$(selftest_score)" "0/$nmut" "selftest: tests that fail on the series score zero, whatever they do on the mutants"
mapfile -t facts < <(mutants '{"status": 1, "tests": 0}')
write_selftest '{"status": 0, "tests": 0}' "${facts[@]}"
is "$(selftest_score)" "0/$nmut" "selftest: a program that runs no test scores zero"
mapfile -t facts < <(mutants "$caught")
facts[1]=-
write_selftest '{"status": 0, "tests": 6}' "${facts[@]}"
is "$(selftest_score)" "$((nmut - 1))/$nmut" "selftest: a mutant whose boot left nothing is not counted caught"
done_testing
