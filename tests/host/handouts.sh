#!/bin/bash
# The handouts match their labs: each handout's list of self-checks
# (labs/labN/README.md, "## Self-checks", one "- **name**" per check) names
# exactly the checks labs/labN/run runs (a capstone's: its exercise's
# grader, which sets LAB_HANDOUT=labN), in order; and every repository path
# or kernel patch number a handout names exists.  The first test shows the
# comparison failing on a lab script with a renamed check.
set -u
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1

# handout_checks README: the names of its self-check list
handout_checks() {
	sed -n '/^## Self-checks/,/^## /p' "$1" | sed -n 's/^- \*\*\([^*]*\)\*\*.*/\1/p'
}
# script_checks RUN: the names the lab script grades, in order
script_checks() {
	sed -n 's/^check "\([^"]*\)".*/\1/p' "$1"
}
# same_checks README RUN: empty output if they agree, else a diff
same_checks() {
	diff <(handout_checks "$1") <(script_checks "$2") | grep '^[<>]'
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed '0,/^check "[^"]*"/s//check "a renamed check"/' labs/lab4/run >"$tmp/run"
if [ -n "$(same_checks labs/lab4/README.md "$tmp/run")" ]; then
	pass "a renamed check in a lab script is caught: $(same_checks labs/lab4/README.md "$tmp/run" | tr '\n' ' ')"
else
	fail "a renamed check in a lab script is caught"
fi

# names_exist README LABEL: the repository paths and kernel patches README
# names exist
names_exist() {
	local readme=$1 lab=$2 missing="" paths=0 bad="" nums=0 p num
	# repository paths in backquotes; placeholders (labN, MODE, ...) are not paths
	while read -r p; do
		case "$p" in
		labs/* | docs/* | tests/* | tools/* | pcviz/* | kernel/* | bench/* | initramfs/* | scripts/*) ;;
		*) continue ;;
		esac
		case "$p" in *labN* | *MODE* | *STEP* | *NAME* | *FS*) continue ;; esac
		paths=$((paths + 1))
		[ -e "$p" ] || missing="$missing $p"
	done < <(grep -o "\`[a-z][a-z0-9_.-]*/[A-Za-z0-9_./-]*\`" "$readme" | tr -d "\`" | sort -u)
	ok "[ -z '$missing' ]" "$lab: the $paths repository paths the handout names exist${missing:+ (missing:$missing)}"
	# kernel patches by number (0013-...): each one is in kernel/patches
	while read -r num; do
		nums=$((nums + 1))
		compgen -G "kernel/patches/$num-*.patch" >/dev/null || bad="$bad $num"
	done < <(grep -oE '\b00[0-9][0-9]\b' "$readme" | sort -u)
	ok "[ -z '$bad' ]" "$lab: the $nums kernel patches the handout names by number exist${bad:+ (not:$bad)}"
}

for readme in labs/lab*/README.md; do
	lab=$(basename "$(dirname "$readme")")
	run=labs/$lab/run
	# a capstone graded as an exercise: the grader that names the handout
	[ -e "$run" ] || run=$(grep -l "^LAB_HANDOUT=$lab\$" labs/exercises/*/grade | head -n 1)
	n=$(handout_checks "$readme" | wc -l)
	if [ "$n" = 0 ]; then
		fail "$lab: the handout lists its self-checks (- **name** under ## Self-checks)"
	elif d=$(same_checks "$readme" "$run"); then
		fail "$lab: the handout's $n self-checks are the ones $run runs" "$d"
	else
		pass "$lab: the handout's $n self-checks are the ones $run runs"
	fi
	names_exist "$readme" "$lab"
done
for readme in labs/exercises/README.md labs/kernel-exercises/README.md; do
	names_exist "$readme" "$(basename "$(dirname "$readme")")"
done
done_testing
