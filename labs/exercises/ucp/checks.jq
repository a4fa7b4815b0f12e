# The ucp exercise's self-checks (labs/grading/grading.jq reads this table).
include "grading";

def declared: 8;
def checks:
	("ext4", "xfs") as $fs |
	check("\($fs): DST equals SRC, exit status 0"; [num($fs; "status"), bool($fs; "sha256_ok")]; "=="; [0, true];
		"DST must be SRC, byte for byte (sha256)"),
	check("\($fs): neither file left in the page cache";
		[num($fs; "src_cached"), num($fs; "dst_cached"), num($fs; "dropbehind_read"), num($fs; "dropbehind_write")];
		["==", "==", ">=", ">="];
		num($fs; "pages") as $pages | [0, 0, $pages, $pages];
		"read and write with RWF_UNCACHED; DST's last folio, kept for appends, goes at its close (docs/semantics.md, rule 5)"),
	check("\($fs): the copy asked the disk to flush its cache"; num($fs; "flushes"); ">="; 1;
		"written back is not durable: fsync (or RWF_DSYNC) flushes the disk's volatile cache"),
	check("\($fs): DST intact after a remount"; bool($fs; "sha256_ok_after_remount"); "=="; true;
		"what the disk holds, read back after umount and mount");

def measured: empty;
