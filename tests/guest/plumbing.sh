#!/bin/sh
# In-guest checks of the plumbing every other test relies on: mounts,
# scratch filesystems, results channel, tracefs, trace-cmd, perf, and the
# kernel options the project needs.
# shellcheck source=../lib/both/tap.sh
. "$(dirname "$0")/../lib/both/tap.sh"
# shellcheck source=../../labs/lib/proc.sh
. /usr/share/pclab/labs/lib/proc.sh

config() { zcat /proc/config.gz | grep -q "^$1=y"; }

case "$(uname -r)" in
*-pclab*) pass "kernel release $(uname -r) carries the pclab localversion" ;;
*) fail "kernel release carries the pclab localversion" "uname -r: $(uname -r)" ;;
esac
for m in /proc:proc /sys:sysfs /dev:devtmpfs /sys/kernel/tracing:tracefs \
	/sys/kernel/debug:debugfs /sys/fs/cgroup:cgroup2 /results:9p \
	/mnt/ext4:ext4 /mnt/xfs:xfs; do
	is "$(mounted_fstype "${m%%:*}")" "${m#*:}" "${m%%:*} is mounted as ${m#*:}"
done

for fs in ext4 xfs; do
	f=/mnt/$fs/plumbing
	head -c 1048576 /dev/urandom >/tmp/plumbing.src
	cp /tmp/plumbing.src "$f" && sync
	echo 3 >/proc/sys/vm/drop_caches
	ok "cmp /tmp/plumbing.src $f" "data written to $fs reads back after drop_caches"
	rm -f "$f"
done

echo "written in the guest" >/results/plumbing.txt
ok "test -s /results/plumbing.txt" "the results channel is writable"

# The inputs share: read-only in the guest's mount, and on the host's side
# too (QEMU's readonly=on), which a guest that remounts it meets.
is "$(mounted_fstype /usr/share/pclab)" 9p "/usr/share/pclab is mounted as 9p"
ok "test -x /usr/lib/pclab/tests/run-guest-suites" "/usr/lib/pclab/tests is the share's test tree"
mount -o remount,rw /usr/share/pclab 2>/dev/null
inputs_tests=/usr/share/pclab/tests
ok "! touch $inputs_tests/written-by-the-guest" "the inputs share refuses a write, even remounted read-write"
mount -o remount,ro /usr/share/pclab 2>/dev/null

for opt in CONFIG_IO_URING CONFIG_MEMCG CONFIG_CACHESTAT_SYSCALL CONFIG_PROC_PAGE_MONITOR \
	CONFIG_FTRACE_SYSCALLS CONFIG_KPROBE_EVENTS CONFIG_PERF_EVENTS CONFIG_FAILSLAB \
	CONFIG_FAIL_PAGE_ALLOC CONFIG_FAIL_MAKE_REQUEST CONFIG_ADVISE_SYSCALLS; do
	ok "zcat /proc/config.gz | grep -q '^$opt=y'" "$opt is built in"
done
ok "test -r /proc/kpageflags" "/proc/kpageflags exists"
for d in failslab fail_page_alloc fail_make_request; do
	ok "test -d /sys/kernel/debug/$d" "fault injection control $d is in debugfs"
done
if config CONFIG_DEBUG_VM; then
	pass "debug kernel: CONFIG_DEBUG_VM is on"
else
	skip "CONFIG_DEBUG_VM is on" "release kernel"
fi

# tracefs by hand: enable one event, cause it, read it back.
t=/sys/kernel/tracing
head -c 65536 /dev/urandom >/mnt/ext4/traced
sync
echo 3 >/proc/sys/vm/drop_caches
echo >"$t/trace"
echo 1 >"$t/events/filemap/mm_filemap_add_to_page_cache/enable"
cat /mnt/ext4/traced >/dev/null
echo 0 >"$t/events/filemap/mm_filemap_add_to_page_cache/enable"
n=$(grep -c mm_filemap_add_to_page_cache "$t/trace")
ok "[ $n -ge 16 ]" "tracefs: a cold 64 KiB read logs $n page-cache additions (>= 16)"

echo 3 >/proc/sys/vm/drop_caches
ok "trace-cmd record -q -o /results/plumbing.dat -e filemap:mm_filemap_add_to_page_cache cat /mnt/ext4/traced" \
	"trace-cmd records filemap events to /results"
ok "trace-cmd report -i /results/plumbing.dat | grep -q mm_filemap_add_to_page_cache" \
	"trace-cmd report reads the trace in the guest"

# What a run writes to /results stays out of the page cache it studies:
# 32 MiB written and read back leave none of the file cached, and the
# guest's Cached grows by less than a tenth of it.
c0=$(meminfo_kib Cached)
pclab-rw -w -s 32M -f /results/plumbing.big >/dev/null
pclab-rw -f /results/plumbing.big >/dev/null
grew=$(($(meminfo_kib Cached) - c0))
pages=$(pclab-rw -S -O cached -n /results/plumbing.big)
ok "[ '$pages' = 0 ] && [ $grew -lt 3277 ]" \
	"32 MiB written to /results and read back: $pages pages of it cached, Cached grew $grew KiB"
rm -f /results/plumbing.big

ok "perf stat -e page-faults -x, -o /tmp/perf.stat true && grep -q page-faults /tmp/perf.stat" \
	"perf stat counts a software event"
echo 3 >/proc/sys/vm/drop_caches
ok "perf record -q -o /tmp/perf.data -e filemap:mm_filemap_add_to_page_cache cat /mnt/ext4/traced && perf script -i /tmp/perf.data | grep -q mm_filemap_add_to_page_cache" \
	"perf records and scripts a tracepoint"
rm -f /mnt/ext4/traced /tmp/perf.data

# labs and benchmarks time microseconds: a jiffies clock would round them
# to 4 ms (run-vm passes tsc_early_khz= under TCG)
is "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)" tsc \
	"the guest keeps time with the TSC, not jiffies"

done_testing
