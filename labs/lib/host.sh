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
#   lab_finished NAME       say so unless the guest recorded fact NAME (its
#                           last): the run is then not reported, and fails,
#                           but still graded (its missing facts are MISSING)
#   lab_grade               the last step of every grader: the lab's own
#                           derive (if it defines one: the facts the host
#                           derives from the run's files, host_fact each,
#                           into $out/host.jsonl), its report (if it
#                           defines one: tables and plots; after a boot
#                           only, never when grading again), then the
#                           evaluator (labs/grading/grading.jq) grades the
#                           table checks.jq beside the grader: the check
#                           lines, $out/checks.jsonl, the score; then the
#                           predictions kept with the run scored against
#                           what it measured ($out/predictions.jsonl),
#                           apart; status 1 if a check failed or the run
#                           did not finish (a prediction's miss is no
#                           failure)
#   host_fact NAME JSON     in derive: record a fact of the host's
#   numbers KEY VALUE...    a JSON object of KEY: VALUE, each VALUE a number
#                           if it is one (what awk or grep printed), else null
#   fact NAME [KEY]         the fact NAME of the run (results.jsonl, then
#                           host.jsonl) or its field KEY (a path such as
#                           lat_us.p99), "-" if none: for reports
#   facts_eval [OPTION...] PROGRAM
#                           PROGRAM, jq with grading.jq's helpers, over
#                           the run's facts ("-" if a fact it reads is
#                           missing or invalid); values reach it as data,
#                           names as --arg
#   facts DIR REGEX KEY     "NAME VALUE" of field KEY (the value itself if
#                           KEY is "") of every fact of DIR/results.jsonl
#                           whose name matches REGEX
#   trace_fact NAME TRACE   in derive: the event counts of TRACE (a
#                           trace.dat) as pcviz's replay decodes them, a
#                           host fact NAME; keys as in pcviz's batch output
#                           (docs/pcviz.md: ev_KIND, pages_KIND, db_end_...)
#   guest_file FILE         FILE is a regular file (not a link, FIFO or
#                           directory), else says so: before reading a
#                           file the guest wrote
#   replace_file FILE       standard input becomes FILE, a new file renamed
#                           over what was there: every file the host writes
#                           into a run directory, whose links and FIFOs are
#                           the guest's, is written this way
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
#
# LAB_RUN names the command that runs it, for messages (default: make LAB).
# LAB_HANDOUT names the handout's directory under labs/, whose
# predictions.txt and ANSWERS.md go with the run (default: LAB; an exercise
# that is a lab's capstone names that lab).
# Sizes come from the environment: LAB_DATA_MIB (default 10x guest RAM),
# LAB_SECONDS (timed runs, default 10), LAB_FS (ext4 or xfs); QUICK=1 makes
# them small for `make check` (2x RAM, 3 s).  LAB_RESULTS moves the results directory.
# LIVE=1 runs pcviz on the terminal while the lab runs (labs/live.sh).
# A lab with prediction slots (labs/LAB_HANDOUT/predictions.txt) boots only
# once the student's form has a number in each slot of the run
# (predictions_gate, below); PREDICT=skip boots without them (make check).

: "${LAB:?set LAB before sourcing lib/host.sh}"
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
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
lab_unfinished=0
# the graders' scratch files
lab_tmp=$(mktemp -d)
trap 'rm -rf -- "$lab_tmp"' EXIT
results=$out/results.jsonl
host_facts=$out/host.jsonl
grader_dir=$(cd "$(dirname "$0")" && pwd)

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

lab_finished() {
	[ "$(fact "$1")" = - ] || return 0
	echo "$LAB: the guest did not finish; see $out/console.log" >&2
	lab_unfinished=1
}

guest_file() {
	[ -f "$1" ] && [ ! -L "$1" ] && return 0
	[ ! -e "$1" ] && [ ! -L "$1" ] && return 1
	echo "$LAB: $1 is not a regular file: not read" >&2
	return 1
}

