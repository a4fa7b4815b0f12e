# Lab 4's self-checks (labs/grading/grading.jq reads this table).
include "grading";

def mem_mib: num("run"; "mem_mib");
def dirty_peak_mib($step): num($step; "dirty_kib_peak") / 1024;
def dirty_writeback_peak_mib($step): num($step; "dirty_writeback_kib_peak") / 1024;

def declared: 8;
def checks:
	check("buffered writes pile up dirty and writeback pages"; dirty_writeback_peak_mib("buffered"); ">=";
		0.5 * num("dirty-limit-mib");
		"writes complete into the cache; the disk gets them later, and the dirty limit counts both"),
	check("buffered writer is throttled"; num("buffered.throttled"); ">"; 0;
		"beyond the dirty limit the writer waits for writeback"),
	check("buffered writes fill the cache"; growth("buffered"); ">="; 0.4 * mem_mib; ""),
	check("uncached writes keep the cache small"; growth("uncached"); "<="; 0.05 * mem_mib;
		"each call has the flusher write its pages back; they leave the cache as that completes"),
	check("uncached writes keep dirty data small"; dirty_peak_mib("uncached"); "<="; 0.25 * num("dirty-limit-mib");
		"each call kicks the flusher for the pages it dirtied: they need not wait for the background threshold (half the limit)"),
	check("trace: every written page dropped after writeback"; num("write-trace"; "db_end_pages_dropped"); "==";
		4096; "16 MiB is 4096 pages"),
	check("uncached write flushes no disk cache"; num("flushes"; "uncached_write"); "=="; 0;
		"RWF_UNCACHED is not O_SYNC: the data may sit in the disk's cache"),
	check("fsync does"; num("flushes"; "fsync"); ">="; 1; "durability still takes fsync (or RWF_SYNC)");

# What the run measured for each prediction slot (labs/lab4/predictions.txt),
# and the band a prediction is scored in.
def measured:
	m("buffered_throttled"; num("buffered.throttled"); factor(2; 10)),
	m("buffered_dirty_peak_mib"; dirty_peak_mib("buffered"); within(2; 25)),
	m("buffered_cache_growth_mib"; growth("buffered"); within(16; 20)),
	m("buffered_kswapd_pct"; num("buffered"; "kswapd_cpu_pct"); within(5; 50)),
	m("uncached_cache_growth_mib"; growth("uncached"); within(4; 25)),
	m("uncached_throttled"; num("uncached.throttled"); factor(2; 10)),
	m("after_return_writeback_pages"; num("after-return"; "writeback"); within(256; 25)),
	m("after_return_dirty_pages"; num("after-return"; "dirty"); within(256; 25)),
	m("uncached_write_flushes"; num("flushes"; "uncached_write"); within(1; 0)),
	m("fsync_flushes"; num("flushes"; "fsync"); within(1; 0));
