#!/bin/sh
# make bench, guest side: the benchmark matrix.  Every mode of a scenario
# runs once per round, rounds repeat BENCH_REPEATS times, so slow drift of
# the machine hits all modes alike.  Results: facts FS/SCENARIO-MODE.rROUND
# (FS/SCENARIO-MODE.rROUND.N for the streams of a contended scenario) in
# /results/results.jsonl, and per-second logs /results/FS/SCENARIO-MODE.rROUND.csv.  BENCH_SET=plain runs only what a kernel without
# the series can do too (buffered and O_DIRECT), for the no-regression boots.
# BENCH_SCENARIOS picks scenarios (bench/run checks it and passes it: all by default).
# The jobs of upstream's dontcache-bench (BENCH_MATRIX_JOBS) run in two
# settings each round: global, as every scenario, and memcg, inside a
# memory cgroup of a quarter of RAM (facts FS/memcg/SCENARIO-MODE.rROUND,
# and the cgroup's own counters FS/memcg/SCENARIO-MODE.rROUND.cgroup).
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
# the modes every matrix job runs in
matrix_modes="buffered uncached direct"
writer_mib=${BENCH_WRITER_MIB:-$mem_mib}

# The memcg setting: the job's processes in a memory cgroup whose
# memory.max is a quarter of RAM.  That is the container setting, where
# reclaim runs in the task's own context, with no kswapd to lean on.
# memcg_make GROUP: GROUP made afresh (its counters are the run's own)
# with that limit, and with the io controller, so that the group's dirty
# data is throttled and written back as its own (cgroup writeback).
memcg_make() {
	rmdir "/sys/fs/cgroup/$1" 2>/dev/null || true
	make_cgroup "$1"
	echo +io >/sys/fs/cgroup/cgroup.subtree_control
	echo "$((mem_mib / 4))M" >"/sys/fs/cgroup/$1/memory.max"
}

# memcg_done NAME GROUP: GROUP's counters over the run as fact NAME.cgroup,
# then GROUP removed.  Reclaim within a cgroup counts in its memory.stat,
# not in /proc/vmstat (nor as allocation stalls), so its scanned and
# reclaimed pages and its memory pressure are the group's own; limit_hits
# counts the times its usage reached memory.max.
memcg_done() {
	g=/sys/fs/cgroup/$2
	fact "$1.cgroup" "$(jq -cn --argjson peak "$(cat "$g/memory.peak")" \
		--argjson hits "$(proc_value "$g/memory.events" max)" \
		--argjson ooms "$(proc_value "$g/memory.events" oom_kill)" \
		--argjson scanned "$(proc_value "$g/memory.stat" pgscan)" \
		--argjson reclaimed "$(proc_value "$g/memory.stat" pgsteal)" \
		--argjson psi "$(awk '$1 == "some" { sub(/.*total=/, ""); print }' "$g/memory.pressure")" \
		'{peak_kib: ($peak / 1024 | floor), limit_hits: $hits, oom_kills: $ooms, pgscan: $scanned,
		  pages_reclaimed: $reclaimed, psi_mem_some_ms: ($psi / 1000)}')"
	rmdir "$g"
}

# memcg_enter: in the memcg setting, this shell, and so every process it
# starts, into a fresh memory cgroup bench-memcg.  memcg_leave NAME: back
# out, with the group's fact NAME.cgroup.  Nothing in the global setting.
memcg_enter() {
	[ "$setting" = memcg ] || return 0
	memcg_make bench-memcg
	echo $$ >/sys/fs/cgroup/bench-memcg/cgroup.procs
}
memcg_leave() {
	[ "$setting" = memcg ] || return 0
	echo $$ >/sys/fs/cgroup/cgroup.procs
	memcg_done "$1" bench-memcg
}

# profiled NAME COMMAND...: COMMAND; with BENCH_PERF=1 under a perf
# record of every CPU (no call graphs: under emulation their report takes
# a minute a run), whose report becomes NAME.perf.txt: the symbols of the
# run's own processes (and kernel threads) with at least half a percent of
# their samples, then every command's share.  A
# profile of the run its facts describe, so those carry perf's cost.
profiled() {
	prof_name=$1 prof_status=0
	shift
	if [ "${BENCH_PERF:-0}" != 1 ]; then
		"$@"
		return
	fi
	# outside the memcg setting's group, whose memory it would share
	# shellcheck disable=SC2016 # expanded by that sh
	sh -c 'echo $$ >/sys/fs/cgroup/cgroup.procs && exec "$@"' profiler \
		perf record -a -F 499 -o /tmp/bench.perf.data >/dev/null 2>&1 &
	prof_pid=$!
	sleep 1
	"$@" || prof_status=$?
	kill -INT "$prof_pid"
	wait "$prof_pid" || true
	# the symbols of the run's own commands: not of this script, the jq
	# that writes its facts, the cat that warms a hot set, nor idle
	prof_comms=$(perf report -i /tmp/bench.perf.data --stdio --sort comm 2>/dev/null |
		awk '!/^#/ && /%/ && $2 !~ /^(jq|guest\.sh|sh|cat|swapper|perf)$/ { c = c (c ? "," : "") $2 } END { print c }')
	{
		perf report -i /tmp/bench.perf.data --stdio --sort sym --percent-limit 0.5 --comms "$prof_comms"
		perf report -i /tmp/bench.perf.data --stdio --sort comm --percent-limit 0.5
	} >"$out/$prof_name.perf.txt" 2>/dev/null || say "perf report failed for $prof_name"
	rm -f /tmp/bench.perf.data
	return "$prof_status"
}

