#!/bin/sh
# The backup exercise (lab 7's capstone), guest side (run from /extra,
# where the grader puts it, under busybox sh).  Makes a data set of
# LAB_DATA_MIB MiB in a few files, at least ten times the memory the page
# cache can use, and copies it beside lab 5's hot reader (lib/guest.sh's
# beside): first with the student's backup (/extra/bin/backup, run as the
# user student, into a directory of student's), then, if
# that copy is complete, with a plain buffered copy (cp, then sync), the
# reference; then the case of a file system that refuses the flag (tmpfs).
# Records what happened as facts; labs/exercises/backup/grade grades them
# on the host.
#
#   LAB7_ROOM_MIB  if set (QUICK=1), a ballast in tmpfs holds all of the
#                  memory but this much, as a service's own heap would,
#                  so that a small data set is still ten times the cache
#   LAB7_HOT_MIB   the hot set (default: half the memory the cache can use)
set -eu
LAB=backup
# shellcheck source=../../lib/guest.sh
. /usr/share/pclab/labs/lib/guest.sh

files=4
src=$dir/data dst=$dir/backup ref=$dir/reference hot=$dir/hot.dat
mkdir -p /mnt/tmpfs
mount -t tmpfs -o "size=${mem_mib}m" tmpfs /mnt/tmpfs
# The files are mostly whole MiB, written with O_DIRECT (the cache stays
# empty), plus a tail of a few KiB that is not a whole number of pages.
# Their bytes repeat with a period that is not a whole number of MiB (a
# random MiB and 4093 bytes, one per file), so a block copied to the
# wrong place, or twice, shows; making them from /dev/urandom alone would
# take minutes under emulation.
say "the data set: $files files of $((data_mib / files)) MiB and a tail in $src"
mkdir -p "$src" "$ref"
student_dir "$dst"
i=1
while [ "$i" -le "$files" ]; do
	dd if=/dev/urandom of=/mnt/tmpfs/chunk bs=$((1048576 + 4093)) count=1 iflag=fullblock 2>/dev/null
	for _ in 1 2 3 4 5 6 7 8; do cat /mnt/tmpfs/chunk; done >/mnt/tmpfs/chunks
	{ while cat /mnt/tmpfs/chunks; do :; done; } 2>/dev/null |
		dd of="$src/file$i" bs=1M count=$((data_mib / files)) iflag=fullblock oflag=direct 2>/dev/null
	head -c $((1234 * i)) /mnt/tmpfs/chunk >>"$src/file$i"
	i=$((i + 1))
