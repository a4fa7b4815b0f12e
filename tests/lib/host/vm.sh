# shellcheck shell=bash
# Helpers for host-driven VM tests (tests/vm/*.sh); source after tap.sh.
#
#   vm_run NAME [run-vm options] -- COMMAND
#       boots the debug kernel, runs COMMAND, leaves its output in
#       $vm_out (a file), its status in $vm_status, the guest's results in
#       $CHECK_RESULTS/NAME, and records one TAP check that the kernel log
#       of that boot is free of warnings, BUGs and lockdep reports.

top=$(cd "$(dirname "$0")/../.." && pwd)
CHECK_RESULTS=${CHECK_RESULTS:-$top/results/check}
VM_KERNEL=${VM_KERNEL:-$top/build/kernel/debug/arch/x86/boot/bzImage}
# The tests of the host's tools that boot a guest only to run them (the
# graders, the bench's plumbing) boot the release kernel, the one students
# and make bench boot: two to three times faster under emulation than the
# debug kernel, whose checking the guest suites and the labs get
VM_RELEASE_KERNEL=${VM_RELEASE_KERNEL:-$top/build/kernel/release/arch/x86/boot/bzImage}
export CHECK_RESULTS
# run-check makes it; a test run by hand may be the first to need it
mkdir -p "$CHECK_RESULTS"

vm_run() {
	vm_name=$1
	shift
	vm_out=$CHECK_RESULTS/$vm_name.out
	vm_status=0
	# shellcheck disable=SC2034 # read by the tests that call vm_run
	"$top/initramfs/run-vm" -k "$VM_KERNEL" -o "$CHECK_RESULTS" -n "$vm_name" "$@" \
		>"$vm_out" 2>&1 || vm_status=$?
	vm_check_console "$vm_name"
}

vm_check_console() {
	local log=$CHECK_RESULTS/$1/console.log complaints
	if [ ! -r "$log" ]; then
		fail "$1: console log exists" "no $log"
	elif complaints=$("$top/tests/scan-console" "$log"); then
		pass "$1: kernel log has no warnings, BUGs or lockdep reports"
	else
		fail "$1: kernel log has no warnings, BUGs or lockdep reports" "$complaints"
	fi
}
