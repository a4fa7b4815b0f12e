#!/bin/sh
# Lab 6, guest side: inside the design.  The 2019 strategy against this
# series' (debugfs knob), the classic LRU against MGLRU for lab 5's noisy
# neighbour, and a function-graph trace of one uncached read.
set -eu
LAB=lab6
# shellcheck source=../lib/guest.sh
. /usr/share/pclab/labs/lib/guest.sh
knob=/sys/kernel/debug/rwf_uncached/legacy_2019
[ -w "$knob" ] || { say "no $knob: not a pclab kernel?"; exit 1; }
file=$dir/lab6.dat
io_mib=${LAB6_IO_MIB:-$((data_mib / 4))}
# strategy NAME KNOB IOLAB-ARGS...: one run with the knob set; fact
# NAME.disk: the disk requests and KiB it caused
strategy() {
	name=$1
	echo "$2" >"$knob"
	shift 2
	case "$name" in write*) rm -f "$file" ;; esac	# both strategies write a new file
	cold
	r0=$(disk_stat 1) s0=$(disk_stat 3) w0=$(disk_stat 5) t0=$(disk_stat 7)
	measure "$name" "$@"
	r1=$(disk_stat 1) s1=$(disk_stat 3) w1=$(disk_stat 5) t1=$(disk_stat 7)
	case "$name" in
	*write*) n=$((w1 - w0)) kib=$(((t1 - t0) / 2)) ;;
	*) n=$((r1 - r0)) kib=$(((s1 - s0) / 2)) ;;
	esac
	fact "$name.disk" "{\"requests\": $n, \"kib\": $kib}"
	say "    $n disk requests, $((kib / (n > 0 ? n : 1))) KiB each on average"
}

say "step 1/3: the 2019 strategy (knob 1) against this series' (knob 0), $io_mib MiB"
say "  uncached writes (1 MiB calls)"
strategy write-whole 0 -m uncached -w -b 1M -s "${io_mib}M" "$file"
strategy write-2019 1 -m uncached -w -b 1M -s "${io_mib}M" "$file"
say "  uncached reads (1 MiB calls)"
strategy read-whole 0 -m uncached -b 1M "$file"
strategy read-2019 1 -m uncached -b 1M "$file"
echo 0 >"$knob"

say "step 2/3: lab 5's hot reader beside a buffered stream, classic LRU against MGLRU"
big=$dir/lab6-big.dat
hot=$dir/lab6-hot.dat
data_file "$big" "$data_mib"
pclab-rw -w -s "$((mem_mib * 4 / 10))M" -f "$hot"
for lru in classic mglru; do
	if [ "$lru" = mglru ]; then echo y; else echo n; fi >/sys/kernel/mm/lru_gen/enabled
	fact "$lru.enabled" "$(cat /sys/kernel/mm/lru_gen/enabled)"
	say "  $lru (lru_gen/enabled = $(json "$lru.enabled"))"
	noisy "$lru" buffered "$hot" "$big"
done
echo n >/sys/kernel/mm/lru_gen/enabled

say "step 3/3: a function-graph trace of one 64 KiB uncached read of a cold file"
cold
trace-cmd record -q -p function_graph -g filemap_read -o /tmp/graph.dat \
	pclab-rw -U -b 64K -s 64K "$file" >/dev/null 2>&1
trace-cmd report -i /tmp/graph.dat 2>/dev/null >"$out/uncached-read-graph.txt"
fact graph-lines "$(wc -l <"$out/uncached-read-graph.txt")"
say "  $(json graph-lines) lines in $out/uncached-read-graph.txt"
rm -f "$file"
