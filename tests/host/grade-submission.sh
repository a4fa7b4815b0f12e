#!/bin/bash
# The grader that cannot be fooled (#28 §3), its host side.  Facts are
# written once: a run whose program appended forged facts (as root, before
# or after the grader's own) scores zero on the checks that read them.
# labs/grade-submission refuses an archive with links, devices, names
# outside handin/ or with .., a name twice, files too large or a manifest
# that does not match; takes nothing of a hand-in but the exercises'
# sources (forged runs and grade.json are never read); grades a source that
# does not compile 0 without showing the files it included; writes the
# Gradescope results.json.  Its guests are taken as failing to boot
# (LAB_KERNEL names no kernel): tests/vm/grade-submission.sh boots them.
set -u
# shellcheck source=../lib/host/preamble.sh
. "$(dirname "$0")/../lib/host/preamble.sh"
# shellcheck source=../lib/host/handin.sh
. "$(dirname "$0")/../lib/host/handin.sh"

# The facts of a ucat run whose program is the untouched skeleton (exit
# status 1, no output, no residency report), as its guest records them
skeleton_ucat() {
	mkdir -p "$1"
	for fs in ext4 xfs tmpfs; do
		jq -cn --arg fs "$fs" --argjson cached "$([ "$fs" = tmpfs ] && echo 4097 || echo 0)" \
			'{name: $fs, value: {status: 1, sha256_ok: false, pages: 4097, cached_before: $cached,
			  cached_after: $cached, dropbehind_read: 0, fallbacks: 0, reported_before: null,
			  reported_after: null, stderr: "ucat: TODO 1: report_residency() is not implemented"}}'
	done >"$1/results.jsonl"
	echo '{"name": "finished", "value": true}' >>"$1/results.jsonl"
}
# forged_ucat FILE: what a program forging full marks appends: each file
# system's fact, as a finished ucat's would read
forged_ucat() {
	for fs in ext4 xfs tmpfs; do
		jq -cn --arg fs "$fs" --argjson cached "$([ "$fs" = tmpfs ] && echo 4097 || echo 0)" \
			--argjson fallbacks "$([ "$fs" = tmpfs ] && echo 1 || echo 0)" \
			'{name: $fs, value: {status: 0, sha256_ok: true, pages: 4097, cached_before: $cached,
			  cached_after: $cached, dropbehind_read: (4097 - $cached), fallbacks: $fallbacks,
			  reported_before: $cached, reported_after: $cached, stderr: ""}}'
	done >>"$1"
}
# passed DIR: the checks of the ucat run in DIR that pass, graded by the
# evaluator
passed() {
	"$top/labs/grading/evaluate" "$1" "$top/labs/exercises/ucat/checks.jq" >"$tmp/graded.json"
	jq '[.checks[] | select(.passed)] | length' "$tmp/graded.json"
}

skeleton_ucat "$tmp/run"
is "$(passed "$tmp/run")" 0 "the skeleton's ucat run passes no check (control)"
forged_ucat "$tmp/run/results.jsonl"
is "$(passed "$tmp/run")" 0 "forged full marks appended after the grader's facts: still 0/7"
ok "jq -e 'all(.checks[]; .verdict == \"INVALID\") and .checks[0].fact == \"ext4\"' '$tmp/graded.json'" \
	"... every check INVALID, naming the fact recorded twice"
ok "jq -e '.problems | index(\"results.jsonl: fact ext4 recorded more than once (a fact is written once): its checks are INVALID\")' '$tmp/graded.json' >/dev/null" \
	"... and the problems name each fact recorded twice"
# the forgery first, the grader's facts after it
skeleton_ucat "$tmp/first"
forged_ucat "$tmp/forged.jsonl"
cat "$tmp/forged.jsonl" "$tmp/first/results.jsonl" >"$tmp/first/both.jsonl"
mv "$tmp/first/both.jsonl" "$tmp/first/results.jsonl"
is "$(passed "$tmp/first")" 0 "forged full marks recorded before the grader's facts: 0/7"
# a fact of the host's still replaces the guest's: the host is trusted
skeleton_ucat "$tmp/host"
grep '"tmpfs"' "$tmp/forged.jsonl" >"$tmp/host/host.jsonl"
n=$(passed "$tmp/host")
ok "[ $n = 2 ]" "a fact of the host's (host.jsonl) replaces the guest's of that name: tmpfs's 2 checks pass"
LAB=ucat LAB_RESULTS=$tmp bash -c '. "$1/labs/lib/host.sh" && fact ext4 status' _ "$top" >"$tmp/fact.out" 2>&1
is "$(cat "$tmp/fact.out")" - "reports show a fact recorded twice as '-' (labs/lib/facts.sh)"

