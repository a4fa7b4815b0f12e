#!/bin/sh
# pcviz --batch in the guest: its residency numbers against cachestat taken
# independently (pclab-rw -S) for buffered, uncached and direct reads on ext4
# and xfs; its events for an uncached stream (no LOST): the calls' folios as
# the kernel counts them, the per-folio events sampled beside the stream and
# whole after it, and whole without the calls; the write timeline against
# a trace; tracing hygiene: the tracefs instance gone after a normal exit and
# after SIGTERM, SIGINT and SIGHUP, stale instances of dead viewers removed,
# no events left enabled; no events, and why, for a user who is not root.
# shellcheck source=../lib/both/tap.sh
. "$(dirname "$0")/../lib/both/tap.sh"
LAB=pcviz-test
# shellcheck source=../../labs/lib/guest.sh
. /usr/share/pclab/labs/lib/guest.sh

T=/sys/kernel/tracing
out=/tmp/pcviz-test
mkdir -p "$out"
# col NAME FILE: a column of the last CSV line, by its header name
col() {
	awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ v = $(c[name]) } END { print v }' "$2"
}
instances() {
	n=0
	for i in "$T"/instances/pcviz-*; do
		[ -e "$i" ] && n=$((n + 1))
	done
	echo "$n"
}

for fs in ext4 xfs; do
	f=/mnt/$fs/pcviz-test
	pclab-rw -w -s 32M "$f" >/dev/null
	cold
	cat "$f" >/dev/null
	pcviz --batch --count 1 -i 0.1 "$f" >"$out/buffered.csv"
	want=$(pclab-rw -S -O cached -n "$f")
	ok "[ '$(col cached "$out/buffered.csv")' = 8192 ] && [ '$(col pages "$out/buffered.csv")' = 8192 ]" \
		"$fs: after a buffered read all 8192 pages are cached ($(col cached "$out/buffered.csv"))"
	is "$(col cached "$out/buffered.csv")" "$want" "$fs: ... as cachestat says independently"
	cold
	pclab-rw -U "$f" >/dev/null
	pcviz --batch --count 1 -i 0.1 "$f" >"$out/uncached.csv"
	want=$(pclab-rw -S -O cached -n "$f")
	ok "[ '$(col cached "$out/uncached.csv")' -le 64 ]" \
		"$fs: after an uncached read nothing stays ($(col cached "$out/uncached.csv") pages)"
	is "$(col cached "$out/uncached.csv")" "$want" "$fs: ... as cachestat says independently"
	cold
	iolab -m direct -b 256K "$f" >/dev/null
	pcviz --batch --count 1 -i 0.1 "$f" >"$out/direct.csv"
	is "$(col cached "$out/direct.csv")" 0 "$fs: after an O_DIRECT read: 0 pages"
done

mark_event=$T/events/filemap/mm_filemap_dropbehind_mark

# Events during an uncached read, then a buffered one, watched live; SIGTERM
# ends the run with a line for the partial interval.  The uncached read's
# calls switch the per-folio events off for pauses (docs/pcviz.md); they
# are on again within 1.7 s after it, so that the buffered read is seen
# whole: its 8192 adds after the JSON line taken before it.
f=/mnt/ext4/pcviz-test
cold
pcviz --json -i 0.25 "$f" >"$out/events.json" 2>"$out/events.err" &
pid=$!
written "$out/events.json"
pclab-rw -U "$f" >/dev/null
sleep 2
n=$(wc -l <"$out/events.json")
while [ "$(wc -l <"$out/events.json")" = "$n" ]; do
	sleep 0.1
done
before=$(tail -n 1 "$out/events.json")
cat "$f" >/dev/null
sleep 0.3
kill -TERM "$pid"
wait "$pid"
is "$?" 143 "pcviz beside an uncached then a buffered read, until SIGTERM"
last() { tail -n 1 "$out/events.json" | jq -r "$1"; }
is "$(last .events)" on "events are on as root"
if [ -d "$mark_event" ]; then
	is "$(last '[.db_call_marked, .db_call_dropped] | @tsv')" "$(printf '8192\t8192')" \
		"the uncached read's calls count its 8192 folios marked and dropped"
	is "$(last .folio_events),$(echo "$before" | jq .folio_pauses)" "sampled,$(last .folio_pauses)" \
		"... the per-folio events were sampled beside it (pauses: $(last .folio_pauses)), none after it"
	is "$(($(last .ev_add) - $(echo "$before" | jq .ev_add)))" 8192 \
		"... and the buffered read's 8192 adds, 2 s after it, are all counted"
