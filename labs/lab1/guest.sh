#!/bin/sh
# Lab 1, guest side: watch the page cache fill on a buffered read, serve a
# second read from memory, and empty again on drop_caches.
# Records a fact per step: {cached_kib, pgpgin_kib, seconds}; the
# residency map and pcviz's view of the half-read file.
set -eu
LAB=lab1
# shellcheck source=../lib/guest.sh
. /usr/share/pclab/labs/lib/guest.sh
size_mib=${LAB1_SIZE_MIB:-64}
file=$dir/lab1.dat
fact file-mib "$size_mib"

step() { # name command...
	name=$1
	shift
	in0=$(vm_counter pgpgin)
	t0=$(uptime_s)
	"$@"
	t1=$(uptime_s)
	fact "$name" "{\"cached_kib\": $(meminfo_kib Cached), \"pgpgin_kib\": $(($(vm_counter pgpgin) - in0)),
		\"seconds\": $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')}"
	echo "lab1:   $name: Cached $(meminfo_mib Cached) MiB"
}
read_file() { cat "$file" >/dev/null; }
drop() { sync; echo 3 >/proc/sys/vm/drop_caches; }

echo "lab1: step 1/5: writing a $size_mib MiB file on ext4, then dropping the page cache"
dd if=/dev/urandom of="$file" bs=1M count="$size_mib" 2>/dev/null
drop
fact baseline "{\"cached_kib\": $(meminfo_kib Cached), \"pgpgin_kib\": 0, \"seconds\": 0}"
echo "lab1:   baseline: Cached $(meminfo_mib Cached) MiB"
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
	cached=$(pclab-rw -S -O cached -n -o "$((i * cell))K" -s "${cell}K" "$file")
	if [ "$cached" -ge $((cell / 4)) ]; then map="$map#"; elif [ "$cached" -gt 0 ]; then map="$map+"; else map="$map."; fi
	i=$((i + 1))
done
fact partial-map "$map"
echo "lab1:   residency map, 32 cells of $((cell / 1024)) MiB: [$map]"
# the same file seen by pcviz (one batch line, no tracing)
fact partial-pcviz "$(pcviz --json --count 1 --interval 0.1 --no-events "$file" 2>/dev/null |
	jq -c '.per_file[0] | {pages, cached}')"
echo "lab1:   pcviz: $(json partial-pcviz cached) of $(json partial-pcviz pages) pages cached"
rm -f "$file"
