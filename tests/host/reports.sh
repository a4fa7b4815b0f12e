#!/bin/bash
# The host's reports of what a guest wrote, without a boot.
# - bench/run's targets table from a results file (BENCH_MAIN=0 reports
#   the main boot's results again): a value the guest wrote reaches the
#   comparison as data, never as awk program text, and a value that is no
#   number is said to be invalid, never met.
# - scripts/trace's report beside the guest's trace.dat: new files renamed
#   over what is there (labs/lib/host.sh's replace_file), so a link in their
#   place is replaced, never written through.  run-vm's share already maps
#   the guest's links to plain files; a stand-in run-vm leaves them, as a
#   share without that mapping would.
set -u
# shellcheck source=../lib/host/preamble.sh
. "$(dirname "$0")/../lib/host/preamble.sh"

# report HIT-PCT-JSON: bench/run over a run whose only measured target is
# the noisy neighbour's hit ratio; its row in $row, the status in $status
report() {
	mkdir -p "$tmp/bench"
	jq -cn --argjson hit "$1" '{name: "kernel", value: "6.12.0-pclab"},
		{name: "ext4/noisy-uncached-hot", value: {hit_pct: $hit}}' >"$tmp/bench/results.jsonl"
	status=0
	BENCH_MAIN=0 BENCH_FS=ext4 LAB_RESULTS=$tmp "$top/bench/run" >"$tmp/out" 2>&1 || status=$?
	row=$(grep '^| noisy neighbour: hot hit % beside uncached |' "$tmp/bench/summary.md" 2>/dev/null)
}

report 100
is "$row" "| noisy neighbour: hot hit % beside uncached | 100 | >= 99 | met |" \
	"a hit ratio of 100 meets the goal of 99, compared as numbers (bench/run status $status)"
report 98
is "$row" "| noisy neighbour: hot hit % beside uncached | 98 | >= 99 | missed |" "98 misses it"
report '"1) || system(\"touch '"$tmp/PWNED"'\") || (1"'
ok "[ ! -e '$tmp/PWNED' ]" "awk code as the value runs nothing"
is "$row" "| noisy neighbour: hot hit % beside uncached | not a number | >= 99 | invalid |" \
	"... and is an invalid value, not a met target"
report '"99 || 1"'
is "$row" "| noisy neighbour: hot hit % beside uncached | not a number | >= 99 | invalid |" \
	"an expression as the value is no number"
report '"1e3"'
is "$row" "| noisy neighbour: hot hit % beside uncached | 1e3 | >= 99 | met |" \
	"a number in exponent form is a number"
report null
is "$row" "| noisy neighbour: hot hit % beside uncached | - | >= 99 | not measured |" \
	"a value that is not there is not measured"

# scripts/trace from a copy of the tree whose run-vm is the stand-in: it
# brings back a recorded trace (tests/fixtures/replay/v6.dat) and the links
mkdir -p "$tmp/tree/scripts" "$tmp/tree/labs/lib" "$tmp/tree/initramfs"
cp "$top/scripts/trace" "$tmp/tree/scripts/"
cp "$top"/labs/lib/*.sh "$tmp/tree/labs/lib/"
cat >"$tmp/tree/initramfs/run-vm" <<RUN_VM
#!/bin/bash
set -eu
while getopts k:i:n: opt; do [ "\$opt" != n ] || name=\$OPTARG; done
mkdir -p "\$RESULTS/\$name"
cp '$top/tests/fixtures/replay/v6.dat' "\$RESULTS/\$name/trace.dat"
ln -s '$tmp/victim.txt' "\$RESULTS/\$name/report.txt"
ln -s '$tmp/victim.err' "\$RESULTS/\$name/report.err"
RUN_VM
chmod +x "$tmp/tree/initramfs/run-vm"
echo precious >"$tmp/victim.txt"
echo precious >"$tmp/victim.err"
echo 'cat /mnt/ext4/f' >"$tmp/cmd"
status=0
RESULTS=$tmp/results "$tmp/tree/scripts/trace" kernel initrd tr filemap:mm_filemap_add_to_page_cache \
	"$tmp/cmd" >"$tmp/trace.out" 2>&1 || status=$?
report=$tmp/results/tr/report.txt
ok "[ $status = 0 ] && grep -q 'events in $report' '$tmp/trace.out'" \
	"scripts/trace reports the trace that came back (status $status: $(head -n 1 "$tmp/trace.out"))"
echo precious >"$tmp/precious"
ok "cmp -s '$tmp/precious' '$tmp/victim.txt' && cmp -s '$tmp/precious' '$tmp/victim.err'" \
	"... the files the links named are untouched"
ok "[ -f '$report' ] && [ ! -L '$report' ] && grep -q mm_filemap_add_to_page_cache '$report' &&
	[ -f '${report%.txt}.err' ] && [ ! -L '${report%.txt}.err' ]" \
	"... report.txt and report.err are files of their own, the report in report.txt"
done_testing
