#!/bin/bash
# make student-release (scripts/student-release): the release holds none of
# the instructors' material, by name or by content (reference solutions,
# hidden tests, answer keys, the kernel track's bug patches, the handouts'
# "Expected results, and why"); every handout keeps its other sections and its
# self-checks; in the release, `make lab1` resolves (make -n, kernels and
# packages taken as made), `make grade` grades a run copied in and `make
# handin` bundles it.  The script replaces only a directory it made.
set -u
# shellcheck source=../lib/host/preamble.sh
. "$(dirname "$0")/../lib/host/preamble.sh"
# shellcheck source=../lib/host/lab1-facts.sh
. "$(dirname "$0")/../lib/host/lab1-facts.sh"
if ! git -C "$top" rev-parse --verify -q HEAD >/dev/null; then
	skip "the student release" "$top is not a git checkout (a release itself?): the release is made from HEAD"
	done_testing
	exit
fi
release=$tmp/release
expected_heading='## Expected results, and why'

"$top/scripts/student-release" "$release" >"$tmp/out" 2>&1
is "$?" 0 "scripts/student-release DIR: status 0"
ok "grep -q \"^scripts/student-release made this directory from commit $(git -C "$top" rev-parse HEAD)\" '$release/.student-release'" \
	"... its marker names HEAD's commit"
ok "[ -f '$release/Makefile' ] && [ ! -e '$release/.git' ]" "... the tree is there, without the repository"

# By name
ok "[ ! -e '$release/labs/solutions' ]" "no labs/solutions"
ok "[ ! -e '$release/labs/hidden-tests' ]" "no labs/hidden-tests"
ok "[ -z \"\$(find '$release/labs/reference' -name '*.json' 2>/dev/null)\" ]" "no reference runs (labs/reference/*.json)"
is "$(cd "$release" && find . -name 'ANSWERS*' | paste -sd ' ')" "" "no ANSWERS file anywhere"
is "$(cd "$release" && find labs -name '*.patch' | paste -sd ' ')" "" "no patch under labs/ (the kernel track's bugs)"
# By content: no file of the release is one of the files left out, under
# whatever name
left_out=$(git -C "$top" ls-tree -r --name-only HEAD |
	grep -E '^labs/(solutions|hidden-tests)/|(^|/)ANSWERS[^/]*$|^labs/kernel-exercises/[^/]*\.patch$|^labs/reference/[^/]*\.json$')
ok "[ $(wc -l <<<"$left_out") -ge 10 ]" "HEAD has the files to leave out ($(wc -l <<<"$left_out"))"
while read -r path; do
	git -C "$top" cat-file blob "HEAD:$path" | sha256sum | cut -d' ' -f1
done <<<"$left_out" | sort -u >"$tmp/left-out.sha256"
(cd "$release" && find . -type f -exec sha256sum {} +) | sort >"$tmp/release.sha256"
is "$(join -o 1.2 <(sort -k1,1 "$tmp/release.sha256") "$tmp/left-out.sha256" | paste -sd ' ')" "" \
	"no file of the release has the content of a file left out"
is "$(cd "$release" && grep -rlxF -- "$expected_heading" . | paste -sd ' ')" "" \
	"no line '$expected_heading' anywhere in the release"
is "$(cd "$release" && grep -rlE --include='*.md' '^#+ .*Expected results' . | paste -sd ' ')" "" \
	"no Markdown heading of expected results"

