# shellcheck shell=sh
# shellcheck disable=SC2034 # the variables are for the scripts that source this
# The guest side of the labs' shell library (sourced by busybox sh): the
# labs', exercises' and kernel exercises' guest scripts, bench/guest.sh and
# tests/guest/pcviz.sh source it.  Set LAB (e.g. lab2) before sourcing.
# Results go to /results, which the host finds in results/LAB/: the named
# facts of the run, one JSON object per line ({"name": ..., "value": ...})
# in results.jsonl, which the host grades (labs/lib/host.sh); per-second
# logs as CSV and traces beside it.
#
#   say TEXT...                 a progress line
#   cold                        write back dirty data, empty the page cache
#   written FILE                wait until FILE is not empty (a program
#                               started in the background has begun), 10 s
#                               at most
#   data_file PATH MIB          create PATH of MIB MiB with O_DIRECT (the
#                               cache stays empty), unless it exists
#   fact NAME VALUE             record VALUE (JSON, or else text) as NAME
#                               in the run's one results file, once: a
#                               name recorded twice is graded INVALID
#   measure NAME IOLAB-ARGS...  run iolab: its summary as fact NAME, NAME.csv
#                               (per-second log), one line of progress
#   json NAME [KEY]             fact NAME (its field KEY, a path such as
#                               lat_us.p99)
#   stream_files BASE N MIB     data files BASE.1 ... BASE.N, MIB MiB each
#   together NAME N FILE ARGS   N iolab processes at once, the i-th on
#                               FILE.i: facts NAME.i and logs NAME.i.csv
#   disk_dev                    the name of the disk under $dir (vdb, ...)
#   write_limit GROUP MB_S      make cgroup GROUP, whose writes to the disk
#                               under $dir (and the writeback of what it
#                               dirtied) go at most MB_S MB/s (io.max);
#                               move a process in with
#                               echo PID >/sys/fs/cgroup/GROUP/cgroup.procs
#   cached FILE                 FILE's pages in the page cache (cachestat),
#                               -1 if it cannot say (no FILE)
#   disk_stat FIELD             field FIELD of /sys/block/DEV/stat for the
#                               disk under $dir (1 and 3: reads and their
#                               sectors, 5 and 7: writes, 16: cache flushes)
#   as_student COMMAND [ARG...] COMMAND as the unprivileged user student
#                               (uid 1000), as the graded programs run:
#                               it cannot write the facts, and leaves no
#                               process behind
#   student_dir DIR             make DIR, owned by student: where a graded
#                               program writes
#   hidden_tests                the tests of $LAB that an instructor's
#                               grader adds, if any (see below)
#   mem_mib, data_mib, secs     guest RAM; data set (LAB_DATA_MIB, default
#                               10x RAM); seconds per timed run (LAB_SECONDS)
# and the /proc readers of lib/proc.sh (vm_counter, meminfo_mib, ...).

: "${LAB:?set LAB before sourcing lib/guest.sh}"
out=/results
fs=${LAB_FS:-ext4}
dir=/mnt/$fs
# shellcheck source=proc.sh
. /usr/share/pclab/labs/lib/proc.sh
mem_mib=$(meminfo_mib MemTotal)
data_mib=${LAB_DATA_MIB:-$((mem_mib * 10))}
secs=${LAB_SECONDS:-10}

say() { echo "$LAB: $*"; }

disk_dev() {
	mounted_dev "$dir"
}

write_limit() {
	echo "+io +memory" >/sys/fs/cgroup/cgroup.subtree_control
	mkdir -p "/sys/fs/cgroup/$1"
	echo "$(cat "/sys/block/$(disk_dev)/dev") wbps=$(($2 * 1000000))" >"/sys/fs/cgroup/$1/io.max"
}

disk_stat() {
	awk -v f="$1" '{ print $f }' "/sys/block/$(disk_dev)/stat"
}

