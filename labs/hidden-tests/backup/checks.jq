# backup's hidden test (labs/hidden-tests/backup/check.sh records the
# facts; labs/grade-submission grades them, beside
# labs/exercises/backup/checks.jq).
include "grading";

def declared: 1;
def checks:
	check("hidden: every file intact after a crash, status 0";
		[num("hidden.crash"; "status"), bool("hidden.crash"; "identical_after_crash")]; "=="; [0, true];
		"the file system shut down without flushing its log, then mounted again: only what fsync() made durable is there");

def measured: empty;
