# shellcheck shell=bash
# shellcheck disable=SC2154 # top, results_root, out, results, host_facts, lab_tmp: lib/host.sh's; predictions, predictions_kept: predictions.sh's
# The boot: the run's sizes from the environment, checked; the pclab
# kernel booted on them; the earlier runs kept.
#
#   lab_vm [-e DIR] COMMAND boot the kernel (MEM, CPUS from the environment)
#                           and run COMMAND; results land in $out.  With
#                           GRADE=1 it boots nothing and the script grades
#                           the results of the last run (make grade-labN).
#                           -e DIR: DIR is copied to /extra in the guest
#                           (run-vm -e; the exercises bring the student's
#                           program and their check script this way)
#   exercise_vm             an exercise's boot (LAB is the exercise):
#                           lab_vm with the program to grade,
#                           EXERCISE_BIN (default
#                           build/exercises/LAB/bin/LAB), on the guest's
#                           PATH and labs/exercises/LAB/check.sh beside it
#                           in /extra, which it runs
#
# Sizes come from the environment: LAB_DATA_MIB (default 10x guest RAM),
# LAB_SECONDS (timed runs, default 10), LAB_FS (ext4 or xfs); QUICK=1 makes
# them small for `make check` (2x RAM, 3 s).
# LIVE=1 runs pcviz on the terminal while the lab runs (labs/live.sh).

LAB_KERNEL=${LAB_KERNEL:-$top/build/kernel/release/arch/x86/boot/bzImage}
mem_mib=${MEM:-256}
if [ "${QUICK:-0}" = 1 ]; then
	: "${LAB_DATA_MIB:=$((mem_mib * 2))}" "${LAB_SECONDS:=3}"
fi
LAB_DATA_MIB=${LAB_DATA_MIB:-$((mem_mib * 10))}
LAB_SECONDS=${LAB_SECONDS:-10}
LAB_FS=${LAB_FS:-ext4}
case "$LAB_DATA_MIB" in '' | *[!0-9]*) echo "$LAB: LAB_DATA_MIB must be a number of MiB" >&2; exit 2 ;; esac
case "$LAB_SECONDS" in '' | *[!0-9]*) echo "$LAB: LAB_SECONDS must be a whole number" >&2; exit 2 ;; esac
case "$LAB_FS" in ext4 | xfs) ;; *) echo "$LAB: LAB_FS must be ext4 or xfs" >&2; exit 2 ;; esac
# A lab writes at most twice its data set to the scratch disk (a file of
# it, and as much again in the streams of labs 2 and 3), which run-vm
# makes sparse: sized to that, and refused where the host cannot hold it
# rather than failing with I/O errors in the guest.  (run-vm's default is
# 8 GiB, too small for the data set of MEM=2048.)
lab_disk_mib=$((2 * LAB_DATA_MIB + 1024))
[ "$lab_disk_mib" -ge 8192 ] || lab_disk_mib=8192

