#!/bin/bash
# pcviz --replay against broken trace.dat files, by both builds, the plain
# one and the AddressSanitizer+UBSan one.  The seeds: the recorded fixtures
# of tests/fixtures/replay (trace-cmd formats 6 and 7, zstd: v6.dat,
# v7-zstd.dat, writes.dat) and two converted ones (convert.sh there: format
# 7 uncompressed, v7-none.dat; writes.dat in format 6, writes-v6.dat).  The
# cases (tests/host/trace-mutate.py, each a function of its seed): cuts,
# flipped bytes, format texts, header values and events edited, and the
# corpus of the audit shared/reviews/hostile-input-2.md: cuts at every
# boundary of each seed and the bytes beside it, every field of the
# structure set to the edges of its width and of the file's size, option
# contents, hand-made option bodies, data-page lengths and times, and every
# reproducer of the audit.
#
# Every case must end in a clean exit: 0 with JSON lines (and perhaps
# pcviz's warnings), or 1 with one line on stderr.  Counted as failures: a
# signal; a sanitizer report on pcviz's code; more than 10 s of CPU (a
# limit on CPU time, not wall time: the machine is shared), or pcviz saying
# its decoding child spent more; more than 64 MiB of output (R2-5 wrote
# without end); pcviz out of memory under the memory limit (the plain
# build: 1 GiB of address space; under ASan a request over 1 GiB fails, and
# 1 GiB resident ends the process).  What
# libtracecmd does in pcviz's decoding child is no failure when pcviz then
# says the trace is corrupt, status 1: counted apart, each kind a library bug
# of docs/pcviz.md (a crash, an exit, a report of ASan's interceptors on a
# library's own call, an allocation of the library refused at the limit).
#
# By default: every reproducer and hand-made option, one in 8 of the first
# classes (seeds below 10000), one in 80 of the audit's corpus: 212 cases,
# 424 runs, and 54 more for the findings and the intact fixtures: 1 min 32 s
# to 1 min 44 s here (2 cores, load 4 to 5, a kernel build beside it; 4 min
# 11 s with 356 cases).  --all runs every case: 6262 cases, 12524 runs, 25
# to 35 minutes (docs/pcviz.md, "The fuzz test"); SEEDs run only those.
#
# Usage: pcviz-fuzz.sh [--keep DIR] [--all] [SEED...]   (DIR keeps the files)
set -u
# shellcheck source=../lib/host/preamble.sh
. "$(dirname "$0")/../lib/host/preamble.sh"
asan=$top/build/host/pcviz-asan
plain=$top/build/host/pcviz
fixtures=$top/tests/fixtures/replay
if [ "${1:-}" = --keep ]; then
	rm -rf "$tmp"
	tmp=$2
	mkdir -p "$tmp"
	trap - EXIT
	shift 2
fi
all=0
if [ "${1:-}" = --all ]; then
	all=1
	shift
fi
for b in "$asan" "$plain"; do
	if [ ! -x "$b" ]; then
		fail "$b is built (make check builds it)"
		done_testing
		exit
	fi
done

# Sanitizer reports go to files, one set per case; stderr stays pcviz's.
# Libraries asked for absurd sizes get NULL, as without ASan, and ASan only
# warns (counted: an allocation past the limit); so does one over 1 GiB, as
# under a memory limit.  Leaks are looked for in the intact fixtures, the
# findings and one case in ten (the search costs 0.15 s of CPU a run);
# those inside libtracecmd and libtraceevent are theirs, suppressed by
# library (with their sscanf("%ms"), which pcviz never calls), not by case.
printf '%s\n' leak:libtracecmd.so leak:libtraceevent.so leak:__isoc99_vsscanf >"$tmp/lsan.supp"
export LSAN_OPTIONS=suppressions=$tmp/lsan.supp:print_suppressions=0
mkdir -p "$tmp/cases" "$tmp/san" "$tmp/out"
out_limit=$((64 << 20))