done
rm /mnt/tmpfs/chunk /mnt/tmpfs/chunks
bytes=0 pages=0
for f in "$src"/*; do
	size=$(stat -c %s "$f")
	bytes=$((bytes + size)) pages=$((pages + (size + 4095) / 4096))
done

cold
ballast=0
# QUICK=1: the ballast, grown until MemAvailable is down to LAB7_ROOM_MIB
# (a first guess misses by the kernel's own bookkeeping)
tries=0
while [ -n "${LAB7_ROOM_MIB:-}" ] && [ "$(meminfo_mib MemAvailable)" -gt "$LAB7_ROOM_MIB" ] && [ "$tries" -lt 5 ]; do
	tries=$((tries + 1))
	more=$(($(meminfo_mib MemAvailable) - LAB7_ROOM_MIB))
	dd if=/dev/zero of=/mnt/tmpfs/ballast bs=1M seek="$ballast" count="$more" conv=notrunc 2>/dev/null
	ballast=$((ballast + more))
done
# the memory the page cache can use: all that is free or reclaimable
room=$(meminfo_mib MemAvailable)
hot_mib=${LAB7_HOT_MIB:-$((room / 2))}
pclab-rw -w -s "${hot_mib}M" -f "$hot"
fact setup "$(jq -cn --argjson mem "$mem_mib" --argjson room "$room" --argjson ballast "$ballast" \
	--argjson data "$data_mib" --argjson files "$files" --argjson bytes "$bytes" --argjson pages "$pages" \
	--argjson hot "$hot_mib" --arg fs "$fs" \
	'{mem_total_mib: $mem, room_mib: $room, ballast_mib: $ballast, data_mib: $data, files: $files,
	  bytes: $bytes, pages: $pages, hot_mib: $hot, fs: $fs}')"
say "$data_mib MiB of data, $((data_mib / room)) times the $room MiB the page cache can use;" \
	"a hot set of $hot_mib MiB"

# A flush during the backup must be its doing: the file systems' own
# timers commit (and flush) too, ext4's journal every 5 s and xfs's log
# worker every 30 s.
if [ "$fs" = ext4 ]; then
	mount -o remount,commit=600 "$dir"
else
	echo 720000 >/proc/sys/fs/xfs/xfssyncd_centisecs
fi

centisecs() { uptime_s | awk '{ printf "%d\n", $1 * 100 }'; }
# dir_sum DIR KEY: the regular files of DIR, added up: their bytes or
# their cached pages
dir_sum() {
	n=0
	for f in "$1"/*; do
		[ -f "$f" ] || continue
		if [ "$2" = bytes ]; then v=$(stat -c %s "$f"); else v=$(cached "$f"); fi
		n=$((n + v))
	done
	echo "$n"
}
# identical SRCDIR DSTDIR [cmp]: true if DSTDIR holds each file of
# SRCDIR, byte for byte: the sizes first, then the md5 sums of the two
# files at once, on the two CPUs (with cmp: compared by cmp, for small
# files)
identical() {
	for f in "$1"/*; do
		g=$2/${f##*/}
		if [ ! -f "$g" ] || [ "$(stat -c %s "$f")" != "$(stat -c %s "$g")" ]; then
			echo false
			return
		fi
	done
	for f in "$1"/*; do
		if [ "${3:-}" = cmp ]; then
			cmp -s "$f" "$2/${f##*/}" || { echo false; return; }
			continue
		fi
		md5sum <"$f" >/tmp/want.md5 &
		md5sum <"$2/${f##*/}" >/tmp/got.md5
		wait $!
		cmp -s /tmp/want.md5 /tmp/got.md5 || { echo false; return; }
	done
	echo true
}
# mb_s BYTES CENTISECONDS
mb_s() { awk -v b="$1" -v t="$2" 'BEGIN { printf "%.1f\n", (t > 0 ? b / 1e4 / t : 0) }'; }

# A hung backup costs its checks, not the run: it may take a second a MiB.
limit=$((data_mib + 120))
run_backup() {
	flush0=$(disk_stat 16)
	read0=$(vm_counter dropbehind_read) write0=$(vm_counter dropbehind_write)
	t0=$(centisecs)
	status=0
	as_student timeout "$limit" backup "$src" "$dst" >/tmp/backup.out 2>/tmp/backup.err || status=$?
	t1=$(centisecs)
	flush1=$(disk_stat 16)
	read1=$(vm_counter dropbehind_read) write1=$(vm_counter dropbehind_write)
}
say "the backup, beside the hot reader: backup $src $dst"
beside backup "$hot" run_backup
copied=$(dir_sum "$dst" bytes)
src_cached=$(dir_sum "$src" cached) dst_cached=$(dir_sum "$dst" cached)
# what the disk holds: the file system read again from it
dev=$(disk_dev)
umount "$dir"
mount -t "$fs" "/dev/$dev" "$dir"
same=$(identical "$src" "$dst")
fact backup "$(jq -cn --argjson status "$status" --argjson cs $((t1 - t0)) --argjson copied "$copied" \
	--argjson mb_s "$(mb_s "$copied" $((t1 - t0)))" --argjson identical "$same" \
	--argjson src_cached "$src_cached" --argjson dst_cached "$dst_cached" \
	--argjson flushes $((flush1 - flush0)) \
	--argjson dropbehind_read $((read1 - read0)) --argjson dropbehind_write $((write1 - write0)) \
	--arg stdout "$(head -c 300 /tmp/backup.out)" --arg stderr "$(head -c 1000 /tmp/backup.err)" \
	'{status: $status, seconds: ($cs / 100), bytes: $copied, mb_s: $mb_s, identical: $identical,
	  src_cached: $src_cached, dst_cached: $dst_cached, flushes: $flushes,
	  dropbehind_read: $dropbehind_read, dropbehind_write: $dropbehind_write,
	  stdout: $stdout, stderr: $stderr}')"
