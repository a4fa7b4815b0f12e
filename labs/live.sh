#!/bin/sh
# make labN LIVE=1, guest side: the lab's guest script runs in the
# background while pcviz shows the lab's files live on this terminal.
# pcviz ends when the lab does (or earlier with q; the lab goes on), then
# the lab's own output follows.
#
# Usage: live.sh GUEST-SCRIPT
set -u
dir=/mnt/${LAB_FS:-ext4}
log=/results/lab-output.txt
"$1" >"$log" 2>&1 &
lab=$!

# pcviz watches the regular files of the directory: wait for the first
while ! find "$dir" -maxdepth 1 -type f | grep -q . && kill -0 "$lab" 2>/dev/null; do
	sleep 0.2
done
if kill -0 "$lab" 2>/dev/null; then
	# end pcviz (cleanly: SIGTERM) when the lab ends
	(
		while kill -0 "$lab" 2>/dev/null; do sleep 0.5; done
		[ -s /tmp/pcviz.pid ] && kill -TERM "$(cat /tmp/pcviz.pid)" 2>/dev/null
	) &
	# in the foreground, so that it has the terminal and its keys
	sh -c 'echo "$$" >/tmp/pcviz.pid; exec pcviz "$1"' sh "$dir"
	clear
fi
wait "$lab"
status=$?
cat "$log"
exit "$status"
