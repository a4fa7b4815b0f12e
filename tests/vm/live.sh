#!/bin/bash
# make labN LIVE=1: pcviz takes the terminal while the lab runs in the guest,
# gives it back when the lab ends, and the lab still grades itself.  Driven
# through tmux, with everything the terminal showed logged by pipe-pane.
set -u
# shellcheck source=../lib/both/tap.sh
. "$(dirname "$0")/../lib/both/tap.sh"
# shellcheck source=../lib/host/vm.sh
. "$(dirname "$0")/../lib/host/vm.sh"

session=pclab-live-$$
screen=$CHECK_RESULTS/live.screen
mkdir -p "$CHECK_RESULTS"
rm -f "$screen"
tmux new-session -d -s "$session" -x 100 -y 30 \
	"PREDICT=skip LIVE=1 LAB_KERNEL='$VM_KERNEL' LAB_RESULTS='$CHECK_RESULTS/live' '$top/labs/lab1/run'; echo LIVE-STATUS-\$?; sleep 30"
tmux pipe-pane -t "$session" -o "cat >>'$screen'"
for _ in $(seq 1 240); do
	grep -q 'LIVE-STATUS-' "$screen" 2>/dev/null && break
	sleep 0.5
done
tmux kill-session -t "$session" 2>/dev/null
ok "grep -q 'LIVE-STATUS-0' '$screen'" "make lab1 LIVE=1 completes with status 0"
ok "grep -q 'Residency' '$screen' && grep -q 'lab1.dat' '$screen'" \
	"pcviz showed the lab's file live on the terminal"
ok "grep -qE 'score: ([0-9]+)/\1 self-checks passed' '$screen'" "the lab's output and self-checks follow pcviz"
vm_check_console live/lab1
status=0
PREDICT=skip LIVE=1 LAB_RESULTS=$CHECK_RESULTS/live "$top/labs/lab1/run" </dev/null >"$CHECK_RESULTS/live-notty.out" 2>&1 ||
	status=$?
is "$status" 2 "LIVE=1 without a terminal is refused"
ok "grep -q 'run it from one' '$CHECK_RESULTS/live-notty.out'" "... saying why"
done_testing
