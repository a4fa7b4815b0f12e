#!/bin/sh
# Lab 5, guest side: a latency-sensitive reader with a hot working set,
# alone and beside a streaming reader in each mode.
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
	say "step $step/4: streaming reader: $mode"
	noisy "$mode" "$mode" "$hot" "$big"
done
