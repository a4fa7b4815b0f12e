#!/bin/bash
# The handouts match their labs: each handout's list of self-checks
# (labs/labN/README.md, "## Self-checks", one "- **name**" per check) names
# exactly the checks of labs/labN/checks.jq, the lab's table (a capstone's:
# its exercise's, whose grader sets LAB_HANDOUT=labN), in order; and every
# repository path or kernel patch a handout or an answer key names exists.
# Patches are named by layer and number, core/0004 (kernel/patches/core/
# 0004-*.patch), lab/0001, test/0001: each layer numbers from 0001, so a
# bare 0004 names none.  The first tests show the comparison failing on a
# lab script with a renamed check, and the patch names failing on a patch
# that does not exist and on a bare number.
set -u
# shellcheck source=../lib/host/preamble.sh
. "$(dirname "$0")/../lib/host/preamble.sh"
cd "$top" || exit 1

# handout_checks README: the names of its self-check list
handout_checks() {
	sed -n '/^## Self-checks/,/^## /p' "$1" | sed -n 's/^- \*\*\([^*]*\)\*\*.*/\1/p'
}
# table_checks TABLE: the names the lab's table grades, in order
table_checks() {
	labs/grading/evaluate "$tmp/no-run" "$1" | jq -r '.checks[].check'
}
# same_checks README TABLE: empty output if they agree, else a diff
same_checks() {
	diff <(handout_checks "$1") <(table_checks "$2") | grep '^[<>]'
}

sed '0,/check("[^"]*"/s//check("a renamed check"/' labs/lab4/checks.jq >"$tmp/checks.jq"
if [ -n "$(same_checks labs/lab4/README.md "$tmp/checks.jq")" ]; then
	pass "a renamed check in a lab's table is caught: $(same_checks labs/lab4/README.md "$tmp/checks.jq" | tr '\n' ' ')"
else
	fail "a renamed check in a lab script is caught"
fi

# missing_patches FILE: the patches FILE names (layer/number) that are not
# in kernel/patches
missing_patches() {
	local ref
	while read -r ref; do
		compgen -G "kernel/patches/$ref-*.patch" >/dev/null || echo "$ref"
	done < <(grep -oE '\b(core|lab|test)/00[0-9][0-9]\b' "$1" | sort -u)
}
# bare_patch_numbers FILE: patch numbers FILE gives without their layer
# (0x0000 is a value, 1.0015 a number: neither is a patch; nor is a
# number in a quoted transcript, the indented lines of a code block)
bare_patch_numbers() {
	grep -vE '^(    |\t)' "$1" | grep -oE '(^|[^/.0-9A-Za-z])00[0-9][0-9]\b' |
		grep -oE '00[0-9][0-9]' | sort -u
}

printf '%s\n' 'patches core/0099 and 0004, value 0x0000, ratio 1.0015' \
	'      | Oops: invalid opcode: 0000 [#1] SMP' >"$tmp/names.md"
if [ "$(missing_patches "$tmp/names.md")" = core/0099 ] && [ "$(bare_patch_numbers "$tmp/names.md")" = 0004 ]; then
	pass "a patch that does not exist (core/0099) and a bare patch number (0004) are caught"
else
	fail "a patch that does not exist (core/0099) and a bare patch number (0004) are caught" \
		"missing: $(missing_patches "$tmp/names.md"); bare: $(bare_patch_numbers "$tmp/names.md")"
fi