# readable FILE: FILE if the guest left a regular file there, else
# /dev/null: what jq reads in its place
readable() {
	if guest_file "$1"; then echo "$1"; else echo /dev/null; fi
}

replace_file() {
	local tmp
	tmp=$(mktemp -- "$1.XXXXXX")
	cat >"$tmp"
	chmod 644 -- "$tmp"
	# -T: a directory in its place is refused, not written into
	mv -fT -- "$tmp" "$1" || { rm -f -- "$tmp"; echo "$LAB: could not write $1" >&2; return 1; }
}

facts_eval() {
	local program=${*: -1}
	jq -rn -L "$top/labs/grading" --rawfile guest "$(readable "$results")" \
		--rawfile host "$(readable "$host_facts")" "${@:1:$#-1}" \
		"include \"grading\"; facts([\$guest, \$host]) | try ($program) catch \"-\""
}

fact() {
	# shellcheck disable=SC2016 # jq's variables
	facts_eval --arg name "$1" --arg key "${2:-}" \
		'fact($name; $key) | if type == "object" or type == "array" then tojson else . end'
}

facts() {
	guest_file "$1/results.jsonl" || return 0
	jq -rR --arg re "$2" --arg key "$3" \
		'fromjson? | select(type == "object" and (.name | type) == "string") | select(.name | test($re)) |
		"\(.name) \((if $key == "" then .value else .value | getpath($key | split("."))? end) // "-")"' \
		"$1/results.jsonl"
}

host_fact() {
	jq -cn --arg name "$1" --argjson value "$2" '{name: $name, value: $value}' >>"$derived"
}

numbers() {
	local args=()
	while [ $# -gt 0 ]; do
		args+=(--arg "$1" "$2")
		shift 2
	done
	jq -cn '$ARGS.named | to_entries | map(.value = (.value | tonumber? // null)) | from_entries' "${args[@]}"
}

# Traces are decoded by one decoder, pcviz's, never by parsing report text.
trace_fact() {
	local pcviz=$top/build/host/pcviz summary errors
	[ -x "$pcviz" ] || { echo "$LAB: $pcviz is missing: make pcviz builds it" >&2; exit 1; }
	guest_file "$2" || return 0
	errors=$lab_tmp/pcviz.err
	summary=$("$pcviz" --replay "$2" --json -i 3600 2>"$errors" | tail -n 1) || true
	if [ -z "$summary" ]; then
		echo "$LAB: pcviz could not replay $2: $(head -n 2 "$errors")" >&2
		return 0
	fi
	host_fact "$1" "$(jq -c 'del(.per_file)' <<<"$summary")"
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b <= 0) print "-"; else printf "%.2f", a / b }'
}