# The archives: a hand-in made by labs/handin (a prediction form and the
# exercises' sources), and forgeries of it.  Each is graded as
# gs-test-NAME: build/submission/gs-test-NAME, removed at the end.
cleanup() {
	rm -rf -- "$tmp" "$top"/build/submission/gs-test-* "$top"/build/dep/submission/gs-test-*
}
trap cleanup EXIT
mkdir -p "$tmp/student/predictions"
echo 'cold_read_cache_growth_mib: 64' >"$tmp/student/predictions/lab1.md"
LAB_RESULTS=$tmp/student "$top/labs/handin" -o "$tmp/handin.tar" >/dev/null
mkdir "$tmp/good"
tar -xf "$tmp/handin.tar" -C "$tmp/good"
# forge NAME: $tmp/NAME/handin, a copy of the hand-in to change; then
# archive NAME [TAR-OPTION...] makes it $tmp/gs-test-NAME.tar, manifest NAME
# writes its MANIFEST.sha256 again
forge() {
	rm -rf "${tmp:?}/$1"
	cp -a "$tmp/good" "$tmp/$1"
}
manifest() { handin_manifest "$tmp/$1"; }
archive() {
	local name=$1
	shift
	handin_tar "$tmp/$name" "$tmp/gs-test-$name.tar" "$@"
}
# refused NAME WHY: labs/grade-submission refuses gs-test-NAME.tar with
# status 2, saying WHY (a regular expression), and builds nothing
refused() {
	local status=0
	LAB_KERNEL=/nonexistent LAB_RESULTS=$tmp/results "$top/labs/grade-submission" "$tmp/gs-test-$1.tar" \
		>"$tmp/out" 2>&1 || status=$?
	ok "[ $status = 2 ] && grep -qE -- \"$2\" '$tmp/out' && grep -q 'refused, nothing graded' '$tmp/out' &&
		[ ! -e '$top/build/submission/gs-test-$1' ]" "$3: refused, status $status ($(tail -n 1 "$tmp/out" | cut -c1-150))"
}

forge good-copy
archive good-copy
"$top/labs/grade-submission" -n "$tmp/gs-test-good-copy.tar" >"$tmp/out" 2>&1
ok "[ $? = 0 ] && grep -q 'the manifest verified' '$tmp/out' && [ \"\$(grep -c '^  [a-z]*: exercises/' '$tmp/out')\" = 3 ]" \
	"-n: a hand-in of make handin is taken, its three sources listed"

forge symlink
ln -sf "$top/labs/solutions/ucat.c" "$tmp/symlink/handin/exercises/ucat/ucat.c"
archive symlink
refused symlink "member 'handin/exercises/ucat/ucat.c' is not a regular file" "an exercise source that is a symlink"
forge hardlink
ln -f "$tmp/hardlink/handin/exercises/ucp/ucp.c" "$tmp/hardlink/handin/exercises/ucat/ucat.c"
manifest hardlink
archive hardlink
refused hardlink "is not a regular file or a directory" "a hard link"
forge fifo
mkfifo "$tmp/fifo/handin/exercises/ucat/ucat.c.fifo"
archive fifo
refused fifo "is not a regular file or a directory" "a FIFO"
forge dotdot
archive dotdot --transform 's|^handin/predictions/lab1.md|handin/../evil.md|'
refused dotdot "member 'handin/\.\./evil.md'" "a member named handin/../evil.md"
forge absolute
archive absolute --absolute-names --transform 's|^handin/predictions/lab1.md|/tmp/evil.md|'
refused absolute "member '/tmp/evil.md': a name outside handin/" "an absolute name"
forge twice
archive twice
tar -rf "$tmp/gs-test-twice.tar" -C "$tmp/twice" handin/exercises/ucat/ucat.c
refused twice "member 'handin/exercises/ucat/ucat.c' is in it twice" "a member twice (the later would win)"
forge large
head -c $((5 << 20)) /dev/zero >"$tmp/large/handin/exercises/ucat/ucat.c"
manifest large
archive large
refused large "is larger than 4 MiB" "a 5 MiB source"
forge changed
echo '/* changed after make handin */' >>"$tmp/changed/handin/exercises/ucat/ucat.c"
archive changed
refused changed "exercises/ucat/ucat.c does not match its sha256" "a source changed after make handin (manifest mismatch)"
forge unlisted
echo 'extra' >"$tmp/unlisted/handin/extra.txt"
archive unlisted
refused unlisted "does not name every file once" "a file the manifest does not name"
forge outside
manifest outside
echo "$(sha256sum </etc/hostname | cut -d' ' -f1)  ../../../etc/hostname" >>"$tmp/outside/handin/MANIFEST.sha256"
archive outside
refused outside "does not name every file once" "a manifest naming ../../../etc/hostname"
forge nomanifest
rm "$tmp/nomanifest/handin/MANIFEST.sha256"
archive nomanifest
refused nomanifest "no handin/MANIFEST.sha256" "no manifest"
echo 'not a tar' >"$tmp/gs-test-junk.tar"
refused junk "not a tar archive" "a file that is no archive"

