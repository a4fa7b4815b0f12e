# shellcheck shell=sh
# shellcheck disable=SC2154 # dir, fs, hidden_tests_dir: lib/guest.sh's; identical: backup's check.sh's
# backup's hidden test (labs/grade-submission only: the student release
# leaves labs/hidden-tests/ out).  Sourced by labs/exercises/backup/check.sh
# (lib/guest.sh's hidden_tests) after its own facts, in the guest, busybox
# sh; the student's backup runs as the user student.  Graded by checks.jq
# beside this file.
#
#   hidden.crash    backup copies three small cold files on $fs (LAB_FS);
#                   then the file system crashes (fs-shutdown: shut down
#                   without flushing its log) and is mounted again, which
#                   replays only what was committed to the disk.  Every
#                   file is intact only if backup made each copy and the
#                   directory durable before it exited.  The file
#                   systems' own commits are off meanwhile, as in backup's
#                   check (ext4 commit=600 again: its remount reset it).
src=$dir/hidden-src dst=$dir/hidden-dst
[ "$fs" != ext4 ] || mount -o remount,commit=600 "$dir"
mkdir -p "$src"
student_dir "$dst"
head -c $((1048576 + 1234)) /dev/urandom >"$src/a"
head -c 4097 /dev/urandom >"$src/b"
head -c 123 /dev/urandom >"$src/c"
cold
status=0
as_student timeout 120 backup "$src" "$dst" >/dev/null 2>/tmp/hidden.err || status=$?
copied=$(identical "$src" "$dst" cmp)
dev=$(disk_dev)
"$hidden_tests_dir/bin/fs-shutdown" "$dir"
umount "$dir"
mount -t "$fs" "/dev/$dev" "$dir"
crashed=$(identical "$src" "$dst" cmp)
fact hidden.crash "$(jq -cn --argjson status "$status" --argjson ok "$copied" --argjson ok_crash "$crashed" \
	--arg stderr "$(head -c 500 /tmp/hidden.err)" \
	'{status: $status, identical: $ok, identical_after_crash: $ok_crash, stderr: $stderr}')"
say "hidden: backup exit status $status, copy $copied, $crashed after a crash"
rm -rf "$src" "$dst"
fact hidden.finished true
