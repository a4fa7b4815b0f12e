#!/bin/sh
# The ucp exercise, guest side (run from /extra, where the grader puts it,
# under busybox sh): runs the student's ucp (/extra/bin/ucp), as the user
# student, on a cold file of ext4 and of xfs, copying it beside itself in
# a directory of student's, and records what it did, one fact per file
# system; labs/exercises/ucp/grade grades them on the host.
set -eu
LAB=ucp
# shellcheck source=../../lib/guest.sh
. /usr/share/pclab/labs/lib/guest.sh

# Not a whole number of pages: the tail page must be copied too.
size=$((16 * 1048576 + 1234))
pages=$(((size + 4095) / 4096))
head -c "$size" /dev/urandom >/tmp/ucp.src
want=$(sha256sum </tmp/ucp.src | cut -d' ' -f1)

sum() {
	if [ -f "$1" ]; then sha256sum <"$1" | cut -d' ' -f1; else echo missing; fi
}

# A flush during the copy must be the copy's doing: the file systems'
# own timers commit (and flush) too, ext4's journal every 5 s and xfs's
# log worker every 30 s, and a slow copy would see one of those.
[ ! -w /proc/sys/fs/xfs/xfssyncd_centisecs ] || echo 720000 >/proc/sys/fs/xfs/xfssyncd_centisecs

for fs in ext4 xfs; do
	dir=/mnt/$fs	# lib/guest.sh's disk_dev and disk_stat read it
	src=$dir/ucp/ucp.src dst=$dir/ucp/ucp.dst
	[ "$fs" != ext4 ] || mount -o remount,commit=600 "$dir"
	student_dir "$dir/ucp"
	cp /tmp/ucp.src "$src"
	cold
	flush0=$(disk_stat 16)
	read0=$(vm_counter dropbehind_read) write0=$(vm_counter dropbehind_write)
	status=0
	# a hung ucp costs its checks, not the run
	as_student timeout 120 ucp "$src" "$dst" 2>/tmp/ucp.err || status=$?
	flush1=$(disk_stat 16)
	read1=$(vm_counter dropbehind_read) write1=$(vm_counter dropbehind_write)
	src_cached=$(cached "$src") dst_cached=$(cached "$dst")
	got=$(sum "$dst")
	# what the disk holds: the file system read again from it
	dev=$(disk_dev)
	umount "$dir"
	mount -t "$fs" "/dev/$dev" "$dir"
	remounted=$(sum "$dst")
	fact "$fs" "$(jq -cn --argjson status "$status" --argjson pages "$pages" \
		--argjson ok "$([ "$got" = "$want" ] && echo true || echo false)" \
		--argjson ok_remount "$([ "$remounted" = "$want" ] && echo true || echo false)" \
		--argjson src_cached "$src_cached" --argjson dst_cached "$dst_cached" \
		--argjson flushes $((flush1 - flush0)) \
		--argjson dropbehind_read $((read1 - read0)) --argjson dropbehind_write $((write1 - write0)) \
		--arg stderr "$(head -c 1000 /tmp/ucp.err)" \
		'{status: $status, pages: $pages, sha256_ok: $ok, sha256_ok_after_remount: $ok_remount,
		  src_cached: $src_cached, dst_cached: $dst_cached, flushes: $flushes,
		  dropbehind_read: $dropbehind_read, dropbehind_write: $dropbehind_write, stderr: $stderr}')"
	say "$fs: exit status $status, DST $([ "$got" = "$want" ] && echo identical || echo DIFFERENT)" \
		"($([ "$remounted" = "$want" ] && echo identical || echo DIFFERENT) after a remount)," \
		"cached pages SRC $src_cached DST $dst_cached, $((flush1 - flush0)) cache flushes," \
		"dropbehind_read +$((read1 - read0)) dropbehind_write +$((write1 - write0))"
	rm -rf "$dir/ucp"
done
fact finished true
hidden_tests
