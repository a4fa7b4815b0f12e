#!/bin/bash
# pcviz on the host, batch mode: its input checks and errors, CSV and JSON
# lines, residency of real files against fincore(1), files deleted or
# truncated while watched, no events without root.  The host kernel is never
# traced: every run on real files has --no-events, or runs as nobody (pcviz
# then stops before touching tracefs).
set -u
# shellcheck source=../lib/host/preamble.sh
. "$(dirname "$0")/../lib/host/preamble.sh"
bin=$top/build/host/pcviz
guest_bin=$top/build/guest/bin/pcviz
chmod 755 "$tmp"
if [ ! -x "$bin" ]; then
	fail "$bin is built (make pcviz)"
	done_testing
	exit
fi
live() { "$bin" --no-events "$@"; }
# field NAME FILE [LINE]: a CSV column by its header name, from line LINE (default: last)
field() {
	awk -F, -v name="$1" -v want="${3:-0}" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		{ last = $(col[name]); if (NR - 1 == want) { print last; found = 1; exit } }
		END { if (!found) print last }' "$2"
}

"$bin" --help >"$tmp/out" 2>&1
is "$?" 0 "--help succeeds"
ok "grep -q '^Usage: pcviz \\[options\\] FILE|DIR' '$tmp/out' && grep -q -- '--replay' '$tmp/out'" \
	"--help prints the usage with every option"

"$bin" >"$tmp/out" 2>&1
is "$?" 2 "no file: usage error, status 2"
ok "grep -q 'no FILE or DIR' '$tmp/out' && grep -q \"Try 'pcviz --help'\" '$tmp/out'" \
	"... says what is missing and where to look"
"$bin" --interval 0 "$tmp" >"$tmp/out" 2>&1
is "$?" 2 "--interval 0 is refused"
ok "grep -q 'interval 0: not a number of seconds' '$tmp/out'" "... with the allowed range"
"$bin" --count -3 "$tmp" >"$tmp/out" 2>&1
is "$?" 2 "--count -3 is refused"

live "$tmp/missing" >"$tmp/out" 2>&1
is "$?" 1 "a missing file: status 1"
ok "grep -q 'missing: No such file or directory' '$tmp/out'" "... named, with the reason"
mkdir "$tmp/empty" "$tmp/empty/sub"
live "$tmp/empty" >"$tmp/out" 2>&1
is "$?" 1 "a directory without regular files: status 1"
ok "grep -q 'empty: no regular files in this directory' '$tmp/out'" "... says so"
live /dev/null >"$tmp/out" 2>&1
is "$?" 1 "a device: status 1"
ok "grep -q 'not a regular file or a directory' '$tmp/out'" "... says it is not a regular file"
head -c 4096 /dev/zero >"$tmp/secret"
chmod 600 "$tmp/secret"
setpriv --reuid=nobody --regid=nogroup --clear-groups "$bin" --no-events "$tmp/secret" >"$tmp/out" 2>&1
is "$?" 1 "a file nobody may read: status 1"
ok "grep -q 'secret: Permission denied' '$tmp/out'" "... Permission denied"

# synthetic source: deterministic numbers
"$bin" --synthetic --count 3 >"$tmp/syn.csv" 2>"$tmp/err"
is "$?" 0 "--synthetic --count 3 succeeds"
is "$(wc -l <"$tmp/syn.csv")" 4 "batch CSV: a header and one line per interval"
is "$(awk -F, 'NR > 1 { printf "%s ", $4 }' "$tmp/syn.csv")" "4096 8192 12288 " \
	"batch CSV: the cached column follows the synthetic read"
is "$(field ev_add "$tmp/syn.csv")" 3072 "batch CSV: events counted (ev_add)"
# an --events list of any length is read to its end (it was cut at 255
# characters, silently dropping what came after)
long=$(printf 'db_call,%.0s' $(seq 40))nosuch
"$bin" --synthetic --count 1 --events "$long" >/dev/null 2>"$tmp/err"
is "$?,$(head -n 1 "$tmp/err")" "2,pcviz: --events: 'nosuch' is not an event name" \
	"a ${#long}-character --events list is read to its last name"