# replay BUILD FILE NAME [LEAKS]: runs one case by pcviz (plain) or
# pcviz-asan (asan); its status in $tmp/out/NAME.status
replay() {
	if [ "$1" = asan ]; then
		ASAN_OPTIONS=detect_leaks=${4:-1}:allocator_may_return_null=1:max_allocation_size_mb=1024:hard_rss_limit_mb=1024:log_path=$tmp/san/$3 \
			UBSAN_OPTIONS=print_stacktrace=1:log_path=$tmp/san/$3 \
			prlimit --cpu=10:12 --fsize="$out_limit" "$asan" --replay "$2" --json -i 0.01 \
			>"$tmp/out/$3.out" 2>"$tmp/out/$3.err"
	else
		prlimit --cpu=10:12 --fsize="$out_limit" --as=$((1 << 30)) "$plain" --replay "$2" \
			--json -i 0.01 >"$tmp/out/$3.out" 2>"$tmp/out/$3.err"
	fi
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

# The intact seeds replay the recorded workloads, by both builds.
final() { # NAME: the last line's counts, without what names the file or the time it took
	jq -n -R -c '[inputs | fromjson] | last | del(.events_why, .refresh_us, .time) |
		[.files, .pages, .cached, .ev_add, .ev_delete, .ev_db_mark, .ev_dirty, .wr_to_dropped]' \
		"$tmp/out/$1.out" 2>/dev/null
}
for f in v6 v7-zstd v7-none writes writes-v6; do
	for build in plain asan; do
		replay "$build" "$fixtures/$f.dat" "$f-$build"
		is "$(cat "$tmp/out/$f-$build.status"),$(wc -c <"$tmp/out/$f-$build.err")$(reports "$f-$build")" \
			"0,0" "$f.dat (as recorded) replays by $build: status 0, nothing on stderr, no report"
	done
done
is "$(final v6-plain) $(final v7-zstd-plain) $(final v7-none-asan)" \
	"[1,64,64,192,128,64,0,0] [1,64,64,192,128,64,0,0] [1,64,64,192,128,64,0,0]" \
	"v6, v7-zstd and v7-none: 64 pages, all cached at the end; 192 adds, 128 deletes, 64 marks"
is "$(final writes-v6-asan)" "$(final writes-plain)" "writes.dat in format 6: the same counts as in 7"

if [ "$all" = 1 ]; then
	python3 "$top/tests/host/trace-mutate.py" "$fixtures" "$tmp/cases" --all
else
	python3 "$top/tests/host/trace-mutate.py" "$fixtures" "$tmp/cases" "$@"
fi

# case_file SEED...: writes the SEEDs' files where a sample left them out
case_file() {
	local seed missing=()
	for seed in "$@"; do
		[ -e "$tmp/cases/$seed.dat" ] || missing+=("$seed")
	done
	[ ${#missing[@]} = 0 ] || python3 "$top/tests/host/trace-mutate.py" "$fixtures" "$tmp/cases" --add "${missing[@]}"
}

# The findings of the reviews (issues #15 and #26), each by its case: status 1 and the message.
# finding SEED-DESCRIPTION-PATTERN MESSAGE-PATTERN DESC
finding() {
	local seed build
	seed=$(grep -m 1 -E "^[0-9]+ [a-z0-9-]+ $1\$" "$tmp/cases/cases" | cut -d' ' -f1)
	if [ -z "$seed" ]; then
		skip "$3" "its case is not among the seeds asked for"
		return
	fi
	case_file "$seed"
	for build in plain asan; do
		replay "$build" "$tmp/cases/$seed.dat" "finding-$seed-$build"
		if one_line "finding-$seed-$build" && grep -qE "$2" "$tmp/out/finding-$seed-$build.err" &&
			[ -z "$(reports "finding-$seed-$build")" ]; then
			pass "$3 (seed $seed, $build): $(cat "$tmp/out/finding-$seed-$build.err")"
		else
			fail "$3 (seed $seed, $build)" "status $(cat "$tmp/out/finding-$seed-$build.status"): $(
				head -n 3 "$tmp/out/finding-$seed-$build.err"; reports "finding-$seed-$build" | head -n 3)"
		fi
	done
}
first_page=$(python3 -c 'import struct,sys
d = open(sys.argv[1], "rb").read()
p = d.index(b"flyrecord\0") + 10
print(struct.unpack_from("<Q", d, p)[0])' "$fixtures/v6.dat")
finding "cut at byte $first_page of [0-9]+" "cut short" \
	"F1b: a trace cut at its first data page"
finding "mm_filemap_add_to_page_cache: s_dev renamed" 'has no usable field s_dev|names a field "s_dev"' \
	"F2: an event format without a field"
finding "page size 0" "pages of 0" "F13: a page size of 0"
finding "a mark of 4294967295 pages" "past what pcviz replays" \
	"F14: a drop-behind mark of 2^32-1 pages"
finding "R2-4 format 7 uncompressed, first page's length 0xffffffff" "claims [0-9]+ bytes, more than it holds" \
	"R2-4: a page length of format 7 uncompressed"
finding "R2-4 format 7, the second options section's DONE pointing back at it" "point back to one already read" \
	"R2-4: options sections in a cycle"
finding "R2-4 format 7, the first options section's DONE pointing at itself" "point back to one already read" \
	"R2-4: an options section pointing at itself"
finding "R2-4 format 6, the UNAME option's id 5 made HOOK \(6\)" "with a HOOK option" \
	"R2-4: a HOOK option that is no hook"
for at in 24 27 31; do
	finding "R2-4 format 7 cut at byte $at" "cut short" "R2-4: format 7 cut at byte $at"
done
finding "R2-4 format 7, a CPUSTAT of size 0" "corrupt trace.dat" "R2-4: a CPUSTAT option of size 0"
finding "R2-16 format 6, an event format's size 1" "is not an event format" \
	"R2-16: an event format's size 1, the formats after it shifted"
finding "R2-16 format 7 uncompressed, byte 153 \(the page header's format\) flipped" "page header's format" \
	"R2-16: the page header's format flipped (byte 153)"
finding "R2-16 format 7 uncompressed, byte 148 \(the page header's format\) flipped" "page header's format" \
	"R2-16: the page header's format flipped (byte 148)"
finding "R2-16 v7-zstd.dat byte 9693 \(compressed data\) flipped" "corrupt" \
	"R2-16: compressed data flipped (v7-zstd.dat byte 9693)"
finding "R2-16 writes.dat byte 11031 \(compressed data\) flipped" "corrupt" \
	"R2-16: compressed data flipped (writes.dat byte 11031)"
finding "R2-16b format 6, a printk format without its colon" "printk format at byte [0-9]+ is no" \
	"R2-16b: a printk format without its colon (libtraceevent reads past the line)"
finding "R2-16b format 6, a printk format of 1 byte" "printk format at byte [0-9]+ is no" \
	"R2-16b: a printk format of 1 byte (libtraceevent reads before it)"
finding "R2-16 an add of order 32" "claims 4294967296 pages" "R2-16: a folio of order 32 is 2^32 pages"
# replays, not refusals: a gap of 2^63 ns (R2-5), format 6 without options (R2-15)
seed=$(grep -m 1 -E "^[0-9]+ repro R2-5 " "$tmp/cases/cases" | cut -d' ' -f1)
seed15=$(grep -m 1 -E "^[0-9]+ repro R2-15 " "$tmp/cases/cases" | cut -d' ' -f1)
if [ -n "$seed" ] && [ -n "$seed15" ]; then
	case_file "$seed" "$seed15"
	for build in plain asan; do
		replay "$build" "$tmp/cases/$seed.dat" "finding-$seed-$build"
		ok "[ \$(cat '$tmp/out/finding-$seed-$build.status') = 0 ] &&
			[ \$(wc -l <'$tmp/out/finding-$seed-$build.out') -le 30 ]" \
			"R2-5: a page 2^63 ns late replays in $(wc -l <"$tmp/out/finding-$seed-$build.out") lines, not without end ($build)"
		replay "$build" "$tmp/cases/$seed15.dat" "finding-$seed15-$build"
		is "$(cat "$tmp/out/finding-$seed15-$build.status") $(final "finding-$seed15-$build")" \
			"0 $(final v6-plain)" "R2-15: format 6 without an options section replays as with it ($build)"
	done
else
	skip "R2-5 and R2-15" "their cases are not among the seeds asked for"
fi

# The cases run one after the other (the machine is shared), each by both builds
while read -r seed class; do
	for build in plain asan; do
		replay "$build" "$tmp/cases/$seed.dat" "$seed-$build" "$((seed % 10 == 0))"
	done
done <"$tmp/cases/run"

# What the runs said, read in a few passes over all of them: the names of
# the runs (SEED-BUILD) whose files match
runs_with() { # PATTERN DIR SUFFIX
	grep -lE -- "$1" "$tmp/$2"/*"$3" 2>/dev/null | sed -E "s|^$tmp/$2/||; s|$3\$||; s|\.[0-9]+\$||" | sort -u
}
declare -A report lib_report refused died spent
while read -r name; do report[$name]=1; done < <(runs_with 'ERROR: |runtime error|Sanitizer:DEADLYSIGNAL' san '')
while read -r name; do refused[$name]=1; done < <(runs_with 'failed to allocate' san '')
while read -r name; do died[$name]=1; done < <(runs_with 'libtracecmd (died of|failed reading)' out .err)
while read -r name; do spent[$name]=1; done < <(runs_with 'of CPU on it' out .err)
# A report of AddressSanitizer's interceptors on a library's call (the
# libraries are not instrumented: their own accesses go unseen), in the
# decoding child: the library's bug, which the child contains as a crash.
for name in "${!report[@]}"; do
	if cat "$tmp/san/$name".* | awk '
		/^ +#[0-9]+ / && !/libsanitizer|__interceptor_|__asan_|__sanitizer_/ {
			if (!seen++) lib = /lib(tracecmd|traceevent)\.so/ }
		/ in decode_child / { child = 1 }
		/runtime error/ { ub = 1 }
		END { exit !(lib && child && !ub) }'; then
		unset "report[$name]"
		lib_report[$name]=1
	fi
done

declare -A total bad unclear contained fine figure
while read -r seed class; do
	for build in plain asan; do
		name=$seed-$build
		read -r status <"$tmp/out/$name.status"
		mapfile -t err <"$tmp/out/$name.err"
		total[$class]=$((${total[$class]:-0} + 1))
		figure[$build cases]=$((${figure[$build cases]:-0} + 1))
		what=
		if [ -n "${report[$name]:-}" ]; then
			what=report
		elif [[ ${err[*]:-} == *'out of memory'* || ${err[*]:-} == *'Cannot allocate memory'* ]]; then
			what=allocation	# pcviz's own allocation refused at the memory limit
		elif [ "$status" = 152 ] || [ "$status" = 137 ] || [ -n "${spent[$name]:-}" ]; then
			what=hang	# SIGXCPU, then SIGKILL: 10 s of CPU; or the child's budget
		elif [ "$status" = 153 ] || [ "$(stat -c %s "$tmp/out/$name.out")" -ge "$out_limit" ]; then
			what=output	# SIGXFSZ: the output limit
		elif [ "$status" -gt 128 ]; then
			what=crash
		fi
		if [ -n "$what" ]; then
			bad[$class]="${bad[$class]:-} $seed:$build:$what"
			figure[$build $what]=$((${figure[$build $what]:-0} + 1))
			continue
		fi
		[ -z "${refused[$name]:-}" ] || figure[$build refused]=$((${figure[$build refused]:-0} + 1))
		if [ -n "${died[$name]:-}" ] || [ -n "${lib_report[$name]:-}" ]; then
			contained[$class]="${contained[$class]:-} $seed:$build"
			figure[$build contained]=$((${figure[$build contained]:-0} + 1))
		fi
		if { [ "$status" = 1 ] && [ "${#err[@]}" = 1 ] && [[ ${err[0]} == 'pcviz: '* ]]; } ||
			{ [ "$status" = 0 ] && { [ "${#err[@]}" = 0 ] || ! printf '%s\n' "${err[@]}" | grep -qv '^pcviz: '; }; }; then
			fine[$class]="${fine[$class]:-} $name"
			figure[$build status $status]=$((${figure[$build status $status]:-0} + 1))
		else
			unclear[$class]="${unclear[$class]:-} $seed:$build"
		fi
	done
done <"$tmp/cases/run"

# show SEED:BUILD...: a diagnostic per case, with how to reproduce it
show() {
	local item seed build
	for item in "$@"; do
		seed=${item%%:*} build=${item#*:}
		build=${build%%:*}
		diag "seed $seed ($(grep "^$seed " "$tmp/cases/cases" | cut -d' ' -f3-)), $build: status $(cat "$tmp/out/$seed-$build.status")"
		diag "$(head -n 3 "$tmp/out/$seed-$build.err"; reports "$seed-$build" | head -n 3)"
	done
	[ $# = 0 ] || diag "reproduce: tests/host/pcviz-fuzz.sh --keep DIR SEED, then pcviz --replay DIR/cases/SEED.dat"
}
for class in $(printf '%s\n' "${!total[@]}" | sort); do
	n=${total[$class]}
	if [ -z "${bad[$class]:-}" ]; then
		pass "$class: $n runs, no signal, sanitizer report, hang, unbounded output or allocation"
	else
		fail "$class: $n runs, no signal, sanitizer report, hang, unbounded output or allocation"
		# shellcheck disable=SC2086 # a list of cases
		show ${bad[$class]}
	fi
	if [ -z "${unclear[$class]:-}" ]; then
		pass "$class: each ends with status 1 and one line on stderr, or 0 and JSON"
	else
		fail "$class: each ends with status 1 and one line on stderr, or 0 and JSON"
		# shellcheck disable=SC2086 # a list of cases
		show ${unclear[$class]}
	fi
	[ -z "${contained[$class]:-}" ] ||
		diag "$class: libtracecmd died or failed in pcviz's decoding child, pcviz said so:${contained[$class]}"
done
for build in plain asan; do
	diag "$build: ${figure[$build cases]:-0} runs: ${figure[$build status 0]:-0} replayed, ${figure[$build status 1]:-0} refused with one line" \
		"(${figure[$build contained]:-0} of them after libtracecmd died or failed in the decoding child;" \
		"${figure[$build refused]:-0} after a library's allocation past the limit was refused);" \
		"${figure[$build crash]:-0} crashes, ${figure[$build report]:-0} sanitizer reports, ${figure[$build hang]:-0} hangs," \
		"${figure[$build output]:-0} unbounded outputs, ${figure[$build allocation]:-0} allocations past the limit"
done
# the successes' output: JSON lines, every one
outs=()
for class in "${!fine[@]}"; do
	read -ra names <<<"${fine[$class]}"
	for name in "${names[@]}"; do
		read -r status <"$tmp/out/$name.status"
		[ "$status" != 0 ] || outs+=("$tmp/out/$name.out")
	done
done
ok "iconv -f UTF-8 -t UTF-8 ${outs[*]} </dev/null >/dev/null &&
	jq -n -R 'inputs | fromjson | empty' ${outs[*]} </dev/null" "the ${#outs[@]} runs that replay print JSON lines only"
done_testing
