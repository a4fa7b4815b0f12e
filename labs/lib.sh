# shellcheck shell=bash
# Shared helpers for the labs' host-side scripts (sourced).  Set LAB (e.g.
# lab2) before sourcing.
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
#   lab_finished NAME       stop unless the guest recorded fact NAME (its
#                           last)
#   fact NAME [KEY]         the fact NAME the guest recorded in
#                           $out/results.jsonl (its field KEY, a path such
#                           as lat_us.p99), "-" if none
#   facts DIR REGEX KEY     "NAME VALUE" of field KEY (the value itself if
#                           KEY is "") of every fact of DIR/results.jsonl
#                           whose name matches REGEX
#   jget STEP KEY           fact STEP KEY (an iolab summary's field)
#   fact_num NAME KEY       fact NAME KEY as a number for check: -1 if it
#                           is missing, 1 for true, 0 for false
#   trace_fact NAME TRACE   after the boot, on the host: the event counts of
#                           TRACE (a trace.dat) as pcviz's replay decodes
#                           them, recorded as fact NAME (GRADE=1: already
#                           there); keys as in pcviz's batch output
#                           (docs/pcviz.md: ev_KIND, pages_KIND, db_end_...)
#   jstreams STEP KEY sum|max   KEY over the streams' facts STEP.N, added
#                           up or the largest
#   growth STEP             the page cache's peak growth in STEP, MiB
#   percent_kept A B        B as a percentage of A (0 when A is 0)
#   ratio A B               A / B to two places ("-" if either is missing)
#   lab_table STEP...       the results table of iolab steps
#   lab_plot PNG TITLE YLABEL COLUMN STEP...
#                           one line per step: COLUMN of STEP.csv over time
#                           (a column name, or a gnuplot expression in
#                           parentheses, e.g. "(column('cached_kib')/1024)")
#   cliff_plot PNG TITLE STEP...
#                           the cliff: MB/s, page cache, kswapd CPU,
#                           direct-reclaim stalls and memory pressure of
#                           each STEP.csv, in five panels on one time axis
#   sum_csv PREFIX          PREFIX.sum.csv: the per-second logs
#                           PREFIX.*.csv of streams run together, as one
#   before_cliff FILE       mean MB/s of a log before reclaim starts
#   csv_mean FILE COLUMN FROM TO
#                           mean of COLUMN over [FROM, TO) of the run
#   check NAME VALUE-TEXT CONDITION [HINT]      print one self-check line,
#                                               record it in $out/checks.jsonl
#   measured KEY VALUE      what the run measured for prediction KEY
#   lab_score               the predictions beside the measured values, the
#                           score; status 1 if a check failed
#
# LAB_RUN names the command that runs it, for messages (default: make LAB).
# LAB_HANDOUT names the handout's directory under labs/, whose
# predictions.txt and ANSWERS.md go with the run (default: LAB; an exercise
# that is a lab's capstone names that lab).
# Sizes come from the environment: LAB_DATA_MIB (default 10x guest RAM),
# LAB_SECONDS (timed runs, default 10), LAB_FS (ext4 or xfs); QUICK=1 makes
# them small for `make check` (2x RAM, 3 s).  LAB_RESULTS moves the results directory.
# LIVE=1 runs pcviz on the terminal while the lab runs (labs/live.sh).

: "${LAB:?set LAB before sourcing lib.sh}"
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LAB_KERNEL=${LAB_KERNEL:-$top/build/kernel/release/arch/x86/boot/bzImage}
results_root=${LAB_RESULTS:-$top/results}
out=$results_root/$LAB
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
lab_checks=0
lab_failed=0
results=$out/results.jsonl
checks=$out/checks.jsonl

