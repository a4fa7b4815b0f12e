#!/bin/sh
# Lab 2, guest side: buffered reads over a data set ten times RAM, the same
# with O_DIRECT, the cliff with more readers than CPUs, a profile of kswapd,
# and two traps of O_DIRECT.
set -eu
LAB=lab2
# shellcheck source=../lib/guest.sh
. /usr/share/pclab/labs/lib/guest.sh
big=$dir/lab2.dat
data_file "$big" "$data_mib"

say "step 1/6: sequential 1 MiB reads of $data_mib MiB ($((data_mib / mem_mib))x RAM), buffered then O_DIRECT"
cold
measure seq-buffered -m buffered -b 1M "$big"
cold
measure seq-direct -m direct -b 1M "$big"

say "step 2/6: random 4 KiB reads for $secs s each, buffered then O_DIRECT"
cold
measure rand-buffered -m buffered -r -b 4K -t "$secs" "$big"
cold
measure rand-direct -m direct -r -b 4K -t "$secs" "$big"

# Four readers on two CPUs: reclaim can no longer hide on an idle CPU.
# Sized by data (the same data set, in four files), so the cache fills
# early in the run at any machine speed, and the rest is the cliff.
streams=4
say "step 3/6: the cliff: $streams buffered readers at once, $((data_mib / streams)) MiB each ($((data_mib / mem_mib))x RAM in all)"
stream_files "$dir/lab2-c" "$streams" $((data_mib / streams))
together cliff-buffered "$streams" "$dir/lab2-c" -m buffered -b 1M -i 0.25
rm -f "$dir"/lab2-c.*

# Sized by data, not time: from a cold cache, memory fills after about
# 0.7x RAM of reading, and only then does kswapd work.  Reading 2x RAM
# profiles at least as much reclaim as filling, at any machine speed.
profile_mib=$((mem_mib * 2))
say "step 4/6: where kswapd's time goes: perf record of a buffered stream of $profile_mib MiB (2x RAM)"
cold
perf record -q -e cpu-clock -F 499 -a -o /tmp/perf.data -- \
	iolab -m buffered -b 1M -s "${profile_mib}M" "$big" >/dev/null 2>&1
perf report -q -i /tmp/perf.data --comm kswapd0 --no-children --sort symbol --stdio \
	-g none 2>/dev/null | sed '/^$/d' | head -n 25 >"$out/kswapd-profile.txt"
say "  kswapd's top functions:"
head -n 8 "$out/kswapd-profile.txt" | sed 's/^/      /'

say "step 5/6: trap 1: O_DIRECT with a block size the device cannot take (1000 bytes)"
set +e
iolab -m direct -b 1000 -s 1M "$big" >/dev/null 2>/tmp/misaligned.txt
status=$?
set -e
fact misaligned "$(jq -cn --argjson status "$status" --rawfile message /tmp/misaligned.txt \
	'{status: $status, message: $message}')"
sed 's/^/      /' /tmp/misaligned.txt

say "step 6/6: trap 2: O_DIRECT beside buffered I/O on the same file"
mixed=$dir/lab2-mixed.dat
pclab-rw -w -s 16M -f "$mixed"
cold
pclab-rw -s 16M "$mixed"
before=$(pclab-rw -S -O cached -n -s 16M "$mixed")
iolab -m direct -w -b 1M -s 8M -j "$mixed" >/dev/null
after=$(pclab-rw -S -O cached -n -s 16M "$mixed")
say "  16 MiB cached: $before pages; after an O_DIRECT write of the first 8 MiB: $after"
# buffered writes sit dirty in the cache; an O_DIRECT read must flush them first
pclab-rw -w -s 8M "$mixed"
dirty_before=$(pclab-rw -S -O dirty -n -s 8M "$mixed")
iolab -m direct -b 1M -s 8M -j "$mixed" >/dev/null
dirty_after=$(pclab-rw -S -O dirty -n -s 8M "$mixed")
say "  8 MiB written buffered: $dirty_before dirty pages; after an O_DIRECT read: $dirty_after"
fact mixing "{\"cached_before\": $before, \"cached_after_direct_write\": $after,
	\"dirty_before\": $dirty_before, \"dirty_after_direct_read\": $dirty_after}"
rm -f "$mixed"
fact sizes "{\"mem_mib\": $mem_mib, \"data_mib\": $data_mib, \"seconds\": $secs, \"streams\": $streams}"
