#!/bin/bash
# The table of issue #29's goals in make bench's summary (bench/matrix.jq,
# WHAT goals), over facts made up here whose ratios are known: each row's
# per-round values, their median and its verdict; CPU per MB with kswapd's
# time counted (global) and without (memcg); a goal that ran in no round
# is "not measured", a value the guest wrote as text is no number.
set -u
# shellcheck source=../lib/host/preamble.sh
. "$(dirname "$0")/../lib/host/preamble.sh"
facts=$tmp/results.jsonl

# fact NAME JSON: a fact as the guest's fact() writes it
fact() {
	jq -cn --arg name "$1" --argjson value "$2" '{name: $name, value: $value}' >>"$facts"
}
# run NAME MB/S [KEY=NUMBER...]: an iolab summary of MB/S over 10 s
run() {
	local name=$1 mb_s=$2 kv json
	shift 2
	json=$(jq -cn --argjson m "$mb_s" '{mb_s: $m, seconds: 10, bytes: ($m * 1e7), iops: ($m * 1e6 / 4096),
		cpu_sys_s: 1, kswapd_cpu_pct: 0, lat_us: {p50: 10, p99: 100, p999: 200}}')
	for kv in "$@"; do
		json=$(jq -c --arg k "${kv%%=*}" --argjson v "${kv#*=}" 'setpath($k | split("."); $v)' <<<"$json")
	done
	fact "$name" "$json"
}
goals() {
	jq -nrR --arg fs "$1" --arg jobs "seqread randread cwrite nwrite compete" --arg what goals --arg streams 4 \
		-f "$top/bench/matrix.jq" "$facts"
}
# row FS TEXT: the goals table's row whose goal starts with TEXT
row() {
	goals "$1" | grep -F "| $2" | head -n 1
}

for fs in ext4 xfs; do
	for r in 1 2 3; do
		# contended reads: 4 streams, uncached 1.1, 1.2, 1.4 times buffered
		for i in 1 2 3 4; do
			run "$fs/cseqread-buffered.r$r.$i" 50 cpu_sys_s=5 kswapd_cpu_pct=20
			run "$fs/cseqread-uncached.r$r.$i" "$(jq -n --argjson r "$r" '[55, 60, 70][$r - 1]')" cpu_sys_s=5
			run "$fs/memcg/cseqread-buffered.r$r.$i" 50
			run "$fs/memcg/cseqread-uncached.r$r.$i" 75
		done
		# alone: buffered 10 s of its own and 10 s of kswapd's for 1000 MB
		# (20 ms/MB), uncached 15 s (15 ms/MB): 0.75
		run "$fs/seqread-buffered.r$r" 100 cpu_sys_s=10 kswapd_cpu_pct=100
		run "$fs/seqread-uncached.r$r" 100 cpu_sys_s=15
		# memcg: reclaim in the readers' own time; 19 ms/MB against 20: 0.95
		run "$fs/memcg/seqread-buffered.r$r" 100 cpu_sys_s=20
		run "$fs/memcg/seqread-uncached.r$r" 130 cpu_sys_s=24.7
		run "$fs/randread-buffered.r$r" 20 cpu_sys_s=4
		run "$fs/randread-uncached.r$r" 20 cpu_sys_s=4.4
		# competing writers: the uncached one gets 40% of a total of 0.9x
		run "$fs/compete-buffered.r$r.1" 50
		run "$fs/compete-buffered.r$r.2" 50
		run "$fs/compete-uncached.r$r.1" 54
		run "$fs/compete-uncached.r$r.2" 36
		# reclaim-hostile: the stream 1.6x; buffered scanned 3 pages for each
		# reclaimed; the hot set: 1000 pages before, 995 after the uncached stream
		run "$fs/hostile-buffered.r$r-stream" 100 pgscan=3000 pages_reclaimed=1000
		run "$fs/hostile-uncached.r$r-stream" 160 pgscan=0 pages_reclaimed=0
		run "$fs/hostile-uncached.r$r-hot" 2
		fact "$fs/hostile-uncached.r$r.resident" '{"before": 1000, "after": 995}'
		run "$fs/nwrite-alone.r$r-hot" 0.2 lat_us.p99=100
		run "$fs/nwrite-uncached.r$r-hot" 0.2 lat_us.p99=105
		run "$fs/nwrite-uncached.r$r-writer" 80
	done