lab_vm() {
	local extra_opt=()
	if [ "$1" = -e ]; then
		extra_opt=(-e "$2")
		shift 2
	fi
	if [ "${GRADE:-0}" = 1 ]; then
		[ -r "$results" ] || { echo "$LAB: nothing to grade: $results does not exist (${LAB_RUN:-make $LAB} runs it)" >&2; exit 1; }
		echo "$LAB: grading the last run ($out), no boot"
		# the sizes the run had, not this shell's
		if [ "$(fact run)" != - ]; then
			mem_mib=$(fact run mem_mib) LAB_DATA_MIB=$(fact run data_mib)
			LAB_SECONDS=$(fact run seconds) LAB_FS=$(fact run fs)
		fi
		return
	fi
	predictions_template
	# every run is kept: the last in $out, the earlier ones in $LAB.runs/
	if [ -r "$results" ]; then
		local kept
		kept=$results_root/$LAB.runs/$(date -r "$results" +%Y%m%d-%H%M%S)
		while [ -e "$kept" ]; do kept=$kept+; done
		mkdir -p "$results_root/$LAB.runs"
		mv "$out" "$kept"
		echo "$LAB: the previous run is kept in $kept$(
			[ ! -x "$top/labs/$LAB/run" ] || echo " (make $LAB-compare sets the runs side by side)")"
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
		"$top/initramfs/run-vm" -I -k "$LAB_KERNEL" -n "$LAB" -o "$results_root" "${extra_opt[@]}" -- \
			"LAB_DATA_MIB=$LAB_DATA_MIB LAB_SECONDS=$LAB_SECONDS LAB_FS=$LAB_FS$vars" \
			"/usr/share/pclab/labs/live.sh $1"
		run_fact
		return
	fi
	"$top/initramfs/run-vm" -k "$LAB_KERNEL" -n "$LAB" -o "$results_root" "${extra_opt[@]}" -- \
		"LAB_DATA_MIB=$LAB_DATA_MIB LAB_SECONDS=$LAB_SECONDS LAB_FS=$LAB_FS$vars $1"
	run_fact
}

# run_fact: the run's sizes as a fact of the host's, for grading it again
run_fact() {
	jq -cn --argjson mem "$mem_mib" --argjson data "$LAB_DATA_MIB" --argjson secs "$LAB_SECONDS" \
		--arg fs "$LAB_FS" \
		'{name: "run", value: {mem_mib: $mem, data_mib: $data, seconds: $secs, fs: $fs}}' >>"$results"
}

exercise_vm() {
	local bin=${EXERCISE_BIN:-$top/build/exercises/$LAB/bin/$LAB}
	if [ "${GRADE:-0}" = 1 ]; then
		lab_vm /extra/check.sh
		return
	fi
	[ -x "$bin" ] || { echo "$LAB: $bin is missing: ${LAB_RUN:-make grade-$LAB} builds it" >&2; exit 1; }
	# what the guest gets: the program on its PATH, the check beside it
	exercise_extra=$(mktemp -d)
	trap 'rm -rf "$exercise_extra"' EXIT
	mkdir "$exercise_extra/bin"
	cp "$bin" "$exercise_extra/bin/$LAB"
	cp "$top/labs/exercises/$LAB/check.sh" "$exercise_extra/check.sh"
	echo "$LAB: grading $bin"
	lab_vm -e "$exercise_extra" /extra/check.sh
}

lab_finished() {
	[ "$(fact "$1")" != - ] || { echo "$LAB: the guest did not finish; see $out/console.log" >&2; exit 1; }
}

# The last record of a name wins, so a step the guest ran again counts once.
fact() {
	[ -r "$results" ] || { echo -; return; }
	jq -rs --arg name "$1" --arg key "${2:-}" '
		map(select(.name == $name)) | last | .value |
		if $key == "" then . else getpath($key | split("."))? end |
		if . == null then "-" elif type == "object" or type == "array" then tojson else . end' "$results"
}

facts() {
	[ -r "$1/results.jsonl" ] || return 0
	jq -r --arg re "$2" --arg key "$3" \
		'select(.name | test($re)) |
		"\(.name) \((if $key == "" then .value else .value | getpath($key | split("."))? end) // "-")"' \
		"$1/results.jsonl"
}

jget() {
	fact "$1" "$2"
}

fact_num() {
	local v
	v=$(fact "$1" "$2")
	case "$v" in - | null) echo -1 ;; true) echo 1 ;; false) echo 0 ;; *) echo "$v" ;; esac
}

# Traces are decoded by one decoder, pcviz's, never by parsing report text.
trace_fact() {
	local pcviz=$top/build/host/pcviz summary
	[ "${GRADE:-0}" != 1 ] || return 0
	[ -x "$pcviz" ] || { echo "$LAB: $pcviz is missing: make pcviz builds it" >&2; exit 1; }
	summary=$("$pcviz" --replay "$2" --json -i 3600 2>"$out/$1.pcviz-errors" | tail -n 1) || true
	[ -n "$summary" ] || { echo "$LAB: pcviz could not replay $2: $(head -n 2 "$out/$1.pcviz-errors")" >&2; exit 1; }
	rm -f "$out/$1.pcviz-errors"
	jq -c --arg name "$1" '{name: $name, value: del(.per_file)}' <<<"$summary" >>"$results"
}

