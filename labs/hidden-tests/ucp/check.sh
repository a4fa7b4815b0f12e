# shellcheck shell=sh
# shellcheck disable=SC2154 # hidden_tests_dir: lib/guest.sh's; sum: ucp's check.sh's
# ucp's hidden test (labs/grade-submission only: the student release
# leaves labs/hidden-tests/ out).  Sourced by labs/exercises/ucp/check.sh
# (lib/guest.sh's hidden_tests) after its own facts, in the guest, busybox
# sh; the student's ucp runs as the user student.  Graded by checks.jq
# beside this file.
#
#   hidden.crash-FS   on ext4 and on xfs, ucp copies a cold file; then the
#                     file system crashes (fs-shutdown: shut down without
#                     flushing its log) and is mounted again, which replays
#                     only what was committed to the disk.  DST is intact
#                     only if ucp made it durable (fsync() of DST and of
#                     its directory, or RWF_DSYNC) before it exited.  The
#                     file systems' own commits are off meanwhile, as in
#                     ucp's check: ext4 commit=600, xfs's log worker.
size=$((4 * 1048576 + 1234))
head -c "$size" /dev/urandom >/tmp/hidden.src
want=$(sha256sum </tmp/hidden.src | cut -d' ' -f1)
for fs in ext4 xfs; do
	dir=/mnt/$fs
	[ "$fs" != ext4 ] || mount -o remount,commit=600 "$dir"
	student_dir "$dir/hidden"
	cp /tmp/hidden.src "$dir/hidden/src"
	cold
	status=0
	as_student timeout 120 ucp "$dir/hidden/src" "$dir/hidden/dst" 2>/tmp/hidden.err || status=$?
	copied=$(sum "$dir/hidden/dst")
	dev=$(disk_dev)
	"$hidden_tests_dir/bin/fs-shutdown" "$dir"
	umount "$dir"
	mount -t "$fs" "/dev/$dev" "$dir"
	crashed=$(sum "$dir/hidden/dst")
	fact "hidden.crash-$fs" "$(jq -cn --argjson status "$status" \
		--argjson ok "$([ "$copied" = "$want" ] && echo true || echo false)" \
		--argjson ok_crash "$([ "$crashed" = "$want" ] && echo true || echo false)" \
		--arg stderr "$(head -c 500 /tmp/hidden.err)" \
		'{status: $status, sha256_ok: $ok, sha256_ok_after_crash: $ok_crash, stderr: $stderr}')"
	say "hidden: $fs: ucp exit status $status, DST $([ "$copied" = "$want" ] && echo identical || echo DIFFERENT)," \
		"$([ "$crashed" = "$want" ] && echo identical || echo "DIFFERENT ($crashed)") after a crash"
	rm -rf "$dir/hidden"
done
fact hidden.finished true
