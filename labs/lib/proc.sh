# shellcheck shell=sh
# The kernel's counters read from /proc, one way for every guest script
# (sourced by busybox sh): the labs' through lib/guest.sh, the guest test
# suites directly, from /usr/share/pclab/labs/lib/proc.sh.  The C tools
# read the same files through lib/sysstat.c.
#
#   vm_counter NAME             the counter NAME of /proc/vmstat
#   vm_counter_folded NAME      the same with every CPU's share folded in
#                               first (stat_refresh), for exact differences
#   meminfo_kib KEY             the line KEY of /proc/meminfo (MemTotal,
#                               MemAvailable, Cached, ...), KiB
#   meminfo_mib KEY             the same in MiB, rounded down

# proc_value FILE KEY: the value after KEY on its line of FILE, one of
# /proc's "KEY VALUE [kB]" tables; nothing if there is no such line
proc_value() {
	awk -v k="$2" '$1 == k { print $2 }' "$1"
}

vm_counter() {
	proc_value /proc/vmstat "$1"
}

# The counters of /proc/vmstat lag behind by what each CPU has not folded
# in yet, up to its stat threshold of pages.
vm_counter_folded() {
	echo 1 >/proc/sys/vm/stat_refresh
	vm_counter "$1"
}

meminfo_kib() {
	proc_value /proc/meminfo "$1:"
}

meminfo_mib() {
	meminfo_kib "$1" | awk '{ print int($1 / 1024) }'
}
