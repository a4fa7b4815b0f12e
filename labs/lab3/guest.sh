#!/bin/sh
# Lab 3, guest side: the lab 2 stream again with RWF_UNCACHED, beside
# buffered and the fadvise workaround; a warm range that must survive; lab
# 2's cliff (four readers) buffered and uncached; the drop-behind
# tracepoints for one read; pages cached before a read, and pages a mapping
# claims during it; who may evict whose pages; random reads, where
# uncached costs more than buffered.
set -eu
LAB=lab3
# shellcheck source=../lib/guest.sh
. /usr/share/pclab/labs/lib/guest.sh
big=$dir/lab3.dat
warm_mib=$((mem_mib / 8))
data_file "$big" "$data_mib"

# Warms two things by reading them once: the first warm_mib MiB of the
# file about to be streamed, and a file of that size beside it.  Streams
# the big file in mode $2 and records how much of each stayed cached:
# fact NAME.warm, pages of the range and of the file beside, before and after.
stream_past_warm() { # name mode
	cold
	pclab-rw -s "${warm_mib}M" "$big"
	pclab-rw "$beside"
	r0=$(pclab-rw -S -O cached -n -s "${warm_mib}M" "$big")
	b0=$(pclab-rw -S -O cached -n "$beside")
	measure "$1" -m "$2" -b 1M "$big"
	r1=$(pclab-rw -S -O cached -n -s "${warm_mib}M" "$big")
	b1=$(pclab-rw -S -O cached -n "$beside")
	fact "$1.warm" "{\"range_before\": $r0, \"range_after\": $r1,
		\"beside_before\": $b0, \"beside_after\": $b1}"
	say "  warm pages: streamed file's first $warm_mib MiB $r0 -> $r1; file beside $b0 -> $b1"
}

beside=$dir/lab3-beside.dat
pclab-rw -w -s "${warm_mib}M" -f "$beside"
say "step 1/8: warm the first $warm_mib MiB and a $warm_mib MiB file beside it, then stream all $data_mib MiB"
say "  buffered"
stream_past_warm buffered buffered
say "  uncached (RWF_UNCACHED)"
stream_past_warm uncached uncached
say "  fadvise (buffered + POSIX_FADV_DONTNEED behind the reader)"
stream_past_warm fadvise fadvise

say "step 2/8: io_uring with RWF_UNCACHED, 4 reads in flight"
cold
measure uring-uncached -m uring-uncached -q 4 -b 1M "$big"

streams=4
say "step 3/8: lab 2's cliff, buffered then uncached: $streams readers at once, $((data_mib / streams)) MiB each"
stream_files "$dir/lab3-c" "$streams" $((data_mib / streams))
together cliff-buffered "$streams" "$dir/lab3-c" -m buffered -b 1M -i 0.25
together cliff-uncached "$streams" "$dir/lab3-c" -m uncached -b 1M -i 0.25
rm -f "$dir"/lab3-c.*

say "step 4/8: drop-behind tracepoints for one 8 MiB uncached read whose first 2 MiB are warm"
# A file of exactly 8 MiB: from its second call on, a stream of uncached
# reads reads the next call's range ahead (core/0015), and the last call's
# next range would be 1 MiB more marked and dropped, at close; past the
# end of the file there is nothing to read.
trace_file=$dir/lab3-trace.dat
data_file "$trace_file" 8
cold
pclab-rw -s 2M "$trace_file"
fact trace-warm-pages "$(pclab-rw -S -O cached -n -s 8M "$trace_file")"
trace-cmd record -q -e 'filemap:mm_filemap_dropbehind_*' -o "$out/uncached-read.dat" \
	pclab-rw -U -s 8M "$trace_file" >/dev/null 2>&1
trace-cmd report -i "$out/uncached-read.dat" 2>/dev/null >"$out/uncached-read.txt"
rm -f "$trace_file"
say "  recorded $out/uncached-read.dat; the host counts its events with pcviz"

