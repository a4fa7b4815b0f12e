# Lab 6's self-checks (labs/grading/grading.jq reads this table).
include "grading";

# the mean disk request of STEP, KiB (whole KiB)
def kib_per_request($step):
	num("\($step).disk"; "kib") / ([num("\($step).disk"; "requests"), 1] | max) | floor;
# 64 KiB is 16 4-KiB folios on ext4; xfs may cache it in fewer, larger ones
def folios_min: if str("run"; "fs") == "ext4" then 16 else 1 end;
# calls of a function in the function graph of one uncached read (host.jsonl)
def calls($function): num("graph"; $function);

def declared: 7;
def checks:
	check("2019 writes go out in 64 KiB pieces at most"; kib_per_request("write-2019"); "<="; 64;
		"16 pages, written and waited for, at a time"),
	check("whole-range writes go out in bigger requests"; kib_per_request("write-whole"); ">";
		kib_per_request("write-2019"); "writeback of the whole call lets the block layer merge"),
	check("2019 reads go 4 KiB at a time"; kib_per_request("read-2019"); "<="; 8; "no readahead: one folio per miss"),
	check("whole-range reads use readahead"; kib_per_request("read-whole"); ">"; kib_per_request("read-2019");
		"readahead bounded to the call's range, in large requests"),
	check("MGLRU was switched on and off"; [str("mglru.enabled"), str("classic.enabled")]; ["!=", "=="];
		["0x0000", "0x0000"]; ""),
	check("the graph: readahead adds the folios"; calls("filemap_add_folio"); ">="; folios_min;
		"the uncached read allocates its folios like any other"),
	check("the graph: each folio is dropped after the copy";
		[calls("filemap_unaccount_folio"), calls("filemap_remove_dropbehind_batch")]; ">="; [folios_min, 1];
		"marked at creation, dropped after the copy, a batch at a time");

# What the run measured for each prediction slot (labs/lab6/predictions.txt),
# and the band a prediction is scored in.
def measured:
	m("write_2019_kib_per_request"; kib_per_request("write-2019"); within(8; 20)),
	m("write_whole_kib_per_request"; kib_per_request("write-whole"); factor(2; 0)),
	m("read_2019_kib_per_request"; kib_per_request("read-2019"); within(2; 0)),
	m("read_whole_speedup_x"; num("read-whole"; "mb_s") / num("read-2019"; "mb_s"); factor(2; 0)),
	m("classic_hit_pct"; num("classic-hot"; "hit_pct"); within(10; 0)),
	m("mglru_hit_pct"; num("mglru-hot"; "hit_pct"); within(10; 0)),
	m("graph_added_folios"; calls("filemap_add_folio"); within(2; 10)),
	m("graph_removed_folios"; calls("filemap_unaccount_folio"); within(2; 10)),
	m("graph_dropbehind_batches"; calls("filemap_remove_dropbehind_batch"); within(1; 0));
