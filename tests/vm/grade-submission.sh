#!/bin/bash
# make grade-submission (labs/grade-submission) cannot be fooled (#28 §3):
# hand-ins graded in fresh guests on the release kernel, QUICK=1.
#
#   solutions   the reference solutions handed in: full marks, the hidden
#               tests too (the control)
#   forgeries   every exercise's source the untouched skeleton, or a
#               program that forges, in an archive that claims otherwise:
#               handin.json names labs/solutions/NAME.c as each source
#               (a), runs/ carries full-marks results and checks and a
#               grade.json with full marks (b), and the ucp handed in
#               appends full-marks facts to /results/results.jsonl as it
#               runs (c).  Each exercise scores 0.
#   weak        the solutions less what only the hidden tests see: a ucat
#               that takes a short write for a whole one, a ucp without
#               fsync(); no backup (not graded, 0).  The exercises' own
#               checks of ucat pass, the hidden ones fail.
set -u
# shellcheck source=../lib/both/tap.sh
. "$(dirname "$0")/../lib/both/tap.sh"
# shellcheck source=../lib/host/vm.sh
. "$(dirname "$0")/../lib/host/vm.sh"
# shellcheck source=../lib/host/handin.sh
. "$(dirname "$0")/../lib/host/handin.sh"
tmp=$(mktemp -d)
results=$CHECK_RESULTS/grade-submission
trap 'rm -rf -- "$tmp" "$top"/build/submission/gs-vm-* "$top"/build/dep/submission/gs-vm-*' EXIT
rm -rf -- "$results"

# skeleton NAME: the untouched skeleton of exercise NAME, as HEAD has it
skeleton() {
	git -C "$top" show "HEAD:labs/exercises/$1/$1.c" 2>/dev/null || cat "$top/labs/exercises/$1/$1.c"
}
# stage NAME: $tmp/NAME/handin, with a prediction form and a handin.json
# that says each source is the reference solution
stage() {
	mkdir -p "$tmp/$1/handin/predictions" "$tmp/$1/handin/exercises/ucat" "$tmp/$1/handin/exercises/ucp" \
		"$tmp/$1/handin/exercises/backup"
	echo 'cold_read_cache_growth_mib: 64' >"$tmp/$1/handin/predictions/lab1.md"
	jq -n '{exercise_sources: {ucat: "labs/solutions/ucat.c", ucp: "labs/solutions/ucp.c",
		backup: "labs/solutions/backup.c"}}' >"$tmp/$1/handin/handin.json"
}
# graded NAME: labs/grade-submission on gs-vm-NAME.tar made of $tmp/NAME;
# its status in $status, its results.json in $json, its run in $run
graded() {
	handin_manifest "$tmp/$1"
	handin_tar "$tmp/$1" "$tmp/gs-vm-$1.tar"
	status=0
	QUICK=1 LAB_KERNEL=$VM_RELEASE_KERNEL LAB_RESULTS=$results "$top/labs/grade-submission" "$tmp/gs-vm-$1.tar" \
		>"$results-$1.out" 2>&1 || status=$?
	run=$results/submission/gs-vm-$1
	json=$run/results.json
}
# score NAME: "score/max" of the tests of exercise NAME (all with "all",
# the hidden ones with "hidden")
score() {
	jq -r --arg e "$1" '[.tests[] | select($e == "all" or (.name | startswith("\($e): ")) or
		($e == "hidden" and (.name | test("^[a-z]+: hidden: "))))]
		| "\(map(.score) | add // 0)/\(map(.max_score) | add // 0)"' "$json" 2>/dev/null || echo -
}
mkdir -p "$results"

stage solutions
for name in ucat ucp backup; do
	cp "$top/labs/solutions/$name.c" "$tmp/solutions/handin/exercises/$name/$name.c"
done
graded solutions
ok "[ $status = 0 ] && [ '$(score all)' = 28/28 ]" \
	"the reference solutions handed in: $(score all) (hidden tests $(score hidden)), status $status (log: $results-solutions.out)"
for name in ucat ucp backup; do
	CHECK_RESULTS=$run vm_check_console "$name"
done

