#!/bin/bash
# pcviz --replay against broken trace.dat files: the two recorded fixtures of
# tests/fixtures/replay (trace-cmd formats 6 and 7), cut, flipped, their
# format texts, header values and events edited (tests/host/trace-mutate.py,
# a few hundred cases, each a function of its seed), replayed by the
# AddressSanitizer+UBSan build.  Every case must end in a clean exit: 0 with
# JSON lines, or 1 with one line on stderr; no signal, no sanitizer report,
# no more than 10 s of CPU (a limit on CPU time, not wall time: the machine
# is shared).  Cases that crash inside libtracecmd or libtraceevent whatever
# pcviz does are listed in docs/pcviz.md and skipped here by seed, named.
#
# Usage: pcviz-fuzz.sh [--keep DIR] [SEED...]   (some seeds only; DIR keeps the files)
set -u
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$top/build/host/pcviz-asan
plain=$top/build/host/pcviz
fixtures=$top/tests/fixtures/replay
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "${1:-}" = --keep ]; then
	tmp=$2
	mkdir -p "$tmp"
	trap - EXIT
	shift 2
fi
for b in "$bin" "$plain"; do
	if [ ! -x "$b" ]; then
		fail "$b is built (make check builds it)"
		done_testing
		exit
	fi
done

# Crashes in the libraries that pcviz cannot avoid (docs/pcviz.md), by seed
# (a case is a function of its seed and the fixtures: a new fixture, new seeds).
# trace-cmd report crashes on each of them too.
known_crash() {
	case "$1" in
	3022 | 3023) echo "libtraceevent's tep_parse_event() dereferences NULL on dropbehind_end's" \
		"print format, whose __print_symbolic() names a field the format lacks" ;;
	7045) echo "libtraceevent's kbuffer_load_subbuffer() reads past a data page whose length" \
		"word is corrupt, in format 7, whose compressed pages pcviz cannot check first" ;;
	*) return 1 ;;
	esac
}

# Sanitizer reports go to files, one set per case; stderr stays pcviz's.
# Libraries asked for absurd sizes get NULL, as without ASan, and ASan only
# warns; so does one over 1 GiB, as under a memory limit: libtracecmd took
# a corrupt header's size for 2.6 GB, which LeakSanitizer then scanned page
# by page (5.5 s of system time idle, past the 10 s limit in a busy CI run;
# seed 7016).  pcviz's largest block is 64 MiB.  Leaks are looked for in the intact fixtures, the findings and one
# case in ten (the search costs 0.15 s of CPU a run); those inside
# libtracecmd and libtraceevent are theirs, suppressed by library (with
# their sscanf("%ms"), which pcviz never calls), not by case.
printf '%s\n' leak:libtracecmd.so leak:libtraceevent.so leak:__isoc99_vsscanf >"$tmp/lsan.supp"
export LSAN_OPTIONS=suppressions=$tmp/lsan.supp:print_suppressions=0
mkdir -p "$tmp/cases" "$tmp/san" "$tmp/out"

# replay BIN FILE NAME [LEAKS]: runs one case; its status in $tmp/out/NAME.status
replay() {
	ASAN_OPTIONS=detect_leaks=${4:-1}:allocator_may_return_null=1:max_allocation_size_mb=1024:log_path=$tmp/san/$3 \
		UBSAN_OPTIONS=print_stacktrace=1:log_path=$tmp/san/$3 \
		prlimit --cpu=10:12 "$1" --replay "$2" --json -i 0.01 \
		>"$tmp/out/$3.out" 2>"$tmp/out/$3.err"
	echo $? >"$tmp/out/$3.status"
}
# reports NAME: the sanitizer's errors for case NAME (its allocation warnings aside)
reports() {
	cat "$tmp/san/$1".* 2>/dev/null | grep -E 'ERROR: |runtime error|Sanitizer:DEADLYSIGNAL'
}
# one_line NAME: the case failed cleanly: status 1, one line from pcviz on stderr
one_line() {
	[ "$(cat "$tmp/out/$1.status")" = 1 ] && [ "$(wc -l <"$tmp/out/$1.err")" = 1 ] &&
		grep -q '^pcviz: ' "$tmp/out/$1.err"
}

# The intact fixtures replay the recorded workload: 64 pages, all cached at the end.
for f in v6 v7-zstd; do
	replay "$bin" "$fixtures/$f.dat" "$f"
	is "$(cat "$tmp/out/$f.status")" 0 "$f.dat (as recorded) replays, status 0"
	ok "jq -n -R -e '[inputs | fromjson] | last
	| [.files, .pages, .cached, .ev_add, .ev_db_mark] == [1, 64, 64, 192, 64]' '$tmp/out/$f.out'" "... 64 pages, all cached at the end; 192 adds, 64 drop-behind marks"
	is "$(reports "$f")" "" "... no sanitizer report"
done

python3 "$top/tests/host/trace-mutate.py" "$fixtures/v6.dat" "$fixtures/v7-zstd.dat" "$tmp/cases" "$@"