# The program graded runs in a mount namespace of its own, where /results
# (the facts, the host's directory over 9p: whether uid 1000 may write
# there depends on the host's uid) is an empty read-only tmpfs and /tmp a
# fresh one: it can neither write a fact nor plant a link where this
# shell, root, writes its scratch files.  The chain of execs keeps the
# program's pid the function's (timeout and kill reach it); a program's
# children still running when it is done are killed.
as_student() {
	as_student_status=0
	# shellcheck disable=SC2016 # for the sh -c and su -c shells
	# (-- before the program: unshare and su would take its options)
	unshare -m -- sh -c 'mount -t tmpfs -o ro,size=4k facts-hidden /results &&
		mount -t tmpfs -o mode=1777,size=16m student-tmp /tmp &&
		exec su -s /bin/sh -c '\''exec "$0" "$@"'\'' -- student "$@"' as_student "$@" || as_student_status=$?
	su -s /bin/sh student -c 'kill -s KILL -1' 2>/dev/null || true
	return "$as_student_status"
}

student_dir() {
	mkdir -p "$1"
	chown student:student "$1"
}

# An instructor's grader (labs/grade-submission) adds tests the student's
# tree does not have to the guest's inputs, hidden-tests/LAB/check.sh; an
# exercise's check.sh runs them last.  Sourced, not run: this file records
# its facts once a run.
hidden_tests_dir=/usr/share/pclab/hidden-tests
hidden_tests() {
	# shellcheck source=/dev/null
	[ ! -r "$hidden_tests_dir/$LAB/check.sh" ] || . "$hidden_tests_dir/$LAB/check.sh"
}

cached() {
	pclab-rw -S -O cached -n "$1" 2>/dev/null || echo -1
}

cold() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

written() {
	n=0
	while [ ! -s "$1" ] && [ $n -lt 100 ]; do
		sleep 0.1
		n=$((n + 1))
	done
}

data_file() {
	[ -f "$1" ] && return 0
	say "  creating the data set: $1, $2 MiB (O_DIRECT, so the cache stays empty)"
	iolab -m direct -w -b 1M -s "$2M" -j "$1" >/dev/null
}

results=$out/results.jsonl

# Appended a line at a time, so the facts of a run cut short stay readable.
fact() {
	jq -cn --arg name "$1" --arg value "$2" \
		'{name: $name, value: ($value | try fromjson catch $value)}' >>"$results"
}

# The clock every time of the run rests on (lab_finished on the host fails
# a run on jiffies)
fact clocksource "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null ||
	echo unknown)"

json() {
	jq -r --arg name "$1" --arg key "${2:-}" \
		'select(.name == $name) | .value | if $key == "" then . else getpath($key | split(".")) end' "$results" |
		tail -n 1
}

measure() {
	name=$1
	shift
	summary=$(iolab -j -l "$out/$name.csv" "$@") || {
		say "iolab failed in step $name"
		return 1
	}
	fact "$name" "$summary"
	say "  $name: $(json "$name" mb_s) MB/s, kswapd $(json "$name" kswapd_cpu_pct)% CPU," \
		"page cache peak $(($(json "$name" cache_kib.peak) / 1024)) MiB"
}

# stream_files BASE N MIB: data files BASE.1 ... BASE.N of MIB MiB each
stream_files() {
	i=1
	while [ "$i" -le "$2" ]; do
		data_file "$1.$i" "$3"
		i=$((i + 1))
	done
}

