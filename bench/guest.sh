#!/bin/sh
# make bench, guest side: the benchmark matrix.  Every mode of a scenario
# runs once per round, rounds repeat BENCH_REPEATS times, so slow drift of
# the machine hits all modes alike.  Results: facts FS/SCENARIO-MODE.rROUND
# (FS/SCENARIO-MODE.rROUND.N for the streams of a contended scenario) in
# /results/results.jsonl, and per-second logs /results/FS/SCENARIO-MODE.rROUND.csv.  BENCH_SET=plain runs only what a kernel without
# the series can do too (buffered and O_DIRECT), for the no-regression boots.
# BENCH_SCENARIOS picks scenarios (bench/run checks it and passes it: all by default).
set -eu
LAB=bench
# shellcheck source=../labs/lib/guest.sh
. /usr/share/pclab/labs/lib/guest.sh
repeats=${BENCH_REPEATS:-2}
set=${BENCH_SET:-full}
knob=/sys/kernel/debug/rwf_uncached/legacy_2019
every_kind_but_calls=add,delete,evict,refault,lru_insert,lru_activate,dirty,writeback,kswapd_wake
every_kind_but_calls=$every_kind_but_calls,kswapd_waker,direct_reclaim,reclaim,db_mark,db_serve,db_claim,db_end
every_kind_but_calls=$every_kind_but_calls,wb_start,wb_end
fact kernel "$(uname -r)"

# run FS SCENARIO MODE ROUND IOLAB-ARGS...
run() {
	name=$1/$2-$3.r$4
	shift 4
	cold
	measure "$name" "$@"
}

# beside_pcviz MODE ROUND [PCVIZ-OPTIONS...]: the uncached stream of $big
# with pcviz sampling it in batch mode four times a second, from its first
# sample on: its start (the formats read, the events enabled) is not part
# of the cost of running beside the stream
beside_pcviz() {
	mode=$1 r=$2
	shift 2
	pcviz --batch --interval 0.25 "$@" "$big" >"$out/$fs/pcviz-$mode-$r.csv" 2>&1 &
	viz=$!
	written "$out/$fs/pcviz-$mode-$r.csv"
	run "$fs" pcviz "$mode" "$r" -m uncached -b 1M "$big"
	kill "$viz"
	wait "$viz" || true
}

# fsyncs_beside_rewriter NAME MODE ROUND FILE SIZE: 4 KiB writes, each
# with fsync, of FILE (up to SIZE, round and round) for $secs seconds,
# alone (MODE none) or beside a rewriter of an 8 MiB file on $dir in MODE
# (1 MiB calls, round and round, two per second) whose writes to its disk
# go at most 4 MB/s (its cgroup's limit).  The rewriter's rate is bounded
# so that, under emulation, it does not take the CPUs from the fsyncs:
# what is left is the drop design.  Results NAME-MODE.rROUND, and
# NAME-MODE-rewriter.rROUND for the rewriter.
fsyncs_beside_rewriter() {
	rewrite=$dir/bench-rewrite.dat
	rm -f "$4" "$rewrite"
	if [ "$2" != none ]; then
		# the group's writes (and their writeback) are the slow ones
		sh -c "echo \$\$ >/sys/fs/cgroup/bench-rewriter/cgroup.procs &&
			exec iolab -j -w -m $2 -b 1M -s 8M -R 2 -t 86400 $rewrite" \
			>/tmp/rewriter.json &
		rewriter=$!
		# under way: its first 8 MiB written once, the disk busy
		while [ "$(stat -c %s "$rewrite" 2>/dev/null || echo 0)" -lt $((8 << 20)) ]; do
			sleep 0.1
		done
	fi
	measure "$fs/$1-$2.r$3" -w -S -b 4K -s "$5" -t "$secs" "$4"
	if [ "$2" != none ]; then
		kill -INT "$rewriter"
		wait "$rewriter"
		fact "$fs/$1-$2-rewriter.r$3" "$(cat /tmp/rewriter.json)"
	fi
	rm -f "$4" "$rewrite"
}

# fsync_beside MODE ROUND: the fsyncs of a file on a disk of its own
# (ext4-fsync) beside the rewriter on $dir.  Another file's fsync must not
# wait for what the rewriter's writeback completions drop: the first
# version of the series made every fsync flush one global drop queue.
fsync_beside() {
	fsyncs_beside_rewriter fsync "$1" "$2" /mnt/ext4-fsync/fsync-victim.dat 1M
}

# fsync_cost ROUND: what an fsync costs once the file has seen one uncached
# write.  4 KiB buffered writes, each with fsync, over a cached 128 MiB file,
# after one 4 KiB append to it, uncached or (the control) buffered: two files
# with the same history but for the append, the first measured first in odd
# rounds, last in even ones, each warmed by the same writes before its
# append.  An earlier version of the series had every later fsync of such a
# file walk all its cached folios (review 2, T3: 12x on ext4).
fsync_cost_file() {
	f=$dir/bench-fsynccost-$2.dat
	rm -f "$f"
	pclab-rw -w -s 128M -f "$f" >/dev/null
	pclab-rw "$f" >/dev/null
	measure "$fs/fsynccost-$2-before.r$1" -w -S -b 4K -s 128M -t "$secs" "$f"
	if [ "$2" = uncached ]; then
		pclab-rw -w -U -s 4K -o 128M -f "$f" >/dev/null
	else
		pclab-rw -w -s 4K -o 128M -f "$f" >/dev/null
	fi
	measure "$fs/fsynccost-$2.r$1" -w -S -b 4K -s 128M -t "$secs" "$f"
	rm -f "$f"
}
fsync_cost() {
	if [ $(($1 % 2)) = 1 ]; then
		fsync_cost_file "$1" uncached
		fsync_cost_file "$1" buffered
	else
		fsync_cost_file "$1" buffered
		fsync_cost_file "$1" uncached
	fi
}

