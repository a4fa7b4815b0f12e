#!/bin/sh
# iolab does what each mode claims: the evidence is in the page cache and
# the kernel's counters, not in iolab's own report.  Also its input checks.
# shellcheck source=../lib/both/tap.sh
. "$(dirname "$0")/../lib/both/tap.sh"
# shellcheck source=../../labs/lib/proc.sh
. /usr/share/pclab/labs/lib/proc.sh

f=/mnt/ext4/iolab-test
pclab-rw -w -s 32M -f "$f" >/dev/null

# run MODE [iolab options]: cold cache, then deltas of Cached and counters
run() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	c0=$(meminfo_kib Cached) m0=$(vm_counter dropbehind_marked) r0=$(vm_counter dropbehind_read)
	iolab -j -b 256K "$@" "$f" >/tmp/iolab.json
	status=$?
	grew=$(($(meminfo_kib Cached) - c0))
	# the file's own pages (cachestat), immune to other activity
	filepages=$(jq .file_cached_pages /tmp/iolab.json)
	marked=$(($(vm_counter dropbehind_marked) - m0))
	dropped=$(($(vm_counter dropbehind_read) - r0))
}

run -m buffered
ok "[ $status = 0 ] && [ $grew -ge 30000 ] && [ $marked = 0 ]" \
	"buffered: the page cache grows by the file ($grew KiB), nothing marked"
run -m uncached
ok "[ $status = 0 ] && [ $filepages = 0 ] && [ $marked = 8192 ] && [ $dropped = 8192 ]" \
	"uncached: RWF_UNCACHED really used: 8192 pages marked and dropped ($marked, $dropped), $filepages of the file's pages cached"
run -m uring-uncached -q 4
ok "[ $status = 0 ] && [ $marked = 8192 ] && [ $dropped = 8192 ]" \
	"uring-uncached: io_uring requests carry RWF_UNCACHED ($marked marked, $dropped dropped)"
run -m uring-buffered
ok "[ $status = 0 ] && [ $grew -ge 30000 ] && [ $marked = 0 ]" \
	"uring-buffered: cached like buffered ($grew KiB), nothing marked"
run -m direct
ok "[ $status = 0 ] && [ $filepages = 0 ] && [ $marked = 0 ]" \
	"direct: O_DIRECT bypasses the cache ($filepages of the file's pages cached), nothing marked"
run -m uring-direct
ok "[ $status = 0 ] && [ $filepages = 0 ] && [ $marked = 0 ]" \
	"uring-direct: bypasses the cache too ($filepages pages)"
run -m fadvise
ok "[ $status = 0 ] && [ $filepages -lt 512 ] && [ $marked = 0 ]" \
	"fadvise: DONTNEED behind itself keeps the file's cache small ($filepages pages) without the flag"
run -m mmap
ok "[ $status = 0 ] && [ $grew -ge 30000 ]" "mmap: faults the file into the cache ($grew KiB)"
ok "jq -e 'has(\"mb_s\") and has(\"kswapd_cpu_pct\") and (.lat_us | has(\"p99\"))' /tmp/iolab.json" \
	"--json prints the summary fields, as JSON"

# --hits: a warm file is all hits; a cold one read at random misses once per
# page.  Readahead is off for the cold pass, so each miss brings exactly its
# own page in: the misses iolab counts equal the pages the file gained (its
# reads total the file's 8192 blocks, whatever the speed, and about 1/e of
# them find a block read before; drop_caches may leave a few pages behind).
dev=$(mounted_dev /mnt/ext4)
ra=/sys/block/$dev/queue/read_ahead_kb
ra_kib=$(cat "$ra")
sync
echo 3 >/proc/sys/vm/drop_caches
echo 0 >"$ra"
before=$(pclab-rw -S -O cached -n "$f")
iolab -j -H -r -b 4K "$f" >/tmp/iolab.json
echo "$ra_kib" >"$ra"
cold=$(jq .hit_pct /tmp/iolab.json)
reads=$(($(jq .bytes /tmp/iolab.json) / 4096))
cached=$(jq .file_cached_pages /tmp/iolab.json)
ok "awk 'BEGIN { h = ($reads - $cached + $before) * 100 / $reads; exit !($reads == 8192 && $cold - h < 0.01 && h - $cold < 0.01) }'" \
	"--hits: random reads of a cold file hit $cold% of $reads, as many as found their page cached ($before, then $cached cached)"
