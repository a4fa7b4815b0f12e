# Lab 2's self-checks (labs/grading/grading.jq reads this table).
include "grading";

def mem_mib: num("run"; "mem_mib");
def reclaimed_mib($step): num($step; "pages_reclaimed") / 256 | trunc;

def declared: 11;
def checks:
	check("buffered stream fills memory with cache"; growth("seq-buffered"); ">="; 0.4 * mem_mib;
		"the page cache takes whatever memory is free"),
	check("buffered stream makes the kernel reclaim"; reclaimed_mib("seq-buffered"); ">=";
		0.5 * num("run"; "data_mib");
		"data ten times RAM can only pass through the cache if old pages are evicted"),
	check("kswapd works during the buffered stream"; num("seq-buffered"; "kswapd_cpu_pct"); ">";
		num("seq-direct"; "kswapd_cpu_pct"); "reclaim runs in kswapd, on another CPU, while the reader reads"),
	check("four readers fill the cache"; growth("cliff-buffered.1"); ">="; 0.4 * mem_mib;
		"with more readers than CPUs the cache fills just the same"),
	check("the readers themselves stall in direct reclaim"; streams("cliff-buffered"; "allocstalls") | max;
		">"; 0;
		"kswapd shares the CPUs with four readers and falls behind: allocations wait until they have reclaimed"),
	check("memory pressure once the cache is full"; num("cliff"; "late_psi_mem_pct"); ">="; 5;
		"PSI counts the time some task waited for memory: see cliff.png, bottom panel"),
	check("O_DIRECT leaves the page cache alone";
		[growth("seq-direct"), num("seq-direct"; "file_cached_pages")]; ["<=", "=="]; [0.02 * mem_mib, 0]; ""),
	check("perf shows kswapd in reclaim code"; num("kswapd-profile"; "reclaim_symbols"); ">"; 0;
		"see kswapd-profile.txt"),
	check("misaligned O_DIRECT fails with EINVAL, explained";
		[num("misaligned"; "status"), str("misaligned"; "message")]; ["==", "has"]; [1, "EINVAL"]; ""),
	check("O_DIRECT write drops the cached copy";
		num("mixing"; "cached_before") - num("mixing"; "cached_after_direct_write"); ">="; 0.9 * 2048;
		"the kernel invalidates cached pages under a direct write so no reader sees stale data"),
	check("O_DIRECT read writes dirty pages back first";
		[num("mixing"; "dirty_before"), num("mixing"; "dirty_after_direct_read")]; [">=", "=="]; [1024, 0];
		"a direct read must not miss data that sits dirty in the cache");

# What the run measured for each prediction slot (labs/lab2/predictions.txt),
# and the band a prediction is scored in.
def measured:
	m("seq_buffered_cache_growth_mib"; growth("seq-buffered"); within(16; 20)),
	m("seq_buffered_reclaimed_mib"; reclaimed_mib("seq-buffered"); within(32; 20)),
	m("rand_buffered_iops_pct_of_direct"; percent(num("rand-buffered"; "iops"); num("rand-direct"; "iops"));
		within(15; 0)),
	m("seq_buffered_refaults"; num("seq-buffered"; "refaults"); within(10; 50)),
	m("cliff_second_half_pct_of_free"; percent(num("cliff"; "late_mb_s"); num("cliff"; "free_mb_s")); within(15; 0)),
	m("direct_write_cached_after_pages"; num("mixing"; "cached_after_direct_write"); within(64; 5)),
	m("direct_read_dirty_after_pages"; num("mixing"; "dirty_after_direct_read"); within(64; 5));
