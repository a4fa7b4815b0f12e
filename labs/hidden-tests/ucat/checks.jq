# ucat's hidden tests (labs/hidden-tests/ucat/check.sh records the facts;
# labs/grade-submission grades them, beside labs/exercises/ucat/checks.jq).
include "grading";

def declared: 3;
def checks:
	check("hidden: through a pipe, stopped and continued: the whole file, status 0";
		[num("hidden.pipe"; "status"), bool("hidden.pipe"; "sha256_ok")]; "=="; [0, true];
		"a write to a pipe may write less than asked (a stop signal cuts it short): write the rest"),
	check("hidden: -b 4097, reads not page-aligned: the whole file, status 0, nothing cached";
		[num("hidden.odd"; "status"), bool("hidden.odd"; "sha256_ok"), num("hidden.odd"; "cached_after")]; "==";
		[0, true, 0];
		"a read of any size and offset, the tail included; every page read uncached is dropped"),
	check("hidden: -b 1: the whole file, status 0";
		[num("hidden.one"; "status"), bool("hidden.one"; "sha256_ok")]; "=="; [0, true];
		"a block of one byte is a block: the loop ends at end of file, not at a short read");

def measured: empty;