# together NAME N FILE IOLAB-ARGS...: N iolab processes at once after a
# cold cache, the i-th on FILE.i, each leaving NAME.i.json and NAME.i.csv.
# More streams than vCPUs is the seeds' setting: reclaim competes with the
# readers for CPU instead of running on an idle one.
together() {
	name=$1 n=$2 file=$3
	shift 3
	cold
	pids=""
	i=1
	while [ "$i" -le "$n" ]; do
		iolab -j -l "$out/$name.$i.csv" "$@" "$file.$i" >"/tmp/together.$i.json" &
		pids="$pids $!"
		i=$((i + 1))
	done
	for p in $pids; do
		wait "$p" || { say "iolab failed in step $name"; return 1; }
	done
	# the facts are appended one by one, after all streams are done
	i=1
	while [ "$i" -le "$n" ]; do
		fact "$name.$i" "$(cat "/tmp/together.$i.json")"
		i=$((i + 1))
	done
	say "  $name: $n streams, $(jq -s 'map(.mb_s) | add * 10 | round / 10' /tmp/together.*.json) MB/s in all"
	rm -f /tmp/together.*.json
}

# make_cgroup NAME: the cgroup /sys/fs/cgroup/NAME, with the memory
# controller, so that the page-cache pages of its tasks are charged to it
# and their reclaim is told by it
make_cgroup() {
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control
	mkdir -p "/sys/fs/cgroup/$1"
}

# sh -c "$in_cgroup" NAME PROGRAM [ARG...]: runs PROGRAM in the cgroup
# NAME (make_cgroup it first).  A program, not a function: with "&", $! is
# the program's own pid, which a signal must reach.
# shellcheck disable=SC2016 # expanded by that sh
in_cgroup='echo $$ >"/sys/fs/cgroup/$0/cgroup.procs" && exec "$@"'


