#!/bin/bash
# pcviz --replay on the host of a trace.dat recorded by trace-cmd in the
# guest: a buffered read, drop_caches, an uncached read, a buffered read
# again of a 4 MiB file.  The residency pcviz reconstructs from the add,
# delete and drop-behind events must follow the workload; the live view
# replays it through tmux.  The host kernel is not traced: the guest
# records, the host only reads the file.
set -u
# shellcheck source=../lib/both/tap.sh
. "$(dirname "$0")/../lib/both/tap.sh"
# shellcheck source=../lib/host/vm.sh
. "$(dirname "$0")/../lib/host/vm.sh"

bin=$top/build/host/pcviz
events="-e filemap:mm_filemap_add_to_page_cache -e filemap:mm_filemap_delete_from_page_cache \
-e filemap:mm_filemap_dropbehind_mark -e filemap:mm_filemap_dropbehind_end \
-e filemap:mm_filemap_dropbehind_call -e pagemap:mm_lru_insertion -e vmscan:mm_vmscan_kswapd_wake"
f=/mnt/ext4/replay
vm_run pcviz-replay -- "pclab-rw -w -s 4M $f >/dev/null && sync && echo 3 >/proc/sys/vm/drop_caches &&
	stat -c %i $f >/results/ino &&
	trace-cmd record -q -o /results/trace.dat $events sh -c '
		cat $f >/dev/null; sleep 0.2; echo 3 >/proc/sys/vm/drop_caches; sleep 0.2
		pclab-rw -U $f >/dev/null; sleep 0.2; cat $f >/dev/null'"
out=$CHECK_RESULTS/pcviz-replay
is "$vm_status" 0 "the guest recorded the workload with trace-cmd"
ino=$(cat "$out/ino" 2>/dev/null)

"$bin" --replay "$out/trace.dat" --json -i 0.01 >"$out/replay.json" 2>"$out/replay.err"
is "$?" 0 "pcviz --replay --json reads the guest's trace.dat"
# the watched file's cached pages at each step, and the totals at the end
jq -rs --arg me " ino $ino" '
	def mine: .per_file[] | select(.path | endswith($me));
	[.[] | ([mine | .cached][0] // -1)] as $s | ($s | max) as $peak | .[-1] as $last |
	"peak \($peak)", "end \($s[-1])",
	"emptied \(if $s[($s | index($peak)):] | any(. == 0) then 1 else 0 end)",
	"marks \($last.ev_db_mark) ends \($last.ev_db_end) lost \($last.lost)",
	"calls \($last.ev_db_call) marked \($last.db_call_marked) dropped \($last.db_call_dropped)",
	"pages \([$last | mine | .pages] | tojson)",
	# runs of equal values: the phases of the workload
	"phases \([foreach $s[] as $v ({}; {v: $v, new: ($v != .v)}; select(.new) | .v)][:8] | tojson) ..."
' "$out/replay.json" >"$out/replay.txt"
diag "$(cat "$out/replay.txt")"
ok "grep -qx 'peak 1024' '$out/replay.txt'" "replayed: the buffered read brings all 1024 pages in"
ok "grep -qx 'emptied 1' '$out/replay.txt'" "replayed: drop_caches empties the file again"
ok "grep -qx 'end 1024' '$out/replay.txt'" "replayed: the last buffered read fills it again"
ok "grep -qx 'marks 1024 ends 1024 lost 0' '$out/replay.txt'" \
	"replayed: the uncached read's 1024 marks and drops, nothing lost"
ok "grep -qx 'calls 4 marked 1024 dropped 1024' '$out/replay.txt'" \
	"replayed: its four 1 MiB calls count the 1024 folios they marked and dropped"
ok "grep -qx 'pages \\[1024\\]' '$out/replay.txt'" "replayed: the file is sized by the pages it touched"

# the guest's trace beside itself: each run exactly its --replay
"$bin" --compare "$out/trace.dat" "$out/trace.dat" --json -i 0.01 >"$out/compare.json" 2>"$out/compare.err"
is "$?" 0 "pcviz --compare of the guest's trace with itself"
ok "jq -e -s --slurpfile one '$out/replay.json' '([.[] | select(.run == \"A\") | del(.run)] | . == \$one) and
	([.[] | select(.run == \"B\") | del(.run)] | . == \$one)' '$out/compare.json' >/dev/null" \
	"... runs A and B are each the --replay output, line for line"

# the live view, replayed through tmux (fast)
sock=pcviz-replay-$$
tmux -L "$sock" new-session -d -x 100 -y 30 \
	"env LANG=C.UTF-8 $bin --replay $out/trace.dat --speed 4 -i 0.1; echo EXIT=\$?; sleep 30"
n=0
while ! tmux -L "$sock" capture-pane -p | grep -q 'END OF TRACE' && [ $n -lt 100 ]; do
	sleep 0.1
	n=$((n + 1))
done
tmux -L "$sock" send-keys 1
sleep 0.3
tmux -L "$sock" capture-pane -p >"$out/screen.txt"
ok "grep -q 'END OF TRACE' '$out/screen.txt'" "the live view replays the trace to its end"
ok "grep -q 'Events  replay of ' '$out/screen.txt' && grep -q '^Residency  dev ' '$out/screen.txt'" \
	"... with the residency map and the events panel"
tmux -L "$sock" send-keys q
sleep 0.5
ok "tmux -L '$sock' capture-pane -p | grep -q EXIT=0" "... and q quits"
tmux -L "$sock" kill-server 2>/dev/null

done_testing
