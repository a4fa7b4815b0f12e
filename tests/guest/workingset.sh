#!/bin/sh
# The workingset events (docs/tracepoints.md): reclaim's evictions and the
# refaults that follow reconcile with /proc/vmstat, and their
# fields say whose page it was and who evicted it.  A file is read once
# by this shell (root cgroup); a streamer in a cgroup of its own then
# reads twice the guest's memory, which evicts that file; the file is read
# again, which refaults it.  Sized by memory, not by time.  Both files are
# sparse: reading a hole caches a zeroed folio like any other, without
# the disk.
# shellcheck source=../lib/both/tap.sh
. "$(dirname "$0")/../lib/both/tap.sh"
# shellcheck source=../../labs/lib/proc.sh
. /usr/share/pclab/labs/lib/proc.sh

t=/sys/kernel/tracing/instances/pclab-workingset-test
ev=$t/events/workingset
if [ ! -d /sys/kernel/tracing/events/workingset ]; then
	skip "workingset events" "the kernel has no workingset trace events"
	done_testing
	exit
fi
mem_mib=$(meminfo_mib MemTotal)
hot=/mnt/ext4/ws-hot
stream=/mnt/ext4/ws-stream
truncate -s 16M "$hot"
truncate -s "$((mem_mib * 2))M" "$stream"
# inode numbers in hex, as the events print them
hot_ino=$(printf '%x' "$(stat -c %i "$hot")")
stream_ino=$(printf '%x' "$(stat -c %i "$stream")")
cg=/sys/fs/cgroup/ws-streamer
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p "$cg"
cg_id=$(stat -c %i "$cg")

sync
echo 3 >/proc/sys/vm/drop_caches
cat "$hot" >/dev/null

mkdir -p "$t"
# every event fits, even all on one CPU: under 80 bytes for each of the
# stream's pages
echo $((mem_mib * 2 * 256 * 80 / 1024)) >"$t/buffer_size_kb"
echo 1 >"$ev/mm_workingset_eviction/enable"
echo 1 >"$ev/mm_workingset_refault/enable"
: >"$t/trace"
# pcviz watches the hot file meanwhile, from a trace instance of its own
pcviz -j -i 0.5 -e evict,refault,kswapd_waker --buffer-kb 4096 "$hot" >/tmp/ws.pcviz 2>/tmp/ws.pcviz.err &
viz=$!
n=0
while [ ! -s /tmp/ws.pcviz ] && [ $n -lt 100 ]; do
	sleep 0.1
	n=$((n + 1))
done
steal0=$(vm_counter_folded pgsteal_file) ref0=$(vm_counter_folded workingset_refault_file)
act0=$(vm_counter_folded workingset_activate_file)
# dd, not cat: its evictions in direct reclaim are told by the comm
sh -c "echo \$\$ >$cg/cgroup.procs && exec dd if=$stream of=/dev/null bs=1M 2>/dev/null"
cat "$hot" >/dev/null
# Two trace instances cannot stop at one instant: kswapd, still reclaiming
# after the last read, once evicted a page between the two.  Deleting the
# stream frees most of memory first, which ends reclaim; tracing stops
# once reclaim has stolen nothing for 0.2 s.  Reclaim must be over before
# the stream is deleted, too: pages kswapd frees from a file being
# deleted leave no shadow and so no eviction event, yet count in
# pgsteal_file (a busy host, where kswapd lagged behind the reads, once
# had 2.2% of them).
reclaim_settles() {
	stolen=-1
	while [ "$stolen" != "$(vm_counter_folded pgsteal_file)" ]; do
		stolen=$(vm_counter_folded pgsteal_file)
		sleep 0.2
	done
}
reclaim_settles
rm "$stream"
reclaim_settles
echo 0 >"$t/tracing_on"
sleep 0.6
kill -TERM "$viz"
wait "$viz" 2>/dev/null
steal=$(($(vm_counter_folded pgsteal_file) - steal0))
refaults=$(($(vm_counter_folded workingset_refault_file) - ref0))
activated=$(($(vm_counter_folded workingset_activate_file) - act0))

# one line per event: KIND COMM INO NR_PAGES MEMCG TARGET RECLAIMER ACTIVATE
# (the comm is the task's, before "-PID" in the trace's first column)
sed -n 's/^ *\(.*\)-[0-9]* *\[[0-9]*\].* mm_workingset_\([a-z]*\): dev [0-9:]* ino \([0-9a-f]*\) .*nr_pages=\([0-9]*\)\(.*\)$/\2 \1 \3 \4 \5/p' \
	"$t/trace" | awk '{
		memcg = target = reclaimer = activate = "-"
		for (i = 5; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == "memcg") memcg = kv[2]
			else if (kv[1] == "target") target = kv[2]
			else if (kv[1] == "reclaimer") reclaimer = kv[2]
			else if (kv[1] == "activate") activate = kv[2]
		}
		print $1, $2, $3, $4, memcg, target, reclaimer, activate
	}' >/tmp/ws.events
# events overwritten in a full buffer, and any it could not take
lost=$(cat "$t"/per_cpu/cpu*/stats | awk '$1 == "overrun:" || $1 == "commit" || $1 == "dropped" { n += $NF } END { print n + 0 }')
# sum KIND [INO [ACTIVATE [COMM]]]: pages in the events of KIND of file
# pages (of INO only, with activate=ACTIVATE only, in tasks named COMM or,
# for kswapd, kswapdN, only)
sum() {
	awk -v k="$1" -v i="${2:-}" -v a="${3:-}" -v c="${4:-}" '$1 == k && $3 != "0" &&
		(i == "" || $3 == i) && (a == "" || $8 == a) &&
		(c == "" || $2 == c || (c == "kswapd" && $2 ~ /^kswapd[0-9]+$/)) { n += $4 }
		END { print n + 0 }' /tmp/ws.events
}
evicted=$(sum eviction)
refaulted=$(sum refault)
reactivated=$(sum refault "" 1)
hot_evicted=$(sum eviction "$hot_ino")
hot_refaulted=$(sum refault "$hot_ino")