# beside NAME HOT [COMMAND...]: a latency-sensitive reader (random 4 KiB
# reads of HOT at 500 per second, counting page-cache hits) beside COMMAND,
# for as long as COMMAND takes; with no COMMAND, alone for $secs seconds.
# HOT is read twice first, after a cold cache, so it starts cached and on
# the active list.  The reader runs in the cgroup hot-reader, COMMAND in
# neighbour.  Records facts NAME-hot (iolab's summary) and NAME.resident
# (the hot set's cached pages before and after) and the log NAME-hot.csv;
# with beside_watch=1, pcviz watches the hot set's evictions meanwhile:
# fact NAME.evictions (who evicted its pages, how many came back) and the
# log NAME-evictions.jsonl.  With beside_reader=mmap the reader loads
# from a shared mapping of HOT instead (its hits are not counted): mapped
# pages that reclaim must scan past; beside_rate sets its reads per second.
# Returns COMMAND's status.
beside() {
	# names of their own: COMMAND may be a function that sets name or hot
	beside_name=$1 beside_hot=$2
	shift 2
	case "${beside_reader:-read}" in
	mmap) beside_args="-m mmap -r -b 4K -R ${beside_rate:-500}" ;;
	*) beside_args="-H -r -b 4K -R ${beside_rate:-500}" ;;
	esac
	cold
	make_cgroup hot-reader
	make_cgroup neighbour
	if [ "${beside_watch:-0}" = 1 ]; then
		# from before the hot set is read in: its add events tell the
		# cgroup charged for each page
		pcviz -j -i 1 -e evict,refault,kswapd_waker,add,delete "$beside_hot" \
			>"$out/$beside_name-evictions.jsonl" 2>/dev/null &
		watcher=$!
		# its first line: tracing is on
		while [ ! -s "$out/$beside_name-evictions.jsonl" ] && kill -0 "$watcher" 2>/dev/null; do
			sleep 0.1
		done
	fi
	sh -c "$in_cgroup" hot-reader cat "$beside_hot" >/dev/null
	sh -c "$in_cgroup" hot-reader cat "$beside_hot" >/dev/null
	h0=$(cached "$beside_hot")
	beside_status=0
	if [ $# -eq 0 ]; then
		# shellcheck disable=SC2086 # beside_args: several options
		sh -c "$in_cgroup" hot-reader iolab -j $beside_args -t "$secs" -l "$out/$beside_name-hot.csv" \
			"$beside_hot" >/tmp/beside-hot.json
	else
		# the hot reader runs until COMMAND is done (SIGINT ends it with
		# its summary); COMMAND may be a function: this shell moves
		# shellcheck disable=SC2086 # beside_args: several options
		sh -c "$in_cgroup" hot-reader iolab -j $beside_args -t 86400 -l "$out/$beside_name-hot.csv" \
			"$beside_hot" >/tmp/beside-hot.json &
		reader=$!
		echo $$ >/sys/fs/cgroup/neighbour/cgroup.procs
		"$@" || beside_status=$?
		echo $$ >/sys/fs/cgroup/cgroup.procs
		kill -INT "$reader"
		wait "$reader"
	fi
	fact "$beside_name-hot" "$(cat /tmp/beside-hot.json)"
	h1=$(cached "$beside_hot")
	fact "$beside_name.resident" "{\"before\": $h0, \"after\": $h1}"
	say "  $beside_name: hot reader hit $(json "$beside_name-hot" hit_pct)%, p99 $(json "$beside_name-hot" lat_us.p99) us;" \
		"hot set $h0 -> $h1 pages cached"
	if [ "${beside_watch:-0}" = 1 ]; then
		kill -TERM "$watcher"
		wait "$watcher" 2>/dev/null || true
		fact "$beside_name.evictions" "$(tail -n 1 "$out/$beside_name-evictions.jsonl" |
			jq -c --argjson n "$(stat -c %i /sys/fs/cgroup/neighbour)" '.per_file[0] |
			def pages(rows): [rows[] | select(.cgroup == $n) | .pages] | add // 0;
			{kswapd: .evict_kswapd, direct: .evict_direct,
			 neighbour_direct: pages(.reclaimers), neighbour_woke_kswapd: pages(.kswapd_wakers),
			 refaults, gone_mean_s, gone_max_s}')"
		say "  $beside_name: pcviz: $(json "$beside_name.evictions" kswapd) hot pages evicted by kswapd" \
			"($(json "$beside_name.evictions" neighbour_woke_kswapd) woken by the neighbour)," \
			"$(json "$beside_name.evictions" direct) in direct reclaim" \
			"($(json "$beside_name.evictions" neighbour_direct) by the neighbour)"
		# pcviz's cgroups view: each cgroup's page cache (memory.stat
		# file) at its largest, and the cgroups the hot set is charged to
		fact "$beside_name.cgroups" "$(jq -cs --argjson r "$(stat -c %i /sys/fs/cgroup/hot-reader)" '
			def file_max(p): [.[].cgroups[]? | select(.path == p) | .file] | max // 0 | . / 1048576 | floor;
			(last | .per_file[0]) as $f |
			{neighbour_file_max_mib: file_max("/neighbour"), hot_reader_file_max_mib: file_max("/hot-reader"),
			 hot_charged_reader: ([$f.charges[] | select(.cgroup == $r) | .pages] | add // 0),
			 hot_charged_other: (([$f.charges[] | select(.cgroup != $r) | .pages] | add // 0) + $f.charged_others),
			 hot_charge_unknown: $f.charge_unknown}' "$out/$beside_name-evictions.jsonl")"
		say "  $beside_name: pcviz: the neighbour's page cache at most $(json "$beside_name.cgroups" neighbour_file_max_mib) MiB;" \
			"hot pages charged to hot-reader $(json "$beside_name.cgroups" hot_charged_reader)," \
			"to others $(json "$beside_name.cgroups" hot_charged_other)"
	fi
	return "$beside_status"
}

# noisy NAME MODE HOT BIG: the hot reader of beside on HOT beside a 1 MiB
# streaming reader of all of BIG in mode MODE (alone for MODE none).  The
# stream is sized by data, not time: BIG, several times RAM, must pass
# through the cache whatever the machine's speed.  Facts as beside's, and
# NAME-stream (iolab's summary) with its log NAME-stream.csv.
noisy() {
	if [ "$2" = none ]; then
		beside "$1" "$3"
	else
		beside "$1" "$3" measure "$1-stream" -m "$2" -b 1M "$4"
	fi
}
