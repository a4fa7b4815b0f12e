#!/bin/sh
# Lab 5, guest side: a latency-sensitive reader with a hot working set,
# alone and beside a streaming reader in each mode; then the buffered
# streamer again, bounded by memory cgroups instead of by the flag; then a
# hot set in a shared mapping beside the buffered and the uncached stream.
set -eu
LAB=lab5
# shellcheck source=../lib/guest.sh
. /usr/share/pclab/labs/lib/guest.sh
big=$dir/lab5.dat
hot=$dir/lab5-hot.dat
hot_mib=${LAB5_HOT_MIB:-$((mem_mib * 4 / 10))}
data_file "$big" "$data_mib"
pclab-rw -w -s "${hot_mib}M" -f "$hot"
fact hot-mib "$hot_mib"
fact mem-mib "$mem_mib"

say "the hot set: $hot_mib MiB read at random, 500 reads/s, for $secs s per scenario"
# pcviz tells who evicted the hot set's pages (beside's NAME.evictions)
beside_watch=1
step=0
for mode in none buffered uncached direct; do
	step=$((step + 1))
	say "step $step/6: streaming reader: $mode"
	noisy "$mode" "$mode" "$hot" "$big"
done

# The alternative an administrator has without changing the streamer: a
# memory.max on its cgroup bounds its page cache, so past the cap it
# reclaims its own pages; memory.low on the hot reader's cgroup, which is
# charged for the hot set (beside reads it in there), shields that from
# the machine's reclaim.  A quarter of memory for the streamer; the hot set
# and a quarter more (the reader's own memory) protected.
cap_mib=$((mem_mib / 4)) low_mib=$((hot_mib * 5 / 4))
say "step 5/6: streaming reader: buffered, its cgroup capped at memory.max $cap_mib MiB," \
	"the hot reader's protected by memory.low $low_mib MiB"
make_cgroup neighbour
make_cgroup hot-reader
echo "${cap_mib}M" >/sys/fs/cgroup/neighbour/memory.max
echo "${low_mib}M" >/sys/fs/cgroup/hot-reader/memory.low
fact capped.limits "{\"memory_max_mib\": $cap_mib, \"memory_low_mib\": $low_mib}"
# who reclaimed the streamer's pages: itself, at its cap, or kswapd
stolen() { # KEY: the neighbour's memory.stat counter KEY
	proc_value /sys/fs/cgroup/neighbour/memory.stat "$1"
}
direct0=$(stolen pgsteal_direct) kswapd0=$(stolen pgsteal_kswapd)
at_max0=$(proc_value /sys/fs/cgroup/neighbour/memory.events max)
noisy capped buffered "$hot" "$big"
fact capped.reclaim "{\"neighbour_pgsteal_direct\": $(($(stolen pgsteal_direct) - direct0)),
	\"neighbour_pgsteal_kswapd\": $(($(stolen pgsteal_kswapd) - kswapd0)),
	\"neighbour_at_max\": $(($(proc_value /sys/fs/cgroup/neighbour/memory.events max) - at_max0))}"
say "  capped: the streamer's own reclaim took $(json capped.reclaim neighbour_pgsteal_direct) of its pages," \
	"kswapd $(json capped.reclaim neighbour_pgsteal_kswapd); it reached memory.max" \
	"$(json capped.reclaim neighbour_at_max) times"

# Step 6: the hot set in a shared mapping, as a database keeps its buffer
# pool: 60% of memory, loaded at random 5000 times a second.  Reclaim must
# walk the page tables of each hot page it meets to see whether it was used
# since it last looked, and evicts those that were not, which the reader
# then faults back (#29's reclaim-hostile setting, docs/bench.md).  No
# limits: step 5's are lifted.
echo max >/sys/fs/cgroup/neighbour/memory.max
echo 0 >/sys/fs/cgroup/hot-reader/memory.low
mapped_mib=$((mem_mib * 6 / 10))
mapped=$dir/lab5-mapped.dat
pclab-rw -w -s "${mapped_mib}M" -f "$mapped"
fact mapped-mib "$mapped_mib"
beside_reader=mmap beside_rate=5000
for mode in buffered uncached; do
	say "step 6/6: a mapped hot set of $mapped_mib MiB, 5000 loads/s; streaming reader: $mode"
	noisy "mapped-$mode" "$mode" "$mapped" "$big"
done
