#!/bin/sh
# Lab 4, guest side: writing a data set ten times RAM buffered, with
# RWF_UNCACHED and with O_DIRECT; the throttling of buffered writers; a
# trace of when uncached writes really finish.
set -eu
LAB=lab4
# shellcheck source=../lib/guest.sh
. /usr/share/pclab/labs/lib/guest.sh
file=$dir/lab4.dat

# write NAME MODE: write the data set in mode MODE (fsync at the end), with
# writeback:balance_dirty_pages traced to count the writer's throttling
write() {
	rm -f "$file"
	cold
	trace-cmd record -q -e writeback:balance_dirty_pages -o /tmp/bdp.dat \
		sh -c "iolab -j -l $out/$1.csv -w -m $2 -b 1M -s ${write_mib}M $file >/tmp/write.json" \
		>/dev/null 2>&1
	fact "$1" "$(cat /tmp/write.json)"
	fact "$1.throttled" "$(trace-cmd report -i /tmp/bdp.dat 2>/dev/null | grep -c 'balance_dirty_pages:' || true)"
	say "  $1: $(json "$1" mb_s) MB/s, dirty peak $(($(json "$1" dirty_kib_peak) / 1024)) MiB," \
		"cache peak $(($(json "$1" cache_kib.peak) / 1024)) MiB, throttled $(json "$1.throttled") times"
}

# Small, explicit dirty limits, so that the throttling shows within a few
# MiB of writing.
dirty_mib=${LAB4_DIRTY_MIB:-8}
echo $((dirty_mib << 20)) >/proc/sys/vm/dirty_bytes
echo $((dirty_mib << 19)) >/proc/sys/vm/dirty_background_bytes
say "dirty limits: vm.dirty_bytes $dirty_mib MiB, vm.dirty_background_bytes $((dirty_mib / 2)) MiB"
fact dirty-limit-mib "$dirty_mib"

# A disk slower than this guest's writer, whatever the machine.  The
# emulated disk writes into the host's memory, often faster than the guest
# can dirty pages, and then no writer is ever throttled.  So measure how
# fast a buffered writer goes here (copy, write back, fsync; no limit) and
# limit the lab's writes to the disk to half of that, with cgroup v2's
# io.max; the kernel charges writeback to the cgroup that dirtied the pages.
probe_mib=$((mem_mib / 4))
rm -f "$file"
cold
fact probe "$(iolab -j -w -m buffered -b 1M -s "${probe_mib}M" "$file")"
rm -f "$file"
writer_mb_s=$(json probe mb_s)
disk_mb_s=$(awk -v w="$writer_mb_s" 'BEGIN { d = int(w / 2); print d < 1 ? 1 : d }')
write_limit lab4 "$disk_mb_s"
echo $$ >/sys/fs/cgroup/lab4/cgroup.procs
fact disk-limit "{\"writer_mb_s\": $writer_mb_s, \"disk_mb_s\": $disk_mb_s}"
say "a buffered writer here: $writer_mb_s MB/s ($probe_mib MiB with fsync);" \
	"the lab's writes to $(disk_dev) are limited to $disk_mb_s MB/s (cgroup io.max)"

write_mib=${LAB4_WRITE_MIB:-$data_mib}
say "step 1/3: write $write_mib MiB in 1 MiB calls, then fsync: buffered, uncached, O_DIRECT"
write buffered buffered
write uncached uncached
write direct direct

say "step 2/3: when is an uncached write done? trace one 16 MiB write (no fsync)"
rm -f "$file"
cold
trace-cmd record -q -e filemap:mm_filemap_dropbehind_end -e filemap:mm_filemap_dropbehind_call \
	-e syscalls:sys_exit_pwritev2 -o "$out/uncached-write.dat" \
	sh -c "pclab-rw -w -U -b 1M -s 16M $file; sleep 2" >/dev/null 2>&1
say "  recorded $out/uncached-write.dat (read on the host with trace-cmd report)"

say "step 3/3: durability: disk cache flushes during an uncached write, and during fsync"
flushes() { disk_stat 16; }
rm -f "$file"
sync
f0=$(flushes)
pclab-rw -w -U -b 1M -s 16M "$file"
f1=$(flushes)
fact after-return "$(pclab-rw -S -J "$file")"
sync "$file"
f2=$(flushes)
fact flushes "{\"uncached_write\": $((f1 - f0)), \"fsync\": $((f2 - f1))}"
say "  flushes of the disk's write cache: $((f1 - f0)) during the write, $((f2 - f1)) during fsync"
say "  cachestat right after the write: $(json after-return cached) pages cached," \
	"$(json after-return dirty) dirty, $(json after-return writeback) under writeback"
rm -f "$file"
