# The ucat exercise's self-checks (labs/grading/grading.jq reads this table).
include "grading";

def declared: 7;
def checks:
	(("ext4", "xfs", "tmpfs") as $fs |
		check("\($fs): ucat prints the file, exit status 0"; [num($fs; "status"), bool($fs; "sha256_ok")]; "==";
			[0, true]; "standard output must be the file, byte for byte (sha256)"),
		if $fs == "tmpfs" then empty else
		check("\($fs): the read leaves the cache as it was";
			[num($fs; "cached_before"), num($fs; "cached_after"), num($fs; "dropbehind_read")];
			["==", "==", ">="]; [0, 0, num($fs; "pages")];
			"every page read with RWF_UNCACHED is dropped behind the read (/proc/vmstat dropbehind_read counts them)")
		end),
	check("fallback: one message on tmpfs, none on ext4 or xfs";
		[num("tmpfs"; "fallbacks"), num("ext4"; "fallbacks"), num("xfs"; "fallbacks")]; "=="; [1, 0, 0];
		"one stderr line with 'falling back to plain reads' where preadv2 says EOPNOTSUPP, and only there"),
	check("residency reported before and after, as cachestat counts";
		[("ext4", "xfs", "tmpfs") as $fs | num($fs; "reported_before"), num($fs; "reported_after")]; "==";
		[("ext4", "xfs", "tmpfs") as $fs | num($fs; "cached_before"), num($fs; "cached_after")];
		"'ucat: residency before: N of M pages cached' (and after) on stderr, N from cachestat(2)");

def measured: empty;
