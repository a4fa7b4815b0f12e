# Lab 5's self-checks (labs/grading/grading.jq reads this table).
include "grading";

def hits($m): num("\($m)-hot"; "hit_pct");
def refaults($m): num("\($m)-hot"; "refaults");
# the share (percent) of the hot set still cached after scenario M
def kept($m): percent(num("\($m).resident"; "after"); num("\($m).resident"; "before"));
# the hot pages the streamer of scenario M evicted, through kswapd it woke
# or in its own direct reclaim
def by_streamer($m): num("\($m).evictions"; "neighbour_woke_kswapd") + num("\($m).evictions"; "neighbour_direct");
def neighbour_cache_mib($m): num("\($m).cgroups"; "neighbour_file_max_mib");
# pages reclaim took, system-wide, while the stream of scenario M ran
def reclaimed($m): num("\($m)-stream"; "pages_reclaimed");

def declared: 16;
def checks:
	check("alone: the hot set is served from memory"; hits("none"); ">="; 99; "the hot set fits in RAM"),
	check("beside an uncached stream: still from memory"; hits("uncached"); ">="; 99;
		"the uncached stream leaves no pages to reclaim"),
	check("beside an uncached stream: hot set intact"; kept("uncached"); ">="; 99; ""),
	check("beside a buffered stream: hot set evicted"; kept("buffered"); "<"; kept("uncached");
		"the stream's pages push the hot pages off the LRU"),
	check("beside a buffered stream: more misses"; hits("buffered"); "<"; hits("uncached");
		"each evicted hot page costs a disk read"),
	check("evicted hot pages come back as refaults"; refaults("buffered"); ">"; refaults("uncached");
		"the kernel remembers recently evicted pages and counts their return"),
	check("pcviz: the buffered streamer evicted the hot pages"; by_streamer("buffered"); ">"; 0;
		"kswapd evicts for the task whose allocations woke it; the streamer's cgroup is told apart"),
	check("pcviz: the uncached streamer evicted none"; [by_streamer("uncached"), by_streamer("uncached")];
		[">=", "<="]; [0, num("uncached.resident"; "before") / 100];
		"its folios are dropped behind it: no memory pressure, no reclaim"),
	check("cgroups: the buffered streamer's cache filled memory"; neighbour_cache_mib("buffered"); ">=";
		num("mem-mib") / 4; "its cgroup is charged for every page it reads, until reclaim takes them"),
	check("cgroups: the uncached streamer's cache stayed small";
		[neighbour_cache_mib("uncached"), neighbour_cache_mib("uncached")]; [">=", "<="]; [0, num("mem-mib") / 20];
		"each call's pages leave the cache, and its cgroup's charge, when the call returns"),
	check("memory.max: the capped streamer read more than memory, its cache stayed under the cap";
		[(num("capped-stream"; "bytes") / 1048576 | floor), neighbour_cache_mib("capped")]; [">=", "<="];
		[num("mem-mib"), num("capped.limits"; "memory_max_mib")];
		"past memory.max the cgroup reclaims its own pages before it may charge another"),
	check("memory.low: the hot reader hits at least as often as beside the uncapped stream";
		hits("capped"); ">="; hits("buffered");
		"the stream cannot take more than its cap, and reclaim passes over the protected hot set"),
	check("memory.low: the hot set stays cached"; kept("capped"); ">="; 99;
		"the hot set is charged to the protected cgroup, within its memory.low"),
	check("mapped hot set: the buffered stream's reclaim took at least its data beyond memory";
		reclaimed("mapped-buffered"); ">=";
		(num("mapped-buffered-stream"; "bytes") / 4096 - num("mem-mib") * 256 | floor);
		"every page it reads past what memory holds must be reclaimed, whoever else needs the CPU"),
	check("mapped hot set: the uncached stream set no reclaim going"; reclaimed("mapped-uncached"); "<=";
		num("mapped-uncached.resident"; "before") / 100; "its folios leave the cache as each call returns"),
	check("mapped hot set: intact beside the uncached stream"; kept("mapped-uncached"); ">="; 99;
		"nothing was reclaimed, so nothing of the hot set could be");

# What the run measured for each prediction slot (labs/lab5/predictions.txt),
# and the band a prediction is scored in.  Questions 1 to 4 are for the
# lab's own hot set (4/10 of MEM), question 5 for LAB5_HOT_MIB=40.
def own_hot_set: num("hot-mib") == (num("mem-mib") * 4 / 10 | floor);
def measured:
	m("buffered_hit_pct"; only_when(own_hot_set) | hits("buffered"); within(10; 0)),
	m("uncached_hit_pct"; only_when(own_hot_set) | hits("uncached"); within(10; 0)),
	m("buffered_hot_pages_kept"; only_when(own_hot_set) | num("buffered.resident"; "after"); within(512; 10)),
	m("uncached_hot_pages_kept"; only_when(own_hot_set) | num("uncached.resident"; "after"); within(512; 10)),
	m("buffered_refaults"; only_when(own_hot_set) | refaults("buffered"); factor(2; 50)),
	m("uncached_refaults"; only_when(own_hot_set) | refaults("uncached"); factor(2; 50)),
	m("capped_hit_pct"; only_when(own_hot_set) | hits("capped"); within(10; 0)),
	m("capped_mb_s_pct_of_buffered"; only_when(own_hot_set) |
		percent(num("capped-stream"; "mb_s"); num("buffered-stream"; "mb_s")); within(20; 0)),
	m("small_hot_set_kept_pct"; only_when(num("hot-mib") == 40) | kept("buffered"); within(10; 0));