say "  exit status $status, $copied of $bytes bytes in $(json backup seconds) s ($(json backup mb_s) MB/s)," \
	"copy $([ "$same" = true ] && echo identical || echo DIFFERENT) after a remount;" \
	"cached pages: data $src_cached, copy $dst_cached; $((flush1 - flush0)) cache flushes"
rm -rf "$dst"

# The reference: what the backup is up against.  Only worth the time when
# there is a complete backup to compare it with.
run_reference() {
	t0=$(centisecs)
	status=0
	{ cp "$src"/* "$ref"/ && sync; } 2>/tmp/reference.err || status=$?
	t1=$(centisecs)
}
if [ "$status" = 0 ] && [ "$same" = true ]; then
	say "the reference, beside the hot reader: cp $src/* $ref/ && sync"
	beside reference "$hot" run_reference
	src_cached=$(dir_sum "$src" cached) dst_cached=$(dir_sum "$ref" cached)
	fact reference "$(jq -cn --argjson status "$status" --argjson cs $((t1 - t0)) \
		--argjson mb_s "$(mb_s "$bytes" $((t1 - t0)))" \
		--argjson src_cached "$src_cached" --argjson dst_cached "$dst_cached" \
		--arg stderr "$(head -c 1000 /tmp/reference.err)" \
		'{ran: true, status: $status, seconds: ($cs / 100), mb_s: $mb_s, src_cached: $src_cached,
		  dst_cached: $dst_cached, stderr: $stderr}')"
	say "  exit status $status, $(json reference seconds) s ($(json reference mb_s) MB/s);" \
		"cached pages: data $src_cached, copy $dst_cached"
	rm -rf "$ref"
else
	fact reference '{"ran": false}'
	say "the reference: not run, the backup is not complete"
fi

# tmpfs refuses the flag: a clear failure without -f, a copy with it
say "tmpfs, which refuses RWF_UNCACHED: backup, then backup -f"
t=/mnt/tmpfs
mkdir -p "$t/src"
student_dir "$t/dst"
student_dir "$t/dst-f"
head -c $((1048576 + 1234)) /dev/urandom >"$t/src/file1"
head -c 1234 /dev/urandom >"$t/src/file2"
plain=0
as_student timeout 60 backup "$t/src" "$t/dst" >/dev/null 2>/tmp/plain.err || plain=$?
fallback=0
as_student timeout 60 backup -f "$t/src" "$t/dst-f" >/dev/null 2>/tmp/fallback.err || fallback=$?
fact tmpfs "$(jq -cn --argjson plain "$plain" --argjson fallback "$fallback" \
	--argjson named "$(grep -c 'RWF_UNCACHED is not supported' /tmp/plain.err || true)" \
	--argjson fallbacks "$(grep -c 'falling back to plain' /tmp/fallback.err || true)" \
	--argjson identical "$(identical "$t/src" "$t/dst-f" cmp)" \
	--arg plain_stderr "$(head -c 500 /tmp/plain.err)" --arg fallback_stderr "$(head -c 500 /tmp/fallback.err)" \
	'{status: $plain, refusals: $named, status_f: $fallback, fallbacks: $fallbacks, identical_f: $identical,
	  stderr: $plain_stderr, stderr_f: $fallback_stderr}')"
say "  without -f: exit status $plain; with -f: exit status $fallback, copy $(json tmpfs identical_f)"
fact finished true
hidden_tests