# fsync_same MODE ROUND: an appender (4 KiB writes, each with fsync, into
# new blocks) on the filesystem of the rewriter.  On ext4 the appender's
# unwritten-extent conversions go through a workqueue that runs one item
# at a time for the filesystem; an earlier version of the series sent
# every uncached completion, with its drops, through it too (review 2, T7).
fsync_same() {
	fsyncs_beside_rewriter fsyncsame "$1" "$2" "$dir/bench-appender.dat" 1G
}

# wanted SCENARIO: whether this boot runs SCENARIO (BENCH_SCENARIOS, which
# bench/run checks and passes)
wanted() {
	case " ${BENCH_SCENARIOS?set by bench/run} " in
	*" $1 "*) [ "$set" = full ] || [ "$1" = seqread ] || [ "$1" = randread ] || [ "$1" = seqwrite ] ;;
	*) return 1 ;;
	esac
}

for fs in ${BENCH_FS:-ext4 xfs}; do
	dir=/mnt/$fs
	mkdir -p "$out/$fs"
	big=$dir/bench.dat
	for sc in seqread randread tracing pcviz noisy; do
		if wanted "$sc"; then
			data_file "$big" "$data_mib"
			break
		fi
	done
	if [ "$set" = plain ]; then
		read_modes="buffered direct"
		write_modes="buffered direct"
	else
		read_modes="buffered direct uncached fadvise uring-uncached"
		write_modes="buffered direct uncached uncached-2019"
	fi
	streams=${BENCH_STREAMS:-4}
	if wanted cseqread || wanted crandread; then
		stream_files "$dir/bench-c" "$streams" $((data_mib / streams))
	fi
	{ wanted fsync || wanted fsyncsame; } && write_limit bench-rewriter 4
	round=1
	while [ "$round" -le "$repeats" ]; do
		say "$fs, round $round of $repeats"
		wanted cseqread && for m in buffered uncached direct fadvise; do
			together "$fs/cseqread-$m.r$round" "$streams" "$dir/bench-c" -m "$m" -b 1M -i 0.25
		done
		wanted crandread && for m in uring-buffered uring-uncached; do
			together "$fs/crandread-$m.r$round" "$streams" "$dir/bench-c" -m "$m" -q 8 -r -b 4K -t "$secs"
		done
		if wanted cwrite; then
			for m in buffered uncached; do
				rm -f "$dir"/bench-w.*
				together "$fs/cwrite-$m.r$round" "$streams" "$dir/bench-w" -m "$m" -w -b 1M \
					-s "${BENCH_WRITER_MIB:-$mem_mib}M"
			done
			rm -f "$dir"/bench-w.*
		fi
		# sixteen writers, each with a quarter of a contended writer's data
		if wanted cwrite16; then
			for m in buffered uncached; do
				rm -f "$dir"/bench-w16.*
				together "$fs/cwrite16-$m.r$round" 16 "$dir/bench-w16" -m "$m" -w -b 1M \
					-s "$((${BENCH_WRITER_MIB:-$mem_mib} / 4))M"
			done
			rm -f "$dir"/bench-w16.*
		fi
		wanted seqread && for m in $read_modes; do
			run "$fs" seqread "$m" "$round" -m "$m" -b 1M "$big"
		done
		wanted randread && for m in buffered direct uncached; do
			[ "$set" = full ] || [ "$m" != uncached ] || continue
			run "$fs" randread "$m" "$round" -m "$m" -r -b 4K -t "$secs" "$big"
		done
		wanted seqwrite && for m in $write_modes; do
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
		if wanted tracing; then
			# tracepoints off and on, beside an uncached stream
			run "$fs" tracing off "$round" -m uncached -b 1M "$big"
			trace-cmd start -q -e 'filemap:mm_filemap_dropbehind_*' >/dev/null 2>&1
			run "$fs" tracing on "$round" -m uncached -b 1M "$big"
			trace-cmd reset >/dev/null 2>&1
		fi
		if wanted pcviz && command -v pcviz >/dev/null; then
			run "$fs" pcviz off "$round" -m uncached -b 1M "$big"
			beside_pcviz on "$round"
			# every kind but the calls: each folio's events copied out
			beside_pcviz streamed "$round" -e "$every_kind_but_calls"
			# only the per-call and reclaim events
			beside_pcviz light "$round" -e db_call,reclaim,kswapd_wake,direct_reclaim
		fi
		wanted fsync && for m in none buffered uncached; do
			fsync_beside "$m" "$round"
		done
		wanted fsyncsame && for m in none buffered uncached; do
			fsync_same "$m" "$round"
		done
		wanted fsynccost && fsync_cost "$round"
		round=$((round + 1))
	done
	if wanted noisy; then
		hot=$dir/bench-hot.dat
		pclab-rw -w -s "$((mem_mib * 4 / 10))M" -f "$hot"
		for m in buffered uncached; do
			noisy "$fs/noisy-$m" "$m" "$hot" "$big"
		done
		rm -f "$hot"
	fi
	rm -f "$big" "$dir"/bench-c.*
done
