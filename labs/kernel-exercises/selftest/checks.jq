# The testing exercise's self-checks (labs/grading/grading.jq reads this
# table): a point per mutant the student's tests catch.  The grader records
# the host's facts "series" ({status, tests}: the tests on the series'
# kernel) and "mutants" (NAME: {status, tests} on each mutant, status
# "crashed" for a kernel that oopsed, null if it never ran them).  A mutant
# counts as caught when the tests ran (at least one) and passed on the
# series, and did not pass on it.
include "grading";

def mutant_names: try fact("mutants") catch {} | if type == "object" then keys else [] end;
def declared: mutant_names | length;
def checks:
	mutant_names[] as $m
	| check("catches the bug of \($m)";
		[num("series"; "status"), num("series"; "tests"), fact("mutants"; "\($m).status")];
		["==", ">", "!="];
		[0, 0, 0];
		"tests that pass on the series and fail where \($m) broke a rule of docs/semantics.md");
def measured: empty;
