# Lab 3's self-checks (labs/grading/grading.jq reads this table).
include "grading";

def mem_mib: num("run"; "mem_mib");
# the share (percent) of WHAT's warm pages (range or beside) that STEP kept
def kept($step; $what): percent(num("\($step).warm"; "\($what)_after"); num("\($step).warm"; "\($what)_before"));
# the drop-behind trace of one 8 MiB uncached read, pages (pcviz, host.jsonl)
def marked: num("events"; "pages_db_mark");
def trace_warm: num("trace-warm-pages");
# step 8: what one random read cost (host.jsonl)
def per_read($mode; $key): num("random-\($mode).per-read"; $key);

def declared: 23;
def checks:
	check("uncached stream: page cache stays flat"; growth("uncached"); "<="; 0.01 * mem_mib;
		"RWF_UNCACHED drops each folio once it is copied"),
	check("uncached stream: no work for kswapd"; num("uncached"; "kswapd_cpu_pct"); "<="; 1;
		"nothing piles up, so nothing needs reclaiming"),
	check("io_uring uncached: flat too"; growth("uring-uncached"); "<="; 0.01 * mem_mib; ""),
	check("buffered stream (contrast): cache grows"; growth("buffered"); ">="; 0.3 * mem_mib;
		"the stream starts with the two warm files (a quarter of RAM) cached, so the cache can grow by the rest"),
	check("4 uncached readers: no direct reclaim";
		[(streams("cliff-uncached"; "allocstalls") | max), (streams("cliff-buffered"; "allocstalls") | max)];
		["==", ">"]; [0, 0]; "with no cache piling up, no allocation has to reclaim first"),
	check("4 uncached readers: no memory pressure"; num("cliff-uncached.sum"; "psi_mem_pct"); "<="; 1;
		"see cliff.png: the uncached line stays at 0 in the bottom panel"),
	check("4 uncached readers: page cache stays flat"; growth("cliff-uncached.1"); "<="; 0.05 * mem_mib;
		"each reader holds at most the 1 MiB it is copying; 5% of RAM allows for four, and their readahead"),
	check("uncached stream keeps the warm part it read"; kept("uncached"; "range"); ">="; 99;
		"uncached reads serve cached folios and leave them cached"),
	check("uncached stream keeps the file beside"; kept("uncached"; "beside"); ">="; 99;
		"no memory pressure, so nothing of anyone else is evicted"),
	check("buffered stream evicts the file beside"; kept("buffered"; "beside"); "<="; 10;
		"once-read pages are the oldest when the stream needs memory"),
	check("fadvise drops the warm part it read"; kept("fadvise"; "range"); "<="; 10;
		"DONTNEED drops pages no matter who cached them"),
	check("trace: each cold page marked and dropped"; [marked, num("events"; "db_end_pages_dropped")]; "==";
		[2048 - trace_warm, marked]; "8 MiB is 2048 pages; readahead of the warm-up read cached the warm ones"),
	check("trace: each warm page served, not dropped"; num("events"; "pages_db_serve"); "=="; trace_warm; ""),
	check("trace: one call event per preadv2"; num("events"; "ev_db_call"); "=="; 8; ""),
	check("pages cached before the read stay (rule 4), mapped or not"; num("mapped"; "mapped_range_after"); "==";
		num("mapped"; "mapped_pages");
		"the read found them cached (another process had mapped them in) and served them: not its to drop"),
	check("the rest of that file is dropped";
		[num("mapped"; "cached_after"), num("mapped"; "marked"), num("mapped"; "dropped")]; ["==", ">", "=="];
		[num("mapped"; "cached_before"), 0, num("mapped"; "marked")];
		"what the uncached read brought in (marked), it dropped; what it found cached (the mapping and its fault-around) it left"),
	check("a user's uncached read leaves root's cached pages";
		[num("evict"; "cached_before"), num("evict"; "after_uncached")]; "==";
		[4096, num("evict"; "cached_before")];
		"RWF_UNCACHED drops only the folios its own call created: no one can evict anyone else's pages with it"),
	check("a user's fadvise(DONTNEED) evicts them"; num("evict"; "after_fadvise"); "<=";
		0.01 * num("evict"; "cached_before");
		"DONTNEED drops clean pages of any file its caller can open, whoever cached them"),
	check("read into its own mapping: every page it marked is claimed, none dropped";
		[num("claimed"; "marked"), num("claimed"; "claimed"), num("claimed"; "dropped")]; [">", "==", "=="];
		[0, num("claimed"; "marked"), 0];
		"copying into the mapping faults each page in; the fault claims the marked folio before the drop (rule 7)"),
	check("read into its own mapping: the whole file stays cached"; num("claimed"; "cached_after"); "==";
		num("claimed"; "pages"); "a claimed folio is an ordinary cached folio"),
	check("random reads: a data set larger than memory, read once in each mode";
		[num("random-buffered"; "bytes"), num("random-uncached"; "bytes")] | map(. / 1048576 | floor); ">=";
		[mem_mib, mem_mib];
		"buffered must reclaim to go on; LAB_DATA_MIB below MEM leaves it nothing to measure"),
	check("random reads, buffered: the cache fills"; growth("random-buffered"); ">="; 0.3 * mem_mib;
		"every read that misses adds a folio, until reclaim has to make room"),
	check("random reads, uncached: the cache stays at its baseline";
		[growth("random-uncached"), num("random-uncached"; "file_cached_pages")]; ["<=", "=="];
		[0.01 * mem_mib, 0]; "each call drops the one folio it brought in before it returns");

# What the run measured for each prediction slot (labs/lab3/predictions.txt),
# and the band a prediction is scored in.
def measured:
	m("uncached_cache_growth_mib"; growth("uncached"); within(4; 25)),
	m("uncached_mb_s_pct_of_buffered"; percent(num("uncached"; "mb_s"); num("buffered"; "mb_s")); within(20; 0)),
	m("uncached_warm_range_kept_pct"; kept("uncached"; "range"); within(10; 0)),
	m("buffered_beside_kept_pct"; kept("buffered"; "beside"); within(10; 0)),
	m("fadvise_warm_range_kept_pct"; kept("fadvise"; "range"); within(10; 0)),
	m("trace_marked_pages"; marked; within(32; 5)),
	m("trace_served_pages"; num("events"; "pages_db_serve"); within(32; 10)),
	m("mapped_range_kept_pages"; num("mapped"; "mapped_range_after"); within(32; 2)),
	m("student_uncached_left_pages"; num("evict"; "after_uncached"); within(41; 1)),
	m("student_fadvise_left_pages"; num("evict"; "after_fadvise"); within(41; 1)),
	m("into_map_cached_pages"; num("claimed"; "cached_after"); within(32; 2)),
	m("into_map_dropped_pages"; num("claimed"; "dropped"); within(32; 2)),
	m("random_uncached_cpu_pct_of_buffered"; percent(per_read("uncached"; "cpu_us"); per_read("buffered"; "cpu_us"));
		within(10; 0));
