#!/bin/sh
# Lab 1, guest side: watch the page cache fill on a buffered read, serve a
# second read from memory, and empty again on drop_caches.
# Writes /results/lab1.csv: step,cached_kib,pgpgin_kib,seconds
set -eu
size_mib=${LAB1_SIZE_MIB:-64}
file=/mnt/ext4/lab1.dat

cached() { awk '$1 == "Cached:" { print $2 }' /proc/meminfo; }
pgpgin() { awk '$1 == "pgpgin" { print $2 }' /proc/vmstat; }
now() { awk '{ print $1 }' /proc/uptime; }
csv=/results/lab1.csv
echo "step,cached_kib,pgpgin_kib,seconds" >"$csv"

step() { # name command...
	name=$1
	shift
	in0=$(pgpgin)
	t0=$(now)
	"$@"
	t1=$(now)
	echo "$name,$(cached),$(($(pgpgin) - in0)),$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')" >>"$csv"
	echo "lab1:   $name: Cached $(($(cached) / 1024)) MiB"
}
read_file() { cat "$file" >/dev/null; }
drop() { sync; echo 3 >/proc/sys/vm/drop_caches; }

echo "lab1: step 1/4: writing a $size_mib MiB file on ext4, then dropping the page cache"
dd if=/dev/urandom of="$file" bs=1M count="$size_mib" 2>/dev/null
drop
echo "baseline,$(cached),0,0" >>"$csv"
echo "lab1:   baseline: Cached $(($(cached) / 1024)) MiB"
echo "lab1: step 2/4: first (cold) read: data comes from the disk and stays in the cache"
step cold_read read_file
echo "lab1: step 3/4: second (warm) read: served from the page cache"
step warm_read read_file
echo "lab1: step 4/4: drop_caches empties the cache again"
step drop_caches drop
rm -f "$file"
