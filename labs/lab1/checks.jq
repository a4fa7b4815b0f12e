# Lab 1's self-checks (labs/grading/grading.jq reads this table).  Sizes in MiB.
include "grading";

def size_mib: num("file-mib");
def cold_growth_mib: (num("cold_read"; "cached_kib") - num("baseline"; "cached_kib")) / 1024;
def dropped_above_mib: (num("drop_caches"; "cached_kib") - num("baseline"; "cached_kib")) / 1024;
def residency_map: str("partial-map");

def declared: 6;
def checks:
	check("cold read fills the cache by the file size"; cold_growth_mib; ">="; 0.9 * size_mib;
		"a buffered read leaves its pages in the page cache"),
	check("cold read comes from the disk"; num("cold_read"; "pgpgin_kib") / 1024; ">="; 0.9 * size_mib; ""),
	check("warm read is served from memory"; num("warm_read"; "pgpgin_kib") / 1024; "<="; 0.01 * size_mib;
		"cached pages need no disk I/O"),
	check("drop_caches empties the cache"; dropped_above_mib; "<="; 0.1 * size_mib;
		"clean, unmapped page-cache pages can be dropped at any time"),
	check("a half-read file is half cached (pcviz)";
		[num("partial-pcviz"; "cached"), num("partial-pcviz"; "cached")]; [">=", "<="];
		num("partial-pcviz"; "pages") as $pages | [0.5 * $pages, 0.6 * $pages];
		"only what was read (and a little readahead after each part) is cached"),
	# 32 characters, a quarter each 8: cached (#) and empty (. or + for readahead)
	check("the map shows which halves";
		[residency_map[0:8] + residency_map[16:24], residency_map[8:16] + residency_map[24:32] | gsub("[.+]"; "")];
		"==";
		["################", ""];
		"quarters 1 and 3 cached; 2 and 4 empty but for readahead at their start");

# What the run measured for each prediction slot (labs/lab1/predictions.txt),
# and the band a prediction is scored in.  Questions 1 to 6 are for the
# default run (a 64 MiB file, MEM=256), 7 and 8 for the variant runs.
def run_of($file_mib; $mem): num("file-mib") == $file_mib and num("run"; "mem_mib") == $mem;
def measured:
	m("cold_read_cache_growth_mib"; only_when(run_of(64; 256)) | cold_growth_mib | trunc; within(4; 10)),
	m("cold_read_disk_mib"; only_when(run_of(64; 256)) | num("cold_read"; "pgpgin_kib") / 1024 | trunc;
		within(4; 10)),
	m("warm_read_disk_mib"; only_when(run_of(64; 256)) | num("warm_read"; "pgpgin_kib") / 1024 | trunc;
		within(1; 10)),
	m("warm_read_speedup_x"; only_when(run_of(64; 256)) | num("cold_read"; "seconds") / num("warm_read"; "seconds");
		factor(2; 0)),
	m("drop_caches_above_baseline_mib"; only_when(run_of(64; 256)) | dropped_above_mib | trunc; within(2; 10)),
	m("half_read_cached_pages"; only_when(run_of(64; 256)) | num("partial-pcviz"; "cached"); within(256; 10)),
	m("big_file_cold_read_cache_growth_mib"; only_when(run_of(200; 256)) | cold_growth_mib | trunc; within(8; 15)),
	m("big_file_warm_read_disk_mib"; only_when(run_of(200; 256)) | num("warm_read"; "pgpgin_kib") / 1024 | trunc;
		within(8; 15)),
	m("big_mem_cold_read_cache_growth_mib"; only_when(run_of(200; 512)) | cold_growth_mib | trunc; within(8; 15)),
	m("big_mem_warm_read_disk_mib"; only_when(run_of(200; 512)) | num("warm_read"; "pgpgin_kib") / 1024 | trunc;
		within(8; 15));