"$bin" --synthetic --json --count 2 >"$tmp/syn.json"
ok "jq -n -R -e '[inputs | fromjson]
	| all(.[]; .lost == 0 and .events == \"on\" and .per_file[0].pages == 16384)' '$tmp/syn.json'" "--json: every line is a JSON object with lost, events and per-file values"
head -n 1 "$tmp/syn.csv" | tr , '\n' >"$tmp/cols"
jq -n -R -r 'input | fromjson | keys_unsorted[] | select(. != "per_file")' \
	"$tmp/syn.json" >"$tmp/keys"
ok "cmp -s '$tmp/cols' '$tmp/keys'" "CSV columns and JSON keys are the same names, in the same order"

# real files on the host's page cache, without events
head -c 4M /dev/urandom >"$tmp/f"
sync "$tmp/f"
python3 -c 'import os,sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$tmp/f"
live --count 1 -i 0.1 "$tmp/f" >"$tmp/cold.csv" 2>"$tmp/err"
is "$(field cached "$tmp/cold.csv"),$(field pages "$tmp/cold.csv")" "0,1024" \
	"a 4 MiB file after POSIX_FADV_DONTNEED: 0 of 1024 pages cached"
# The host may reclaim some of the file's pages at any time: a count is
# checked against fincore's just before and just after the run, never
# against 1024.  live_agrees LABEL OPTION...: read the file, run pcviz.
fincore_pages() {
	fincore --noheadings --output PAGES "$tmp/f" | tr -d ' '
}
live_agrees() {
	local label=$1 before after got
	shift
	cat "$tmp/f" >/dev/null
	before=$(fincore_pages)
	live "$@" --count 1 -i 0.1 "$tmp/f" >"$tmp/agrees.csv" 2>"$tmp/err"
	after=$(fincore_pages)
	got=$(field cached "$tmp/agrees.csv")
	if [ -n "$got" ] && [ "$got" -le "$before" ] && [ "$got" -ge "$after" ]; then
		pass "$label: cached ($got) agrees with fincore just before ($before) and after ($after)"
	else
		fail "$label: cached agrees with fincore just before and after" \
			"got '$got', fincore $before before, $after after"
	fi
}
live_agrees "after reading it"
cp "$tmp/agrees.csv" "$tmp/warm.csv"
is "$(field residency "$tmp/warm.csv")" cachestat "residency comes from cachestat"
is "$(field events "$tmp/warm.csv"),$(field events_why "$tmp/warm.csv")" "off,--no-events given" \
	"--no-events: the events columns say off and why"
ok "grep -q 'pcviz: no events: --no-events given' '$tmp/err'" "... and so does stderr"
live_agrees "--mincore" --mincore
is "$(field residency "$tmp/agrees.csv")" mincore "--mincore: residency labelled mincore"
# a directory stands for its regular files
head -c 8192 /dev/zero >"$tmp/empty/g"
live --count 1 -i 0.1 "$tmp/empty" "$tmp/f" >"$tmp/dir.csv" 2>/dev/null
is "$(field files "$tmp/dir.csv"),$(field pages "$tmp/dir.csv")" "2,1026" \
	"a directory and a file: 2 files, 1026 pages"

# A directory is followed: a file created in it later is watched, a file
# renamed in it keeps its pages under the new name.  Each step waits for
# pcviz's next line that shows it (at most 30 s), whatever the speed.
# wait_line COND: until the last JSON line satisfies the jq COND
wait_line() {
	local _
	for _ in $(seq 300); do
		tail -n 1 "$tmp/follow.json" 2>/dev/null | jq -e "$1" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}
mkdir "$tmp/followed"
head -c 1M /dev/zero >"$tmp/followed/a"
# pcviz itself in the background, not the function: $! is then its pid, which kill ends
"$bin" --no-events --json -i 0.1 "$tmp/followed" >"$tmp/follow.json" 2>/dev/null &
pid=$!
wait_line '.files == 1'
head -c 2M /dev/zero >"$tmp/followed/b"
if wait_line ".files == 2 and (.per_file | map(.path) | index([\"$tmp/followed/b\"]))"; then
	pass "a file created in a watched directory is watched without a restart"
else
	fail "a file created in a watched directory is watched without a restart" "$(tail -n 1 "$tmp/follow.json")"
fi
mv "$tmp/followed/a" "$tmp/followed/c"
if wait_line ".files == 2 and (.per_file[0] | .path == \"$tmp/followed/c\" and .pages == 256)"; then
	pass "a file renamed in it keeps its place and pages under the new name"
else
	fail "a file renamed in it keeps its place and pages under the new name" "$(tail -n 1 "$tmp/follow.json")"
fi
kill "$pid"
wait "$pid" 2>/dev/null

# the file deleted, then another truncated, while watched: pcviz keeps running and says so
cp "$tmp/f" "$tmp/doomed"
cp "$tmp/f" "$tmp/shrinks"
"$bin" --no-events --json --count 6 -i 0.1 "$tmp/doomed" "$tmp/shrinks" >"$tmp/change.json" 2>/dev/null &
pid=$!
sleep 0.25
rm "$tmp/doomed"
truncate -s 1M "$tmp/shrinks"
wait "$pid"
is "$?" 0 "files deleted and truncated while watched: pcviz keeps running"
ok "tail -n 1 '$tmp/change.json' | grep -q '\"state\":\"deleted\",\"note\":\"deleted while watched\"'" \
	"... the deleted file is shown as deleted"
ok "tail -n 1 '$tmp/change.json' | grep -q '\"pages\":256,.*\"state\":\"truncated\",\"note\":\"truncated from 4194304 to 1048576 bytes'" \
	"... the truncated one as truncated, with its new size"

# not root: no events, and why (pcviz stops before tracefs: safe on the host)
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$bin" "$@"; }
cp "$tmp/f" "$tmp/nobodys"
chown nobody "$tmp/nobodys"
as_nobody --count 1 -i 0.1 "$tmp/nobodys" >"$tmp/user.csv" 2>"$tmp/err"
is "$?" 0 "as nobody, pcviz runs on a file of nobody's"
is "$(field events "$tmp/user.csv"),$(field events_why "$tmp/user.csv")" \
	"off,not root: tracing needs root" "... without events, saying why in the batch output"
ok "grep -q 'pcviz: no events: not root' '$tmp/err'" "... and on stderr"

# Residency pcviz cannot know is "unknown", never a number: root's file,
# readable by all, a quarter of it cached, seen by nobody
python3 -c 'import os,sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
os.pread(fd, 1 << 20, 0)' "$tmp/f"
want=$(fincore --noheadings --output PAGES "$tmp/f" | tr -d ' ')
diag "root's file: $want of 1024 pages cached (fincore)"
# unknown NAME DESC REASON OPTIONS...: the checks for one way of asking
unknown() {
	local name=$1 how=$2 why=$3
	shift 3
	as_nobody --no-events --json --count 1 -i 0.1 "$@" "$tmp/f" "$tmp/nobodys" \
		>"$tmp/$name.json" 2>"$tmp/$name.err"
	is "$?" 3 "$how as nobody on root's file: exit status 3 (a file could not be inspected)"
	ok "jq -n -R -e 'input | fromjson
	| (.per_file | length == 2)
	and (.per_file[0] | .state == \"unknown\" and has(\"cached\") and .cached == null and .pages == 1024)
	and (.per_file[1] | .state == \"ok\" and .cached != null)
	and has(\"cached\") and .cached == null and .pages == 2048 and .states == \"unknown ok\"
' '$tmp/$name.json'" "... JSON: root's file unknown (null, not a number), the other ok; totals null"
	is "$(grep -c 'residency unknown' "$tmp/$name.err")" 1 "... one line about it on stderr"
	ok "grep -q '^pcviz: $tmp/f: residency unknown: $why' '$tmp/$name.err'" "... naming the file and why"
}
unknown mincore "--mincore" "mincore cannot tell" --mincore
unknown cachestat "cachestat" "cachestat refused"
as_nobody --no-events --count 2 -i 0.1 "$tmp/f" >"$tmp/unknown.csv" 2>"$tmp/unknown.err"
is "$?" 3 "CSV (the default): exit status 3 too"
is "$(field cached "$tmp/unknown.csv"),$(field pages "$tmp/unknown.csv"),$(field states "$tmp/unknown.csv")" \
	",1024,unknown" "... cached empty, not 0; the states column says unknown"
is "$(grep -c 'residency unknown' "$tmp/unknown.err")" 1 "... the reason on stderr once, not once per line"

# pseudo-filesystems have no page cache to show; devices are no files
for path in /proc/meminfo /proc /sys/kernel/mm/transparent_hugepage/enabled; do
	live --count 1 "$path" >"$tmp/out" 2>&1
	is "$?" 1 "$path: refused, status 1"
	ok "grep -q '^pcviz: $path: on a pseudo-filesystem ([a-z]*): it has no page cache to show' '$tmp/out'" \
		"... says why: $(head -n 1 "$tmp/out")"
done
live --count 1 /dev/null >"$tmp/out" 2>&1
ok "grep -q '^pcviz: /dev/null: a character device, not a regular file or a directory' '$tmp/out'" \
	"/dev/null: refused as a character device"

# a file name that is not UTF-8 is escaped in JSON, so that it decodes back to its bytes
mkdir "$tmp/names"
head -c 4096 /dev/zero >"$tmp/names/$(printf 'caf\351-\377\376')"
head -c 4096 /dev/zero >"$tmp/names/$(printf 'ok-\303\251')"
live --json --count 1 -i 0.1 "$tmp/names" >"$tmp/names.json" 2>/dev/null
# The one JSON check in python3: jq decodes pcviz's escape of a byte that
# is not UTF-8 (a lone surrogate, \udce9 for 0xe9) to U+FFFD, so only a
# decoder with surrogateescape gives the name's bytes back.
ok "python3 -c 'import json,os,sys
o = json.loads(open(sys.argv[1], \"rb\").read())
names = sorted(os.fsencode(os.path.basename(f[\"path\"])) for f in o[\"per_file\"])
assert names == [b\"caf\\xe9-\\xff\\xfe\", b\"ok-\\xc3\\xa9\"], names
' '$tmp/names.json'" "JSON of non-UTF-8 names is valid UTF-8 and gives the names' bytes back"

# more files than the limit: pcviz says so and how to raise it
mkdir "$tmp/many"
for i in $(seq 1 70); do : >"$tmp/many/$(printf 'f%03d' "$i")"; done
live --count 1 -i 0.1 "$tmp/many" >"$tmp/many.csv" 2>"$tmp/many.err"
is "$?" 0 "a directory of 70 files: pcviz runs"
is "$(field files "$tmp/many.csv")" 64 "... on the first 64"
ok "grep -q '^pcviz: 6 files not watched: pcviz watches 64 files (--max-files N raises it' '$tmp/many.err'" \
	"... and says how many are left out and how to raise the limit"
live --max-files 100 --count 1 -i 0.1 "$tmp/many" >"$tmp/many.csv" 2>"$tmp/many.err"
is "$(field files "$tmp/many.csv"),$(wc -l <"$tmp/many.err")" "70,1" "--max-files 100: all 70, no warning"

# a long name keeps its reason (the path is cut, not the reason)
long=$tmp/$(printf 'x%.0s' $(seq 1 5000))
live "$long" >"$tmp/out" 2>&1
is "$?" 1 "a 5000-character name: status 1"
ok "grep -q 'xxx: File name too long\$' '$tmp/out' && [ \$(wc -l <'$tmp/out') = 1 ]" \
	"... one line that ends with the reason"
"$bin" --replay "$long" >"$tmp/out" 2>&1
ok "grep -q 'xxx: File name too long\$' '$tmp/out'" "... with --replay too"

# files coming and going in a directory while pcviz scans it: never a failure
mkdir "$tmp/churn"
: >"$tmp/churn/anchor"
(
	while [ -e "$tmp/churn/anchor" ]; do
		for i in $(seq 1 40); do : >"$tmp/churn/c$i"; done
		rm -f "$tmp/churn"/c*
	done
) &
churn=$!
failed=0
for _ in $(seq 1 40); do
	live --count 1 -i 0.01 "$tmp/churn" >/dev/null 2>"$tmp/churn.err" || failed=$((failed + 1))
done
rm "$tmp/churn/anchor"
wait "$churn"
is "$failed" 0 "40 starts on a directory whose files come and go: none fails"
[ "$failed" = 0 ] || diag "$(cat "$tmp/churn.err")"

# auto batch mode when stdout is not a terminal (no --batch given)
live --count 1 -i 0.1 "$tmp/f" 2>/dev/null | head -n 1 >"$tmp/auto"
ok "grep -q '^time,files,pages,cached,' '$tmp/auto'" "stdout not a terminal: batch CSV by itself"

# a signal ends batch mode promptly
"$bin" --no-events -i 0.2 "$tmp/f" >/dev/null 2>&1 &
pid=$!
sleep 0.5
kill -TERM "$pid"
wait "$pid"
is "$?" 143 "SIGTERM ends a batch run (dies of the signal after cleaning up)"

# replay: the guest's static build has none; a bad trace file is refused
if [ -x "$guest_bin" ]; then
	"$guest_bin" --replay "$tmp/f" >"$tmp/out" 2>&1
	is "$?" 1 "the static guest build refuses --replay"
	ok "grep -q 'works in the host build only' '$tmp/out'" "... and says it is host-only"
else
	skip "the static guest build refuses --replay" "not built"
fi
"$bin" --replay "$tmp/f" >"$tmp/out" 2>&1
is "$?" 1 "--replay of a file that is no trace.dat: status 1"
ok "grep -q 'f: not a trace-cmd trace.dat$' '$tmp/out'" "... says so"

# --compare: two recorded traces (tests/fixtures/replay: one workload, in
# trace-cmd's formats 6 and 7, of different lengths), a line per run and
# interval, A's then B's, on one time axis
fixtures=$top/tests/fixtures/replay
a=$fixtures/v6.dat b=$fixtures/v7-zstd.dat
"$bin" --replay "$a" -i 0.01 >"$tmp/a.csv" 2>"$tmp/err" &&
	"$bin" --replay "$b" -i 0.01 >"$tmp/b.csv" 2>>"$tmp/err"
is "$?" 0 "--replay of each fixture, alone"
# split CSV: a compared run's lines, without the run column, as one run's: CSV.A, CSV.B
split() {
	local r
	for r in A B; do
		awk -F, -v run=$r 'NR == 1 || $1 == run' "$1" | cut -d, -f2- >"$1.$r"
	done
}
"$bin" --compare "$a" "$a" -i 0.01 >"$tmp/self.csv" 2>"$tmp/err"
is "$?" 0 "--compare A.dat A.dat: status 0"
ok "head -n 1 '$tmp/self.csv' | grep -q '^run,time,files,pages,cached,'" "... the CSV header leads with a run column"
is "$(awk -F, 'NR > 1 { print $1 }' "$tmp/self.csv" | uniq -c | awk '{ print $1 }' | sort -u | tr '\n' ' ')" \
	"1 " "... lines alternate, A then B"
split "$tmp/self.csv"
ok "[ \$(wc -l <'$tmp/self.csv.A') -gt 2 ] && cmp -s '$tmp/self.csv.A' '$tmp/self.csv.B'" \
	"a trace compared with itself: identical A and B values"
ok "cmp -s '$tmp/self.csv.A' '$tmp/a.csv'" "... and both are its --replay output"
"$bin" --compare "$a" "$b" -i 0.01 >"$tmp/ab.csv" 2>"$tmp/err"
is "$?,$(wc -c <"$tmp/err")" "0,0" "--compare of two different traces: status 0, nothing on stderr"
na=$(wc -l <"$tmp/a.csv") nb=$(wc -l <"$tmp/b.csv")
diag "A: $((na - 1)) lines alone, B: $((nb - 1)); compared: $(($(wc -l <"$tmp/ab.csv") - 1))"
split "$tmp/ab.csv"
# the run that ends first: the one whose last line alone is earlier
end_a=$(tail -n 1 "$tmp/a.csv" | cut -d, -f1) end_b=$(tail -n 1 "$tmp/b.csv" | cut -d, -f1)
short=$(awk -v a="$end_a" -v b="$end_b" 'BEGIN { print (a < b ? "A" : "B") }')
long=$([ "$short" = A ] && echo B || echo A)
shortcsv=$([ "$short" = A ] && echo "$tmp/a.csv" || echo "$tmp/b.csv")
longcsv=$([ "$short" = A ] && echo "$tmp/b.csv" || echo "$tmp/a.csv")
is "$(wc -l <"$tmp/ab.csv.$short"),$(wc -l <"$tmp/ab.csv.$long")" \
	"$(($(wc -l <"$shortcsv") + 2)),$(wc -l <"$longcsv")" \
	"... the run ending first ($short) has its lines, then two: idle after its end, and at the other's end"
head -n "$na" "$tmp/ab.csv.A" >"$tmp/ab.A.head"
head -n "$nb" "$tmp/ab.csv.B" >"$tmp/ab.B.head"
ok "cmp -s '$tmp/ab.A.head' '$tmp/a.csv'" "... A's values are its --replay output, line by line"
ok "cmp -s '$tmp/ab.B.head' '$tmp/b.csv'" "... B's values are its --replay output, line by line"
# after its end, the shorter run stays as it ended (its time going on)
is "$(tail -n 2 "$tmp/ab.csv.$short" | cut -d, -f2- | sort -u)" "$(tail -n 1 "$shortcsv" | cut -d, -f2-)" \
	"... the shorter run ($short) keeps its last values until the other ends"
end_long=$([ "$short" = A ] && echo "$end_b" || echo "$end_a")
is "$(tail -n 1 "$tmp/ab.csv.$short" | cut -d, -f1),$(awk -F, 'FNR == 2 { print $1 }' "$tmp/ab.csv.A" "$tmp/ab.csv.B" | tr '\n' ' ')" \
	"$end_long,0.010 0.010 " \
	"... both on one time axis: each from 0.010 s after its first event, the shorter's last line at the other's end"
is "$(awk -F, 'NR == 2 { print $2 }' "$tmp/ab.csv")" 0.010 "... which starts at the first interval"
"$bin" --replay "$a" --replay "$b" -i 0.01 >"$tmp/rr.csv" 2>/dev/null
ok "cmp -s '$tmp/rr.csv' '$tmp/ab.csv'" "--replay A --replay B is --compare A B"
"$bin" --compare "$a" "$b" -i 0.01 --json >"$tmp/ab.json" 2>/dev/null
"$bin" --replay "$b" -i 0.01 --json >"$tmp/b.json" 2>/dev/null
ok "jq -n -R -e --arg ab '$tmp/ab.json' '[inputs | {file: input_filename, o: fromjson}]
	| [.[] | select(.file == \$ab) | .o] as \$lines
	| [.[] | select(.file != \$ab) | .o] as \$alone
	| [\$lines[:4][] | .run] == [\"A\", \"B\", \"A\", \"B\"]
	and (\$lines[0] | keys_unsorted[:2] == [\"run\", \"time\"])
	and all(\$lines[]; has(\"run\"))
	and [\$lines[] | select(.run == \"B\") | del(.run)][:\$alone | length] == \$alone
' '$tmp/ab.json' '$tmp/b.json'" "--compare --json: a \"run\" key first; B's objects are its --replay output"
head -n 1 "$tmp/ab.csv" | tr , '\n' >"$tmp/cols"
jq -n -R -r 'input | fromjson | keys_unsorted[] | select(. != "per_file")' \
	"$tmp/ab.json" >"$tmp/keys"
ok "[ \"\$(head -n 1 '$tmp/cols')\" = run ] && cmp -s '$tmp/cols' '$tmp/keys'" \
	"... CSV columns and JSON keys the same, in the same order"

# a replay's stretch of idle intervals is written as its first and last
# lines: v6.dat has no event from 0.02 s to 0.13 s (R2-5)
is "$(cut -d, -f1 "$tmp/a.csv" | sed -n 2,5p | tr '\n' ' ')" "0.010 0.020 0.130 0.140 " \
	"--replay: an idle stretch is written as its first and last lines"
# a data page's timestamp 2^63 ns (a corrupt trace): two lines for the gap,
# not one a hundredth of a second for 292 years
python3 -c 'import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
p = d.index(b"flyrecord\0") + 10
struct.pack_into("<Q", d, struct.unpack_from("<Q", d, p)[0] + 4096, 1 << 63)
open(sys.argv[2], "wb").write(d)' "$a" "$tmp/gap.dat"
timeout 20 "$bin" --replay "$tmp/gap.dat" -i 0.01 >"$tmp/gap.csv" 2>"$tmp/err"
status=$?
ok "[ $status = 0 ] && [ $(wc -l <"$tmp/gap.csv") -le $((2 * $(wc -l <"$tmp/a.csv"))) ]" \
	"--replay of a trace whose second page is 2^63 ns late: status 0, at most twice the intact trace's lines ($(wc -l <"$tmp/gap.csv"))"
ok "awk -F, 'NR > 1 { t = \$1 } END { exit !(t > 9.2e9) }' '$tmp/gap.csv'" "... its last line 292 years on"

# a signal while libtracecmd reads a long trace stops pcviz at once, by that
# signal (R2-4: it went on reading); no decoding process is left behind
python3 "$top/tests/host/trace-mutate.py" --long 8000 "$a" "$tmp/long.dat"
"$bin" --replay "$tmp/long.dat" --json -i 3600 >/dev/null 2>"$tmp/err" &
pid=$!
sleep 0.3
start=$(date +%s%N)
kill -TERM "$pid"
killed=$?
wait "$pid"
status=$?
took=$((($(date +%s%N) - start) / 1000000))
ok "[ $killed = 0 ] && [ $status = 143 ] && [ $took -lt 1000 ]" \
	"SIGTERM while a long trace is read: pcviz ends by it within a second (status $status, $took ms)"
ok "! pgrep -f -- '^$bin --replay $tmp/long.dat' >/dev/null" "... and leaves no process reading the trace"
rm -f "$tmp/long.dat"

# --compare's errors: one line, and the usage hint when it is a usage error
# refused STATUS CASE PATTERN ARGS...: pcviz ARGS exits with STATUS, nothing on
# stdout, one line on stderr matching "pcviz: .*PATTERN" (grep -E), and
# after it "Try 'pcviz --help'." when STATUS is 2 (usage)
refused() {
	local want=$1 what=$2 pattern=$3 status hint=0
	shift 3
	[ "$want" = 2 ] && hint=1
	"$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	status=$?
	if [ "$status" = "$want" ] && [ ! -s "$tmp/out" ] &&
		[ "$(wc -l <"$tmp/err")" = $((1 + hint)) ] &&
		head -n 1 "$tmp/err" | grep -qE -- "^pcviz: .*$pattern" &&
		{ [ $hint = 0 ] || [ "$(tail -n 1 "$tmp/err")" = "Try 'pcviz --help'." ]; }; then
		pass "$what: status $want, $(head -n 1 "$tmp/err")"
	else
		fail "$what: status $want, one line matching '$pattern'" "status $status: $(cat "$tmp/err")"
	fi
}
refused 2 "--compare with one trace" 'needs two trace.dat files, A and B \(one given\)' --compare "$a"
refused 2 "--compare with live files (a directory to watch)" 'live files cannot be compared' \
	--compare "$tmp"
refused 2 "--compare alone" 'needs two trace.dat files, A and B \(none given\)' --compare
refused 2 "--compare with three traces" 'compares two traces, not more' --compare "$a" "$b" "$a"
refused 2 "--replay three times" 'at most two traces' --replay "$a" --replay "$b" --replay "$a"
refused 2 "--compare and --synthetic" '--compare and --synthetic exclude each other' \
	--compare "$a" "$b" --synthetic
# runtime errors: status 1, never a crash
refused 1 "--compare, the second trace missing" 'missing\.dat: No such file or directory$' \
	--compare "$a" "$tmp/missing.dat"
refused 1 "--compare, the second trace no trace.dat" '/f: not a trace-cmd trace\.dat$' \
	--compare "$a" "$tmp/f"
head -c 20000 "$a" >"$tmp/cut.dat"
refused 1 "--compare, the second trace cut short" 'cut\.dat: trace\.dat cut short or corrupt' \
	--compare "$a" "$tmp/cut.dat" --json
refused 1 "--compare, the first trace cut short" 'cut\.dat: trace\.dat cut short or corrupt' \
	--compare "$tmp/cut.dat" "$a"
if [ -x "$guest_bin" ]; then
	"$guest_bin" --compare "$a" "$b" >"$tmp/out" 2>&1
	is "$?" 1 "the static guest build refuses --compare"
	ok "grep -q -- '--compare works in the host build only' '$tmp/out'" "... and says it is host-only"
else
	skip "the static guest build refuses --compare" "not built"
fi

# the write timeline on a recorded trace with writes (tests/fixtures/replay/
# writes.dat, see writes.sh there): a 256 KiB uncached write and fsync of a
# (ino 12), a 256 KiB buffered write of b (ino 13), sync, a 64 KiB
# buffered write of c (ino 14), sync, an uncached append of 1000 bytes to
# c, whose page is kept as the end of the file and dropped at the close.
# Its expected transitions, counted from trace-cmd report's text when
# trace-cmd is here (the numbers below are that count, for hosts without
# it), against pcviz's per-file batch counts.
w=$fixtures/writes.dat
if command -v trace-cmd >/dev/null; then
	trace-cmd report "$w" >"$tmp/writes.txt" 2>/dev/null
	# pages dirtied (mark of a write or writeback_dirty_folio, distinct),
	# pages whose drop-behind ended dropped after writeback or at the
	# close, the files' writebacks, per inode
	expect=$(python3 -c 'import re, sys
dirty, dropped, wbs = {}, {}, {}
for l in open(sys.argv[1]):
	m = re.search(r"mm_filemap_dropbehind_mark: +dev \S+ ino (\w+) index (\d+) pages (\d+) write$", l)
	if m:
		for p in range(int(m[3])):
			dirty.setdefault(int(m[1], 16), set()).add(int(m[2]) + p)
	m = re.search(r"writeback_dirty_folio: .* ino=(\d+) index=(\d+)", l)
	if m:
		dirty.setdefault(int(m[1]), set()).add(int(m[2]))
	m = re.search(r"mm_filemap_dropbehind_end: +dev \S+ ino (\w+) index \d+ pages (\d+) after (writeback|fsync|close): dropped", l)
	if m:
		dropped[int(m[1], 16)] = dropped.get(int(m[1], 16), 0) + int(m[2])
	m = re.search(r"sb_mark_inode_writeback: dev 254,0 ino (\d+)", l)
	if m:
		wbs[int(m[1])] = wbs.get(int(m[1]), 0) + 1
print(*[f(i) for i in (12, 13, 14) for f in (lambda i: len(dirty.get(i, ())), lambda i: dropped.get(i, 0), lambda i: wbs.get(i, 0))])
' "$tmp/writes.txt")
	is "$expect" "64 64 1 64 0 1 17 1 2" \
		"writes.dat by trace-cmd report: a, b, c dirtied, dropped, writeback starts"
else
	skip "writes.dat by trace-cmd report: a, b, c dirtied, dropped, writeback starts" "no trace-cmd"
fi
"$bin" --replay "$w" -i 0.01 --json >"$tmp/w.json" 2>"$tmp/err"
is "$?,$(wc -c <"$tmp/err")" "0,0" "--replay of a trace with writes: status 0, nothing on stderr"
ok "jq -n -R -e '
def file(ino): .per_file | map(select(.path == \"dev 254:0 ino \\(ino)\"))[0] // error(\"no ino \\(ino)\");
def went: [.[\"wr_to_\" + (\"dirty\", \"writeback\", \"clean\", \"dropped\", \"kept\")]];
def now: [.[\"wr_\" + (\"dirty\", \"writeback\", \"clean\", \"dropped\", \"kept\")]];
[inputs | fromjson] | last
| (file(12) | went == [64, 64, 64, 64, 0] and now == [0, 0, 0, 64, 0])
and (file(13) | went == [64, 64, 64, 0, 0] and now == [0, 0, 64, 0, 0])
and (file(14) | went == [17, 17, 17, 1, 1] and now == [0, 0, 16, 1, 0])
and .db_end_after_close == 1
' '$tmp/w.json'" "... uncached a: 64 pages dirty, writeback, clean, dropped; buffered b: 64 dirty, writeback, clean; c: 17 dirty, writeback, clean, its appended page kept, then dropped after close"
ok "jq -n -R -e '
def file(ino): .per_file | map(select(.path == \"dev 254:0 ino \\(ino)\"))[0] // error(\"no ino \\(ino)\");
def top(f): map(f) | if length > 0 and all(type == \"number\") then max else error(\"no numbers\") end;
[inputs | fromjson]
| [top(file(12).dirty), top(file(13).dirty)] == [64, 64]
and top(file(12).writeback) == 64
and top(.wr_dirty) > 0 and (last | [file(12).wr_dirty, file(13).wr_dirty, file(14).wr_dirty] == [0, 0, 0])
' '$tmp/w.json'" "... the replay rebuilds dirty (64 pages of a, of b) and writeback pages (64 of a), none of a, b, c dirty at the end"
"$bin" --replay "$w" -i 0.01 >"$tmp/w.csv" 2>/dev/null
is "$(field wr_to_dropped "$tmp/w.csv" 9999),$(field wr_dropped "$tmp/w.csv" 9999)" "65,65" \
	"... CSV columns wr_to_dropped, wr_dropped: 65, 65 at the end"
ok "head -n 1 '$tmp/w.csv' | grep -q ',wr_dirty,wr_to_dirty,wr_writeback,wr_to_writeback,wr_clean,wr_to_clean,wr_dropped,wr_to_dropped,wr_kept,wr_to_kept,evict_kswapd,'" \
	"... the write-state columns, before the eviction columns"

# eviction attribution (the workingset events): the fixtures have none of
# them, so the columns are there and zero; the kinds are selectable
for fx in v6 writes; do
	"$bin" --replay "$fixtures/$fx.dat" -i 0.01 >"$tmp/ev-$fx.csv" 2>/dev/null
	is "$(for c in ev_evict ev_refault pages_evict pages_refault evict_kswapd \
		evict_kswapd_woken_known evict_direct refaults refault_activated gone_mean_s \
		gone_max_s ev_kswapd_waker pages_kswapd_waker; do
		printf '%s ' "$(field $c "$tmp/ev-$fx.csv" 9999)"; done)" \
		"0 0 0 0 0 0 0 0 0 0.000 0.000 0 0 " \
		"$fx.dat: the eviction and kswapd waker columns are there, all zero"
done
ok "head -n 1 '$tmp/ev-v6.csv' | grep -q ',ev_add,ev_delete,ev_evict,ev_refault,ev_lru_insert,.*,ev_kswapd_wake,ev_kswapd_waker,ev_direct_reclaim,.*,wr_to_kept,evict_kswapd,evict_kswapd_woken_known,evict_direct,refaults,refault_activated,gone_mean_s,gone_max_s,lost,'" \
	"... ev_evict, ev_refault, ev_kswapd_waker among the kinds; the attribution columns before lost"
"$bin" --replay "$fixtures/v6.dat" -i 0.01 --json >"$tmp/ev.json" 2>/dev/null
ok "jq -n -R -e '[inputs | fromjson | .per_file[]] | all(.[];
	[.evict_kswapd, .evict_direct, .evict_others, .refaults,
		.refault_activated, .refault_unseen, .gone_mean_s, .gone_max_s] == [0, 0, 0, 0, 0, 0, 0, 0]
	and .reclaimers == []
	and .kswapd_wakers == []
	and [.kswapd_woken_others, .kswapd_woken_unknown] == [0, 0])
' '$tmp/ev.json'" "--json: per file the attribution counts (zero), empty reclaimers and kswapd_wakers"
"$bin" --synthetic --count 1 --events evict,refault >"$tmp/ev-syn.csv" 2>"$tmp/err"
is "$?,$(wc -c <"$tmp/err")" "0,0" "--events evict,refault: accepted"
ok "'$bin' --help | grep -q 'add,delete,evict,refault,'" "--help lists evict and refault"
"$bin" --synthetic --count 1 --events evict,kswapd_waker >"$tmp/ev-syn.csv" 2>"$tmp/err"
is "$?,$(wc -c <"$tmp/err")" "0,0" "--events evict,kswapd_waker: accepted"
ok "'$bin' --help | grep -q 'kswapd_wake,kswapd_waker,'" "--help lists kswapd_waker"

# the build: a second make does nothing
ok "make -s -C '$top' -q build/host/pcviz build/guest/bin/pcviz build/host/pcviz-tests/test-model" \
	"pcviz is up to date after make: a second make does nothing"

done_testing