lab_vm() {
	local extra_opt=()
	if [ "$1" = -e ]; then
		extra_opt=(-e "$2")
		shift 2
	fi
	if [ "${GRADE:-0}" = 1 ]; then
		[ -e "$results" ] || { echo "$LAB: nothing to grade: $results does not exist (${LAB_RUN:-make $LAB} runs it)" >&2; exit 1; }
		echo "$LAB: grading the last run ($out), no boot"
		return
	fi
	predictions_gate
	# the predictions as they are now go with the run (predictions_keep)
	! guest_file "$predictions" 2>/dev/null || cp -- "$predictions" "$predictions_kept"
	# every run is kept: the last in $out, the earlier ones in $LAB.runs/
	if [ -e "$results" ]; then
		local kept
		kept=$results_root/$LAB.runs/$(date -r "$results" +%Y%m%d-%H%M%S)
		while [ -e "$kept" ]; do kept=$kept+; done
		mkdir -p "$results_root/$LAB.runs"
		mv "$out" "$kept"
		echo "$LAB: the previous run is kept in $kept$(
			[ ! -x "$top/labs/$LAB/run" ] || echo " (make $LAB-compare sets the runs side by side)")"
	fi
	local free_mib
	mkdir -p "$top/build/vm"
	free_mib=$(($(df -Pk "$top/build/vm" | awk 'NR == 2 { print $4 }') / 1024))
	if [ "$free_mib" -lt $((2 * LAB_DATA_MIB)) ]; then
		echo "$LAB: the data set ($LAB_DATA_MIB MiB) needs up to $((2 * LAB_DATA_MIB)) MiB on the host's" \
			"disk, which has $free_mib MiB free under build/vm: free some, or set LAB_DATA_MIB lower" \
			"(at least twice MEM to go past the cache)" >&2
		exit 2
	fi
	echo "$LAB: booting the pclab kernel (MEM=$mem_mib MiB, LAB_FS=$LAB_FS)"
	local v vars=""
	# the labs' own knobs (LAB4_DIRTY_MIB, LAB5_HOT_MIB, ...) go along
	for v in $(compgen -v | grep -E '^LAB[0-9]+_[A-Z_]+$'); do
		case "${!v}" in '' | *[!0-9]*) echo "$LAB: $v must be a number" >&2; exit 2 ;; esac
		vars="$vars $v=${!v}"
	done
	if [ "${LIVE:-0}" = 1 ]; then
		if [ ! -t 0 ] || [ ! -t 1 ]; then
			echo "$LAB: LIVE=1 shows pcviz on this terminal: run it from one" >&2
			exit 2
		fi
		echo "$LAB: LIVE=1: pcviz shows the lab's files while it runs (q closes pcviz; the lab goes on)"
		"$top/initramfs/run-vm" -I -k "$LAB_KERNEL" -n "$LAB" -o "$results_root" -s "${lab_disk_mib}M" \
			"${extra_opt[@]}" -- \
			"LAB_DATA_MIB=$LAB_DATA_MIB LAB_SECONDS=$LAB_SECONDS LAB_FS=$LAB_FS$vars" \
			"/usr/share/pclab/labs/live.sh $1"
		run_fact
		return
	fi
	"$top/initramfs/run-vm" -k "$LAB_KERNEL" -n "$LAB" -o "$results_root" -s "${lab_disk_mib}M" \
		"${extra_opt[@]}" -- \
		"LAB_DATA_MIB=$LAB_DATA_MIB LAB_SECONDS=$LAB_SECONDS LAB_FS=$LAB_FS$vars $1"
	run_fact
}

# run_fact: the run's sizes, a fact of the host's, for grading it again:
# the first line of host.jsonl, which lab_grade keeps
run_fact() {
	jq -cn --argjson mem "$mem_mib" --argjson data "$LAB_DATA_MIB" --argjson secs "$LAB_SECONDS" \
		--arg fs "$LAB_FS" \
		'{name: "run", value: {mem_mib: $mem, data_mib: $data, seconds: $secs, fs: $fs}}' |
		replace_file "$host_facts"
	predictions_keep
}

exercise_vm() {
	local bin=${EXERCISE_BIN:-$top/build/exercises/$LAB/bin/$LAB}
	if [ "${GRADE:-0}" = 1 ]; then
		lab_vm /extra/check.sh
		return
	fi
	[ -x "$bin" ] || { echo "$LAB: $bin is missing: ${LAB_RUN:-make grade-$LAB} builds it" >&2; exit 1; }
	# what the guest gets: the program on its PATH, the check beside it
	exercise_extra=$lab_tmp/extra
	mkdir -p "$exercise_extra/bin"
	cp "$bin" "$exercise_extra/bin/$LAB"
	cp "$top/labs/exercises/$LAB/check.sh" "$exercise_extra/check.sh"
	echo "$LAB: grading $bin"
	lab_vm -e "$exercise_extra" /extra/check.sh
}
