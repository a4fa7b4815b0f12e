#!/bin/bash
# Predict, then run: every number a handout's "predict" section asks for
# has a slot in its form (labs/labN/predictions.txt); with no predictions
# a lab writes the form and stops before it boots (PREDICT=skip boots
# anyway); the predictions kept with a run are scored in the bands of the
# lab's table, apart from the self-checks, as data; make handin bundles
# the student's work with a manifest and refuses when there is none.
# Nothing here boots: the boots are tests/vm/labs.sh's.
set -u
# shellcheck source=../lib/host/preamble.sh
. "$(dirname "$0")/../lib/host/preamble.sh"
# shellcheck source=../lib/host/lab1-facts.sh
. "$(dirname "$0")/../lib/host/lab1-facts.sh"

# --- every number a handout asks for has a slot ----------------------------

# handout_units HANDOUT: "Q UNIT" for each number the handout's section of
# predictions asks for, in order: the units in parentheses after its
# numbered questions ("(pages, pages)" asks for two)
handout_units() {
	awk '
		/^## / { inside = ($0 ~ /predict$/); q = ""; next }
		!inside { next }
		/^[0-9]+\. / { q = $1; sub(/\.$/, "", q) }
		/^[^ 0-9]/ { q = "" }
		q == "" { next }
		{
			line = $0
			while (match(line, /\((MiB|KiB|%|MB\/s|pages|count|x|yes\/no)(, (MiB|KiB|%|MB\/s|pages|count|x|yes\/no))*\)/)) {
				n = split(substr(line, RSTART + 1, RLENGTH - 2), units, ", ")
				for (i = 1; i <= n; i++) print q, units[i]
				line = substr(line, RSTART + RLENGTH)
			}
		}' "$1"
}
# slot_units PREDICTIONS: "Q UNIT" for each slot of a predictions.txt
slot_units() {
	grep -v '^#' "$1" | grep . | awk -F'|' '{ split($2, q, " "); print q[1], $4 }'
}
# slots_match HANDOUT PREDICTIONS: status 0 if each number the handout asks
# for has a slot, in order and in its unit; else the difference
slots_match() {
	diff <(handout_units "$1") <(slot_units "$2") | grep '^[<>]' | sed 's/^</  handout, no slot:/; s/^>/  slot, not in the handout:/'
	[ "${PIPESTATUS[0]}" = 0 ]
}

# the check itself fails on a handout that asks for a number with no slot
mkdir -p "$tmp/fixture"
cat >"$tmp/fixture/README.md" <<'EOF'
## Before you run it: predict

1. How many MiB? (MiB) And how many pages will be
   left? (pages) Why?
2. Both counts? (count, count)

## Expected results
3. Not a question here (MiB)
EOF
printf 'a|1|How many MiB?|MiB\nb|2|Both?|count\nc|2|counts?|count\n' >"$tmp/fixture/predictions.txt"
out=$(slots_match "$tmp/fixture/README.md" "$tmp/fixture/predictions.txt")
is "$?:$out" "1:  handout, no slot: 1 pages" "a handout's number with no slot in the form is found (a fixture)"
printf 'a|1|How many MiB?|MiB\nd|1|How many pages?|pages\nb|2|Both?|count\nc|2|counts?|count\n' \
	>"$tmp/fixture/predictions.txt"
out=$(slots_match "$tmp/fixture/README.md" "$tmp/fixture/predictions.txt")
is "$?:$out" "0:" "... and once it has one, none"
for q in "$top"/labs/lab*/predictions.txt; do
	lab=$(basename "$(dirname "$q")")
	n=$(handout_units "$top/labs/$lab/README.md" | wc -l)
	if out=$(slots_match "$top/labs/$lab/README.md" "$q") && [ "$n" -gt 0 ]; then
		pass "$lab: each of the $n numbers the handout's questions ask for has a slot in its form"
	else
		fail "$lab: each number the handout's questions ask for has a slot in its form" "$out"
	fi
done
# a handout with questions to predict has a form
for handout in "$top"/labs/lab*/README.md; do
	lab=$(basename "$(dirname "$handout")")
	[ -z "$(handout_units "$handout")" ] || ok "[ -r '$top/labs/$lab/predictions.txt' ]" "$lab: its questions have a form"
done

# --- no boot before the predictions ----------------------------------------