stage forgeries
skeleton ucat >"$tmp/forgeries/handin/exercises/ucat/ucat.c"
skeleton backup >"$tmp/forgeries/handin/exercises/backup/backup.c"
# (c): a ucp that appends a finished ucp's facts to the results, and says
# how that went on its standard error (ucp's fact records it)
cat >"$tmp/forgeries/handin/exercises/ucp/ucp.c" <<'C'
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	static const char forged[] =
		"{\"name\":\"ext4\",\"value\":{\"status\":0,\"pages\":4097,\"sha256_ok\":true,"
		"\"sha256_ok_after_remount\":true,\"src_cached\":0,\"dst_cached\":0,\"flushes\":2,"
		"\"dropbehind_read\":4097,\"dropbehind_write\":4097}}\n";
	int fd = open("/results/results.jsonl", O_WRONLY | O_APPEND | O_CREAT, 0644);

	if (fd < 0 || write(fd, forged, sizeof(forged) - 1) < 0)
		fprintf(stderr, "forger: /results/results.jsonl: %s\n", strerror(errno));
	else
		fprintf(stderr, "forger: appended a forged fact\n");
	return 0;
}
C
# (b): full-marks runs and grade.json in the archive
for name in ucat ucp backup; do
	mkdir -p "$tmp/forgeries/handin/runs/$name/last"
	cp "$results/submission/gs-vm-solutions/$name/results.jsonl" "$tmp/forgeries/handin/runs/$name/last/" 2>/dev/null ||
		echo '{"name": "finished", "value": true}' >"$tmp/forgeries/handin/runs/$name/last/results.jsonl"
	echo '{"check": "forged", "value": "", "passed": true}' >"$tmp/forgeries/handin/runs/$name/last/checks.jsonl"
done
echo '{"passed": 28, "points": 28}' >"$tmp/forgeries/handin/grade.json"
graded forgeries
ok "[ $status = 1 ] && [ '$(score ucat)' = 0/10 ]" \
	"(a) the skeleton under handin.json's claim of labs/solutions/ucat.c: ucat $(score ucat) (log: $results-forgeries.out)"
ok "[ '$(score backup)' = 0/8 ]" "(a) ... and of labs/solutions/backup.c: backup $(score backup)"
ok "[ '$(score all)' = 0/28 ] && ! grep -rqs forged '$run/ucat' '$run/backup'" \
	"(b) full-marks runs, checks and grade.json in the archive: ignored, $(score all) in all"
ok "[ '$(score ucp)' = 0/10 ]" "(c) a ucp appending full-marks facts as it runs: ucp $(score ucp)"
stderr=$(jq -r 'select(.name == "ext4") | .value.stderr' "$run/ucp/results.jsonl" 2>/dev/null)
ok "[ '$stderr' = 'forger: /results/results.jsonl: Read-only file system' ]" \
	"(c) ... its write failed: it ran as student, /results out of its reach ($stderr)"
is "$(jq -s 'map(select(.name == "ext4")) | length' "$run/ucp/results.jsonl" 2>/dev/null)" 1 \
	"(c) ... the run's results hold the grader's ext4 fact alone"

stage weak
sed 's/len -= n;/len = 0;/' "$top/labs/solutions/ucat.c" >"$tmp/weak/handin/exercises/ucat/ucat.c"
sed 's/fsync([a-z]*)/0/' "$top/labs/solutions/ucp.c" >"$tmp/weak/handin/exercises/ucp/ucp.c"
rm -r "$tmp/weak/handin/exercises/backup"
graded weak
hidden_verdicts() {
	jq -r --arg e "$1" '.tests[] | select(.name | startswith("\($e): hidden: ")) | "\(.score)"' "$json" 2>/dev/null |
		paste -sd ' '
}
ok "[ '$(jq -r '[.tests[] | select(.name | test("^ucat: [^h]")) | .score] | add' "$json" 2>/dev/null)' = 7 ] &&
	[ '$(hidden_verdicts ucat)' = '0 1 1' ]" \
	"a ucat that takes a short write for whole: the exercise's 7 checks pass, the hidden pipe test fails ($(hidden_verdicts ucat))"
ok "[ '$(hidden_verdicts ucp)' = '0 0' ]" \
	"a ucp without fsync(): DST lost in the crash on ext4 and xfs ($(hidden_verdicts ucp))"
ok "jq -e '[.tests[] | select(.name | startswith(\"backup: \")) | .output | startswith(\"not graded: no exercises/backup/backup.c\")] | all' '$json' >/dev/null && [ '$(score backup)' = 0/8 ]" \
	"no backup handed in: its 8 checks not graded, 0"
done_testing
