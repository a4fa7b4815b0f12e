#!/bin/bash
# The guest tools (static binaries, so they run on the host too) refuse bad
# sizes and rates with the text they refused and status 2 (a usage error,
# include/pclab/cli.h), before any I/O: the one size parser of lib/, seen
# from the command line.  tests/host/cli.sh checks the convention itself.
#
# And what they are given to read is never destroyed, nor waited on for
# ever, nor counted as work when there is none: a --log naming the file
# read, a --size past the end of the file, a mapping past it, a file that
# shrinks under the run, a FIFO, a directory, a device.
set -u
# shellcheck source=../lib/host/preamble.sh
. "$(dirname "$0")/../lib/host/preamble.sh"
bin=$top/build/guest/bin
file=$tmp/absent

# refused TOOL WANT-IN-MESSAGE ARGS...: status 2, the message names WANT,
# and FILE was not created
refused() {
	local tool=$1 want=$2 err status=0
	shift 2
	err=$("$bin/$tool" "$@" "$file" 2>&1 >/dev/null) || status=$?
	if [ "$status" = 2 ] && [[ "$err" == *"$want"* ]] && [ ! -e "$file" ]; then
		pass "$tool $* is refused: ${err%%$'\n'*}"
	else
		fail "$tool $* is refused, naming $want" "status $status: $err"
	fi
	rm -f "$file"
}

if [ ! -x "$bin/pclab-rw" ] || [ ! -x "$bin/iolab" ]; then
	skip "guest tools" "not built (make initramfs)"
	done_testing
	exit
fi
refused pclab-rw "'18014398509481985k' is not a size" -w -s 18014398509481985k
refused pclab-rw "'9223372036854775808' is not a size" -w -s 9223372036854775808
refused pclab-rw "'8589934592G' is not a size" -w -s 8589934592G
refused pclab-rw "--block: '-5' is not a size" -w -s 1M -b -5
refused pclab-rw "--offset: '1X' is not a size" -w -s 1M -o 1X
refused pclab-rw "--size 0" -S -s 0
refused iolab "--size: '18014398509481985k'" -w -s 18014398509481985k
refused iolab "--bs: '+4K'" -b +4K
refused iolab "--rate: '1e-12'" -R 1e-12
refused iolab "--fsync" -S

# The data every run below reads: 1 MiB, and a copy to compare it with.
data=$tmp/data
head -c 1M /dev/urandom >"$data"
cp "$data" "$tmp/data.orig"
# kept: FILE still holds its data (and has it again for the next check)
kept() {
	if cmp -s "$data" "$tmp/data.orig"; then
		pass "... and FILE keeps its data"
	else
		fail "... and FILE keeps its data" "$(wc -c <"$data") bytes left of 1048576"
		cp "$tmp/data.orig" "$data"
	fi
}

# stopped STATUS WANT-IN-MESSAGE DESCRIPTION TOOL ARGS...: TOOL ends within
# 10 s (a hang is status 124, a SIGBUS 135) with STATUS and says WANT
stopped() {
	local want_status=$1 want=$2 what=$3 tool=$4 err status=0
	shift 4
	err=$(timeout 10 "$bin/$tool" "$@" 2>&1 >/dev/null) || status=$?
	if [ "$status" = "$want_status" ] && [[ "$err" == *"$want"* ]]; then
		pass "$what: status $status, ${err%%$'\n'*}"
	else
		fail "$what: status $want_status, naming $want" "status $status: $err"
	fi
}

# --log naming the file the run reads, by its name or by another link
stopped 2 "--log: '$data' is FILE itself" "iolab --log FILE FILE is refused" \
	iolab -j -l "$data" "$data"
kept
ln "$data" "$tmp/hardlink"
stopped 2 "is FILE itself" "iolab --log LINK FILE, LINK a hard link to FILE, is refused" \
	iolab -j -l "$tmp/hardlink" "$data"
kept
printf '%01000d\n' 0 >"$tmp/log.csv"
status=0
"$bin/iolab" -j -b 256K -l "$tmp/log.csv" "$data" >/dev/null 2>"$tmp/err" || status=$?
ok "[ $status = 0 ] && head -n 1 '$tmp/log.csv' | grep -q '^seconds,mb_s,' &&
	! grep -q 0000000000 '$tmp/log.csv'" \
	"a --log of its own is written afresh over an older one (status $status)"