cat "$f" >/dev/null
iolab -j -H -r -b 4K -t 2.5 -l /tmp/iolab.log "$f" >/tmp/iolab.json
warm=$(jq .hit_pct /tmp/iolab.json)
ok "[ $warm = 100 ]" "--hits: random reads of a cached file hit $warm%"
header=$(head -n 1 /tmp/iolab.log)
lines=$(($(wc -l </tmp/iolab.log) - 1))
ok "[ '$header' = seconds,mb_s,iops,cached_kib,dirty_kib,writeback_kib,kswapd_pct,hit_pct,allocstall_s,pgscan_direct_s,psi_mem_pct ] && [ $lines -ge 2 ]" \
	"--log writes a CSV header and a line per second ($lines lines in 2.5 s)"
iolab -R 100 -b 4K -s 200K -j "$f" >/tmp/iolab.json
secs=$(jq .seconds /tmp/iolab.json)
ok "awk 'BEGIN { exit !($secs >= 0.45) }'" "--rate 100 paces 50 reads over half a second (${secs} s)"

# SIGINT/SIGTERM end a run early with its summary (lab 5 stops its hot
# reader this way when the streamer is done); a rate keeps the run from
# ending on its own, whatever the machine's speed
for sig in INT TERM; do
	for mode in buffered uring-buffered; do
		iolab -j -m "$mode" -r -b 4K -R 50 -t 3600 "$f" >/tmp/iolab.json &
		pid=$!
		sleep 1
		kill -"$sig" "$pid"
		wait "$pid"
		status=$?
		ops=$(jq .iops /tmp/iolab.json 2>/dev/null)
		ok "[ $status = 0 ] && awk 'BEGIN { exit !(${ops:-0} > 0) }'" \
			"SIG$sig ends a $mode run with its summary (status $status, ${ops:-no} IOPS)"
	done
done

# pclab-rw --stat, which the labs use to watch a warm range
sync
echo 3 >/proc/sys/vm/drop_caches
pclab-rw -s 8M "$f"
is "$(pclab-rw -S -s 8M "$f" | head -n 1)" "cached dirty writeback evicted recently_evicted" \
	"pclab-rw -S: a header line names the columns"
is "$(pclab-rw -S -J -s 8M "$f")" '{"cached":2048,"dirty":0,"writeback":0,"evicted":0,"recently_evicted":0}' \
	"pclab-rw -S -J: the 8 MiB just read are 2048 cached pages, none dirty"
is "$(pclab-rw -S -O cached -n -o 16M -s 4M "$f")" 0 "pclab-rw -S -O cached -n: a range not read has none"
pclab-rw -S -w "$f" 2>/dev/null
is "$?" 2 "pclab-rw -S refuses --write: a usage error"

iolab -m nosuchmode "$f" >/dev/null 2>&1
is "$?" 2 "an unknown mode is refused: a usage error"
iolab -m direct -b 1000 "$f" 2>/tmp/iolab.err
is "$?" 1 "a misaligned O_DIRECT block size is refused"
ok "grep -q 'multiple of the logical block size' /tmp/iolab.err" "... with the explanation"
iolab -m mmap -w -s 1M "$f" >/dev/null 2>&1
is "$?" 2 "mmap mode refuses writes: a usage error"
iolab >/dev/null 2>&1
is "$?" 2 "no file is a usage error"
head -c 1048576 /dev/zero >/tmp/iolab-tmpfs
iolab -m uncached /tmp/iolab-tmpfs 2>/tmp/iolab.err
ok "grep -q 'RWF_UNCACHED is not supported here' /tmp/iolab.err" \
	"uncached on tmpfs explains EOPNOTSUPP"
rm -f /tmp/iolab-tmpfs

rm -f "$f"
done_testing
