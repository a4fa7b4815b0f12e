#!/bin/sh
# The ucat exercise, guest side (run from /extra, where the grader puts
# it, under busybox sh): runs the student's ucat (/extra/bin/ucat) on a
# cold file of ext4, of xfs and of tmpfs, and records what it did, one fact
# per file system; labs/exercises/ucat/grade grades them on the host.
set -eu
LAB=ucat
# shellcheck source=../../lib/guest.sh
. /usr/share/pclab/labs/lib/guest.sh

# Not a whole number of pages: the tail page must come out too.
size=$((16 * 1048576 + 1234))
pages=$(((size + 4095) / 4096))
# tmpfs refuses RWF_UNCACHED: the fallback's case
mkdir -p /mnt/tmpfs
mount -t tmpfs -o size=64m tmpfs /mnt/tmpfs
# The data is made and summed on /tmp, so the test file itself is never
# read before ucat reads it.
head -c "$size" /dev/urandom >/tmp/ucat.src
want=$(sha256sum </tmp/ucat.src | cut -d' ' -f1)

# reported WHEN: the N of the student's "ucat: residency WHEN: N of M pages cached"
reported() {
	sed -n "s/^ucat: residency $1: \([0-9][0-9]*\) of [0-9][0-9]* pages cached\$/\1/p" /tmp/ucat.err |
		head -n 1
}

for fs in ext4 xfs tmpfs; do
	f=/mnt/$fs/ucat.dat
	cp /tmp/ucat.src "$f"
	# student's: cachestat(2) reports only on a file its caller owns or may
	# write (the kernel's can_do_cachestat)
	chown student "$f"
	# cold: not a page of it cached (tmpfs keeps its pages: they are the file)
	cold
	before=$(cached "$f")
	read0=$(vm_counter dropbehind_read)
	status=0
	# a hung ucat costs its checks, not the run
	as_student timeout 120 ucat "$f" >/tmp/ucat.out 2>/tmp/ucat.err || status=$?
	after=$(cached "$f")
	read1=$(vm_counter dropbehind_read)
	got=$(sha256sum </tmp/ucat.out | cut -d' ' -f1)
	fact "$fs" "$(jq -cn --argjson status "$status" --arg got "$got" --arg want "$want" \
		--argjson pages "$pages" --argjson before "$before" --argjson after "$after" \
		--argjson dropbehind_read $((read1 - read0)) \
		--argjson fallbacks "$(grep -c 'falling back to plain reads' /tmp/ucat.err || true)" \
		--arg reported_before "$(reported before)" --arg reported_after "$(reported after)" \
		--arg stderr "$(head -c 1000 /tmp/ucat.err)" \
		'{status: $status, sha256_ok: ($got == $want), pages: $pages, cached_before: $before,
		  cached_after: $after, dropbehind_read: $dropbehind_read, fallbacks: $fallbacks,
		  reported_before: ($reported_before | if . == "" then null else tonumber end),
		  reported_after: ($reported_after | if . == "" then null else tonumber end),
		  stderr: $stderr}')"
	say "$fs: exit status $status, output $([ "$got" = "$want" ] && echo identical || echo DIFFERENT)," \
		"cached pages $before -> $after, dropbehind_read +$((read1 - read0))"
	rm -f "$f" /tmp/ucat.out
done
fact finished true
hidden_tests