# reads past the end of the file: nothing to read, nothing to count
stopped 1 "--size 4194304 is past the end of the file (1048576 bytes)" \
	"iolab --size beyond the file is refused" iolab -j -s 4M "$data"
stopped 1 "past the end of the file" "iolab --size 2^63-1 is refused, not read for ever" \
	iolab -j -s 9223372036854775807 "$data"
# a file that shrinks under a run: the run ends, its numbers meaningless
"$bin/iolab" -b 4K -R 20 -t 10 -i 0.1 "$data" >"$tmp/shrunk.out" 2>"$tmp/shrunk.err" &
reader=$!
# truncated once the run is under way: it has printed its first progress line
for _ in $(seq 100); do
	[ ! -s "$tmp/shrunk.out" ] || break
	sleep 0.1
done
: >"$data"
start=$SECONDS
status=0
wait "$reader" || status=$?
ok "[ $status = 1 ] && [ $((SECONDS - start)) -lt 5 ] && grep -q 'shorter than when the run began' '$tmp/shrunk.err'" \
	"iolab stops at a read that finds the file shrunk (status $status: $(cat "$tmp/shrunk.err"))"
cp "$tmp/data.orig" "$data"

# --rate never waits past --time
start=$(date +%s%N)
secs=$("$bin/iolab" -j -b 4K -R 0.1 -t 0.5 "$data" | jq .seconds)
took=$((($(date +%s%N) - start) / 1000000))
ok "[ $took -lt 3000 ] && awk -v s='$secs' 'BEGIN { exit !(s >= 0.5 && s < 1.5) }'" \
	"iolab -R 0.1 -t 0.5 ends at its time, not at the next I/O's (${took} ms, reports ${secs} s)"

# mappings past the end of the file: a message, never SIGBUS
stopped 1 "past the end of the file" "iolab -m mmap --size beyond the file is refused" \
	iolab -m mmap -s 4M "$data"
stopped 1 "--map: the range ends past the end of the file (1048576 bytes)" \
	"pclab-rw --map --size beyond the file is refused" pclab-rw -M -s 4M "$data"
head -c 3000 /dev/urandom >"$tmp/3000"
stopped 1 "past the end of the file" "pclab-rw --map -o 4K -s 4K of a 3000-byte file is refused" \
	pclab-rw -M -o 4K -s 4K "$tmp/3000"

# no regular file: refused at once, never waited on
mkfifo "$tmp/fifo"
mkdir "$tmp/dir"
for path in "$tmp/fifo" "$tmp/dir" /dev/null; do
	for args in "" "-S" "-M" "-w -s 1M"; do
		# shellcheck disable=SC2086 # the options are words
		stopped 1 "not a regular file" "pclab-rw $args ${path##*/} is refused" pclab-rw $args "$path"
	done
	for args in "-b 4K" "-w -s 1M"; do
		# shellcheck disable=SC2086 # the options are words
		stopped 1 "not a regular file" "iolab $args ${path##*/} is refused" iolab $args "$path"
	done
done
ok "[ -p '$tmp/fifo' ] && [ -d '$tmp/dir' ] && [ -z \"\$(ls -A '$tmp/dir')\" ]" \
	"... and each is left as it was"

# files of /proc and /sys are regular but have no page cache: cachestat(2)
# of them says zeros, which -S would print as measured (R2-17)
stopped 1 "/proc/meminfo: on a pseudo-filesystem (proc): it has no page cache" \
	"pclab-rw -S /proc/meminfo is refused" pclab-rw -S /proc/meminfo
sysfile=/sys/kernel/mm/transparent_hugepage/enabled
if [ -f "$sysfile" ]; then
	stopped 1 "on a pseudo-filesystem (sysfs)" "pclab-rw -S of a /sys file is refused" \
		pclab-rw -S "$sysfile"
else
	skip "pclab-rw -S of a /sys file is refused" "this kernel has no $sysfile"
fi
stopped 1 "/proc/meminfo: on a pseudo-filesystem (proc)" "pclab-rw /proc/meminfo (a read) is refused" \
	pclab-rw /proc/meminfo
stopped 1 "/proc/meminfo: on a pseudo-filesystem (proc)" "iolab /proc/meminfo is refused" \
	iolab -b 4K /proc/meminfo
done_testing
