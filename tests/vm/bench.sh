#!/bin/bash
# make bench's plumbing (QUICK=1, 32 MiB streams, 1-second timed runs, on
# the release kernel make bench boots): every scenario runs, the summary
# has its tables and a measured value for each target the patched kernel
# alone can answer; every job of the matrix ran in every mode and setting
# with the facts its columns read, and has its table.  No performance
# assertions: those are the benchmark's to report, not the tests'.
set -u
# shellcheck source=../lib/both/tap.sh
. "$(dirname "$0")/../lib/both/tap.sh"
# shellcheck source=../lib/host/vm.sh
. "$(dirname "$0")/../lib/host/vm.sh"

log=$CHECK_RESULTS/bench.out
status=0
LAB_DATA_MIB=32 LAB_SECONDS=1 QUICK=1 LAB_KERNEL=$VM_RELEASE_KERNEL LAB_RESULTS=$CHECK_RESULTS "$top/bench/run" >"$log" 2>&1 || status=$?
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
# The matrix (#29 section 1): every job x mode x setting left its facts,
# with a number for each column the summary reads (iolab writes -1 where
# it cannot say: a number too), and the summary has the job's table.
results=$CHECK_RESULTS/bench/results.jsonl
io_columns="mb_s cpu_sys_s dirty_kib_peak cache_kib.peak allocstalls kswapd_cpu_pct pgscan pages_reclaimed psi_mem_some_ms"
lat_columns="lat_us.p50 lat_us.p99 lat_us.p999"
cgroup_columns="peak_kib limit_hits oom_kills pgscan pages_reclaimed psi_mem_some_ms"
# columns REGEX N KEY...: "ok" if N facts' names match REGEX and each has
# a number at every KEY, else what is wrong
columns() {
	local re=$1 n=$2
	shift 2
	jq -rn --arg re "$re" --argjson n "$n" --arg keys "$*" '
		[inputs | select(.name | test($re))] as $f
		| if ($f | length) != $n then "\($f | length) facts match \($re), not \($n)"
		  else [$f[] | .name as $name | ($keys | split(" ")[]) as $k
			| select(.value | getpath($k | split(".")) | type != "number") | "\($name) has no \($k)"]
			| first // "ok" end' "$results"
}
for job in seqread randread seqwrite randwrite cwrite cwrite32 compete nwrite; do
	case "$job" in
	cwrite) streams=4 ;;
	cwrite32) streams=32 ;;
	compete) streams=2 ;;
	*) streams=1 ;;
	esac
	modes="buffered uncached direct"
	[ "$job" != nwrite ] || modes="alone $modes"
	for setting in global memcg; do
		at=ext4
		[ "$setting" = global ] || at=ext4/memcg
		for m in $modes; do
			run="^$at/$job-$m\\.r1"
			what="matrix: $job, $m, $setting"
			if [ "$job" = nwrite ]; then
				is "$(columns "$run-hot\$" 1 "$lat_columns" hit_pct)" ok "$what: the reader's facts"
				[ "$m" = alone ] ||
					is "$(columns "$run-writer\$" 1 "$io_columns")" ok "$what: the writer's facts"
			elif [ "$streams" = 1 ]; then
				is "$(columns "$run\$" 1 "$io_columns" "$lat_columns")" ok "$what: its facts"
			else
				is "$(columns "$run\\.[0-9]+\$" "$streams" "$io_columns" "$lat_columns")" ok "$what: a summary per process"
			fi
			[ "$setting" = global ] || [ "$m" = alone ] ||
				is "$(columns "$run\\.cgroup\$" 1 "$cgroup_columns")" ok "$what: the memory cgroup's counters"
		done
	done
	rows=$(sed -n "/^### matrix: $job:/,/^#/p" "$summary" | grep -cE '^\| [a-z]+ \| (global|memcg) \|')
	is "$rows" $((2 * $(echo "$modes" | wc -w))) "matrix: $job: the summary's table has a row per mode and setting"
done
# the contended read in the memcg setting (#29's memory cgroup of four readers)
for m in buffered uncached direct; do
	run="^ext4/memcg/cseqread-$m\\.r1"
	is "$(columns "$run\\.[0-9]+\$" 4 "$io_columns" "$lat_columns")" ok "memcg: contended $m read: a summary per stream"
	is "$(columns "$run\\.cgroup\$" 1 "$cgroup_columns")" ok "memcg: contended $m read: the memory cgroup's counters"
done
goals=$(sed -n "/^## Issue #29's goals (ext4)/,/^## /p" "$summary")
is "$(echo "$goals" | grep -cE '^\| [a-z0-9].*\| (met|missed|not measured) \|$')" 20 "the summary's table of #29's goals has its 20 goals"
# at 32 MiB the buffered stream never fills the cache: nothing to scan
is "$(echo "$goals" | grep -F 'not measured' | grep -vcF 'pgscan / pgsteal')" 0 \
	"every goal of #29 but the reclaim-hostile setting's scan ratio has a measured value"
# the reclaim-hostile read: the stream's facts, the mapped reader's, the hot set's pages
for m in buffered uncached; do
	is "$(columns "^ext4/hostile-$m\\.r1-stream\$" 1 "$io_columns")" ok "reclaim-hostile: $m stream's facts"
	is "$(columns "^ext4/hostile-$m\\.r1-hot\$" 1 "$lat_columns")" ok "reclaim-hostile: the mapped reader's facts beside $m"
	is "$(columns "^ext4/hostile-$m\\.r1\\.resident\$" 1 before after)" ok "reclaim-hostile: the hot set's pages beside $m"
done
ok "grep -q 'second.s share of the total' '$summary'" "matrix: the competing writers' shares in the summary"
ok "grep -q 'reader p99 / alone' '$summary'" "matrix: the noisy writer's reader against alone in the summary"
ok "[ -s '$CHECK_RESULTS/bench/matrix-ext4.png' ]" "plot matrix-ext4.png drawn"

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

# BENCH_PERF=1: a profile of each run of a job, in both settings, in a
# results root of its own
perf_root=$CHECK_RESULTS/bench-perf
perf_status=0
BENCH_PERF=1 BENCH_SCENARIOS=compete LAB_DATA_MIB=32 LAB_SECONDS=1 QUICK=1 LAB_KERNEL=$VM_RELEASE_KERNEL \
	LAB_RESULTS=$perf_root "$top/bench/run" >"$CHECK_RESULTS/bench-perf.out" 2>&1 || perf_status=$?
is "$perf_status" 0 "bench/run BENCH_PERF=1 completes (log: $CHECK_RESULTS/bench-perf.out)"
for at in ext4 ext4/memcg; do
	for m in buffered uncached direct; do
		report=$perf_root/bench/$at/compete-$m.r1.perf.txt
		ok "grep -qE '[0-9.]+%.*\\[k\\] ' '$report'" "BENCH_PERF=1: $at compete $m: a profile with kernel symbols"
	done
done
ok "grep -q 'BENCH_PERF=1: profiled runs' '$perf_root/bench/summary.md'" "BENCH_PERF=1: the summary says its runs were profiled"
done_testing
