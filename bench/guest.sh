#!/bin/sh
# make bench, guest side: the benchmark matrix.  Every mode of a scenario
# runs once per round, rounds repeat BENCH_REPEATS times, so slow drift of
# the machine hits all modes alike.  Results: /results/FS/SCENARIO-MODE.rROUND.json
# (and .csv per second).  BENCH_SET=plain runs only what a kernel without
# the series can do too (buffered and O_DIRECT), for the no-regression boots.
set -eu
LAB=bench
# shellcheck source=../labs/guest-lib.sh
. /usr/share/pclab/labs/guest-lib.sh
repeats=${BENCH_REPEATS:-2}
set=${BENCH_SET:-full}
knob=/sys/kernel/debug/rwf_uncached/legacy_2019
uname -r >"$out/kernel.uname"

# run FS SCENARIO MODE ROUND IOLAB-ARGS...
run() {
	name=$1/$2-$3.r$4
	shift 4
	cold
	measure "$name" "$@"
}

# beside_pcviz MODE ROUND [PCVIZ-OPTIONS...]: the uncached stream of $big
# with pcviz sampling it in batch mode four times a second
beside_pcviz() {
	mode=$1 r=$2
	shift 2
	pcviz --batch --interval 0.25 "$@" "$big" >"$out/$fs/pcviz-$mode-$r.csv" 2>&1 &
	viz=$!
	run "$fs" pcviz "$mode" "$r" -m uncached -b 1M "$big"
	kill "$viz"
	wait "$viz" || true
}

for fs in ${BENCH_FS:-ext4 xfs}; do
	dir=/mnt/$fs
	mkdir -p "$out/$fs"
	big=$dir/bench.dat
	data_file "$big" "$data_mib"
	if [ "$set" = plain ]; then
		read_modes="buffered direct"
		write_modes="buffered direct"
	else
		read_modes="buffered direct uncached fadvise uring-uncached"
		write_modes="buffered direct uncached uncached-2019"
	fi
	round=1
	while [ "$round" -le "$repeats" ]; do
		say "$fs, round $round of $repeats"
		for m in $read_modes; do
			run "$fs" seqread "$m" "$round" -m "$m" -b 1M "$big"
		done
		for m in buffered direct uncached; do
			[ "$set" = full ] || [ "$m" != uncached ] || continue
			run "$fs" randread "$m" "$round" -m "$m" -r -b 4K -t "$secs" "$big"
		done
		for m in $write_modes; do
			w=$dir/bench-write.dat
			rm -f "$w"
			if [ "$m" = uncached-2019 ]; then
				echo 1 >"$knob"
				run "$fs" seqwrite "$m" "$round" -m uncached -w -b 1M -s "${data_mib}M" "$w"
				echo 0 >"$knob"
			else
				run "$fs" seqwrite "$m" "$round" -m "$m" -w -b 1M -s "${data_mib}M" "$w"
			fi
			rm -f "$w"
		done
		if [ "$set" = full ]; then
			# tracepoints off and on, beside an uncached stream
			run "$fs" tracing off "$round" -m uncached -b 1M "$big"
			trace-cmd start -q -e 'filemap:dropbehind_*' >/dev/null 2>&1
			run "$fs" tracing on "$round" -m uncached -b 1M "$big"
			trace-cmd reset >/dev/null 2>&1
			if command -v pcviz >/dev/null; then
				beside_pcviz on "$round"
				# only the per-call and reclaim events: what docs/pcviz.md
				# recommends beside a benchmark
				beside_pcviz light "$round" -e db_call,reclaim,kswapd_wake,direct_reclaim
			fi
		fi
		round=$((round + 1))
	done
	if [ "$set" = full ]; then
		hot=$dir/bench-hot.dat
		pclab-rw -w -s "$((mem_mib * 4 / 10))M" -f "$hot"
		for m in buffered uncached; do
			noisy "$fs/noisy-$m" "$m" "$hot" "$big"
		done
		rm -f "$hot"
	fi
	rm -f "$big"
done