# lab1 [VAR=VALUE...]: labs/lab1/run in $tmp/r with no kernel to boot, its
# status in $status and output in $tmp/out
lab1() {
	status=0
	env -u PREDICT "$@" LAB_RESULTS="$tmp/r" LAB_KERNEL="$tmp/no-kernel" "$top/labs/lab1/run" >"$tmp/out" 2>&1 ||
		status=$?
}
form=$tmp/r/predictions/lab1.md
lab1
ok "[ $status = 1 ] && grep -q 'predict first' '$tmp/out' && ! grep -q booting '$tmp/out'" \
	"lab1 with no predictions: status $status, no boot"
ok "[ ! -e '$tmp/r/lab1' ]" "... no run directory"
ok "grep -q '$form' '$tmp/out' && grep -q 'labs/lab1/README.md, \"Before you run it: predict\"' '$tmp/out'" \
	"... it names the form and the handout's section"
keys=$(grep -v '^#' "$top/labs/lab1/predictions.txt" | grep . | grep -v '^[^|]*|[0-9]* ' | cut -d'|' -f1)
n=$(wc -w <<<"$keys")
named=0 blank=0
for k in $keys; do
	grep -qE "^  question [0-9]+, $k " "$tmp/out" && named=$((named + 1))
	grep -qx "$k: " "$form" && blank=$((blank + 1))
done
is "$named $blank" "$n $n" "... and each of the run's $n slots, blank in the form it wrote"
is "$(grep -c '^why: $' "$form")" "$(grep -v '^#' "$top/labs/lab1/predictions.txt" | grep . | cut -d'|' -f2 |
	cut -d' ' -f1 | sort -u | wc -l)" "... with a why under each question"
ok "! grep -qE '^  question [0-9]+, big_' '$tmp/out'" "... not the variant runs' slots"
lab1
ok "[ $status = 1 ] && ! grep -q booting '$tmp/out'" "run again with the form untouched: still no boot"
# all slots but one, that one shell code
for k in $keys; do sed -i "s/^$k: $/$k: 12 MiB/" "$form"; done
first=$(head -n 1 <<<"$keys")
sed -i "s|^$first: .*|$first: \$(touch $tmp/PWNED) \`touch $tmp/PWNED\`|" "$form"
lab1
ok "[ $status = 1 ] && grep -qE '^  question 1, $first \(MiB\), not a number' '$tmp/out' && ! grep -q booting '$tmp/out'" \
	"an answer that is no number: no boot, the slot named"
ok "[ ! -e '$tmp/PWNED' ]" "... and the answer, shell code, ran nothing"
is "$(grep -c '^  question' "$tmp/out")" 1 "... the only slot named"
sed -i "s|^$first: .*|$first: ~64|" "$form"
lab1
ok "[ $status != 0 ] && [ $status != 1 ] && grep -q booting '$tmp/out' && grep -q 'no-kernel' '$tmp/out'" \
	"every slot of the run a number: it boots (here: no kernel, status $status)"
lab1 LAB1_SIZE_MIB=200
ok "[ $status = 1 ] && grep -qE '^  question 7, big_file_cold_read_cache_growth_mib ' '$tmp/out' &&
	! grep -qE '^  question 8' '$tmp/out' && ! grep -q booting '$tmp/out'" \
	"a variant run (LAB1_SIZE_MIB=200) waits for its own slots, question 7's"
lab1 LAB1_SIZE_MIB=200 MEM=512
ok "[ $status = 1 ] && grep -qE '^  question 8, big_mem_cold_read_cache_growth_mib ' '$tmp/out'" \
	"... and with MEM=512 for question 8's"
rm -rf "$tmp/r"
lab1 PREDICT=skip
ok "[ $status != 0 ] && [ $status != 1 ] && grep -q booting '$tmp/out' && [ ! -e '$form' ]" \
	"PREDICT=skip boots without predictions (status $status: no kernel here), and writes no form"
lab1 PREDICT=skip LAB_DATA_MIB=999999999
ok "[ $status = 2 ] && grep -q 'needs up to 1999999998 MiB on the host.s disk, which has [0-9]* MiB free' '$tmp/out' &&
	grep -q 'set LAB_DATA_MIB lower' '$tmp/out' && ! grep -q booting '$tmp/out'" \
	"a data set the host's disk cannot hold is refused before the boot, naming LAB_DATA_MIB: status $status"
