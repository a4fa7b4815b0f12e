#!/bin/bash
# make bench's plumbing (QUICK=1, 128 MiB streams, on the debug kernel): every scenario runs,
# the summary has its tables and a measured value for each target the
# patched kernel alone can answer.  No performance assertions: those are
# the benchmark's to report, not the tests'.
set -u
# shellcheck source=../lib/both/tap.sh
. "$(dirname "$0")/../lib/both/tap.sh"
# shellcheck source=../lib/host/vm.sh
. "$(dirname "$0")/../lib/host/vm.sh"

log=$CHECK_RESULTS/bench.out
status=0
LAB_DATA_MIB=128 QUICK=1 LAB_KERNEL=$VM_KERNEL LAB_RESULTS=$CHECK_RESULTS "$top/bench/run" >"$log" 2>&1 || status=$?
summary=$CHECK_RESULTS/bench/summary.md
is "$status" 0 "bench/run QUICK=1 completes (log: $log)"
vm_check_console bench
for section in seqread randread seqwrite tracing "pcviz beside" "noisy neighbour" "fsync beside" \
	"fsync of an appender" "fsync cost" contended "one vCPU" "Targets"; do
	ok "grep -q '^##.* $section' '$summary'" "the summary has the $section table"
done
rows=$(grep -c '^| ' "$summary")
ok "[ $rows -ge 30 ]" "the summary's tables have rows ($rows)"
unmeasured=$(grep -E '^\| (seq|random|noisy|fsync|tracepoints|pcviz|ext4|one vCPU)' "$summary" | grep -v unpatched |
	grep -c 'not measured')
is "$unmeasured" 0 "every target but the baseline's has a measured value"
ok "grep -q '| uncached-2019 |' '$summary'" "the 2019 strategy was measured through the knob"
for png in seqread-throughput seqread-page-cache seqwrite-throughput seqwrite-dirty cliff; do
	ok "[ -s '$CHECK_RESULTS/bench/$png.png' ]" "plot $png.png drawn"
done
n=$(find "$CHECK_RESULTS/bench/ext4" -name '*.csv' | wc -l)
ok "[ $n -ge 14 ]" "a per-second CSV for every run ($n)"
# the contended runs: one log per stream, and the streams added up row by
# row into the log the cliff plots draw
for m in buffered uncached; do
	prefix=$CHECK_RESULTS/bench/ext4/cseqread-$m.r1
	n=$(jq -r --arg re "^ext4/cseqread-$m\\.r1\\.[0-9]+$" 'select(.name | test($re)) | .name' \
		"$CHECK_RESULTS/bench/results.jsonl" | sort -u | wc -l)
	is "$n" 4 "contended $m read: a summary per stream"
	streams_mb=$(awk -F, 'FNR == 3 { s += $2 } END { printf "%.2f", s }' "$prefix".[0-9]*.csv)
	summed_mb=$(awk -F, 'NR == 3 { printf "%.2f", $2 }' "$prefix.sum.csv" 2>/dev/null)
	ok "[ -n '$summed_mb' ] && [ '$summed_mb' = '$streams_mb' ]" \
		"contended $m read: the summed log adds the streams' MB/s ($summed_mb, $streams_mb)"
done
done_testing
