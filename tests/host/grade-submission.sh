#!/bin/bash
# The grader that cannot be fooled (#28 §3), its host side.  Facts are
# written once: a run whose program appended forged facts (as root, before
# or after the grader's own) scores zero on the checks that read them.
set -u
# shellcheck source=../lib/host/preamble.sh
. "$(dirname "$0")/../lib/host/preamble.sh"

# The facts of a ucat run whose program is the untouched skeleton (exit
# status 1, no output, no residency report), as its guest records them
skeleton_ucat() {
	mkdir -p "$1"
	for fs in ext4 xfs tmpfs; do
		jq -cn --arg fs "$fs" --argjson cached "$([ "$fs" = tmpfs ] && echo 4097 || echo 0)" \
			'{name: $fs, value: {status: 1, sha256_ok: false, pages: 4097, cached_before: $cached,
			  cached_after: $cached, dropbehind_read: 0, fallbacks: 0, reported_before: null,
			  reported_after: null, stderr: "ucat: TODO 1: report_residency() is not implemented"}}'
	done >"$1/results.jsonl"
	echo '{"name": "finished", "value": true}' >>"$1/results.jsonl"
}
# forged_ucat FILE: what a program forging full marks appends: each file
# system's fact, as a finished ucat's would read
forged_ucat() {
	for fs in ext4 xfs tmpfs; do
		jq -cn --arg fs "$fs" --argjson cached "$([ "$fs" = tmpfs ] && echo 4097 || echo 0)" \
			--argjson fallbacks "$([ "$fs" = tmpfs ] && echo 1 || echo 0)" \
			'{name: $fs, value: {status: 0, sha256_ok: true, pages: 4097, cached_before: $cached,
			  cached_after: $cached, dropbehind_read: (4097 - $cached), fallbacks: $fallbacks,
			  reported_before: $cached, reported_after: $cached, stderr: ""}}'
	done >>"$1"
}
# passed DIR: the checks of the ucat run in DIR that pass, graded by the
# evaluator
passed() {
	"$top/labs/grading/evaluate" "$1" "$top/labs/exercises/ucat/checks.jq" >"$tmp/graded.json"
	jq '[.checks[] | select(.passed)] | length' "$tmp/graded.json"
}

skeleton_ucat "$tmp/run"
is "$(passed "$tmp/run")" 0 "the skeleton's ucat run passes no check (control)"
forged_ucat "$tmp/run/results.jsonl"
is "$(passed "$tmp/run")" 0 "forged full marks appended after the grader's facts: still 0/7"
ok "jq -e 'all(.checks[]; .verdict == \"INVALID\") and .checks[0].fact == \"ext4\"' '$tmp/graded.json'" \
	"... every check INVALID, naming the fact recorded twice"
ok "jq -e '.problems | index(\"results.jsonl: fact ext4 recorded more than once (a fact is written once): its checks are INVALID\")' '$tmp/graded.json' >/dev/null" \
	"... and the problems name each fact recorded twice"
# the forgery first, the grader's facts after it
skeleton_ucat "$tmp/first"
forged_ucat "$tmp/forged.jsonl"
cat "$tmp/forged.jsonl" "$tmp/first/results.jsonl" >"$tmp/first/both.jsonl"
mv "$tmp/first/both.jsonl" "$tmp/first/results.jsonl"
is "$(passed "$tmp/first")" 0 "forged full marks recorded before the grader's facts: 0/7"
# a fact of the host's still replaces the guest's: the host is trusted
skeleton_ucat "$tmp/host"
grep '"tmpfs"' "$tmp/forged.jsonl" >"$tmp/host/host.jsonl"
n=$(passed "$tmp/host")
ok "[ $n = 2 ]" "a fact of the host's (host.jsonl) replaces the guest's of that name: tmpfs's 2 checks pass"
LAB=ucat LAB_RESULTS=$tmp bash -c '. "$1/labs/lib/host.sh" && fact ext4 status' _ "$top" >"$tmp/fact.out" 2>&1
is "$(cat "$tmp/fact.out")" - "reports show a fact recorded twice as '-' (labs/lib/facts.sh)"
done_testing
