#!/bin/bash
# make trace records the drop-behind events in the guest, and the host's
# trace-cmd (libtraceevent 1.7) decodes every field, symbolic ones included.
set -u
# shellcheck source=../lib/both/tap.sh
. "$(dirname "$0")/../lib/both/tap.sh"
# shellcheck source=../lib/host/vm.sh
. "$(dirname "$0")/../lib/host/vm.sh"

status=0
RESULTS=$CHECK_RESULTS make -s -C "$top" trace KERNEL=debug NAME=trace-demo \
	CMD='pclab-rw -w -s 4M -f /mnt/ext4/f && echo 3 >/proc/sys/vm/drop_caches &&
	     pclab-rw -U /mnt/ext4/f && pclab-rw -w -U -s 4M -f /mnt/ext4/f' \
	>"$CHECK_RESULTS/trace-demo.out" 2>&1 || status=$?
is "$status" 0 "make trace records a command and reports it"
vm_check_console trace-demo
report=$CHECK_RESULTS/trace-demo/report.txt
count() { grep -c "$1" "$report" 2>/dev/null; }

n=$(count 'mm_filemap_dropbehind_mark: *dev [0-9]*:[0-9]* ino [0-9a-f]* index [0-9]* pages [0-9]* read$')
is "$n" 1024 "report decodes mm_filemap_dropbehind_mark for the 4 MiB read (1024 folios)"
n=$(count 'mm_filemap_dropbehind_end: *dev [0-9]*:[0-9]* ino [0-9a-f]* index [0-9]* pages 1 after read: dropped$')
is "$n" 1024 "report decodes mm_filemap_dropbehind_end with symbolic when/result words"
n=$(count 'mm_filemap_dropbehind_end: .* after \(irq-\)\{0,1\}writeback: dropped$')
is "$n" 1024 "the uncached write's folios are dropped after writeback"
n=$(count 'mm_filemap_dropbehind_call: *dev [0-9]*:[0-9]* ino [0-9a-f]* read pos [0-9]* bytes 1048576 folios: marked 256 served 0 dropped 256 kept 0$')
is "$n" 4 "report decodes the per-call summaries of the read"
ok "! grep -qi 'failed\\|unknown' '$CHECK_RESULTS/trace-demo/report.err'" \
	"trace-cmd report has no parse errors"
ok "grep -q 'mm_filemap_dropbehind_end' '$CHECK_RESULTS/trace-demo.out'" "make trace prints a summary by event"

done_testing