else
	skip "the uncached read's calls count its folios" "no drop-behind tracepoints in this kernel"
	skip "... the per-folio events were sampled" "no drop-behind tracepoints in this kernel"
	skip "... and the buffered read's adds are all counted" "no drop-behind tracepoints in this kernel"
fi
ok "[ '$(last .ev_delete)' -gt 0 ] && [ '$(last .ev_lru_insert)' -gt 0 ]" \
	"deletes ($(last .ev_delete)) and LRU insertions attributed to the file by pfn ($(last .ev_lru_insert)) counted"
ok "jq -e 'has(\"lost\")' '$out/events.json' >/dev/null" "the LOST count is there"
is "$(last .lost)" 0 "no events lost for a 32 MiB uncached read"
is "$(instances)" 0 "no pcviz tracefs instance left after a normal exit"

# A 128 MiB uncached stream: the calls' folios against the kernel's own
# counters; with every event kind on the per-folio events are sampled (a
# trigger per event on the call event), and they are fewer than the
# stream's folios; without the calls nothing is sampled, and each of the
# four per-folio counts is the kernel's
g=/mnt/ext4/pcviz-stream
pclab-rw -w -s 128M "$g" >/dev/null
# stream NAME [PCVIZ-OPTIONS...]: the stream beside pcviz; sets marked and
# dropped, the kernel's counts of drop-behind marks and read drops, in pages;
# the triggers on the call event of pcviz's instance go to NAME.triggers
stream() {
	name=$1
	shift
	cold
	m0=$(vm_counter_folded dropbehind_marked) d0=$(vm_counter_folded dropbehind_read)
	pcviz --batch -i 0.5 "$@" "$g" >"$out/$name.csv" 2>/dev/null &
	pid=$!
	written "$out/$name.csv"
	grep -v '^#' "$T/instances/pcviz-$pid/events/filemap/mm_filemap_dropbehind_call/trigger" |
		sed 's/:unlimited//' | sort >"$out/$name.triggers"
	iolab -m uncached -b 1M "$g" >"$out/$name.iolab"
	sleep 0.6
	kill -TERM "$pid"
	wait "$pid"
	marked=$(($(vm_counter_folded dropbehind_marked) - m0))
	dropped=$(($(vm_counter_folded dropbehind_read) - d0))
}
if [ -d "$mark_event" ]; then
	stream stream
	marks=$(col ev_db_mark "$out/stream.csv")
	diag "128 MiB uncached stream: $(grep -i 'MB/s' "$out/stream.iolab" | head -n 1)"
	diag "events: $marks marks, $(col ev_add "$out/stream.csv") adds, $(col ev_delete "$out/stream.csv") deletes, $(col folio_pauses "$out/stream.csv") pauses, lost $(col lost "$out/stream.csv"); $(col events_why "$out/stream.csv")"
	is "$marked,$dropped" 32768,32768 "uncached stream: /proc/vmstat counts its 32768 pages marked and dropped"
	is "$(col db_call_marked "$out/stream.csv"),$(col db_call_dropped "$out/stream.csv"),$(col db_call_kept "$out/stream.csv")" \
		"$marked,$dropped,0" "... and the calls' folios as pcviz sums them are those (4 KiB folios), none kept"
	is "$(tr '\n' ' ' <"$out/stream.triggers")" \
		"disable_event:filemap:mm_filemap_add_to_page_cache if write == 0 disable_event:filemap:mm_filemap_delete_from_page_cache if write == 0 disable_event:filemap:mm_filemap_dropbehind_end if write == 0 disable_event:filemap:mm_filemap_dropbehind_mark if write == 0 disable_event:filemap:mm_filemap_dropbehind_serve if write == 0 disable_event:pagemap:mm_lru_insertion if write == 0 " \
		"every event kind on: a trigger on the call event switches each of the six per-folio events off"
	ok "[ '$(col folio_events "$out/stream.csv")' = sampled ] && [ '$(col folio_pauses "$out/stream.csv")' -ge 1 ] && [ '$marks' -lt '$marked' ]" \
		"... beside the stream they were sampled: $(col folio_pauses "$out/stream.csv") pauses, $marks of its $marked marks seen"
	ok "case '$(col events_why "$out/stream.csv")' in *'; per-folio events sampled beside uncached reads'*) true ;; *) false ;; esac" \
		"... and events_why says so"
	is "$(col lost "$out/stream.csv")" 0 "uncached stream: no events lost at the default buffer size"
	stream whole -e add,delete,db_mark,db_end
	is "$(wc -c <"$out/whole.triggers"),$(col folio_events "$out/whole.csv")" 0,whole \
		"without the call events: no trigger, nothing sampled"
	is "$(col ev_add "$out/whole.csv") $(col ev_delete "$out/whole.csv") $(col ev_db_mark "$out/whole.csv") $(col ev_db_end "$out/whole.csv")" \
		"$marked $dropped $marked $dropped" \
		"... adds, deletes, marks and ends each counted as /proc/vmstat counts marks and read drops ($marked, $dropped)"
	is "$(col lost "$out/whole.csv")" 0 "... none lost"
