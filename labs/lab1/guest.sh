#!/bin/sh
# Lab 1, guest side: watch the page cache fill on a buffered read, serve a
# second read from memory, and empty again on drop_caches.
# Writes /results/lab1.csv: step,cached_kib,pgpgin_kib,seconds
set -eu
size_mib=${LAB1_SIZE_MIB:-64}
file=/mnt/${LAB_FS:-ext4}/lab1.dat

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

echo "lab1: step 1/5: writing a $size_mib MiB file on ext4, then dropping the page cache"
dd if=/dev/urandom of="$file" bs=1M count="$size_mib" 2>/dev/null
drop
echo "baseline,$(cached),0,0" >>"$csv"
echo "lab1:   baseline: Cached $(($(cached) / 1024)) MiB"
echo "lab1: step 2/5: first (cold) read: data comes from the disk and stays in the cache"
step cold_read read_file
echo "lab1: step 3/5: second (warm) read: served from the page cache"
step warm_read read_file
echo "lab1: step 4/5: drop_caches empties the cache again"
step drop_caches drop

echo "lab1: step 5/5: read the first quarter and the third quarter; which pages are cached?"
quarter=$((size_mib / 4))
pclab-rw -s "${quarter}M" "$file"
pclab-rw -o "$((2 * quarter))M" -s "${quarter}M" "$file"
# a map of 32 cells: # all cached, + partly, . none (pclab-rw -S per cell)
cell=$((size_mib * 1024 / 32))
map=""
i=0
while [ "$i" -lt 32 ]; do
	cached=$(pclab-rw -S -o "$((i * cell))K" -s "${cell}K" "$file" | cut -d' ' -f1)
	if [ "$cached" -ge $((cell / 4)) ]; then map="$map#"; elif [ "$cached" -gt 0 ]; then map="$map+"; else map="$map."; fi
	i=$((i + 1))
done
echo "$map" >/results/partial-map.txt
echo "lab1:   residency map, 32 cells of $((cell / 1024)) MiB: [$map]"
# the same file seen by pcviz (one batch line, no tracing)
pcviz --batch --count 1 --interval 0.1 --no-events "$file" >/results/partial-pcviz.csv 2>/dev/null
echo "lab1:   pcviz: $(awk -F, 'NR == 2 { print $4 " of " $3 " pages cached" }' /results/partial-pcviz.csv)"
rm -f "$file"
