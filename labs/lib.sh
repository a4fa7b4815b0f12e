# shellcheck shell=bash
# Shared helpers for the labs' host-side scripts (sourced).
#
#   lab_vm NAME COMMAND     boot the release kernel (MEM, CPUS from the
#       environment) and run COMMAND; results land in results/NAME
#   check NAME VALUE-TEXT CONDITION [HINT]      print one self-check line
#   lab_score                                   print the score; status 1 if
#                                               a check failed

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LAB_KERNEL=${LAB_KERNEL:-$top/build/kernel/release/arch/x86/boot/bzImage}
lab_checks=0
lab_failed=0

lab_vm() {
	"$top/initramfs/run-vm" -k "$LAB_KERNEL" -n "$1" -- "$2"
}

check() {
	local name=$1 value=$2 cond=$3 hint=${4:-}
	lab_checks=$((lab_checks + 1))
	if awk "BEGIN { exit !($cond) }"; then
		printf '  %s %s %s PASS\n' "$name" "$(printf '%*s' $((52 - ${#name})) '' | tr ' ' .)" "$value"
	else
		lab_failed=$((lab_failed + 1))
		printf '  %s %s %s FAIL\n' "$name" "$(printf '%*s' $((52 - ${#name})) '' | tr ' ' .)" "$value"
		[ -z "$hint" ] || printf '      why it matters: %s\n' "$hint"
	fi
}

lab_score() {
	echo "  score: $((lab_checks - lab_failed))/$lab_checks self-checks passed"
	[ "$lab_failed" -eq 0 ]
}
