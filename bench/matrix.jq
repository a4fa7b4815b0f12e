# The matrix's part of make bench's summary, for one file system: a table
# per job of upstream's dontcache-bench, a row per setting and mode, each
# cell the median over the rounds followed, with more than one round, by
# every round's value in order; then the ratios the competing writers and
# the noisy writer are run for.  bench/run runs it as
#   jq -nrR --arg fs FS --arg jobs "JOB..." --arg what WHAT -f bench/matrix.jq results.jsonl
# over the guest's facts (a line that is not a fact is skipped), WHAT
# being "tables" (markdown), "ratios" (for the plot: job, then uncached
# / buffered MB/s in the global and the memcg setting, tab-separated) or
# "goals" (the table of issue #29's goals, markdown; --arg streams N: the
# contended scenarios' streams).
#
# A run's facts: FS[/memcg]/JOB-MODE.rROUND, with the parts .N (the
# streams of jobs that run several processes at once), -hot and -writer
# (the noisy writer's reader and writer), -stream and .resident (the
# reclaim-hostile read's stream and its hot set's pages cached before and
# after) and .cgroup (the memcg setting's own counters: reclaim within a
# cgroup counts there, not in /proc/vmstat).

def runs:
	[inputs | fromjson? | select(type == "object" and (.name | type) == "string")
	 | (.name | capture("^(?<fs>[a-z0-9]+)(?<memcg>/memcg)?/(?<job>[a-z0-9]+)-(?<io_mode>[a-z0-9-]+?)\\.r(?<round>[0-9]+)(?<part>\\.[0-9]+|\\.cgroup|\\.resident|-hot|-writer|-stream)?$")) as $n
	 | select($n.fs == $fs)
	 | {setting: (if $n.memcg then "memcg" else "global" end), job: $n.job, io_mode: $n.io_mode,
	    round: ($n.round | tonumber), part: ($n.part // ""), value}];

# iolab writes -1 where it cannot say (no PSI, a counter the kernel lacks)
def known: select(type == "number" and . >= 0);
# FACTS' values at PATH (a.b: key b of object a), added up or the largest
def at($path): getpath($path | split("."));
def total(facts; $path): [facts[] | at($path) | known] | if length > 0 then add else null end;
def most(facts; $path): [facts[] | at($path) | known] | max;

# One round of one mode of a job in one setting, from its facts: MB/s and
# system CPU added up over the processes, latencies the worst process's
# (the reader's, for the noisy writer), the system-wide counters the
# largest any process saw over its own time; in the memcg setting reclaim
# and pressure are the cgroup's.
def measured:
	(map(select(.part == "" or .part == "-writer" or .part == "-stream" or (.part | test("^\\.[0-9]+$"))) | .value)) as $io
	| (map(select(.part == "-hot") | .value)) as $reader
	| (if $reader == [] then $io else $reader end) as $lat
	| (map(select(.part == ".cgroup") | .value) | first // {}) as $cg
	| {mb_s: total($io; "mb_s"),
	   p50: most($lat; "lat_us.p50"), p99: most($lat; "lat_us.p99"), p999: most($lat; "lat_us.p999"),
	   cpu_sys_s: total($io; "cpu_sys_s"),
	   # kswapd's CPU seconds over the run: system-wide, so the largest any
	   # process saw over its own time, as the other counters
	   kswapd_s: ([$io[] | select((.kswapd_cpu_pct | known) and (.seconds | known))
	               | .kswapd_cpu_pct / 100 * .seconds] | max),
	   mb: (total($io; "bytes") | if . then . / 1e6 else null end),
	   ops: ([$io[] | select((.iops | known) and (.seconds | known)) | .iops * .seconds]
	         | if length > 0 then add else null end),
	   dirty_mib: (most($io; "dirty_kib_peak") | if . then . / 1024 else null end),
	   cache_mib: (most($io; "cache_kib.peak") | if . then . / 1024 else null end),
	   allocstalls: most($io; "allocstalls"), kswapd_pct: most($io; "kswapd_cpu_pct"),
	   pgscan: ($cg.pgscan // most($io; "pgscan")),
	   pgsteal: ($cg.pages_reclaimed // most($io; "pages_reclaimed")),
	   psi_ms: ($cg.psi_mem_some_ms // most($io; "psi_mem_some_ms")),
	   memcg_peak_mib: ($cg.peak_kib | if . then . / 1024 else null end), limit_hits: $cg.limit_hits,
	   hit_pct: most($reader; "hit_pct"),
	   hot_kept_pct: (map(select(.part == ".resident") | .value) | first
	                  | if (.before | type) == "number" and .before > 0 and (.after | type) == "number" and .after >= 0
	                    then .after / .before * 100 else null end),
	   first_mb_s: (map(select(.part == ".1") | .value.mb_s) | first),
	   second_mb_s: (map(select(.part == ".2") | .value.mb_s) | first)};

def fmt:
	if . == null then "-"
	elif fabs >= 100 then round | tostring
	elif fabs >= 10 then (. * 10 | round) / 10 | tostring
	else (. * 100 | round) / 100 | tostring end;
def median: sort | if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor]
	else (.[length / 2 - 1] + .[length / 2]) / 2 end;
# the rounds' values (nulls dropped): "median (r1, r2, ...)"
def cell: map(select(. != null)) | if length == 0 then "-" elif length == 1 then .[0] | fmt
	else "\(median | fmt) (\(map(fmt) | join(", ")))" end;
def ratio(a; b): if a == null or b == null or b <= 0 then null else a / b end;

# The CPU the run cost the machine: its processes' system time and
# kswapd's (reclaim in a memory cgroup runs in the processes' own time)
def reclaim_cpu: if .cpu_sys_s == null then null else .cpu_sys_s + (.kswapd_s // 0) end;
def cpu_ms_per_mb: ratio(reclaim_cpu | if . then . * 1000 else null end; .mb);
def cpu_us_per_op: ratio(reclaim_cpu | if . then . * 1e6 else null end; .ops);
# verdict of a goal on the median of its rounds' values: OP is ">=" or
# "<=", or "within" (GOAL: [low, high])
def verdict($op; $goal): if . == null then "not measured"
	elif $op == ">=" then (if . >= $goal then "met" else "missed" end)
	elif $op == "<=" then (if . <= $goal then "met" else "missed" end)
	else (if . >= $goal[0] and . <= $goal[1] then "met" else "missed" end) end;
def goal_text($op; $goal): if $op == "within" then "\($goal[0] | fmt) to \($goal[1] | fmt)" else "\($op) \($goal | fmt)" end;

def settings: ["global", "memcg"];
def job_modes($job): (if $job == "nwrite" then ["alone"] else [] end) + ["buffered", "uncached", "direct"];
def titles: {
	seqread: "sequential 1 MiB reads of the data set",
	randread: "random 4 KiB reads of the data set, timed",
	seqwrite: "sequential 1 MiB writes of a file the size of the data set, then fsync",
	randwrite: "random 4 KiB overwrites of the data set, timed, then fsync",
	cwrite: "4 writers at once, 1 MiB sequential writes, then fsync; MB/s and system CPU of all, the worst writer's latency",
	cwrite32: "32 writers at once, as cwrite",
	compete: "competing writers: a buffered writer beside one in the mode (buffered: two buffered writers), timed, then fsync; MB/s of both",
	nwrite: "noisy writer beside a latency-sensitive reader (random 4 KiB reads at 500/s of a cached hot set of 40% of RAM): latencies and hit % are the reader's, the rest the writer's; alone: the reader without a writer"};

runs as $runs
| ($jobs | split(" ") | map(select(. != ""))) as $jobs
# rounds[setting][job][mode]: the measured rounds, in order
| (reduce ($runs | group_by([.setting, .job, .io_mode, .round])[]) as $g ({};
	.[$g[0].setting][$g[0].job][$g[0].io_mode] += [{round: $g[0].round} + ($g | measured)])
  | map_values(map_values(map_values(sort_by(.round))))) as $rounds
| def values($s; $j; $m; f): [($rounds[$s][$j][$m] // [])[] | f];
  def med($s; $j; $m; f): values($s; $j; $m; f) | map(select(. != null)) | median;
  # a per-round ratio of two modes of a job, the rounds paired by number
  def paired($s; $j; $a; $b; f): [($rounds[$s][$j][$a] // [])[] as $x
	| ($rounds[$s][$j][$b] // [])[] | select(.round == $x.round) | ratio($x | f; f)];
  # goal ROUNDS-VALUES NAME OP GOAL: a row of #29's goals table
  def goal($values; $name; $op; $goal): ($values | map(select(. != null))) as $v
	| "| \($name) | \($v | cell) | \(goal_text($op; $goal)) | \($v | median | verdict($op; $goal)) |";
if $what == "goals" then
	"| goal (uncached against buffered, per round; the verdict on the median) | measured: median (each round) | goal | verdict |",
	"| --- | --- | --- | --- |",
	goal(paired("global"; "cseqread"; "uncached"; "buffered"; .mb_s);
	     "contended sequential read, \($streams) readers: MB/s"; ">="; (if $fs == "xfs" then 1.5 else 1.3 end)),
	goal(paired("global"; "crandread"; "uring-uncached"; "uring-buffered"; .mb_s);
	     "contended random 4 KiB read (io_uring, QD 8): MB/s"; ">="; 1),
	goal(paired("global"; "cwrite"; "uncached"; "buffered"; .mb_s); "4 writers + fsync: MB/s"; ">="; 1),
	goal(paired("global"; "cwrite"; "uncached"; "buffered"; .p99); "4 writers + fsync: worst writer's p99"; "<="; 1),
	goal(paired("memcg"; "seqread"; "uncached"; "buffered"; .mb_s); "memcg: sequential read: MB/s"; ">="; 1.3),
	goal(paired("memcg"; "cseqread"; "uncached"; "buffered"; .mb_s);
	     "memcg: contended sequential read, \($streams) readers: MB/s"; ">="; 1.3),
	goal(paired("memcg"; "cwrite"; "uncached"; "buffered"; .mb_s); "memcg: 4 writers + fsync: MB/s"; ">="; 1.8),
	goal(paired("global"; "seqread"; "uncached"; "buffered"; cpu_ms_per_mb);
	     "sequential read alone: CPU per MB, kswapd's included"; "<="; 0.9),
	goal(paired("global"; "cseqread"; "uncached"; "buffered"; cpu_ms_per_mb);
	     "contended sequential read: CPU per MB, kswapd's included"; "<="; 0.9),
	goal(paired("memcg"; "seqread"; "uncached"; "buffered"; cpu_ms_per_mb);
	     "memcg: sequential read: CPU per MB (reclaim in the reader's time)"; "<="; 0.9),
	goal(paired("global"; "randread"; "uncached"; "buffered"; cpu_us_per_op);
	     "random 4 KiB read: CPU per read, kswapd's included"; "<="; 1),
	goal(paired("global"; "hostile"; "uncached"; "buffered"; .mb_s);
	     "reclaim-hostile: sequential read beside a mapped hot set: MB/s"; ">="; 1.5),
	goal(values("global"; "hostile"; "buffered"; ratio(.pgscan; .pgsteal));
	     "reclaim-hostile: the setting: buffered's pgscan / pgsteal"; ">="; 2),
	goal(values("global"; "hostile"; "uncached"; .hot_kept_pct);
	     "reclaim-hostile: the hot set's pages still cached after the uncached stream, %"; ">="; 99),
	(settings[] as $s
	 | goal(values($s; "compete"; "uncached"; ratio(.second_mb_s; .mb_s));
	        "\($s): competing writers: the uncached writer's share of the total"; "within"; [0.45, 0.55]),
	   goal(paired($s; "compete"; "uncached"; "buffered"; .mb_s);
	        "\($s): competing writers: total / two buffered writers"; ">="; 0.95),
	   goal(paired($s; "nwrite"; "uncached"; "alone"; .p99);
	        "\($s): noisy uncached writer: the reader's p99 / alone"; "<="; 1.1))
elif $what == "ratios" then
	$jobs[] | . as $j | select($rounds.global[$j] or $rounds.memcg[$j])
	| [$j] + [settings[] as $s | ratio(med($s; $j; "uncached"; .mb_s); med($s; $j; "buffered"; .mb_s)) | fmt]
	| @tsv
else
	$jobs[] | . as $j | select($rounds.global[$j] or $rounds.memcg[$j])
	| "", "### matrix: \($j): \(titles[$j] // $j)", "",
	  "| mode | setting | MB/s | vs buffered | p50 us | p99 us | p99.9 us | sys CPU s | dirty peak MiB | cache peak MiB | allocation stalls | kswapd % | pgscan | pgsteal | memory pressure ms | memcg peak MiB | memcg limit hits |",
	  "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
	  (settings[] as $s | job_modes($j)[] as $m | select($rounds[$s][$j][$m])
	   | [$m, $s, (values($s; $j; $m; .mb_s) | cell),
	      (ratio(med($s; $j; $m; .mb_s); med($s; $j; "buffered"; .mb_s)) | fmt),
	      (values($s; $j; $m; .p50) | cell), (values($s; $j; $m; .p99) | cell), (values($s; $j; $m; .p999) | cell),
	      (values($s; $j; $m; .cpu_sys_s) | cell), (values($s; $j; $m; .dirty_mib) | cell),
	      (values($s; $j; $m; .cache_mib) | cell), (values($s; $j; $m; .allocstalls) | cell),
	      (values($s; $j; $m; .kswapd_pct) | cell), (values($s; $j; $m; .pgscan) | cell),
	      (values($s; $j; $m; .pgsteal) | cell), (values($s; $j; $m; .psi_ms) | cell),
	      (values($s; $j; $m; .memcg_peak_mib) | cell), (values($s; $j; $m; .limit_hits) | cell)]
	   | "| " + join(" | ") + " |"),
	  (select($j == "compete")
	   | "", "Each writer's share of the same seconds, and the total against two buffered writers (the same round's):", "",
	     "| setting | second writer | buffered writer MB/s | second writer MB/s | second's share of the total | total / two buffered |",
	     "| --- | --- | --- | --- | --- | --- |",
	     (settings[] as $s | ("uncached", "direct") as $m | select($rounds[$s][$j][$m])
	      | [$s, $m, (values($s; $j; $m; .first_mb_s) | cell), (values($s; $j; $m; .second_mb_s) | cell),
	         (values($s; $j; $m; ratio(.second_mb_s; .mb_s)) | cell),
	         (paired($s; $j; $m; "buffered"; .mb_s) | cell)]
	      | "| " + join(" | ") + " |")),
	  (select($j == "nwrite")
	   | "", "The reader beside each writer against the reader alone (the same round's):", "",
	     "| setting | writer | reader p99 / alone | reader p99.9 / alone | reader hit % |",
	     "| --- | --- | --- | --- | --- |",
	     (settings[] as $s | ("buffered", "uncached", "direct") as $m | select($rounds[$s][$j][$m])
	      | [$s, $m, (paired($s; $j; $m; "alone"; .p99) | cell), (paired($s; $j; $m; "alone"; .p999) | cell),
	         (values($s; $j; $m; .hit_pct) | cell)]
	      | "| " + join(" | ") + " |"))
end
