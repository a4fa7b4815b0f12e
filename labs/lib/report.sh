# shellcheck shell=bash
# shellcheck disable=SC2154 # out, lab_tmp: lib/host.sh's
# A run's report: its tables and plots, and the sums and means of its
# per-second logs (STEP.csv) that they show.
#
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