# The findings of the review (issue #15), each by its case: status 1 and the message.
# finding SEED-DESCRIPTION-PATTERN MESSAGE-PATTERN DESC
finding() {
	local seed
	seed=$(grep -m 1 -E "^[0-9]+ [a-z0-9-]+ $1\$" "$tmp/cases/cases" | cut -d' ' -f1)
	if [ -z "$seed" ]; then
		skip "$3" "its case is not among the seeds asked for"
		return
	fi
	for build in "$plain" "$bin"; do
		replay "$build" "$tmp/cases/$seed.dat" "finding-$seed"
		if one_line "finding-$seed" && grep -qE "$2" "$tmp/out/finding-$seed.err" &&
			[ -z "$(reports "finding-$seed")" ]; then
			pass "$3 (seed $seed, ${build##*/}): $(cat "$tmp/out/finding-$seed.err")"
		else
			fail "$3 (seed $seed, ${build##*/})" "status $(cat "$tmp/out/finding-$seed.status"): $(
				head -n 3 "$tmp/out/finding-$seed.err"; reports "finding-$seed" | head -n 3)"
		fi
	done
}
first_page=$(python3 -c 'import struct,sys
d = open(sys.argv[1], "rb").read()
p = d.index(b"flyrecord\0") + 10
print(struct.unpack_from("<Q", d, p)[0])' "$fixtures/v6.dat")
finding "cut at byte $first_page of [0-9]+" "cut short" \
	"F1b: a trace cut at its first data page"
finding "mm_filemap_add_to_page_cache: s_dev renamed" "has no usable field s_dev" \
	"F2: an event format without a field"
finding "page size 0" "pages of 0" "F13: a page size of 0"
finding "a mark of 4294967295 pages" "past what pcviz replays" \
	"F14: a drop-behind mark of 2^32-1 pages"

# Every case, by class
declare -A total crashed reported hung unclear fine
while read -r seed class what; do
	if reason=$(known_crash "$seed"); then
		skip "$class seed $seed ($what)" "known crash in the libraries: $reason (docs/pcviz.md)"
		continue
	fi
	replay "$bin" "$tmp/cases/$seed.dat" "$seed" "$((seed % 10 == 0))"
	status=$(cat "$tmp/out/$seed.status")
	total[$class]=$((${total[$class]:-0} + 1))
	if [ -n "$(reports "$seed")" ]; then
		reported[$class]="${reported[$class]:-} $seed"
	elif [ "$status" -eq 152 ] || [ "$status" -eq 137 ]; then
		hung[$class]="${hung[$class]:-} $seed"	# SIGXCPU, then SIGKILL: 10 s of CPU
	elif [ "$status" -gt 128 ]; then
		crashed[$class]="${crashed[$class]:-} $seed"
	elif one_line "$seed" || { [ "$status" = 0 ] && ! grep -qv '^pcviz: ' "$tmp/out/$seed.err"; }; then
		fine[$class]="${fine[$class]:-} $seed"
	else
		unclear[$class]="${unclear[$class]:-} $seed"
	fi
done <"$tmp/cases/cases"

# show CLASS SEEDS: a diagnostic per seed, with how to reproduce it
show() {
	local seed
	for seed in $2; do
		diag "seed $seed ($(grep "^$seed " "$tmp/cases/cases" | cut -d' ' -f3-)): status $(cat "$tmp/out/$seed.status")"
		diag "$(head -n 3 "$tmp/out/$seed.err"; reports "$seed" | head -n 3)"
	done
	[ -z "$2" ] || diag "reproduce: tests/host/pcviz-fuzz.sh --keep DIR SEED, then pcviz --replay DIR/cases/SEED.dat"
}
for class in $(printf '%s\n' "${!total[@]}" | sort); do
	n=${total[$class]}
	bad="${crashed[$class]:-}${reported[$class]:-}${hung[$class]:-}"
	if [ -z "$bad" ]; then
		pass "$class: $n case(s), no signal, no sanitizer report, no case over 10 s of CPU"
	else
		fail "$class: $n case(s), no signal, no sanitizer report, no case over 10 s of CPU"
		show "$class" "$bad"
	fi
	if [ -z "${unclear[$class]:-}" ]; then
		pass "$class: each ends with status 1 and one line on stderr, or 0 and JSON"
	else
		fail "$class: each ends with status 1 and one line on stderr, or 0 and JSON"
		show "$class" "${unclear[$class]}"
	fi
done
# the successes' output: JSON lines, every one
outs=()
for class in "${!fine[@]}"; do
	read -ra seeds <<<"${fine[$class]}"
	for seed in "${seeds[@]}"; do
		[ "$(cat "$tmp/out/$seed.status")" != 0 ] || outs+=("$tmp/out/$seed.out")
	done
done
ok "iconv -f UTF-8 -t UTF-8 ${outs[*]} </dev/null >/dev/null &&
	jq -n -R 'inputs | fromjson | empty' ${outs[*]} </dev/null" "the ${#outs[@]} cases that replay print JSON lines only"
done_testing
