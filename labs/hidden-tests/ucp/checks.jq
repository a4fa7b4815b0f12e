# ucp's hidden test (labs/hidden-tests/ucp/check.sh records the facts;
# labs/grade-submission grades them, beside labs/exercises/ucp/checks.jq).
include "grading";

def declared: 2;
def checks:
	("ext4", "xfs") as $fs |
	check("hidden: \($fs): DST intact after a crash, status 0";
		[num("hidden.crash-\($fs)"; "status"), bool("hidden.crash-\($fs)"; "sha256_ok_after_crash")]; "==";
		[0, true];
		"the file system shut down without flushing its log, then mounted again: only what fsync() made durable is there");

def measured: empty;