lab_table() {
	printf '  %-18s %9s %8s %10s %8s %11s %13s\n' step MB/s IOPS "p99 us" kswapd% \
		"cache +MiB" "reclaimed MiB"
	# shellcheck disable=SC2016 # jq's variables
	facts_eval --arg steps "$*" '($steps | split(" ")[]) as $s |
		[$s, cell(num($s; "mb_s")), cell(num($s; "iops")), cell(num($s; "lat_us.p99")),
			cell(num($s; "kswapd_cpu_pct")), cell(growth($s)), cell(num($s; "pages_reclaimed") / 256 | trunc)]
		| @tsv' | awk -F '\t' '{ printf "  %-18s %9s %8s %10s %8s %11s %13s\n", $1, $2, $3, $4, $5, $6, $7 }'
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

# gnuplot_png PNG: run gnuplot on the script in stdin, which writes the
# picture to $png_out, renamed to PNG when it is drawn
gnuplot_png() {
	local errors=$lab_tmp/gnuplot.err
	if gnuplot 2>"$errors" && [ -s "$png_out" ] && mv -fT -- "$png_out" "$out/$1"; then
		echo "$LAB: plot: $out/$1"
	else
		echo "$LAB: gnuplot could not draw $1: $(head -n 3 "$errors")" >&2
	fi
	rm -f -- "$png_out"
}

lab_plot() {
	local png=$1 title=$2 ylabel=$3 column=$4
	shift 4
	# a quote would end gnuplot's string
	title=${title//\'/}
	png_out=$(mktemp -- "$out/$png.XXXXXX")
	gnuplot_png "$png" <<-GP
	set terminal pngcairo size 800,450 noenhanced
	set output '$png_out'
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
	png_out=$(mktemp -- "$out/$png.XXXXXX")
	gnuplot_png "$png" <<-GP
	set terminal pngcairo size 800,1200 noenhanced
	set output '$png_out'
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

# sum_csv FILE-PREFIX: the streams' per-second logs FILE-PREFIX.N.csv as
# one (FILE-PREFIX.sum.csv): MB/s added up row by row (the streams start
# together), the system-wide columns from the first stream
sum_csv() {
	local logs=() f
	for f in "$1".[0-9]*.csv; do
		! guest_file "$f" || logs+=("$f")
	done
	[ ${#logs[@]} -gt 0 ] || return 0
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
		}' "${logs[@]}" | replace_file "$1.sum.csv"
}
# before_cliff FILE: mean MB/s of a summed log over the seconds before
# reclaim starts (kswapd CPU or an allocation stall), "-" if it never ran
# before reclaim
before_cliff() {
	guest_file "$1" || { echo -; return; }
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
	guest_file "$1" || { echo -; return; }
	awk -F, -v col="$2" -v from="$3" -v to="$4" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$1 > 0 { t[++n] = $1; v[n] = $c[col] }
		END {
			for (i = 1; i <= n; i++)
				if (t[i] >= from * t[n] && (t[i] < to * t[n] || (to == 1 && i == n))) { s += v[i]; k++ }
			if (k) printf "%.1f\n", s / k; else print "-"
		}' "$1"
}

# Predictions, before the run.  labs/LAB/predictions.txt has a slot
# KEY|Q|QUESTION|UNIT per number the handout's questions ask for; the
# student answers in results/predictions/LAB.md, a line "KEY: NUMBER" a
# slot and their reasoning under each question's "why:".  Unless
# PREDICT=skip, a boot waits until every slot of this run has a number
# (predictions_gate); the form as it was then is kept with the run
# ($out/predictions.md), and grading (again) scores that copy, never a
# form written after the run: the evaluator sets each number beside what
# the lab's table measured for KEY (m(KEY; VALUE; BAND)) and says whether
# it lies in BAND.
handout=${LAB_HANDOUT:-$LAB}
questions=$top/labs/$handout/predictions.txt
predictions=$results_root/predictions/$handout.md
predictions_kept=$lab_tmp/predictions.md

# predictions_jq PROGRAM [OPTION...]: jq with grading.jq's helpers, the
# slots as $questions and the student's form as $form ("" if none)
predictions_jq() {
	local program=$1 form=/dev/null
	shift
	! guest_file "$predictions" 2>/dev/null || form=$predictions
	jq -rn -L "$top/labs/grading" --rawfile questions "$questions" --rawfile form "$form" "$@" \
		"include \"grading\"; $program"
}

# predict_section: the title of the handout's section of predictions
predict_section() {
	sed -n 's/^## \(Before you .*predict\)$/\1/p' "$top/labs/$handout/README.md" | head -n 1
}

predictions_template() {
	[ ! -e "$predictions" ] || return 0
	mkdir -p "$(dirname "$predictions")"
	# shellcheck disable=SC2016 # jq's variables
	predictions_jq '"# \($lab): your predictions (labs/\($lab)/README.md,",
		"# \"\($section)\").  After each KEY: a number, in the unit",
		"# that follows the question (a unit or a word may follow it: \"64 MiB\",",
		"# \"~2x\"); under why: your reasoning, as many lines as you like.",
		"# \($run) runs once every slot of its run has a number, prints",
		"# each beside what it measured and scores it against a tolerance band.",
		"# A question marked \"before its run\" is for a variant run: its slots",
		"# are needed when you run that.  Lines starting with # are ignored.",
		(questions($questions) | group_by(.q | tonumber)[] |
			"", "## Question \(.[0].q)\(if .[0].variant != [] then " (before its run: \($run) \(.[0].variant | join(" ")))" else "" end)",
			(.[] | "> \(.question) (\(.unit))", "\(.key): "),
			"why: ")' --arg lab "$handout" --arg run "${LAB_RUN:-make $LAB}" --arg section "$(predict_section)" \
		>"$predictions"
}

# predictions_gate: unless PREDICT=skip, no boot before the student's
# predictions: write the form if there is none, and stop (status 1),
# naming the slots of this run that have no number yet
predictions_gate() {
	case "${PREDICT:-}" in
	skip) return 0 ;;
	'') ;;
	*) echo "$LAB: PREDICT takes one value, skip (run without predictions), not '$PREDICT'" >&2; exit 2 ;;
	esac
	[ -r "$questions" ] || return 0
	local fresh=0 missing
	[ -e "$predictions" ] || fresh=1
	predictions_template
	guest_file "$predictions" || exit 1
	# the slots of this run: the lab's own, and those of a variant run
	# whose variables all have its values here (MEM: the guest's MiB)
	# shellcheck disable=SC2016 # jq's variables
	missing=$(predictions_jq 'answers($form) as $a | questions($questions)[]
		| select(all(.variant[]; capture("^(?<var>[^=]+)=(?<value>.*)$") |
			.value == (if .var == "MEM" then $mem else $ENV[.var] // "" end)))
		| select($a[.key] // "" | prediction_number == null)
		| "  question \(.q), \(.key) (\(.unit))\(if ($a[.key] // "") == "" then "" else ", not a number: \($a[.key] | .[:40] | @json)" end)",
			"      \(.question)"' \
		--arg mem "$mem_mib")
	[ -n "$missing" ] || return 0
	echo "$LAB: predict first, then run.$([ "$fresh" = 0 ] || echo " The form is written:")"
	echo "  Write your predictions in $predictions: the questions are those"
	echo "  of labs/$handout/README.md, \"$(predict_section)\"; after each KEY: a number, and"
	echo "  under each question's why: your reasoning.  Without a number yet:"
	echo "$missing"
	echo "  Then ${LAB_RUN:-make $LAB} again: it runs, and scores each prediction against what it measured."
	echo "  (PREDICT=skip runs it without them: nothing is scored.)"
	exit 1
}

# predictions_keep: after the boot, the form as it was before it goes
# with the run, replacing whatever the guest left under that name
predictions_keep() {
	if [ -e "$predictions_kept" ]; then
		replace_file "$out/predictions.md" <"$predictions_kept"
	elif [ -e "$out/predictions.md" ] || [ -L "$out/predictions.md" ]; then
		rm -rf -- "$out/predictions.md"
	fi
}

# predictions_report GRADED: the predictions kept with the run beside what
# it measured, each scored in its band (the evaluator's output GRADED);
# their verdicts in $out/predictions.jsonl
predictions_report() {
	[ -r "$questions" ] || return 0
	jq -c '.predictions[]' "$1" | replace_file "$out/predictions.jsonl"
	echo
	if [ ! -f "$out/predictions.md" ] || [ -L "$out/predictions.md" ]; then
		echo "$LAB: no predictions were kept with this run (it ran with PREDICT=skip and no form):"
		echo "  with $predictions filled in, ${LAB_RUN:-make $LAB} scores them"
		return 0
	fi
	echo "$LAB: your predictions, made before this run ($out/predictions.md), and what it measured"
	# shellcheck disable=SC2016 # jq's variables
	jq -r -L "$top/labs/grading" --rawfile questions "$questions" 'include "grading";
		(questions($questions) | map({key: .key, value: .}) | from_entries) as $q
		| ["  Q", "slot", "yours", "measured", "band", ""],
		(.predictions[] | ($q[.key] // {q: "?", unit: ""}) as $s
			| ["  \($s.q)", .key, (if .answer == "" then "-" else .answer | .[:12] end), (if .shown == "-" then "-" else "\(.shown) \($s.unit)" end), .band_text,
				(if .within == true then "within" elif .within == false then "outside"
				elif .shown == "-" then "not measured in this run" else "no number" end)])
		| @tsv' "$1" | awk -F '\t' '{ printf "%-4s %-36s %12s %16s  %-16s %s\n", $1, $2, $3, $4, $5, $6 }'
	jq -r '.predictions | [.[] | select(.within != null)] as $scored
		| "  your predictions: \([$scored[] | select(.within)] | length) of \($scored | length) within band" +
		([(([.[] | select(.within == null and .shown != "-")] | length) | select(. > 0) | "\(.) without a number"),
			(([.[] | select(.shown == "-")] | length) | select(. > 0) | "\(.) not measured in this run")]
			| if . == [] then "" else " (" + join("; ") + ")" end)' "$1"
	echo "  (the reasoning: labs/$handout/ANSWERS.md, after you have made up your mind)"
}

# answers_template: after a run, the student's file of written answers,
# results/answers/LAB.md, if there is none: a heading for each question
# of the handout's "Questions after the run", and one for the predictions
# the run did not confirm (make handin bundles it)
answers=$results_root/answers/$handout.md
answers_template() {
	local readme=$top/labs/$handout/README.md
	[ -r "$readme" ] && grep -q '^## Questions after the run' "$readme" || return 0
	if [ ! -e "$answers" ] && [ ! -L "$answers" ]; then
		mkdir -p "$(dirname "$answers")"
		{
			echo "# $handout: your answers to the questions after the run (labs/$handout/README.md,"
			echo "# \"Questions after the run\"), under each heading; make handin bundles this file."
			echo
			echo "## The predictions the run did not confirm: the mechanism each left out"
			echo
			awk 'function end() { if (q) printf "\n"; q = 0 }
				/^## / { end(); inside = ($0 == "## Questions after the run"); next }
				!inside { next }
				/^[0-9]+\. / { end(); q = 1; printf "\n## Question %s\n> %s\n", $1 + 0, substr($0, length($1) + 2); next }
				q && /^   / { sub(/^ +/, ""); printf "> %s\n", $0; next }
				{ end() }
				END { end() }' "$readme"
		} >"$answers"
	fi
	echo "  your answers to the questions after the run: $answers"
}

lab_grade() {
	local graded=$lab_tmp/graded.json status=0
	# the host's facts: the run's sizes, kept, and what derive finds again
	derived=$lab_tmp/host.jsonl
	: >"$derived"
	if guest_file "$host_facts"; then
		jq -cR 'fromjson? | select(type == "object" and .name == "run")' "$host_facts" >"$derived"
	fi
	if declare -F derive >/dev/null; then derive; fi
	replace_file "$host_facts" <"$derived"
	if [ "${GRADE:-0}" != 1 ] && declare -F report >/dev/null; then
		if [ "$lab_unfinished" = 1 ]; then
			echo "$LAB: no report: the run did not finish"
		else
			report
		fi
	fi

	"$top/labs/grading/evaluate" "$out" "$grader_dir/checks.jq" >"$graded"
	jq -c '.checks[] | {check, value, passed, verdict, got, expected, fact, hint}
		| with_entries(select(.value != null))' "$graded" | replace_file "$out/checks.jsonl"

	echo
	echo "$LAB: self-checks"
	jq -r '.problems[] | "  (\(.))"' "$graded"
	jq -r '.checks[] |
		"  \(.check) \("." * (52 - (.check | length)) // ".") \(.value) \(if .passed then "PASS" else "FAIL" end)",
		(select(.passed | not) | .hint | select(. != "") | "      why it matters: \(.)")' "$graded"
	jq -r '"  score: \([.checks[] | select(.passed)] | length)/\(.checks | length) self-checks passed"' "$graded"
	predictions_report "$graded"
	[ "${GRADE:-0}" = 1 ] || [ ! -r "$questions" ] || answers_template
	jq -e '[.checks[] | select(.passed | not)] == []' "$graded" >/dev/null || status=1
	[ "$lab_unfinished" = 0 ] || status=1
	return "$status"
}