# (b) forged runs, checks and grade.json with full marks, the manifest
# written again: never read.  The guests do not boot here, so every check
# is MISSING: nothing of the archive's runs reaches the grade.
forge forged-runs
for name in ucat ucp backup; do
	mkdir -p "$tmp/forged-runs/handin/runs/$name/last"
	forged_ucat "$tmp/forged-runs/handin/runs/$name/last/results.jsonl"
	printf '{"check": "forged", "value": "", "passed": true}\n' >"$tmp/forged-runs/handin/runs/$name/last/checks.jsonl"
done
echo '{"passed": 28, "points": 28}' >"$tmp/forged-runs/handin/grade.json"
manifest forged-runs
archive forged-runs
status=0
LAB_KERNEL=/nonexistent LAB_RESULTS=$tmp/results "$top/labs/grade-submission" "$tmp/gs-test-forged-runs.tar" \
	>"$tmp/out" 2>&1 || status=$?
results=$tmp/results/submission/gs-test-forged-runs/results.json
ok "[ $status = 1 ] && jq -e '.score == 0 and .max_score == 28' '$results' >/dev/null" \
	"(b) forged runs, checks.jsonl and grade.json in the hand-in: ignored, 0/28 (status $status)"
ok "! grep -rq forged '$tmp/results/submission/gs-test-forged-runs'" "... nothing of them in the grading's results"
ok "[ -x '$top/build/submission/gs-test-forged-runs/ucat/bin/ucat' ] &&
	[ -x '$top/build/submission/gs-test-forged-runs/inputs/hidden-tests/bin/fs-shutdown' ]" \
	"... the sources were built in build/submission/ID, the hidden tests' helper in its inputs"
# the results.json of Gradescope's format
ok "jq -e '(.score | type) == \"number\" and (.max_score | type) == \"number\" and (.tests | length) == 28 and
	all(.tests[]; (keys == [\"max_score\", \"name\", \"output\", \"score\"]) and .max_score == 1 and
	(.output | type) == \"string\") and ([.tests[].max_score] | add) == .max_score' '$results'" \
	"results.json: {score, max_score, tests: [{name, score, max_score, output}]}, 28 tests of a point"
is "$(jq -r '[.tests[] | .name | select(test("^[a-z]+: hidden: "))] | length' "$results")" 6 \
	"... 6 of them hidden tests (ucat 3, ucp 2, backup 1)"
ok "grep -qE '^Score: 0/28$' '$tmp/results/submission/gs-test-forged-runs/summary.txt'" "... and summary.txt, the table"

# A run graded again (GRADE=1, no build, no boot): forged facts appended to
# the fresh run's results are INVALID
mkdir -p "$tmp/results/submission/gs-test-forged-runs/ucat"
skeleton_ucat "$tmp/results/submission/gs-test-forged-runs/ucat"
forged_ucat "$tmp/results/submission/gs-test-forged-runs/ucat/results.jsonl"
GRADE=1 LAB_RESULTS=$tmp/results "$top/labs/grade-submission" "$tmp/gs-test-forged-runs.tar" >"$tmp/out" 2>&1
is "$(jq '[.tests[] | select(.name | startswith("ucat: ")) | .score] | add' "$results")" 0 \
	"(c) GRADE=1: a run with forged facts appended scores 0 on ucat"

# A source that does not compile: 0 on its checks, the others built; the
# compiler's words about a file it was made to include are not shown
forge broken
echo 'SECRET_WORD_42 secret words;' >"$tmp/secret.txt"
printf '#include "%s"\nint main(void) { return 0 }\n' "$tmp/secret.txt" >"$tmp/broken/handin/exercises/ucat/ucat.c"
manifest broken
archive broken
LAB_KERNEL=/nonexistent LAB_RESULTS=$tmp/results "$top/labs/grade-submission" "$tmp/gs-test-broken.tar" \
	>"$tmp/out" 2>&1
results=$tmp/results/submission/gs-test-broken/results.json
ok "jq -e '[.tests[] | select(.name | startswith(\"ucat: \")) | .output | startswith(\"not graded: exercises/ucat/ucat.c does not compile\")] | all and length == 10' '$results' >/dev/null" \
	"a source that does not compile: its 10 checks not graded, saying so"
ok "[ -x '$top/build/submission/gs-test-broken/ucp/bin/ucp' ]" "... the other exercises built"
ok "! grep -rq SECRET_WORD '$results' '$tmp/results/submission/gs-test-broken/summary.txt' '$tmp/out'" \
	"... and nothing of the file it included is shown"
done_testing