jstreams() {
	jq -rs --arg re "^${1//./\\.}\\.[0-9]+$" --arg key "$2" --arg op "$3" '
		map(select(.name | test($re)) | .value | getpath($key | split("."))) |
		if length == 0 then "-" elif $op == "max" then max
		else add | (. * 1000 | round) / 1000 end' "$results"	# no float noise in a sum
}

growth() {
	echo $((($(jget "$1" cache_kib.peak) - $(jget "$1" cache_kib.start)) / 1024))
}

percent_kept() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a ? 100 * b / a : 0 }'
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b <= 0) print "-"; else printf "%.2f", a / b }'
}

lab_table() {
	local s
	printf '  %-18s %9s %8s %10s %8s %11s %13s\n' step MB/s IOPS "p99 us" kswapd% \
		"cache +MiB" "reclaimed MiB"
	for s in "$@"; do
		printf '  %-18s %9s %8s %10s %8s %11d %13d\n' "$s" "$(jget "$s" mb_s)" \
			"$(jget "$s" iops)" "$(jget "$s" lat_us.p99)" "$(jget "$s" kswapd_cpu_pct)" \
			"$(growth "$s")" \
			$(($(jget "$s" pages_reclaimed) / 256))
	done
}

# plot_lines COLUMN STEP...: gnuplot's plot list, one line per step
plot_lines() {
	local column=$1 plots="" s
	shift
	case "$column" in "("*) ;; *) column="'$column'" ;; esac
	for s in "$@"; do
		plots="$plots${plots:+, }'$out/$s.csv' using 'seconds':$column with linespoints lw 2 pt 7 ps 0.5 title '$s'"
	done
	echo "$plots"
}

# gnuplot_png PNG: run gnuplot on the script in stdin, report the picture
gnuplot_png() {
	if gnuplot 2>"$out/gnuplot.err"; then
		echo "$LAB: plot: $out/$1"
	else
		echo "$LAB: gnuplot could not draw $1: $(head -n 3 "$out/gnuplot.err")" >&2
	fi
}