lab1 PREDICT=yes
ok "[ $status = 2 ] && grep -q 'PREDICT takes one value, skip' '$tmp/out'" "PREDICT=yes is refused: status $status"
# lab 7, graded as the exercise backup, waits the same way
status=0
PREDICT='' EXERCISE_BIN=/bin/true LAB_RESULTS=$tmp/r LAB_KERNEL=$tmp/no-kernel "$top/labs/exercises/backup/grade" \
	>"$tmp/out" 2>&1 || status=$?
ok "[ $status = 1 ] && grep -q 'predict first' '$tmp/out' && grep -q 'Then make grade-backup again' '$tmp/out' &&
	[ -s '$tmp/r/predictions/lab7.md' ] && ! grep -q booting '$tmp/out'" \
	"make grade-backup (lab 7) with no predictions: the form, no boot"

# --- predictions scored, apart --------------------------------------------

# a lab 1 run (tests/host/grade.sh's), file-mib MiB, with the predictions
# PREDICTIONS kept with it; graded again into $tmp/out and $scored (KEY
# within, a line each)
grade_lab1() {
	rm -rf "$tmp/g"
	mkdir -p "$tmp/g/lab1"
	lab1_facts "$1" >"$tmp/g/lab1/results.jsonl"
	printf '%s\n' "$2" >"$tmp/g/lab1/predictions.md"
	status=0
	GRADE=1 LAB_RESULTS=$tmp/g "$top/labs/lab1/run" >"$tmp/out" 2>&1 || status=$?
	scored=$(jq -r 'select(.within != null) | "\(.key) \(.within)"' "$tmp/g/lab1/predictions.jsonl")
}
# measured: cold read 64 MiB (band ±4 or ±10%: 57.6 to 70.4), warm read
# 0 MiB (±1), speedup 5x (x/2: 2.5 to 10)
grade_lab1 64 'cold_read_cache_growth_mib: 70.4
cold_read_disk_mib: 57.5
warm_read_disk_mib: 1
warm_read_speedup_x: 2.5 times
drop_caches_above_baseline_mib: 2.01
half_read_cached_pages: 10'
is "$scored" "cold_read_cache_growth_mib true
cold_read_disk_mib false
warm_read_disk_mib true
warm_read_speedup_x true
drop_caches_above_baseline_mib false
half_read_cached_pages false" "each prediction scored in its band, the edges within, just past them outside"
ok "[ $status = 0 ] && grep -qx '  score: 6/6 self-checks passed' '$tmp/out'" \
	"... predictions missed fail nothing: status $status, the self-checks' score alone"
ok "grep -qx '  your predictions: 3 of 6 within band (4 not measured in this run)' '$tmp/out'" \
	"... reported apart: your predictions: 3 of 6 within band"
ok "grep -qE '^  4 +warm_read_speedup_x +2.5 times +5 x +x/2 +within\$' '$tmp/out'" \
	"... each beside the measured value, its band and verdict"
# shellcheck disable=SC2016 # shell code as the student's answers: data
grade_lab1 64 'warm_read_speedup_x: 10
cold_read_cache_growth_mib: $(touch '"$tmp"'/PWNED) 64
cold_read_disk_mib: 64 BASH_VERSINFO[$(touch '"$tmp"'/PWNED)0]
warm_read_disk_mib: 0
warm_read_disk_mib: 1000'
is "$scored" "cold_read_disk_mib true
warm_read_disk_mib true
warm_read_speedup_x true" "x10 within x/2; shell code no number; the first line of a slot counts"
ok "[ ! -e '$tmp/PWNED' ]" "... and the code ran nothing"
grade_lab1 200 'cold_read_cache_growth_mib: 64
big_file_cold_read_cache_growth_mib: 60
big_file_warm_read_disk_mib: 0'
is "$scored" "big_file_cold_read_cache_growth_mib true
big_file_warm_read_disk_mib true" "a variant run (200 MiB) scores its own slots, not the default run's"

# the written answers' file, after a run: a heading for each question
# after the run, the question quoted; never written over
LAB=lab3 LAB_RESULTS=$tmp/a bash -c '. "$1/labs/lib/host.sh" && answers_template' _ "$top" >"$tmp/out" 2>&1
want=$(sed -n '/^## Questions after the run/,/^## /p' "$top/labs/lab3/README.md" | grep -oE '^[0-9]+\.' | tr -d . |
	sed 's/^/## Question /')
ok "[ -n '$want' ] && grep -q 'your answers to the questions after the run: $tmp/a/answers/lab3.md' '$tmp/out'" \
	"after a run, lab 3 names the file for the answers"
