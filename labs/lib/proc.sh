# shellcheck shell=sh
# What the guest scripts read from /proc, read one way for all of them
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
#   mounted_dev DIR             the disk mounted at DIR, by its name in
#                               /sys/block (vdb, ...)
#   mounted_fstype DIR          the type of the file system mounted at DIR
#   uptime_s                    the seconds since boot, to the hundredth

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

# mounts_field DIR N: field N of DIR's line of /proc/mounts (1: the
# device, 3: the type); nothing if nothing is mounted there
mounts_field() {
	awk -v d="$1" -v n="$2" '$2 == d { print $n }' /proc/mounts
}

mounted_dev() {
	mounts_field "$1" 1 | awk '{ sub("/dev/", ""); print }'
}

mounted_fstype() {
	mounts_field "$1" 3
}

uptime_s() {
	awk '{ print $1 }' /proc/uptime
}
