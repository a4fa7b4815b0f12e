#!/bin/bash
# pcviz's live views, driven through tmux with the synthetic source: the
# panels, help, pause and single steps, views, zoom, sort, resize and a
# terminal too small, quit, SIGTERM, NO_COLOR and the ASCII fallback; two
# recorded traces compared side by side (--compare); the write timeline of
# a recorded trace with writes; the cgroups view, which a replay has nothing
# for (a live run's is the unit tests', pcviz/tests/test-memcg.c).
# No tracing: the synthetic source has no tracefs.
set -u
# shellcheck source=../lib/host/preamble.sh
. "$(dirname "$0")/../lib/host/preamble.sh"
bin=$top/build/host/pcviz
sock=pcviz-ui-$$
tm() { tmux -L "$sock" "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
if [ ! -x "$bin" ]; then
	fail "$bin is built (make pcviz)"
	done_testing
	exit
fi

# check DESC COMMAND...: like ok, but COMMAND runs in this shell (its functions)
check() {
	local desc=$1
	shift
	if "$@" >/dev/null 2>&1; then
		pass "$desc"
	else
		fail "$desc" "failed: $*"
	fi
}
# start NAME WIDTH HEIGHT [ENV=VALUE...] -- PCVIZ-ARGS: pcviz in a detached session
start() {
	local name=$1 w=$2 h=$3
	shift 3
	local envs=()
	while [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	tm new-session -d -s "$name" -x "$w" -y "$h" \
		"env LANG=C.UTF-8 ${envs[*]} $bin $* ; echo EXIT=\$?; sleep 60"
}
screen() { tm capture-pane -p -t "$1"; }
# wait_for NAME PATTERN: up to 5 s for PATTERN (grep -E) on the screen
wait_for() {
	local n=0
	while [ $n -lt 50 ]; do
		screen "$1" | grep -qE -- "$2" && return 0
		sleep 0.1
		n=$((n + 1))
	done
	return 1
}
# clock NAME: the synthetic clock in the title line
clock() { screen "$1" | sed -n '1s/.* t=\([0-9.]*\)s .*/\1/p'; }
key() { tm send-keys -t "$1" "$2"; }

# has NAME PATTERN...: every pattern is on the screen now
has() {
	local name=$1 pat
	shift
	for pat in "$@"; do
		screen "$name" | grep -qE -- "$pat" || return 1
	done
}

# pause_and_step SESSION LOW HIGH [WHAT]: space pauses and the clock stands
# still; '.' then steps one interval, between LOW and HIGH seconds; t1 and
# t2 are the clock before and after the step
pause_and_step() {
	key "$1" ' '
	check "space pauses${4:-}" wait_for "$1" 'PAUSED'
	t1=$(clock "$1")
	sleep 0.7
	is "$(clock "$1")" "${t1:-no clock}" "paused: the clock stands still${4:-}"
	key "$1" .
	sleep 0.4
	t2=$(clock "$1")
	check "'.' steps one interval while paused ($t1 -> $t2)${4:-}" between "$t1" "$t2" "$2" "$3"
}
lacks() { ! has "$@"; }
# between A B LO HI: LO < B - A < HI
between() { awk -v a="$1" -v b="$2" -v lo="$3" -v hi="$4" 'BEGIN { exit !(b - a > lo && b - a < hi) }'; }

start ui 100 30 -- --synthetic -i 0.2
check "the overview comes up" wait_for ui 'view: overview'
check "overview: residency map, system and events panels" \
	has ui '^Residency  synthetic/file' '^System' 'Events  synthetic'
check "overview: the LOST counter is shown" has ui 'LOST 0'
check "the map fills as the synthetic read goes (cells drawn cached)" wait_for ui '█'
check "residency totals shown" wait_for ui 'cached [1-9][0-9]*/16384 pages'

key ui '?'
check "? opens the help" wait_for ui 'pcviz keys'
check "help lists the keys from the table" has ui 'pause or resume' 'zoom the map in' 'this help'
key ui x
sleep 0.3
check "any key closes the help" lacks ui 'pcviz keys'
key ui h
check "h opens the help too" wait_for ui 'pcviz keys'
key ui x

pause_and_step ui 0.19 0.21
key ui ' '
sleep 0.7
check "space resumes" lacks ui PAUSED
check "... the clock moves again" between "$t2" "$(clock ui)" 0.1 100

key ui 2
check "2: the map view" wait_for ui 'view: map'
check "... with the file list" has ui 'Files \(sorted by name' '> synthetic/file'
key ui s
check "s sorts by cached pages" wait_for ui 'sorted by cached'
key ui 3
check "3: the system view" wait_for ui 'view: system'
check "... reclaim rates, MGLRU" has ui 'pages reclaimed' 'MGLRU on'
key ui 4
check "4: the events view" wait_for ui 'view: events'
check "... a log of events in words" wait_for ui 'added to the cache|removed from the cache|after read: dropped'
key ui Tab
check "tab: the write timeline after the events" wait_for ui 'view: timeline'
check "... a strip per file, with its legend" \
	has ui '^Write timeline' '^> synthetic/file  no write seen' '^D dirty, W under writeback, C clean, X dropped, K kept'
key ui Tab
check "tab: who evicted whom after the timeline" wait_for ui 'view: eviction'
check "... the synthetic file, nothing evicted" \
	has ui '^Who evicted whom' '^> synthetic/file$' '^    no eviction or refault seen'
key ui Tab
check "tab: the memory cgroups after who evicted whom" wait_for ui 'view: cgroups'
check "... none in the synthetic run: read live only" \
	has ui '^Memory cgroups' '^no cgroup counters in a synthetic: pcviz reads them live'
check "... nor the cgroups charged for the files' pages" \
	has ui '^watched files by cgroup charged: live only, a trace does not tell'
key ui Tab
check "tab cycles back to the overview" wait_for ui 'view: overview'
key ui +
check "+ zooms in" wait_for ui 'zoom x2'
key ui -
check "- zooms out" wait_for ui 'zoom x1'
key ui ' '
key ui r
check "r resets the counters" wait_for ui '^(kept|.* )add +0 '
key ui ' '

tm resize-window -t ui -x 50 -y 12
check "resized to 50x12: says the terminal is too small" wait_for ui 'terminal too small: 50x12'
check "... and what it needs" has ui 'needs 60x16'
tm resize-window -t ui -x 100 -y 30
check "resized back: the views return" wait_for ui '^Residency'
tm resize-window -t ui -x 140 -y 40
check "resized to 140x40: the map spans the new width" wait_for ui '^.{140}$'
key ui q
check "q quits with status 0" wait_for ui 'EXIT=0'

start small 40 10 -- --synthetic
check "starting in a 40x10 terminal: a message, no crash" wait_for small 'terminal too small: 40x10'
key small q
check "... q still quits" wait_for small 'EXIT=0'

start colour 100 30 -- --synthetic -i 0.2
wait_for colour '█'
tm capture-pane -e -p -t colour >"$tmp/colour"
check "colours by default" grep -q $'\e\\[3[1-6]m' "$tmp/colour"
start nocolour 100 30 NO_COLOR=1 -- --synthetic -i 0.2
wait_for nocolour '█'
tm capture-pane -e -p -t nocolour >"$tmp/nocolour"
check "NO_COLOR=1: no colour at all" eval "! grep -q $'\\e\\[3[1-7]m' '$tmp/nocolour'"
check "... the views are there" grep -q Residency "$tmp/nocolour"

start ascii 100 30 -- --synthetic --ascii -i 0.2
check "--ascii: cells in ASCII" wait_for ascii '####'
check "... and no block characters" lacks ascii '[█·░]'
start clocale 100 30 LANG=C LC_ALL=C -- --synthetic -i 0.2
check "a terminal without UTF-8: ASCII by itself" wait_for clocale '####'

# real files (never traced: --no-events): a residency pcviz cannot know, and
# more files than it watches
chmod 755 "$tmp"
mkdir -m 755 "$tmp/files"
head -c 1M /dev/zero >"$tmp/files/roots"
chmod 644 "$tmp/files/roots"
tm new-session -d -s unknown -x 100 -y 30 "env LANG=C.UTF-8 setpriv --reuid=nobody --regid=nogroup \
	--clear-groups $bin --no-events $tmp/files/roots; echo EXIT=\$?; sleep 60"
check "as nobody on root's file: the map says its residency is unknown, and why" \
	wait_for unknown 'residency unknown: (cachestat refused|mincore cannot tell): you neither own'
check "... and shows no count of cached pages" lacks unknown 'cached [0-9]+/'
key unknown 2
check "... the file list says unknown too" wait_for unknown 'pages +unknown cached'
key unknown q
for i in $(seq 1 70); do : >"$tmp/files/$(printf 'f%03d' "$i")"; done
start many 120 30 -- --no-events "$tmp/files"
key many 2
check "71 files: the file list says how many are not watched and how to raise it" \
	wait_for many '7 files not watched: pcviz watches 64 files \(--max-files N raises it'
check "... the map's title too" has many 'file 1/64, more not watched'
key many 7
check "7 live: the cgroups view, a line per memory cgroup or why there is none" \
	wait_for many '^(cgroup +file +active +inactive +dirty +wback +refs +acts +steal +high +max +oom +some +full|no cgroup counters: )'
key many q

# --compare: two recorded traces side by side (tests/fixtures/replay), slowly
# (0.01 trace seconds a frame), then faster to their end
fixtures=$top/tests/fixtures/replay
start cmp 120 30 -- --compare "$fixtures/v6.dat" "$fixtures/v7-zstd.dat" -i 0.2 --speed 0.05
check "--compare: the compare view comes up" wait_for cmp 'pcviz  compare  t=.*view: overview'
check "... each column labelled, A and B, with its trace" \
	has cmp '^A  .*/v6\.dat +B  .*/v7-zstd\.dat'
check "... two residency maps side by side" has cmp '^Residency  dev .*Residency  dev '
check "... their totals side by side" has cmp '^cached [0-9]+/64 pages.*cached [0-9]+/64 pages'
# a row of cells in each column: A's (59 wide), a space, B's
check "... both maps drawn" has cmp '^(·|░|▒|▓|█)+ (·|░|▒|▓|█)+$'
check "... two events panels" has cmp '^Events  replay of .*Events  replay of '
pause_and_step cmp 0.009 0.011 " (both runs)"
key cmp 2
check "2: the map view, with each run's file list" wait_for cmp '^Files \(sorted.*Files \(sorted'
key cmp 1
for _ in 1 2 3 4 5 6; do key cmp '>'; done
key cmp ' '
check "resumed, faster: both traces replay to their end" wait_for cmp 'END OF TRACE'
check "... where the runs end alike: every page cached in both" \
	has cmp '^cached 64/64 pages .*cached 64/64 pages '
key cmp 6
check "6 when comparing: who evicted whom, for each run" \
	wait_for cmp '^Who evicted whom .* Who evicted whom '
key cmp q
check "q quits with status 0" wait_for cmp 'EXIT=0'

# the write timeline of a trace with writes (tests/fixtures/replay/writes.dat):
# an uncached write and fsync of ino 12, a buffered write of ino 13, sync, a
# buffered write of ino 14, sync, an uncached append to it; in name order
# ino 12 is the third file
start wt 120 40 -- --replay "$fixtures/writes.dat" -i 0.1 --speed 0.5 --ascii
check "writes.dat replays to its end" wait_for wt 'END OF TRACE'
key wt 5
check "5: the write timeline" wait_for wt 'view: timeline'
key wt n
key wt n
check "... the uncached write's file selected (n), its numbers: 64 went through each state, dropped" \
	wait_for wt '^> dev 254:0 ino 12  dirty 0/64  writeback 0/64  clean 0/64  dropped 64/64  kept 0/0'
screen wt >"$tmp/wt"
strip() { awk -v s="$1" -v n="$2" '$1 == s && ++seen[s] == n { print }' "$tmp/wt"; }
check "... its strips show every state: dirty, writeback, clean, dropped" eval \
	"strip dirty 1 | grep -q D && strip writeback 1 | grep -q W && strip clean 1 | grep -q C &&
	 strip dropped 1 | grep -q X && ! strip kept 1 | grep -q K"
check "... the buffered write's file: dirty, writeback, clean, neither dropped nor kept" eval \
	"grep -q '^  dev 254:0 ino 13  dirty 0/64  writeback 0/64  clean 64/64  dropped 0/0  kept 0/0' '$tmp/wt' &&
	 strip dirty 2 | grep -q D && strip writeback 2 | grep -q W && strip clean 2 | grep -q C &&
	 ! strip dropped 2 | grep -q X"
check "... the appended file: 17 pages written, its last kept (tail) as the end of the file, then dropped at the close" eval \
	"grep -q '^  dev 254:0 ino 14  dirty 0/17  writeback 0/17  clean 16/17  dropped 1/1  kept 0/1 (tail 1)$' '$tmp/wt' &&
	 strip dropped 3 | grep -q X && strip kept 3 | grep -q K"
check "... and the legend" grep -q '^D dirty, W under writeback, C clean, X dropped, K kept, \. none' "$tmp/wt"
key wt 6
check "6: who evicted whom" wait_for wt 'view: eviction'
check "... a block per file; a trace without workingset events has no eviction to show" \
	has wt '^Who evicted whom' '^> dev 254:0 ino 12$' '^  dev 254:0 ino 13$' \
	'^    no eviction or refault seen'
check "... its limits in the last line" has wt "kswapd's evictions charged to its latest waker [(]a guess[)]; .* saved cmdlines"
key wt 7
check "7 in a replay: the cgroups view" wait_for wt 'view: cgroups'
check "... says the trace has no cgroup counters" \
	has wt '^Memory cgroups' '^no cgroup counters in a replay: pcviz reads them live, a trace has none' \
	'^watched files by cgroup charged: live only, a trace does not tell'
key wt '?'
check "the help lists key 5, the write timeline" wait_for wt '5 +the write timeline'
check "... and key 6, who evicted whom" has wt '6 +who evicted whom'
check "... and key 7, the memory cgroups" has wt '7 +memory cgroups: file cache, refaults, PSI'
key wt q
key wt q
check "q quits with status 0" wait_for wt 'EXIT=0'
start cmpbad 100 30 -- --compare "$fixtures/v6.dat" "$tmp/missing.dat"
check "--compare with the second trace missing: one line naming it, status 1" \
	wait_for cmpbad '^pcviz: .*/missing\.dat: No such file or directory'
check "... exit status 1" wait_for cmpbad 'EXIT=1'
start cmpone 100 30 -- --compare "$fixtures/v6.dat"
check "--compare with one trace: a usage error, status 2" wait_for cmpone 'EXIT=2'
check "... saying why, with the hint" \
	has cmpone '^pcviz: --compare needs two trace.dat files' "^Try 'pcviz --help'"

# a terminal ncurses does not know: pcviz's own message, before anything else runs
start badterm 100 30 TERM=nonexistent-term -- --synthetic
check "TERM unknown: pcviz says so and suggests --batch" \
	wait_for badterm '^pcviz: TERM=nonexistent-term: unknown terminal type; try --batch'
check "... exit status 2" wait_for badterm 'EXIT=2'
start noterm 100 30 TERM= -- --synthetic
check "TERM empty: pcviz says so, exit status 2" \
	wait_for noterm '^pcviz: TERM is not set: no terminal type for the views; try --batch'
check "... exit status 2" wait_for noterm 'EXIT=2'

start term 100 30 -- --synthetic -i 0.3
wait_for term 'Residency'
pid=$(pgrep -n -f -- "$bin --synthetic -i 0.3")
kill -TERM "$pid"
check "SIGTERM ends the live view (status 143, terminal restored)" wait_for term 'EXIT=143'

done_testing