is "$(grep '^## Question' "$tmp/a/answers/lab3.md")" "$want" "... a heading for each of its questions after the run"
ok "grep -q '^> fadvise was the fastest' '$tmp/a/answers/lab3.md'" "... the question quoted"
echo 'my answer' >"$tmp/a/answers/lab3.md"
LAB=lab3 LAB_RESULTS=$tmp/a bash -c '. "$1/labs/lib/host.sh" && answers_template' _ "$top" >"$tmp/out" 2>&1
is "$(cat "$tmp/a/answers/lab3.md")" "my answer" "... and never written over"

# --- make handin -----------------------------------------------------------

h=$tmp/h
status=0
LAB_RESULTS=$h "$top/labs/handin" >"$tmp/out" 2>&1 || status=$?
ok "[ $status = 1 ] && grep -q 'nothing to hand in' '$tmp/out' && [ ! -e '$h/handin' ]" \
	"make handin with nothing there: refused, status $status, no archive"
mkdir -p "$h/predictions" "$h/answers" "$h/lab1" "$h/lab1.runs/20261205-060000" "$h/lab3"
cp "$tmp/g/lab1/results.jsonl" "$tmp/g/lab1/checks.jsonl" "$h/lab1/"
printf 'cold_read_cache_growth_mib: 64\n' | tee "$h/predictions/lab1.md" >"$h/lab1/predictions.md"
echo '{"name": "file-mib", "value": 64}' >"$h/lab1.runs/20261205-060000/results.jsonl"
printf '# Lab 1, question 9\n\nThe readahead window.\n' >"$h/answers/lab1.md"
echo 'a big trace, not taken' >"$h/lab1/trace.dat"
ln -s /etc/passwd "$h/lab3/results.jsonl"
LAB_RESULTS=$h "$top/labs/handin" >"$tmp/out" 2>&1
is "$?" 0 "make handin with predictions, answers and runs: status 0"
archive=$(find "$h/handin" -name 'handin-*.tar')
ok "[ -n '$archive' ] && grep -q '$archive' '$tmp/out'" "... one archive, named: ${archive#"$tmp"/}"
mkdir -p "$tmp/x"
tar -xf "$archive" -C "$tmp/x"
ok "(cd '$tmp/x/handin' && sha256sum --quiet -c MANIFEST.sha256)" "... its MANIFEST.sha256 checks"
is "$(cut -d' ' -f3- "$tmp/x/handin/MANIFEST.sha256" | grep -v '^exercises/' | tr '\n' ' ')" \
	"answers/lab1.md handin.json predictions/lab1.md runs/lab1/20261205-060000/results.jsonl runs/lab1/last/checks.jsonl runs/lab1/last/predictions.md runs/lab1/last/results.jsonl " \
	"... and lists every file but the exercise sources: predictions, answers, the last and the kept runs"
is "$(cd "$tmp/x/handin" && find . -type f ! -name MANIFEST.sha256 | wc -l)" "$(wc -l <"$tmp/x/handin/MANIFEST.sha256")" \
	"... every file of the archive is in it"
ok "cmp -s '$h/answers/lab1.md' '$tmp/x/handin/answers/lab1.md' && cmp -s '$h/lab1/results.jsonl' '$tmp/x/handin/runs/lab1/last/results.jsonl'" \
	"... the files as they are in results/"
n_sources=$(find "$top/labs/exercises" -name grade | wc -l)
is "$(grep -c ' exercises/' "$tmp/x/handin/MANIFEST.sha256")" "$n_sources" "... with the $n_sources exercises' sources"
ok "[ ! -e '$tmp/x/handin/runs/lab3' ] && ! grep -rq root: '$tmp/x/handin'" "... and no file a link in results/ points to"
is "$(jq -c '.counts | [.predictions, .answers, .runs]' "$tmp/x/handin/handin.json")" "[1,1,2]" \
	"handin.json counts 1 prediction form, 1 answer, 2 runs"
status=0
LAB_RESULTS=$h "$top/labs/handin" -o >"$tmp/out" 2>&1 || status=$?
ok "[ $status = 2 ] && grep -q usage '$tmp/out'" "labs/handin -o without a file: usage, status 2"
ok "'$top/labs/handin' --help | grep -q MANIFEST.sha256" "labs/handin --help says what the archive holds"
done_testing