else
	skip "the stream's calls and sampled per-folio events" "no drop-behind tracepoints in this kernel"
fi
rm -f "$g"

# --events: only the kinds asked for are traced
cold
pcviz --batch -e db_call,reclaim -i 0.25 "$f" >"$out/light.csv" 2>/dev/null &
pid=$!
written "$out/light.csv"
pclab-rw -U "$f" >/dev/null
sleep 0.3
kill -TERM "$pid"
wait "$pid"
if [ -d "$mark_event" ]; then
	ok "[ '$(col ev_db_call "$out/light.csv")' -ge 32 ] && [ '$(col ev_db_mark "$out/light.csv")' = 0 ] && [ '$(col ev_add "$out/light.csv")' = 0 ]" \
		"-e db_call,reclaim: the calls are counted ($(col ev_db_call "$out/light.csv")), no per-page events"
else
	skip "-e db_call,reclaim traces only those" "no drop-behind tracepoints in this kernel"
fi

# Hygiene: every way out removes the instance and leaves no event enabled
for sig in TERM INT HUP; do
	pcviz --batch -i 0.2 "$f" >/dev/null 2>&1 &
	pid=$!
	n=0
	while [ ! -d "$T/instances/pcviz-$pid" ] && [ $n -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	ok "[ -d '$T/instances/pcviz-$pid' ]" "SIG$sig: pcviz made its instance pcviz-$pid"
	kill -"$sig" "$pid"
	wait "$pid"
	status=$?
	ok "[ ! -e '$T/instances/pcviz-$pid' ] && [ $status -gt 128 ]" \
		"SIG$sig: the instance is removed, pcviz dies of the signal (status $status)"
done
ok "! grep -q . '$T/set_event'" "no event left enabled in the top-level trace"

# A stale instance of a dead viewer is removed at start; another live one is not touched
mkdir "$T/instances/pcviz-999999"
echo 1 >"$T/instances/pcviz-999999/events/filemap/mm_filemap_add_to_page_cache/enable"
pcviz --batch --count 1 -i 0.1 "$f" >/dev/null 2>&1
ok "[ ! -e '$T/instances/pcviz-999999' ]" "a stale pcviz-999999 instance (no such process) is removed"

# Stopped at each stage, pcviz leaves no instance behind.  Early: SIGTERM
# while it starts (before or after its instance exists, wherever it lands)
for delay in 0 0.05 0.1 0.2 0.4; do
	pcviz --batch -i 0.2 "$f" >/dev/null 2>&1 &
	pid=$!
	sleep "$delay"
	kill -TERM "$pid"
	wait "$pid"
	status=$?
	ok "[ ! -e '$T/instances/pcviz-$pid' ] && [ $status = 143 ]" \
		"SIGTERM $delay s into a start: no instance left (status $status)"
done

# The live view, on a terminal (script(1) gives it one); keys through a FIFO.
# view NAME TERM: starts it; sets $pid once its instance exists
view() {
	rm -f "$out/$1.keys"
	mkfifo "$out/$1.keys"
	TERM=$2 script -qfec "pcviz -i 0.2 $f" /dev/null <"$out/$1.keys" >"$out/$1.screen" 2>&1 &
	exec 3>"$out/$1.keys"
	pid=""
	n=0
	while [ -z "$pid" ] && [ $n -lt 100 ]; do
		sleep 0.1
		n=$((n + 1))
		for i in "$T"/instances/pcviz-*; do
			[ -e "$i" ] && pid=${i##*/pcviz-}
		done
	done
	while ! grep -q Residency "$out/$1.screen" && [ $n -lt 200 ]; do
		sleep 0.1
		n=$((n + 1))
	done
}
view quit vt100
ok "[ -n '$pid' ] && grep -q Residency '$out/quit.screen'" "the live view on a terminal: its instance pcviz-$pid exists"
printf q >&3
exec 3>&-
wait
is "$(instances)" 0 "... q: the instance is removed"
# the events view (4) beside an uncached read: it says its counts are a sample
view sampled vt100
printf 4 >&3
cold
pclab-rw -U "$f" >/dev/null
n=0
while ! grep -q 'per-folio counts are a sample' "$out/sampled.screen" && [ $n -lt 50 ]; do
	sleep 0.1
	n=$((n + 1))
done
printf q >&3
exec 3>&-
wait
if [ -d "$mark_event" ]; then
	ok "grep -q 'per-folio counts are a sample: off [0-9]* times beside uncached reads' '$out/sampled.screen'" \
		"the events view beside an uncached read says its per-folio counts are a sample"
else
	skip "the events view says its per-folio counts are a sample" "no drop-behind tracepoints in this kernel"
fi
view term vt100
kill -TERM "$pid"
exec 3>&-
wait
is "$(instances)" 0 "the live view, SIGTERM: the instance is removed"
view kill vt100
kill -KILL "$pid"
exec 3>&-
wait
ok "[ -d '$T/instances/pcviz-$pid' ]" "the live view, SIGKILL: the instance stays (no cleanup is possible)"
pcviz --batch --count 1 -i 0.1 "$f" >/dev/null 2>&1
is "$(instances)" 0 "... and the next pcviz removes it"
TERM=nonexistent-term script -qec "pcviz $f" /dev/null >"$out/badterm.screen" 2>&1
is "$?" 2 "an unknown TERM: status 2"
ok "grep -q 'pcviz: TERM=nonexistent-term: unknown terminal type; try --batch' '$out/badterm.screen'" \
	"... pcviz's own message"
is "$(instances)" 0 "... and no instance left behind"

# A kernel format without a field pcviz reads (bind-mounted over the real
# one in a private mount namespace): that event is not traced, pcviz says
# so, and its instance goes as usual
F=$T/events/filemap/mm_filemap_add_to_page_cache/format
sed 's/ s_dev;/ x_dev;/' "$F" >"$out/add.format"
unshare -m sh -c "mount --bind '$out/add.format' '$F' &&
	pcviz --batch --count 1 -i 0.1 '$f'" >"$out/format.csv" 2>"$out/format.err"
is "$?" 0 "a kernel format without s_dev: pcviz runs"
is "$(col events_why "$out/format.csv" | sed 's/.*; not traced: //')" \
	"filemap:mm_filemap_add_to_page_cache has no usable field s_dev" "... and says which event it leaves out"
is "$(instances)" 0 "... no instance left behind"
: >"$out/empty.format"
unshare -m sh -c "for e in '$T'/events/*/*/format; do mount --bind '$out/empty.format' \"\$e\"; done &&
	pcviz --batch --count 1 -i 0.1 '$f'" >"$out/noformat.csv" 2>"$out/noformat.err"
is "$(col events "$out/noformat.csv"),$(col events_why "$out/noformat.csv")" \
	"off,no page-cache events in this kernel" "no event formats at all: no events, and why"
is "$(instances)" 0 "... and no instance was made"

# Not root: no tracing, and why, in the batch output
chmod 644 "$f"
cp "$f" /mnt/ext4/pcviz-student
chown student /mnt/ext4/pcviz-student
su student -c "pcviz --batch --count 1 -i 0.1 /mnt/ext4/pcviz-student" \
	>"$out/user.csv" 2>"$out/user.err"
status=$?
is "$status" 0 "as a user pcviz runs on the user's file"
[ "$status" = 0 ] || diag "$(cat "$out/user.err")"
is "$(col events "$out/user.csv"),$(col events_why "$out/user.csv")" "off,not root: tracing needs root" \
	"... without events, and says why"
is "$(col cached "$out/user.csv")" "$(pclab-rw -S -O cached -n /mnt/ext4/pcviz-student)" \
	"... residency right"
rm /mnt/ext4/pcviz-student
# root's file: the kernel refuses cachestat, mincore would say "all cached"
cat "$f" >/dev/null
for how in "" --mincore; do
	su student -c "pcviz --batch $how --count 1 -i 0.1 $f" >"$out/theirs.csv" 2>"$out/theirs.err"
	is "$?" 3 "as a user on root's file${how:+ with $how}: status 3"
	is "$(col cached "$out/theirs.csv"),$(col states "$out/theirs.csv")" ",unknown" \
		"... cached unknown (empty), not a number"
	ok "grep -q 'residency unknown: .*you neither own the file nor may write it' '$out/theirs.err'" \
		"... and why, on stderr"
done

# The JSON lines
pcviz --json --count 1 -i 0.1 "$f" >"$out/line.json"
ok "grep -q '^{\"time\":.*\"lost\":0,.*\"per_file\":\\[{\"path\":\"$f\"' '$out/line.json'" \
	"--json: one object with lost and the file"

# The memory cgroups charged for a watched file's pages: a task in a cgroup
# of its own reads the first 4 MiB, this shell (the root cgroup) the next
# 4 MiB.  Readahead is off, so that each reader brings in (and is charged
# for) exactly the pages it reads.
cg=/sys/fs/cgroup/pcviz-charges
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p "$cg"
cg_id=$(stat -c %i "$cg")
c=/mnt/ext4/pcviz-charges
iolab -m direct -w -b 1M -s 8M -j "$c" >/dev/null
cold
pcviz --json -i 0.2 "$c" >"$out/charges.json" 2>"$out/charges.err" &
viz=$!
written "$out/charges.json"
dev=$(mounted_dev /mnt/ext4)
ra=/sys/block/$dev/queue/read_ahead_kb
ra_kib=$(cat "$ra")
echo 0 >"$ra"
sh -c "echo \$\$ >$cg/cgroup.procs && exec dd if=$c of=/dev/null bs=1M count=4 2>/dev/null"
dd if="$c" of=/dev/null bs=1M skip=4 count=4 2>/dev/null
echo "$ra_kib" >"$ra"
sleep 0.5
kill -TERM "$viz"
wait "$viz" 2>/dev/null
charge() { tail -n 1 "$out/charges.json" | jq "[.per_file[0].charges[] | select(.cgroup == $1) | .pages] | add // 0"; }
is "$(charge "$cg_id")" 1024 "charges: the cgroup's reader's 4 MiB, 1024 pages, are charged to its cgroup"
is "$(charge 1)" 1024 "charges: this shell's 1024 pages to the root cgroup"
is "$(tail -n 1 "$out/charges.json" | jq -c '.per_file[0] | [.charge_unknown, .charged_others]')" \
	"[0,0]" "charges: no cached page's cgroup unknown, no others"
rm -f "$c"
rmdir "$cg"

# The write timeline, live: an uncached overwrite of a (64 pages, its
# blocks allocated) and a buffered write of b, then sync.  pcviz's pages
# that went dirty, clean and dropped, against the events of a trace
# instance of the test's own.  Sized by pages, not by time: the test waits
# until a has no page cached (every drop after writeback done).
a=/mnt/ext4/pcviz-write-a
b=/mnt/ext4/pcviz-write-b
iolab -m direct -w -b 256K -s 256K -j "$a" >/dev/null
# b is empty when pcviz opens it and grows as it is written: its write
# events run past the size pcviz read last (struct pcv_file's grows)
rm -f "$b"
touch "$b"
a_ino=$(printf '%x' "$(stat -c %i "$a")")
b_ino=$(stat -c %i "$b")
tw=$T/instances/pcviz-write-test
# trace_pages EVENT INO ENDING: pages of tw's EVENT lines of inode INO (hex)
# that end in ENDING (a sed pattern)
trace_pages() {
	sed -n "s/.*$1: .* ino $2 index [0-9]* pages \([0-9]*\) $3\$/\1/p" "$tw/trace" |
		awk '{ n += $1 } END { print n + 0 }'
}
mkdir "$tw"
for e in filemap/mm_filemap_dropbehind_mark filemap/mm_filemap_dropbehind_end \
	writeback/writeback_dirty_folio; do
	echo 1 >"$tw/events/$e/enable"
done
pcviz --json -i 0.2 "$a" "$b" >"$out/writes.json" 2>"$out/writes.err" &
viz=$!
written "$out/writes.json"
pclab-rw -w -U -b 64K -s 256K "$a" >/dev/null
dd if=/dev/zero of="$b" bs=64K count=4 conv=notrunc 2>/dev/null
sync
n=0
while [ "$(cached "$a")" != 0 ] && [ $n -lt 100 ]; do
	sleep 0.1
	n=$((n + 1))
done
echo 0 >"$tw/tracing_on"
sleep 0.5
kill -TERM "$viz"
wait "$viz" 2>/dev/null
# from the trace: pages of a marked by the uncached write, of them dropped
# after writeback; distinct pages of b dirtied
a_marked=$(trace_pages mm_filemap_dropbehind_mark "$a_ino" write)
a_dropped=$(trace_pages mm_filemap_dropbehind_end "$a_ino" 'after [a-z-]*writeback: dropped')
b_dirtied=$(sed -n "s/.*writeback_dirty_folio: .* ino=$b_ino index=\([0-9]*\).*/\1/p" "$tw/trace" | sort -u | wc -l)
rmdir "$tw"
wfile() { tail -n 1 "$out/writes.json" | jq -c ".per_file[$1] | [$2]"; }
is "$a_marked,$a_dropped,$b_dirtied" "64,64,64" \
	"write timeline: the trace has a's 64 pages marked and dropped after writeback, b's 64 dirtied"
is "$(wfile 0 '.wr_to_dirty, .wr_to_clean, .wr_to_dropped, .wr_to_kept')" "[$a_marked,$a_dropped,$a_dropped,0]" \
	"write timeline live, uncached a: pages that went dirty, clean, dropped, kept are the trace's"
to_writeback=$(tail -n 1 "$out/writes.json" | jq '.per_file[0].wr_to_writeback')
ok "[ '$to_writeback' -gt 0 ]" "... and some went under writeback on the way ($to_writeback)"
is "$(wfile 0 '.wr_dirty, .wr_writeback, .wr_clean, .wr_dropped')" "[0,0,0,64]" "... at the end all 64 dropped"
is "$(wfile 1 '.wr_to_dirty, .wr_to_dropped, .wr_to_kept, .wr_dirty, .wr_writeback')" "[$b_dirtied,0,0,0,0]" \
	"write timeline live, buffered b: the trace's dirtied pages, none dropped or kept, none left dirty after sync"
# writes switch no event off: their adds and deletes come one by one
is "$(tail -n 1 "$out/writes.json" | jq -c '[.ev_add, .ev_delete, .folio_events]')" \
	"[$((a_marked + b_dirtied)),$a_dropped,\"whole\"]" \
	"the adds of a and b, and a's deletes after writeback, counted, none sampled"
rm -f "$a" "$b"

# The end of a file that uncached writes kept is dropped at the last
# close (after close): an uncached append of 1000 bytes to d (16 pages),
# fsync, close.  Its page is kept as the end of the file, dropped at the
# close; pcviz's timeline against the trace.
d=/mnt/ext4/pcviz-write-d
iolab -m direct -w -b 64K -s 64K -j "$d" >/dev/null
d_ino=$(printf '%x' "$(stat -c %i "$d")")
mkdir "$tw"
echo 1 >"$tw/events/filemap/mm_filemap_dropbehind_end/enable"
pcviz --json -i 0.2 "$d" >"$out/close.json" 2>"$out/close.err" &
viz=$!
written "$out/close.json"
pclab-rw -w -U -s 1000 -o 64K -f "$d" >/dev/null
n=0
while [ "$(tail -n 1 "$out/close.json" | jq '.per_file[0].wr_to_dropped')" != 1 ] && [ $n -lt 100 ]; do
	sleep 0.1
	n=$((n + 1))
done
kill -TERM "$viz"
wait "$viz" 2>/dev/null
d_tail=$(trace_pages mm_filemap_dropbehind_end "$d_ino" 'after [a-z-]*: tail')
d_close=$(trace_pages mm_filemap_dropbehind_end "$d_ino" 'after close: dropped')
rmdir "$tw"
ok "[ '$d_tail' -ge 1 ] && [ '$d_close' = 1 ]" \
	"the trace: the append's page kept as the end of the file ($d_tail), dropped after close ($d_close)"
is "$(tail -n 1 "$out/close.json" | jq -c '[.per_file[0] | .wr_to_dropped, .wr_kept, .wr_dropped] + [.db_end_after_close]')" \
	"[1,0,1,1]" "write timeline live: the kept page dropped at the close, counted after close"
rm -f "$d"

# The write timeline when writeback ends in interrupt context, where a
# folio cannot leave the page cache (test kernels: the fault point
# fail_dropbehind_irq, docs/tracepoints.md): an uncached overwrite of c,
# then sync.  Every page kept (irq), as the trace says; then c's fsync
# (read-only: no end of the file kept for a writer) drops them.
irq_fault=/sys/kernel/debug/fail_dropbehind_irq
# irq_writeback PROBABILITY: every marked folio's writeback ends as if in
# interrupt context (100), or none (0); quietly, in any task
irq_writeback() {
	for attr in task-filter=N interval=1 verbose=0 times=-1 "probability=$1"; do
		echo "${attr#*=}" >"$irq_fault/${attr%%=*}"
	done
}
if [ -e "$irq_fault/probability" ]; then
	c=/mnt/ext4/pcviz-write-c
	iolab -m direct -w -b 256K -s 256K -j "$c" >/dev/null
	c_ino=$(printf '%x' "$(stat -c %i "$c")")
	mkdir "$tw"
	echo 1 >"$tw/events/filemap/mm_filemap_dropbehind_end/enable"
	pcviz --json -i 0.2 "$c" >"$out/irq.json" 2>"$out/irq.err" &
	viz=$!
	written "$out/irq.json"
	irq_writeback 100
	pclab-rw -w -U -b 64K -s 256K "$c" >/dev/null
	sync
	irq_writeback 0
	c_irq=$(trace_pages mm_filemap_dropbehind_end "$c_ino" 'after irq-writeback: irq')
	# sized by pages: until pcviz has seen them all kept (then dropped), 10 s at most
	until_viz() {
		n=0
		while [ "$(tail -n 1 "$out/irq.json" | jq ".per_file[0].$1")" != "$2" ] && [ $n -lt 100 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		tail -n 1 "$out/irq.json" | jq -c "[.per_file[0] | $3] + [.db_end_pages_irq]"
	}
	timeline='.wr_to_dirty, .wr_to_clean, .wr_to_dropped, .wr_to_kept, .wr_kept, .wr_dropped'
	kept=$(until_viz wr_to_kept "$c_irq" "$timeline")
	sync "$c"
	c_fsync=$(trace_pages mm_filemap_dropbehind_end "$c_ino" 'after fsync: dropped')
	dropped=$(until_viz wr_to_dropped "$c_fsync" "$timeline")
	kill -TERM "$viz"
	wait "$viz" 2>/dev/null
	rmdir "$tw"
	is "$c_irq,$c_fsync" 64,64 \
		"writeback ended in interrupt context: the trace has c's 64 pages kept (irq), then dropped after fsync"
	is "$kept" "[64,64,0,64,64,0,64]" \
		"write timeline live, IRQ-completed writeback: 64 pages went dirty, clean and kept (irq), none dropped"
	is "$dropped" "[64,128,64,64,0,64,64]" \
		"... after fsync: the 64 kept pages clean again, then dropped"
	rm -f "$c"
else
	skip "the write timeline of writeback ended in interrupt context" "not a test kernel (no $irq_fault)"
fi

rm -f /mnt/ext4/pcviz-test /mnt/xfs/pcviz-test
done_testing