# run FS SCENARIO MODE ROUND IOLAB-ARGS...: in the round's setting
run() {
	name=$1/$2-$3.r$4
	shift 4
	memcg_enter
	cold
	profiled "$name" measure "$name" "$@"
	memcg_leave "$name"
}

# writers SCENARIO N MIB MODES BS: N writers at once, sequential writes of
# BS bytes, MIB each, then fsync, in each of MODES, in the round's setting
writers() {
	for m in $4; do
		rm -f "$dir/bench-$1".*
		memcg_enter
		profiled "$at/$1-$m.r$round" together "$at/$1-$m.r$round" "$2" "$dir/bench-$1" -m "$m" -w -b "$5" -s "$3M"
		memcg_leave "$at/$1-$m.r$round"
	done
	rm -f "$dir/bench-$1".*
}

# competing NAME MODE: a buffered writer and a writer in MODE at once
# (MODE buffered: the control, two buffered writers), each of 1 MiB
# sequential writes of a file of its own for $secs, then fsync, in the
# round's setting.  Timed, not sized, so that each one's MB/s is its share
# of the same seconds.  Facts NAME.1 (the buffered writer) and NAME.2.
competing() {
	rm -f "$dir"/bench-compete.*
	memcg_enter
	cold
	measure "$1.2" -m "$2" -w -b 1M -s "$((writer_mib * 4))M" -t "$secs" "$dir/bench-compete.2" &
	other=$!
	measure "$1.1" -m buffered -w -b 1M -s "$((writer_mib * 4))M" -t "$secs" "$dir/bench-compete.1"
	wait "$other"
	memcg_leave "$1"
	rm -f "$dir"/bench-compete.*
}

# noisy_writer NAME MODE: beside's latency-sensitive reader (random 4 KiB
# reads at 500/s of $hot, 40% of RAM, cached first) alone for $secs (MODE
# alone), or beside a writer in MODE of 1 MiB sequential writes for $secs
# then fsync.  The writer runs in beside's cgroup neighbour, which the
# memcg setting limits: the noisy container, the reader outside it.  Facts
# NAME-hot, NAME.resident (beside's), NAME-writer (the writer's summary).
noisy_writer() {
	w=$dir/bench-noisy-writer.dat
	rm -f "$w"
	if [ "$2" = alone ]; then
		beside "$1" "$hot"
	else
		[ "$setting" = global ] || memcg_make neighbour
		beside "$1" "$hot" measure "$1-writer" -m "$2" -w -b 1M -s "$((writer_mib * 4))M" -t "$secs" "$w"
		[ "$setting" = global ] || memcg_done "$1" neighbour
	fi
	rm -f "$w"
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

# runs SCENARIO: whether SCENARIO runs in this round's setting: wanted, and
# in the memcg setting one of the matrix's jobs (bench/run passes them)
runs() {
	wanted "$1" || return 1
	[ "$setting" = global ] && return 0
	case " $BENCH_MATRIX_JOBS " in
	*" $1 "*) ;;
	*) return 1 ;;
	esac
}

# The settings of the matrix's jobs; the no-regression boots run the plain
# matrix only, and the boots of one vCPU and of pcviz no matrix job
settings="global memcg"
[ "$set" = full ] && [ -n "${BENCH_MATRIX_JOBS?set by bench/run}" ] || settings=global

