#!/bin/bash
# tests/run-check --out DIR deletes DIR before a run only if run-check made
# it (its marker file) or it is empty, as run-vm does for RESULTS/NAME; any
# other directory, a link or a file there is refused and kept.  Runs a copy
# of run-check whose only host test is a stand-in that passes.
set -u
# shellcheck source=../lib/host/preamble.sh
. "$(dirname "$0")/../lib/host/preamble.sh"
copy=$tmp/tree
mkdir -p "$copy/tests/host"
cp "$top/tests/run-check" "$top/tests/tap-summary" "$copy/tests/"
printf '#!/bin/sh\necho 1..1\necho ok 1 - stand-in\n' >"$copy/tests/host/stand-in.sh"
chmod +x "$copy/tests/host/stand-in.sh"

# run_check DIR: the copy's run-check --only host --out DIR; status in $status
run_check() {
	status=0
	out=$("$copy/tests/run-check" --only host --out "$1" 2>&1) || status=$?
}

mkdir -p "$tmp/precious"
echo keep >"$tmp/precious/f"
run_check "$tmp/precious"
is "$status" 2 "a directory run-check did not make is refused: status 2"
ok "[ \"\$(cat '$tmp/precious/f')\" = keep ] && [ \"\$(ls '$tmp/precious')\" = f ]" "... and kept as it was"
case "$out" in
"run-check: --out $tmp/precious holds files"*) pass "... and the message names it: $out" ;;
*) fail "... and the message names it" "$out" ;;
esac
ln -s "$tmp/precious" "$tmp/link"
run_check "$tmp/link"
ok "[ $status = 2 ] && [ -e '$tmp/precious/f' ]" "a link as --out is refused (status $status)"
echo file >"$tmp/file"
run_check "$tmp/file"
ok "[ $status = 2 ] && [ \"\$(cat '$tmp/file')\" = file ]" "a file as --out is refused (status $status)"

mkdir "$tmp/empty"
run_check "$tmp/empty"
ok "[ $status = 0 ] && [ -s '$tmp/empty/host/stand-in.tap' ]" "an empty directory is taken (status $status)"
run_check "$tmp/new"
ok "[ $status = 0 ] && [ -s '$tmp/new/host/stand-in.tap' ]" "a new directory is made (status $status)"
echo stale >"$tmp/new/stale"
run_check "$tmp/new"
ok "[ $status = 0 ] && [ ! -e '$tmp/new/stale' ] && [ -s '$tmp/new/summary.txt' ]" \
	"run-check's own directory is emptied for the next run (status $status)"
done_testing
