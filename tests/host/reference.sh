#!/bin/bash
# The handouts' reference runs (#28 section 5): each lab's "Expected
# results" section has the table labs/reference/render writes from the
# runs labs/reference/record kept, of the commands a student runs (make
# labN, make labN QUICK=1); the table is unedited; each run's commit is in
# this branch's history, and the files of labs/labN the run depends on
# (all but its prose, *.md) are as they were at that commit.  The first
# tests show the checks failing: on an edited number in a table, on a run
# of a third configuration, and on a lab script changed after its run.
set -u
# shellcheck source=../lib/host/preamble.sh
. "$(dirname "$0")/../lib/host/preamble.sh"
cd "$top" || exit 1

begin_re='^<!-- reference run: '
end_line='<!-- end of reference run -->'
# handout_table README: the reference-run table README holds, markers included
handout_table() {
	sed -n "/$begin_re/,/^$end_line\$/p" "$1"
}
# stale LAB REFERENCE: the files of labs/LAB that changed since the
# reference's commit (the working tree's: an uncommitted edit counts), or "unknown commit C" if it is not in this history
stale() {
	local commit
	commit=$(jq -r .commit "$2")
	if ! git merge-base --is-ancestor "$commit" HEAD 2>/dev/null; then
		echo "unknown commit $commit"
		return
	fi
	git diff --name-only "$commit" -- "labs/$1" ":(exclude)labs/$1/*.md" | paste -sd ' '
}
# command_ok LAB REFERENCE: the reference ran the student's command
command_ok() {
	case "$(jq -r .command "$2")" in
	"make $1" | "make $1 QUICK=1") return 0 ;;
	esac
	return 1
}

if [ ! -d .git ] && ! git rev-parse --git-dir >/dev/null 2>&1; then
	skip "the reference runs' commits" "not a git checkout"
	done_testing
	exit 0
fi

# verdict LABEL COMMAND...: a test that COMMAND (a function of this
# script: ok's sh -c does not see those) succeeds
verdict() {
	local label=$1
	shift
	if "$@"; then pass "$label"; else fail "$label" "failed: $*"; fi
}
not_command_ok() {
	! command_ok "$@"
}
# differs A B: the files A and B differ
differs() {
	! diff -q "$1" "$2" >/dev/null
}

# the checks fail where they should
if [ -f labs/reference/lab1.json ]; then
	sed 's/| PASS \([0-9]\)/| PASS 9\1/' labs/lab1/README.md >"$tmp/edited.md"
	handout_table "$tmp/edited.md" >"$tmp/edited.table"
	labs/reference/render lab1 >"$tmp/rendered.table"
	verdict "an edited number in lab 1's table is caught" differs "$tmp/edited.table" "$tmp/rendered.table"
	jq '.command = "make lab1 LAB_DATA_MIB=768"' labs/reference/lab1.json >"$tmp/third.json"
	verdict "a run of a third configuration (make lab1 LAB_DATA_MIB=768) is caught" \
		not_command_ok lab1 "$tmp/third.json"
	first=$(git rev-list --max-parents=0 HEAD | tail -n 1)
	jq --arg c "$first" '.commit = $c' labs/reference/lab1.json >"$tmp/old.json"
	s=$(stale lab1 "$tmp/old.json")
	verdict "a lab script changed after the run is caught ($(echo "$s" | cut -c1-60))" [ -n "$s" ]
	jq '.commit = "0123456789abcdef0123456789abcdef01234567"' labs/reference/lab1.json >"$tmp/gone.json"
	is "$(stale lab1 "$tmp/gone.json")" "unknown commit 0123456789abcdef0123456789abcdef01234567" \
		"a commit not in this history is caught"
else
	fail "labs/reference/lab1.json exists (make reference LAB=lab1)"
fi

for readme in labs/lab*/README.md; do
	lab=$(basename "$(dirname "$readme")")
	grep -q '^## Expected results, and why' "$readme" || continue
	if [ -z "$(handout_table "$readme")" ]; then
		fail "$lab: the Expected results section has the reference run's table" "no markers: labs/reference/render --help"
		continue
	fi
	ok "sed -n '/^## Expected results, and why/,/^## /p' '$readme' | grep -q '$begin_re'" \
		"$lab: the reference run's table is in the Expected results section"
	for ref in "labs/reference/$lab.json" "labs/reference/$lab-quick.json"; do
		if [ ! -f "$ref" ]; then
			fail "$lab: $ref exists" "make reference LAB=$lab records it"
			continue
		fi
		verdict "$lab: $ref is a run of the student's command ($(jq -r .command "$ref"))" command_ok "$lab" "$ref"
		s=$(stale "$lab" "$ref")
		is "$s" "" "$lab: nothing $ref's run depends on in labs/$lab changed since its commit $(jq -r '.commit[0:12]' "$ref")"
		ok "jq -e '.checks | length > 0' '$ref' >/dev/null" "$lab: $ref has the self-checks' verdicts"
	done
	if diff -u <(handout_table "$readme") <(labs/reference/render "$lab" 2>&1) >"$tmp/diff"; then
		pass "$lab: the handout's table is what labs/reference/render writes"
	else
		fail "$lab: the handout's table is what labs/reference/render writes" "$(head -n 12 "$tmp/diff")"
	fi
done
done_testing
