# shellcheck shell=bash
# The host side of the labs' shell library (sourced): the labs' run
# scripts, the exercises' and kernel exercises' graders, bench/run and
# scripts/trace source this.  Set LAB (e.g. lab2) before sourcing.  This
# file sets what every part reads and sources the parts, a job each:
#   vm.sh           the run's sizes from the environment, the boot
#                   (lab_vm, exercise_vm), the earlier runs kept
#   facts.sh        the run's facts read for reports (fact, facts,
#                   facts_eval) and the host's own written in derive
#                   (host_fact, numbers, trace_fact)
#   report.sh       a run's tables and plots, and the sums and means of
#                   its logs that they show (lab_table, lab_plot,
#                   cliff_plot, sum_csv, ...)
#   predictions.sh  the student's predictions, asked for before the run
#                   and scored after it; the form for the answers
#   grade.sh        every grader's last step (lab_finished, lab_grade)
#
# Here, for all of them:
#   guest_file FILE         FILE is a regular file (not a link, FIFO or
#                           directory), else says so: before reading a
#                           file the guest wrote
#   replace_file FILE       standard input becomes FILE, a new file renamed
#                           over what was there: every file the host writes
#                           into a run directory, whose links and FIFOs are
#                           the guest's, is written this way
#
# Set here: $top (the checkout); $out, the run's directory (results/LAB;
# LAB_RESULTS moves the results directory); in it $results, the guest's
# facts, and $host_facts, the host's; $lab_tmp, scratch files removed at
# exit.  LAB_RUN names the command that runs it, for messages (default:
# make LAB).

: "${LAB:?set LAB before sourcing lib/host.sh}"
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
results_root=${LAB_RESULTS:-$top/results}
out=$results_root/$LAB
results=$out/results.jsonl
host_facts=$out/host.jsonl
# the graders' scratch files
lab_tmp=$(mktemp -d)
trap 'rm -rf -- "$lab_tmp"' EXIT

guest_file() {
	[ -f "$1" ] && [ ! -L "$1" ] && return 0
	[ ! -e "$1" ] && [ ! -L "$1" ] && return 1
	echo "$LAB: $1 is not a regular file: not read" >&2
	return 1
}

replace_file() {
	local tmp
	tmp=$(mktemp -- "$1.XXXXXX")
	cat >"$tmp"
	chmod 644 -- "$tmp"
	# -T: a directory in its place is refused, not written into
	mv -fT -- "$tmp" "$1" || { rm -f -- "$tmp"; echo "$LAB: could not write $1" >&2; return 1; }
}

# shellcheck source=labs/lib/vm.sh
. "$top/labs/lib/vm.sh"
# shellcheck source=labs/lib/facts.sh
. "$top/labs/lib/facts.sh"
# shellcheck source=labs/lib/report.sh
. "$top/labs/lib/report.sh"
# shellcheck source=labs/lib/predictions.sh
. "$top/labs/lib/predictions.sh"
# shellcheck source=labs/lib/grade.sh
. "$top/labs/lib/grade.sh"
