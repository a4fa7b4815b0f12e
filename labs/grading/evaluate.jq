# The evaluator's program: grades the table checks.jq (found on jq's -L
# path) over the run's facts files, given as $results and $host (their
# text) with $results_problem and $host_problem (why one was not read, or
# ""), scores the predictions form recorded with the run ($predictions,
# its text, "" if none, and $predictions_problem), and writes one JSON
# object: the checks' verdicts, the problems found in the files, the
# measured values, the predictions scored.  labs/lib/grade.sh's lab_grade runs
# it.
include "grading";
include "checks";

# grade(FILES): FILES is [{name, text, problem}], the run's facts files in
# order (a later file's fact replaces an earlier's: the host's facts after
# the guest's; within a file a fact is written once, see grading.jq's
# _recorded_key); checks, declared and measured come from the table;
# ANSWERS the student's, {KEY: answer}
def grade($files; $answers):
	[$files[] | .name as $file
		| if (.problem // "") != "" then {problem: .problem}
		else [facts_of($file; .text)[]] | {file: $file, facts: [.[] | .fact // empty], problems: [.[] | .problem // empty]}
		end] as $read
	| (reduce ($read[] | .facts // empty) as $f ({}; . + once($f))) as $facts
	| [$facts | checks] as $checks
	| ($facts | declared) as $declared
	| if ($checks | length) != $declared then
		error("the table declares \($declared) checks, but grades \($checks | length)")
	else . end
	| {
		problems: [$read[] | (.problem // empty),
			(.problems // [] | .[]),
			(.file as $file | .facts // [] | recorded_twice(.)[]
				| "\($file): fact \(.) recorded more than once (a fact is written once): its checks are INVALID")],
		checks: $checks,
		declared: $declared,
		measured: ([$facts | measured] | add // {} | map_values(.shown)),
		predictions: score([$facts | measured] | add // {}; $answers)
	};

grade([{name: "results.jsonl", text: $results, problem: $results_problem},
	{name: "host.jsonl", text: $host, problem: $host_problem}]; answers($predictions))
| .problems += [$predictions_problem | select(. != "")]
