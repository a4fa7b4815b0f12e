# The backup exercise's self-checks, lab 7's (labs/grading/grading.jq reads
# this table).
include "grading";

# The throughput the backup must reach, as a share of the buffered copy's
# measured in the same boot (the check's name says it: half).  The
# reference solution measured 0.90x to 2x on the debug kernel, 0.98x to
# 1.11x on the release kernel; with 4 KiB calls it is about 0.1x to 0.2x
# (labs/lab7/README.md, "Self-checks").
def floor_ratio: 0.5;
def files: num("setup"; "files");
def pages: num("setup"; "pages");
# the share (percent) of the hot set still cached after copy C
def kept($c): percent(num("\($c).resident"; "after"); num("\($c).resident"; "before"));
def speed: num("backup"; "mb_s") / num("reference"; "mb_s");
# the backup exited 0 and DSTDIR is SRCDIR, read back after a remount
def complete: [num("backup"; "status"), bool("backup"; "identical")];
# the backup wrote the whole data set: what the hot reader ran beside
def copied: [num("backup"; "bytes"), num("setup"; "bytes")];
def copied_ops: ["==", ">"];
def copied_want: [num("setup"; "bytes"), 0];

def declared: 7;
def checks:
	check("the backup is complete: exit status 0, every file identical"; complete; "=="; [0, true];
		"DSTDIR must hold every file of SRCDIR, byte for byte, read back after a remount"),
	check("beside the backup: the hot set served from memory"; copied + [num("backup-hot"; "hit_pct")];
		copied_ops + [">="]; copied_want + [99];
		"the whole data set must pass, and the service find 99% of its reads in memory meanwhile"),
	check("beside the backup: the hot set kept"; copied + [kept("backup")]; copied_ops + [">="]; copied_want + [99];
		"uncached reads and writes leave no pages for reclaim to take"),
	check("throughput: at least half the buffered copy's"; complete + [speed]; ["==", "==", ">="];
		[0, true, floor_ratio];
		"a complete backup, in the same boot at least \(floor_ratio) times as fast as cp followed by sync"),
	check("neither the data nor the copy left in the page cache";
		copied + [num("backup"; "src_cached"), num("backup"; "dst_cached"),
			num("backup"; "dropbehind_read"), num("backup"; "dropbehind_write")];
		copied_ops + ["==", "==", ">=", ">="];
		copied_want + [0, 0, pages, pages];
		"RWF_UNCACHED reads and writes; a copy's last folio, kept for appends, goes at its close (docs/semantics.md, rule 5)"),
	# Each fsync() of a new file commits ext4's journal: two flushes on this
	# disk (one before the commit record, one after: it has no FUA).  One
	# sync() or syncfs() at the end commits once; DSTDIR's fsync() adds no
	# flush when the files' commits already carried its new entries.
	check("durable: a cache flush per copy at least"; [num("backup"; "flushes"), bool("backup"; "identical")];
		[">=", "=="]; [files, true];
		"written back is not durable: fsync() each copy (it commits the journal and flushes the disk's cache), then DSTDIR"),
	check("tmpfs: a clear refusal without -f, a copy with it";
		[num("tmpfs"; "status"), num("tmpfs"; "refusals"), num("tmpfs"; "status_f"), bool("tmpfs"; "identical_f"),
			num("tmpfs"; "fallbacks")];
		["==", ">=", "==", "==", ">="]; [1, 1, 0, true, 1];
		"where the flag is refused (EOPNOTSUPP): 'RWF_UNCACHED is not supported' and status 1; with -f 'falling back to plain ...' and the copy");

# What the run measured for each of lab 7's prediction slots
# (labs/lab7/predictions.txt), and the band a prediction is scored in.
def measured:
	m("cp_hit_pct"; num("reference-hot"; "hit_pct"); within(10; 0)),
	m("backup_hit_pct"; num("backup-hot"; "hit_pct"); within(5; 0)),
	m("cp_hot_pages_kept"; num("reference.resident"; "after"); within(1024; 10)),
	m("cp_data_cached"; num("reference"; "src_cached"); within(1024; 20)),
	m("backup_speed_ratio"; speed; factor(1.5; 0)),
	m("backup_flushes"; num("backup"; "flushes"); within(2; 25));