for fs in ${BENCH_FS:-ext4 xfs}; do
	dir=/mnt/$fs
	mkdir -p "$out/$fs/memcg"
	big=$dir/bench.dat
	for sc in seqread randread randwrite tracing pcviz noisy hostile; do
		if wanted "$sc"; then
			data_file "$big" "$data_mib"
			break
		fi
	done
	streams=${BENCH_STREAMS:-4}
	if wanted cseqread || wanted crandread; then
		stream_files "$dir/bench-c" "$streams" $((data_mib / streams))
	fi
	hot=$dir/bench-hot.dat
	if wanted nwrite || wanted noisy; then
		pclab-rw -w -s "$((mem_mib * 4 / 10))M" -f "$hot"
	fi
	# the reclaim-hostile read's hot set: 60% of RAM, more than the 40% of
	# the noisy neighbour's, so that more of it is at reclaim's mercy (the
	# pages scanned per page reclaimed stayed near 1.1 all the same:
	# docs/bench.md)
	mapped_hot=$dir/bench-mapped-hot.dat
	wanted hostile && pclab-rw -w -s "$((mem_mib * 6 / 10))M" -f "$mapped_hot"
	{ wanted fsync || wanted fsyncsame; } && write_limit bench-rewriter 4
	round=1
	while [ "$round" -le "$repeats" ]; do
		for setting in $settings; do
			say "$fs, round $round of $repeats, $setting"
			if [ "$setting" = memcg ]; then
				at=$fs/memcg
				read_modes=$matrix_modes
				write_modes=$matrix_modes
			elif [ "$set" = plain ]; then
				at=$fs
				read_modes="buffered direct"
				write_modes="buffered direct"
			else
				at=$fs
				read_modes="buffered direct uncached fadvise uring-uncached"
				write_modes="buffered direct uncached uncached-2019"
			fi
			# the contended reads, in the memcg setting in the matrix's modes
			cseqread_modes="buffered uncached direct fadvise"
			[ "$setting" = global ] || cseqread_modes=$matrix_modes
			runs cseqread && for m in $cseqread_modes; do
				memcg_enter
				profiled "$at/cseqread-$m.r$round" together "$at/cseqread-$m.r$round" "$streams" "$dir/bench-c" -m "$m" -b 1M -i 0.25
				memcg_leave "$at/cseqread-$m.r$round"
			done
			runs crandread && for m in uring-buffered uring-uncached; do
				profiled "$fs/crandread-$m.r$round" together "$fs/crandread-$m.r$round" "$streams" "$dir/bench-c" -m "$m" -q 8 -r -b 4K -t "$secs"
			done
			runs cwrite && writers cwrite "$streams" "$writer_mib" "$matrix_modes" 1M
			# sixteen and thirty-two writers, 4x RAM in all as cwrite's
			runs cwrite16 && writers cwrite16 16 $((writer_mib / 4)) "buffered uncached" 1M
			# thirty-two buffers of 1 MiB would be half the memcg setting's memory
			runs cwrite32 && writers cwrite32 32 $((writer_mib / 8)) "$matrix_modes" 256K
			runs compete && for m in $matrix_modes; do
				profiled "$at/compete-$m.r$round" competing "$at/compete-$m.r$round" "$m"
			done
			runs nwrite && for m in alone $matrix_modes; do
				profiled "$at/nwrite-$m.r$round" noisy_writer "$at/nwrite-$m.r$round" "$m"
			done
			runs seqread && for m in $read_modes; do
				run "$at" seqread "$m" "$round" -m "$m" -b 1M "$big"
			done
			# reclaim-hostile: the stream beside a hot set in a shared
			# mapping, loaded at random 5000 times a second, whose
			# referenced mapped pages reclaim must not evict (#29)
			if runs hostile; then
				beside_reader=mmap beside_rate=5000
				for m in buffered uncached; do
					profiled "$fs/hostile-$m.r$round" noisy "$fs/hostile-$m.r$round" "$m" "$mapped_hot" "$big"
				done
				unset beside_reader beside_rate
			fi
			runs randread && for m in buffered direct uncached; do
				[ "$set" = full ] || [ "$m" != uncached ] || continue
				run "$at" randread "$m" "$round" -m "$m" -r -b 4K -t "$secs" "$big"
			done
			# random 4 KiB overwrites of the data set for $secs, then fsync
			runs randwrite && for m in $matrix_modes; do
				run "$at" randwrite "$m" "$round" -m "$m" -w -r -b 4K -s "${data_mib}M" -t "$secs" "$big"
			done
			runs seqwrite && for m in $write_modes; do
				w=$dir/bench-write.dat
				rm -f "$w"
				if [ "$m" = uncached-2019 ]; then
					echo 1 >"$knob"
					run "$at" seqwrite "$m" "$round" -m uncached -w -b 1M -s "${data_mib}M" "$w"
					echo 0 >"$knob"
				else
					run "$at" seqwrite "$m" "$round" -m "$m" -w -b 1M -s "${data_mib}M" "$w"
				fi
				rm -f "$w"
			done
			if runs tracing; then
				# tracepoints off and on, beside an uncached stream
				run "$fs" tracing off "$round" -m uncached -b 1M "$big"
				trace-cmd start -q -e 'filemap:mm_filemap_dropbehind_*' >/dev/null 2>&1
				run "$fs" tracing on "$round" -m uncached -b 1M "$big"
				trace-cmd reset >/dev/null 2>&1
			fi
			if runs pcviz && command -v pcviz >/dev/null; then
				run "$fs" pcviz off "$round" -m uncached -b 1M "$big"
				beside_pcviz on "$round"
				# every kind but the calls: each folio's events copied out
				beside_pcviz streamed "$round" -e "$every_kind_but_calls"
				# only the per-call and reclaim events
				beside_pcviz light "$round" -e db_call,reclaim,kswapd_wake,direct_reclaim
			fi
			runs fsync && for m in none buffered uncached; do
				fsync_beside "$m" "$round"
			done
			runs fsyncsame && for m in none buffered uncached; do
				fsync_same "$m" "$round"
			done
			runs fsynccost && fsync_cost "$round"
		done
		round=$((round + 1))
	done
	if wanted noisy; then
		for m in buffered uncached; do
			noisy "$fs/noisy-$m" "$m" "$hot" "$big"
		done
	fi
	rm -f "$big" "$hot" "$mapped_hot" "$dir"/bench-c.*
done
