# shellcheck shell=sh
# shellcheck disable=SC2154 # dir, fs, hidden_tests_dir: lib/guest.sh's
# ucat's hidden tests (labs/grade-submission only: the student release
# leaves labs/hidden-tests/ out).  Sourced by labs/exercises/ucat/check.sh
# (lib/guest.sh's hidden_tests) after its own facts, in the guest, busybox
# sh; the student's ucat runs as the user student.  Graded by checks.jq
# beside this file.
#
#   hidden.pipe     ucat (1 MiB + 1 byte per read) of a cold ext4 file into
#                   a pipe whose reader is stopped until the pipe is full
#                   and ucat waits inside a write, which is then stopped
#                   and continued (SIGSTOP, SIGCONT): the write returns
#                   short, so the output is whole only if ucat writes the
#                   rest.  (EINTR itself cannot be had from outside: a
#                   program with no signal handler of its own never sees
#                   it, the kernel restarts the call.)
#   hidden.odd      -b 4097: every uncached read but the first starts
#                   inside a page, so each page is read twice and must
#                   still be dropped; the file's size is no whole number
#                   of pages
#   hidden.one      -b 1 on a small file: one byte per read, to the tail
dir=/mnt/ext4/hidden
student_dir "$dir"

# hidden_ucat NAME SIZE UCAT-ARGS...: ucat, as student, of a cold file of
# SIZE random bytes; fact NAME: status, output intact, cached pages after
hidden_ucat() {
	name=$1 size=$2
	shift 2
	head -c "$size" /dev/urandom >"$dir/ucat.dat"
	# student's, for cachestat(2), as in ucat's check
	chown student "$dir/ucat.dat"
	want=$(sha256sum <"$dir/ucat.dat" | cut -d' ' -f1)
	cold
	status=0
	as_student timeout 120 ucat "$@" "$dir/ucat.dat" >/tmp/hidden.out 2>/tmp/hidden.err || status=$?
	fact "$name" "$(jq -cn --argjson status "$status" \
		--argjson ok "$([ "$(sha256sum </tmp/hidden.out | cut -d' ' -f1)" = "$want" ] && echo true || echo false)" \
		--argjson cached "$(cached "$dir/ucat.dat")" --arg stderr "$(head -c 500 /tmp/hidden.err)" \
		'{status: $status, sha256_ok: $ok, cached_after: $cached, stderr: $stderr}')"
	say "hidden: $name: ucat $*: exit status $status, output $(json "$name" sha256_ok), $(json "$name" cached_after) pages cached after"
}

# Through a stopped and continued pipe
size=$((8 * 1048576 + 4097))
head -c "$size" /dev/urandom >"$dir/ucat.dat"
chown student "$dir/ucat.dat"
want=$(sha256sum <"$dir/ucat.dat" | cut -d' ' -f1)
cold
rm -f /tmp/hidden.fifo
mkfifo /tmp/hidden.fifo
sha256sum </tmp/hidden.fifo >/tmp/hidden.sum &
reader=$!
as_student ucat -b $((1048576 + 1)) "$dir/ucat.dat" >/tmp/hidden.fifo 2>/tmp/hidden.err &
writer=$!
# the program's own pid, once the chain of execs has reached it
pid=""
while [ -z "$pid" ] && kill -0 "$writer" 2>/dev/null; do
	pid=$(pidof ucat || true)
done
stops=0
while [ -n "$pid" ] && [ "$stops" -lt 200 ] && kill -STOP "$reader" 2>/dev/null; do
	# the pipe fills; ucat waits with part of its block written
	sleep 0.05
	kill -STOP "$pid" 2>/dev/null || { kill -CONT "$reader"; break; }
	stops=$((stops + 1))
	# long enough for ucat to take the stop (a SIGCONT before that
	# would cancel it, and the write go on)
	sleep 0.02
	kill -CONT "$pid" 2>/dev/null || true
	kill -CONT "$reader"
	sleep 0.02
done
status=0
wait "$writer" || status=$?
wait "$reader" || true
fact hidden.pipe "$(jq -cn --argjson status "$status" --argjson stops "$stops" \
	--argjson ok "$([ "$(cut -d' ' -f1 /tmp/hidden.sum)" = "$want" ] && echo true || echo false)" \
	--arg stderr "$(head -c 500 /tmp/hidden.err)" \
	'{status: $status, sha256_ok: $ok, stops: $stops, stderr: $stderr}')"
say "hidden: ucat into a pipe, stopped $stops times: exit status $status, output $(json hidden.pipe sha256_ok)"

hidden_ucat hidden.odd $((3 * 1048576 + 1234)) -b 4097
hidden_ucat hidden.one $((3 * 4096 + 123)) -b 1
rm -rf "$dir"
fact hidden.finished true