# headings FILE: the Markdown file's "## " headings, the section the
# release replaces under its new name
headings() {
	sed -n 's/^## //p' "$1" | sed 's/^Expected results, and why$/Your results/'
}
# section FILE HEADING: the section's lines, up to the next "## " heading
section() {
	awk -v h="$2" '$0 == h { on = 1; next } on && /^## / { exit } on' "$1"
}
for path in $(git -C "$top" ls-tree -r --name-only HEAD labs | grep -E '^labs/(lab[0-9]+|exercises|kernel-exercises)/README\.md$'); do
	git -C "$top" cat-file blob "HEAD:$path" >"$tmp/head.md"
	if [ ! -f "$release/$path" ]; then
		fail "$path is in the release"
		continue
	fi
	case "$path" in
	labs/lab*)
		ok "grep -qxF '## Self-checks' '$release/$path' && [ -n \"\$(awk '/^## Self-checks\$/ { on = 1; next } on && /^## / { exit } on && /^- /' '$release/$path')\" ]" \
			"$path is in the release with its self-checks list"
		is "$(section "$release/$path" '## Self-checks')" "$(section "$tmp/head.md" '## Self-checks')" \
			"... the list as in HEAD"
		is "$(headings "$release/$path")" "$(headings "$tmp/head.md")" "... and every other section"
		;;
	labs/exercises/*)
		is "$(headings "$release/$path")" "$(headings "$tmp/head.md" | grep -vx Solutions)" \
			"$path is in the release, without its section on the solutions"
		;;
	labs/kernel-exercises/*)
		is "$(headings "$release/$path")" "$(headings "$tmp/head.md" | grep -vx 'For instructors')" \
			"$path is in the release, without its section for instructors"
		ok "grep -q 'instructor hands out each exercise' '$release/$path'" "... and says who hands out the bugs"
		;;
	esac
done

# make lab1 resolves: every prerequisite has a file or a rule.  Kernels and
# packages are taken as made (-o): what is tested is the graph, not a
# build; the headers too, whose recipe runs make in the kernel tree even
# under -n.
status=0
make -C "$release" --no-print-directory -n -o build/kernel/release/arch/x86/boot/bzImage \
	-o build/stamp/deps -o build/headers/.installed lab1 >"$tmp/lab1.out" 2>&1 || status=$?
ok "[ $status = 0 ] && ! grep -q 'No rule to make target' '$tmp/lab1.out' && [ \"\$(tail -n 1 '$tmp/lab1.out')\" = labs/lab1/run ]" \
	"make -n lab1 in the release resolves, down to labs/lab1/run (status $status)"

# make grade grades the runs in the release's results/: lab 1's, as its
# guest writes them (the facts of tests/host/grade.sh), copied in
mkdir -p "$release/results/lab1"
lab1_facts 64 0 >"$release/results/lab1/results.jsonl"
# pcviz, which only the traced labs' grading runs, is taken as built
make -C "$release" -o build/host/pcviz -o build/stamp/deps grade >"$tmp/grade.out" 2>&1
ok "grep -q '^Score: 6/[0-9]* (not run: lab2 ' '$tmp/grade.out' && ! grep -q 'No rule to make target' '$tmp/grade.out'" \
	"make grade in the release grades lab 1's run: $(grep -m 1 '^Score:' "$tmp/grade.out" | cut -c1-40)"
# and the student hands that run in
status=0
make -C "$release" -o build/stamp/deps handin >"$tmp/handin.out" 2>&1 || status=$?
ok "[ $status = 0 ] && tar -tf '$release'/results/handin/handin-*.tar | grep -qx handin/runs/lab1/last/results.jsonl" \
	"make handin in the release bundles that run (status $status)"

# Made again: the release it made is replaced; a directory it did not make
# is refused and kept
touch "$release/stale"
"$top/scripts/student-release" "$release" >"$tmp/out" 2>&1
ok "[ $? = 0 ] && [ ! -e '$release/stale' ] && [ -f '$release/Makefile' ]" "made again over its own release: replaced"
mkdir "$tmp/mine"
echo precious >"$tmp/mine/notes"
status=0
"$top/scripts/student-release" "$tmp/mine" >"$tmp/out" 2>&1 || status=$?
ok "[ $status = 2 ] && grep -q 'student-release did not make it' '$tmp/out' && [ \"\$(cat '$tmp/mine/notes')\" = precious ]" \
	"a directory it did not make is refused and kept (status $status)"
done_testing