# names_exist FILE LABEL: the repository paths and kernel patches FILE
# names exist
names_exist() {
	local file=$1 label=$2 missing="" paths=0 bad bare p
	# repository paths in backquotes; placeholders (labN, MODE, ...) are not paths
	while read -r p; do
		case "$p" in
		labs/* | docs/* | tests/* | tools/* | pcviz/* | kernel/* | bench/* | initramfs/* | scripts/*) ;;
		*) continue ;;
		esac
		case "$p" in *labN* | *MODE* | *STEP* | *NAME* | *FS*) continue ;; esac
		paths=$((paths + 1))
		[ -e "$p" ] || missing="$missing $p"
	done < <(grep -o "\`[a-z][a-z0-9_.-]*/[A-Za-z0-9_./-]*\`" "$file" | tr -d "\`" | sort -u)
	ok "[ -z '$missing' ]" "$label: the $paths repository paths $file names exist${missing:+ (missing:$missing)}"
	bad=$(missing_patches "$file" | tr '\n' ' ')
	bare=$(bare_patch_numbers "$file" | tr '\n' ' ')
	ok "[ -z '$bad$bare' ]" \
		"$label: the $(grep -oE '\b(core|lab|test)/00[0-9][0-9]\b' "$file" | sort -u | wc -l) kernel patches $file names exist, each with its layer${bad:+ (not in kernel/patches: $bad)}${bare:+ (no layer: $bare)}"
}

# number WORD: the number a count in prose says (a numeral, or one to
# thirty in words), or nothing
number() {
	local words=(zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen
		fifteen sixteen seventeen eighteen nineteen twenty) w=${1,,} i
	case "$w" in
	[0-9]*) echo "$w" ;;
	twenty-*)
		for i in 1 2 3 4 5 6 7 8 9; do [ "${w#twenty-}" != "${words[i]}" ] || echo $((20 + i)); done
		;;
	thirty) echo 30 ;;
	*) for i in "${!words[@]}"; do [ "$w" != "${words[i]}" ] || echo "$i"; done ;;
	esac
}
# said_count README: the count its Self-checks section says first ("ends
# with six checks"), as a number, or nothing
said_count() {
	sed -n '/^## Self-checks/,/^## /p' "$1" | grep -m 1 -oiE '\b[a-z0-9-]+ (self-)?checks\b' |
		while read -r w _; do number "$w"; done
}
is "$(number twenty-three) $(number Six) $(number 17) $(number many)" "23 6 17 " \
	"a count in prose is read as a number (twenty-three, Six, 17; not many)"
# "all N patches", "the N patches", "an N-patch series": the series' size
patches=$(find kernel/patches -name '*.patch' ! -name '0000-cover-letter.patch' | wc -l)
wrong=$(grep -oiE '\b(all|the|an?) [a-z0-9-]+( |-)patch(es)?( series)?\b' labs/*/README.md labs/*/ANSWERS.md \
	labs/*/*/README.md docs/*.md README.md 2>/dev/null | while IFS=: read -r f phrase; do
	n=$(number "$(echo "$phrase" | awk '{ print $2 }' | sed 's/-patch$//')")
	[ -z "$n" ] || [ "$n" = "$patches" ] || echo "$f: $phrase"
done | sort -u | paste -sd ';')
is "$wrong" "" "the handouts and docs count the series as it is ($patches patches)"

for readme in labs/lab*/README.md; do
	lab=$(basename "$(dirname "$readme")")
	ok "sed -n 3p '$readme' | grep -qE '^\\*\\*Difficulty:\\*\\* (introductory|intermediate|advanced)\\. \\*\\*Effort:\\*\\* about [0-9]'" \
		"$lab: the handout says its difficulty and effort under its title"
	said=$(said_count "$readme")
	listed=$(handout_checks "$readme" | wc -l)
	[ -z "$said" ] || is "$said" "$listed" "$lab: the count of self-checks the handout says is the count it lists"
done
# the program exercises: a difficulty and an effort in the table's row of each
for grader in labs/exercises/*/grade; do
	name=$(basename "$(dirname "$grader")")
	ok "grep -qE '^\\| \`$name\` \\|.*\\| (introductory|intermediate|advanced) \\| about [0-9]' labs/exercises/README.md" \
		"exercise $name: the table in labs/exercises/README.md says its difficulty and effort"
done
for name in $(find labs/kernel-exercises -name '*.patch' -printf '%f\n' | sed 's/\.patch$//' | sort) \
	$(find labs/kernel-exercises -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort); do
	ok "sed -n '/^## $name\($\|:\)/,/^## /p' labs/kernel-exercises/README.md | grep -qE '^\\*\\*Difficulty:\\*\\* [a-z]+\\. \\*\\*Effort:\\*\\* about [0-9]'" \
		"kernel exercise $name: its section says its difficulty and effort"
done

# every test a kernel exercise grades (NAME.tests: "SUITE fs.FS.TEST") is
# a test of its suite: a misspelt name would grade "did not run", a point
# no fix can earn
# graded_missing TESTS-FILE: the lines of TESTS-FILE naming no test
graded_missing() {
	local suite name fixture fs test
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$1" | while read -r suite name; do
		IFS=. read -r fixture fs test <<<"$name"
		if [ ! -f "tests/guest/$suite.c" ] || { [ "$fs" != ext4 ] && [ "$fs" != xfs ]; } ||
			! grep -qE "^TEST_F(_TIMEOUT)?\(${fixture}, ${test}[,)]" "tests/guest/$suite.c"; then
			echo "$suite $name"
		fi
	done
}
printf 'uncached fs.ext4.warm_read\nuncached fs.xfs.warm_raed\nuncached fs.btrfs.warm_read\n' >"$tmp/x.tests"
is "$(graded_missing "$tmp/x.tests" | paste -sd ';')" "uncached fs.xfs.warm_raed;uncached fs.btrfs.warm_read" \
	"a graded test that is not in its suite (a misspelt name, a filesystem without a variant) is caught"
for tests in labs/kernel-exercises/*.tests; do
	is "$(graded_missing "$tests" | paste -sd ';')" "" "$tests names tests of its suite"
done

for readme in labs/lab*/README.md; do
	lab=$(basename "$(dirname "$readme")")
	table=labs/$lab/checks.jq
	# a capstone graded as an exercise: the table beside the grader that names the handout
	[ -e "$table" ] ||
		table=$(dirname "$(grep -l "^LAB_HANDOUT=$lab\$" labs/exercises/*/grade | head -n 1)")/checks.jq
	n=$(handout_checks "$readme" | wc -l)
	if [ "$n" = 0 ]; then
		fail "$lab: the handout lists its self-checks (- **name** under ## Self-checks)"
	elif d=$(same_checks "$readme" "$table"); then
		fail "$lab: the handout's $n self-checks are the ones $table grades" "$d"
	else
		pass "$lab: the handout's $n self-checks are the ones $table grades"
	fi
	names_exist "$readme" "$lab"
	[ ! -e "labs/$lab/ANSWERS.md" ] || names_exist "labs/$lab/ANSWERS.md" "$lab"
done
for readme in labs/exercises/README.md labs/kernel-exercises/README.md docs/concepts.md; do
	names_exist "$readme" "$(basename "$(dirname "$readme")")"
done
done_testing