is "$lost" 0 "no event was lost"
# pgsteal_file also counts the few pages reclaim frees without a mapping
# to evict them from (truncated ones still holding buffers, an inode being
# evicted): measured, 0 to 0.7% of them
ok "[ $evicted -gt 0 ] && [ $evicted -le $steal ] && [ $((steal - evicted)) -le $((steal / 100)) ]" \
	"the evictions' pages are the file pages reclaim stole, all but at most 1%: $evicted, pgsteal_file +$steal"
ok "[ $refaulted -gt 0 ] && [ $refaulted = $refaults ]" \
	"the refaults' pages are workingset_refault_file: $refaulted, +$refaults"
is "$reactivated" "$activated" "refaults with activate=1 are workingset_activate_file (+$activated)"
ok "[ $hot_evicted -gt 0 ] && [ $hot_refaulted -gt 0 ] && [ $hot_refaulted -le $hot_evicted ]" \
	"the hot file was evicted ($hot_evicted pages) and came back ($hot_refaulted pages)"
is "$(awk -v i="$hot_ino" '$3 == i && $5 != 1' /tmp/ws.events | wc -l)" 0 \
	"the hot file's pages are charged to the root cgroup (memcg=1) in every event"
is "$(awk -v i="$stream_ino" -v c="$cg_id" '$3 == i && $5 != c' /tmp/ws.events | wc -l)" 0 \
	"the streamer's pages are charged to its cgroup (memcg=$cg_id) in every event"
# pcviz's attribution for the hot file, against the kernel's events
viz_file() { tail -n 1 /tmp/ws.pcviz | jq "$1"; }
is "$(viz_file '.lost')" 0 "pcviz lost no event"
is "$(viz_file '.per_file[0] | .evict_kswapd + .evict_direct')" "$hot_evicted" \
	"pcviz: the hot file's evicted pages, kswapd's and direct reclaim's, are its eviction events' ($hot_evicted)"
by_kswapd=$(sum eviction "$hot_ino" "" kswapd)
by_dd=$(sum eviction "$hot_ino" "" dd)
is "$(viz_file '.per_file[0].evict_kswapd')" "$by_kswapd" "pcviz: ... of them by kswapd ($by_kswapd)"
is "$(viz_file "[.per_file[0].reclaimers[] | select(.cgroup == $cg_id and .comm == \"dd\") | .pages] | add // 0")" \
	"$by_dd" "pcviz: ... by the streamer in direct reclaim ($by_dd), told by its name (dd) and cgroup ($cg_id)"
# kswapd's evictions are charged to the task that last woke it: mostly
# the streamer, whose allocations do (measured 95%; the rest came when
# the last cat's woke it)
woken=$(viz_file "[.per_file[0].kswapd_wakers[] | select(.cgroup == $cg_id and .comm == \"dd\") | .pages] | add // 0")
ok "[ $by_kswapd -gt 0 ] && [ $((woken * 2)) -gt $by_kswapd ]" \
	"pcviz: kswapd's evictions of the hot file, $woken of $by_kswapd pages, are charged to the streamer that woke it"
is "$(viz_file '.per_file[0].kswapd_woken_unknown')" 0 "pcviz: no kswapd eviction without a waker seen"
is "$(viz_file '.per_file[0].refaults')" "$hot_refaulted" "pcviz: the hot file's refaulted pages ($hot_refaulted)"
# pcviz's cgroup view, from memory.stat: the streamer's cgroup held the
# stream's page cache (at its largest, more than a quarter of the guest's
# memory)
stream_cache=$(jq -s "[.[].cgroups[]? | select(.path == \"/ws-streamer\") | .file] | max // 0" /tmp/ws.pcviz)
ok "[ $stream_cache -gt $((mem_mib * 1048576 / 4)) ]" \
	"pcviz: the streamer's cgroup (memory.stat) held up to $((stream_cache / 1048576)) MiB of page cache"
gone_max=$(viz_file '.per_file[0].gone_max_s')
ok "awk 'BEGIN { exit !(\"$gone_max\" + 0 > 0) }'" "pcviz: how long they were gone, at most $gone_max s"

is "$(awk '$1 == "eviction" && $6 != 1' /tmp/ws.events | wc -l)" 0 \
	"no cgroup has a limit: every eviction is for the whole machine (target=1)"
is "$(awk '$1 == "eviction" && $2 ~ /^kswapd/ && $7 != 1' /tmp/ws.events | wc -l)" 0 \
	"kswapd reclaims from the root cgroup (reclaimer=1)"
is "$(awk -v c="$cg_id" '$1 == "eviction" && $2 == "dd" && $7 != c' /tmp/ws.events | wc -l)" 0 \
	"direct reclaim by the streamer ($(awk '$1 == "eviction" && $2 == "dd"' /tmp/ws.events | wc -l) events) names its cgroup (reclaimer=$cg_id)"

echo 0 >"$ev/mm_workingset_eviction/enable"
echo 0 >"$ev/mm_workingset_refault/enable"
rmdir "$t"
rm -f "$hot" "$stream" /tmp/ws.events /tmp/ws.pcviz /tmp/ws.pcviz.err
rmdir "$cg"
done_testing
