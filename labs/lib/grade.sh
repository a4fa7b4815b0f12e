# shellcheck shell=bash
# shellcheck disable=SC2154 # top, out, host_facts, lab_tmp: lib/host.sh's; questions: predictions.sh's
# Every grader's last step: the host's facts derived, the report, the
# checks graded and the predictions scored.
#
#   lab_finished NAME       say so unless the guest recorded fact NAME (its
#                           last), or if the guest's clock was jiffies (fact
#                           clocksource): the run is then not reported, and
#                           fails, but still graded (its missing facts are
#                           MISSING)
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

lab_invalid=0
grader_dir=$(cd "$(dirname "$0")" && pwd)

lab_finished() {
	if [ "$(fact "$1")" = - ]; then
		echo "$LAB: the guest did not finish; see $out/console.log" >&2
		lab_invalid=1
	fi
	# A guest that could not calibrate its TSC (a host too busy at boot)
	# keeps a tick-based clock: every time it measures is a whole number of
	# 1-4 ms ticks, and a latency or a rate is an artefact of that step.
	case "$(fact clocksource)" in
	jiffies | refined-jiffies)
		echo "$LAB: the guest's clock was $(fact clocksource), which counts in 1-4 ms ticks: the" \
			"run's times and rates are artefacts of that step; run it again on a quieter host" >&2
		lab_invalid=1
		;;
	esac
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
		if [ "$lab_invalid" = 1 ]; then
			echo "$LAB: no report: the run did not finish, or its clock was coarse"
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
	[ "$lab_invalid" = 0 ] || status=1
	return "$status"
}