lab_plot() {
	local png=$1 title=$2 ylabel=$3 column=$4
	shift 4
	# a quote would end gnuplot's string
	title=${title//\'/}
	gnuplot_png "$png" <<-GP
	set terminal pngcairo size 800,450 noenhanced
	set output '$out/$png'
	set title '$title'
	set datafile separator ','
	set key autotitle columnhead
	set xlabel 'seconds'
	set ylabel '$ylabel'
	set grid
	plot $(plot_lines "$column" "$@")
	GP
}

cliff_plot() {
	local png=$1 title=$2
	shift 2
	title=${title//\'/}
	gnuplot_png "$png" <<-GP
	set terminal pngcairo size 800,1200 noenhanced
	set output '$out/$png'
	set datafile separator ','
	set grid
	set multiplot layout 5,1 title '$title'
	set key bottom right opaque
	set ylabel 'MB/s, all readers'
	plot $(plot_lines mb_s "$@")
	unset key
	set ylabel 'page cache, MiB'
	plot $(plot_lines "(column('cached_kib')/1024)" "$@")
	set ylabel 'kswapd, % of a CPU'
	plot $(plot_lines kswapd_pct "$@")
	set ylabel 'direct reclaim, stalls/s'
	plot $(plot_lines allocstall_s "$@")
	set ylabel 'memory pressure, %'
	set xlabel 'seconds'
	plot $(plot_lines psi_mem_pct "$@")
	unset multiplot
	GP
}

# sum_csv FILE-PREFIX: the streams' per-second logs as one (FILE-PREFIX.sum.csv):
# MB/s added up row by row (the streams start together), the system-wide
# columns from the first stream
sum_csv() {
	awk -F, 'FNR == 1 { if (NR == 1) print; next }
		{
			if (!(FNR in row)) { row[FNR] = $0; if (FNR > n) n = FNR }
			sum[FNR] += $2
		}
		END {
			for (k = 2; k <= n; k++) {
				m = split(row[k], f, ",")
				line = f[1] "," sum[k]
				for (i = 3; i <= m; i++) line = line "," f[i]
				print line
			}
		}' "$1".*.csv >"$1.sum.csv"
}
# before_cliff FILE: mean MB/s of a summed log over the seconds before
# reclaim starts (kswapd CPU or an allocation stall), "-" if it never ran
# before reclaim
before_cliff() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$1 == 0 { next }
		$c["kswapd_pct"] > 0 || $c["allocstall_s"] > 0 { exit }
		{ t += $c["mb_s"]; n++ }
		END { if (n) printf "%.1f\n", t / n; else print "-" }' "$1"
}
# csv_mean FILE COLUMN FROM TO: the mean of COLUMN over the rows of a
# per-second log whose time lies in [FROM, TO) of the run, as fractions of
# its length (0 0.5: the first half), "-" if there are none
csv_mean() {
	awk -F, -v col="$2" -v from="$3" -v to="$4" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$1 > 0 { t[++n] = $1; v[n] = $c[col] }
		END {
			for (i = 1; i <= n; i++)
				if (t[i] >= from * t[n] && (t[i] < to * t[n] || (to == 1 && i == n))) { s += v[i]; k++ }
			if (k) printf "%.1f\n", s / k; else print "-"
		}' "$1"
}

# Predictions: labs/LAB/predictions.txt has a line KEY|QUESTION|UNIT per
# question; the student answers in results/predictions/LAB.md, lines
# "KEY: answer", before the run; the run script says what it measured for
# KEY with "measured KEY VALUE", and lab_score prints both side by side.
handout=${LAB_HANDOUT:-$LAB}
questions=$top/labs/$handout/predictions.txt
predictions=$results_root/predictions/$handout.md
declare -A measured_value=()

predictions_template() {
	[ -r "$questions" ] && [ ! -e "$predictions" ] || return 0
	mkdir -p "$(dirname "$predictions")"
	{
		echo "# $handout: your predictions, before you run it (labs/$handout/README.md)."
		echo "# Write each answer after the colon; ${LAB_RUN:-make $LAB} prints them beside"
		echo "# what it measured.  Lines starting with # are ignored."
		local key question unit
		while IFS='|' read -r key question unit; do
			case "$key" in '#'* | '') continue ;; esac
			printf '\n# %s (%s)\n%s: \n' "$question" "$unit" "$key"
		done <"$questions"
	} >"$predictions"
	echo "$LAB: predict first: write your answers in $predictions"
}

measured() {
	measured_value[$1]=$2
}

predictions_table() {
	[ -r "$questions" ] || return 0
	local key question unit guess
	echo
	echo "  your predictions ($predictions) and what the run measured:"
	while IFS='|' read -r key question unit; do
		case "$key" in '#'* | '') continue ;; esac
		guess=$(sed -n "s/^$key:[[:space:]]*//p" "$predictions" 2>/dev/null | head -n 1)
		printf '  %-36s %12s %14s\n' "$key" "${guess:--}" "${measured_value[$key]:--} $unit"
	done <"$questions"
	[ ! -r "$predictions" ] || cp "$predictions" "$out/predictions.md"
	echo "  (the reasoning: labs/$handout/ANSWERS.md, after you have made up your mind)"
}

# Each check is also a line of $out/checks.jsonl, which labs/grade adds up.
check() {
	local name=$1 value=$2 cond=$3 hint=${4:-} passed=true
	[ "$lab_checks" -gt 0 ] || : >"$checks"
	lab_checks=$((lab_checks + 1))
	if awk "BEGIN { exit !($cond) }"; then
		printf '  %s %s %s PASS\n' "$name" "$(printf '%*s' $((52 - ${#name})) '' | tr ' ' .)" "$value"
	else
		passed=false
		lab_failed=$((lab_failed + 1))
		printf '  %s %s %s FAIL\n' "$name" "$(printf '%*s' $((52 - ${#name})) '' | tr ' ' .)" "$value"
		[ -z "$hint" ] || printf '      why it matters: %s\n' "$hint"
	fi
	jq -cn --arg check "$name" --arg value "$value" --argjson passed "$passed" \
		'{check: $check, value: $value, passed: $passed}' >>"$checks"
}

lab_score() {
	predictions_table
	echo "  score: $((lab_checks - lab_failed))/$lab_checks self-checks passed"
	[ "$lab_failed" -eq 0 ]
}
