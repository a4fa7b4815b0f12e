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
# order (a later record of a name wins: the host's facts after the
# guest's); checks, declared and measured come from the table; ANSWERS
# the student's, {KEY: answer}
def grade($files; $answers):
	[$files[] | if (.problem // "") != "" then {problem: .problem} else facts_of(.name; .text)[] end] as $read
	| (reduce ($read[] | .fact // empty) as $f ({}; .[$f.name] = $f.value)) as $facts
	| [$facts | checks] as $checks
	| ($facts | declared) as $declared
	| if ($checks | length) != $declared then
		error("the table declares \($declared) checks, but grades \($checks | length)")
	else . end
	| {
		problems: [$read[] | .problem // empty],
		checks: $checks,
		declared: $declared,
		measured: ([$facts | measured] | add // {} | map_values(.shown)),
		predictions: score([$facts | measured] | add // {}; $answers)
	};

grade([{name: "results.jsonl", text: $results, problem: $results_problem},
	{name: "host.jsonl", text: $host, problem: $host_problem}]; answers($predictions))
| .problems += [$predictions_problem | select(. != "")]