done
# a value the guest wrote as text in xfs's memcg writers
fact xfs/memcg/cwrite-buffered.r1.1 '{"mb_s": "fast", "seconds": 10, "bytes": 1e9}'
run xfs/memcg/cwrite-uncached.r1.1 40

is "$(row ext4 'contended sequential read')" \
	"| contended sequential read, 4 readers: MB/s | 1.2 (1.1, 1.2, 1.4) | >= 1.3 | missed |" \
	"contended read: every round's ratio, the median, missed against ext4's 1.3"
is "$(row xfs 'contended sequential read' | cut -d'|' -f4,5)" " >= 1.5 | missed " "xfs's goal is 1.5"
is "$(row ext4 'sequential read alone: CPU per MB' | cut -d'|' -f3,5)" " 0.75 (0.75, 0.75, 0.75) | met " \
	"CPU per MB alone: kswapd's time on buffered's side (20 ms/MB against 15)"
is "$(row ext4 'memcg: sequential read: CPU per MB' | cut -d'|' -f3,5)" " 0.95 (0.95, 0.95, 0.95) | missed " \
	"CPU per MB in the memcg, where the readers reclaim in their own time"
is "$(row ext4 'memcg: sequential read: MB/s' | cut -d'|' -f3,5)" " 1.3 (1.3, 1.3, 1.3) | met " "memcg read ratio met at the goal"
is "$(row ext4 'memcg: contended sequential read' | cut -d'|' -f3,5)" " 1.5 (1.5, 1.5, 1.5) | met " \
	"the memcg's contended read apart from the global one"
is "$(row ext4 'random 4 KiB read: CPU per read' | cut -d'|' -f3,5)" " 1.1 (1.1, 1.1, 1.1) | missed " "CPU per random read"
is "$(row ext4 "global: competing writers: the uncached writer's share" | cut -d'|' -f3,4,5)" \
	" 0.4 (0.4, 0.4, 0.4) | 0.45 to 0.55 | missed " "a share of 40% is not within 10% of an equal one"
is "$(row ext4 'global: competing writers: total' | cut -d'|' -f3,5)" " 0.9 (0.9, 0.9, 0.9) | missed " "total against two buffered writers"
is "$(row ext4 'global: noisy uncached writer' | cut -d'|' -f3,5)" " 1.05 (1.05, 1.05, 1.05) | met " "the reader's p99 beside the writer"
is "$(row ext4 'memcg: 4 writers' | cut -d'|' -f3,5)" " - | not measured " "a job that did not run: not measured"
is "$(row xfs 'memcg: 4 writers' | cut -d'|' -f3,5)" " - | not measured " "a value that is no number is not taken"
is "$(row ext4 'reclaim-hostile: sequential read' | cut -d'|' -f3,5)" " 1.6 (1.6, 1.6, 1.6) | met " \
	"reclaim-hostile: the stream's MB/s"
is "$(row ext4 'reclaim-hostile: the setting' | cut -d'|' -f3,5)" " 3 (3, 3, 3) | met " \
	"reclaim-hostile: buffered's pages scanned per page reclaimed"
is "$(row ext4 "reclaim-hostile: the hot set's pages" | cut -d'|' -f3,5)" " 99.5 (99.5, 99.5, 99.5) | met " \
	"reclaim-hostile: the hot set kept, from the cached pages before and after"
is "$(goals ext4 | grep -c '^| ')" 22 "the table: a header and 20 goals"

done_testing