# Rule 4 with a second user: the range is mapped (every page faulted in)
# before the read, so the read finds those pages cached and leaves them, as
# it would leave any cached page; it drops only what it brought in.  (The
# mapping is not why they stay: step 7 shows what a mapping does.)
say "step 5/8: a second process maps the first 8 MiB of a 32 MiB file, caching it; an uncached read passes over all of it"
mapped=$dir/lab3-mapped.dat
pclab-rw -w -s 32M -f "$mapped"
cold
pclab-rw -M -s 8M "$mapped" >/tmp/mapper.out &
mapper=$!
while ! grep -q '^mapped' /tmp/mapper.out; do sleep 0.1; done
m0=$(pclab-rw -S -O cached -n "$mapped") marked0=$(vm_counter dropbehind_marked) dropped0=$(vm_counter dropbehind_read)
pclab-rw -U "$mapped"
m1=$(pclab-rw -S -O cached -n "$mapped") r1=$(pclab-rw -S -O cached -n -s 8M "$mapped")
fact mapped "{\"mapped_pages\": 2048, \"cached_before\": $m0, \"cached_after\": $m1,
	\"mapped_range_after\": $r1, \"marked\": $(($(vm_counter dropbehind_marked) - marked0)),
	\"dropped\": $(($(vm_counter dropbehind_read) - dropped0))}"
kill "$mapper"
wait "$mapper"
say "  cached pages of the file: $m0 before (the mapped 8 MiB), $m1 after; of the mapped range: $r1"
rm -f "$mapped"

say "step 6/8: who may evict whose pages: the unprivileged user 'student' reads root's cached file"
rootfile=$dir/lab3-root.dat
pclab-rw -w -s 16M -f "$rootfile"
chmod 644 "$rootfile"
cold
cat "$rootfile" >/dev/null
e0=$(pclab-rw -S -O cached -n "$rootfile")
su student -c "pclab-rw -U $rootfile"
e1=$(pclab-rw -S -O cached -n "$rootfile")
su student -c "iolab -m fadvise -b 1M $rootfile >/dev/null"
e2=$(pclab-rw -S -O cached -n "$rootfile")
fact evict "{\"pages\": 4096, \"cached_before\": $e0, \"after_uncached\": $e1, \"after_fadvise\": $e2}"
say "  root's 16 MiB file: $e0 pages cached; after student's uncached read $e1; after student's fadvise read $e2"
rm -f "$rootfile"

# The claim without a race: the read copies into a shared mapping of the
# very range it reads, so each copy faults in a page whose folio the call
# has just created, marked: an ordinary user claiming it before the drop
# (docs/semantics.md, rule 7).  The counters are folded first: the checks
# compare them exactly.
say "step 7/8: one uncached read of an 8 MiB file into a mapping of that file: the copy faults each page in"
claimed=$dir/lab3-claimed.dat
pclab-rw -w -s 8M -f "$claimed"
cold
marked0=$(vm_counter_folded dropbehind_marked) dropped0=$(vm_counter_folded dropbehind_read)
claimed0=$(vm_counter_folded dropbehind_kept_claimed)
pclab-rw -U -I "$claimed"
fact claimed "{\"pages\": 2048, \"cached_after\": $(cached "$claimed"),
	\"marked\": $(($(vm_counter_folded dropbehind_marked) - marked0)),
	\"dropped\": $(($(vm_counter_folded dropbehind_read) - dropped0)),
	\"claimed\": $(($(vm_counter_folded dropbehind_kept_claimed) - claimed0))}"
say "  $(json claimed cached_after) of 2048 pages cached after the read; marked $(json claimed marked)," \
	"claimed $(json claimed claimed), dropped $(json claimed dropped)"
rm -f "$claimed"

# Where uncached loses: a random 4 KiB read that misses brings in one
# folio, which the uncached call drops alone, under the page-cache locks,
# while reclaim evicts a buffered read's folios 32 at a time (docs/bench.md).
# Half as large again as memory: one read per 4 KiB of it (iolab's one
# pass, at random, so some offsets twice and about 63% of them at all)
# reads in more than memory can cache, so buffered must reclaim, and the
# step stays short (each read waits for the emulated disk).  The same
# offsets in both modes: iolab seeds its random numbers the same way.
random_mib=$((mem_mib * 3 / 2))
[ "$random_mib" -le "$data_mib" ] || random_mib=$data_mib
say "step 8/8: random 4 KiB reads over the first $random_mib MiB of lab3.dat ($mem_mib MiB of memory), $((random_mib * 256)) reads, buffered then uncached"
fact random-mib "$random_mib"
for mode in buffered uncached; do
	cold
	measure "random-$mode" -m "$mode" -r -b 4K -s "${random_mib}M" "$big"
done
