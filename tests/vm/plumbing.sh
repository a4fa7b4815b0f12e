#!/bin/bash
# Host-driven checks of the runner: EXTRA, the results channel, exit status
# propagation through run-vm and make, timeouts, trace.dat decoding on the
# host, and an interactive shell driven through tmux.
set -u
# shellcheck source=../lib/both/tap.sh
. "$(dirname "$0")/../lib/both/tap.sh"
# shellcheck source=../lib/host/vm.sh
. "$(dirname "$0")/../lib/host/vm.sh"

extra=$(mktemp -d)
trap 'rm -rf "$extra"' EXIT
mkdir -p "$extra/bin"
printf '#include <stdio.h>\nint main(void) { puts("hello from EXTRA"); return 0; }\n' |
	gcc -static -x c -o "$extra/bin/pclab-hello" -
# shellcheck disable=SC2016 # $1 belongs to the guest script
printf '#!/bin/sh\necho "script from EXTRA: $1"\n' >"$extra/greet"
chmod +x "$extra/greet"

vm_run plumbing-extra -e "$extra" -- 'pclab-hello && greet arg && uname -r &&
	mkdir -p /results/sub && echo payload >/results/sub/file &&
	head -c 1048576 /dev/urandom >/mnt/ext4/f && sync && echo 3 >/proc/sys/vm/drop_caches &&
	trace-cmd record -q -o /results/trace.dat -e filemap:mm_filemap_add_to_page_cache \
		cat /mnt/ext4/f >/dev/null'
is "$vm_status" 0 "a guest run that succeeds exits 0"
ok "grep -qx 'hello from EXTRA' '$vm_out'" "a static program from EXTRA/bin runs by name"
ok "grep -qx 'script from EXTRA: arg' '$vm_out'" "a script from EXTRA runs by name"
ok "grep -q -- '-pclab' '$vm_out'" "uname -r in the guest shows the pclab localversion"
ok "! grep -q 'Linux version' '$vm_out'" "kernel messages stay out of the command's output"
is "$(cat "$CHECK_RESULTS/plumbing-extra/sub/file" 2>/dev/null)" payload \
	"a file written under /results reaches the host"
events=$(trace-cmd report -i "$CHECK_RESULTS/plumbing-extra/trace.dat" 2>/dev/null |
	grep -c 'mm_filemap_add_to_page_cache: dev [0-9]*:[0-9]* ino [0-9a-f]* pfn=0x[0-9a-f]* ofs=[0-9]* order=[0-9]')
ok "[ ${events:-0} -gt 0 ]" "host trace-cmd report decodes the guest's trace.dat ($events events with fields)"
diag "boot to command: $(cat "$top/build/vm/plumbing-extra/boot-ms" 2>/dev/null) ms"

vm_run plumbing-exit -- 'exit 3'
is "$vm_status" 3 "run-vm exits with the guest command's status"
left=$(find "$top/build/vm/plumbing-exit" -name '*.img' | wc -l)
is "$left" 0 "no disk image is left behind after the run"

status=0
RESULTS=$CHECK_RESULTS make -s -C "$top" run KERNEL=debug NAME=plumbing-make CMD='exit 3' \
	>/dev/null 2>&1 || status=$?
ok "[ $status -ne 0 ]" "make run fails when the guest command fails (status $status)"
vm_check_console plumbing-make

vm_run plumbing-timeout -t 3 -- 'sleep 600'
is "$vm_status" 124 "a run over TIMEOUT is killed and exits 124"
ok "grep -q 'exceeded TIMEOUT' '$vm_out'" "the timeout is explained"

# make shell, typed at through tmux as a person would.
session=pclab-check-$$
tmux new-session -d -s "$session" -x 100 -y 30 \
	"RESULTS=$CHECK_RESULTS NAME=plumbing-shell $top/initramfs/run-vm -k $VM_KERNEL -I; sleep 5"
seen=""
for _ in $(seq 120); do
	sleep 1
	if tmux capture-pane -p -t "$session" | grep -q '# $\|# *$'; then
		# shellcheck disable=SC2016 # typed into the guest shell
		tmux send-keys -t "$session" 'echo answer=$((6 * 7)); exit 5' Enter
		seen=prompt
		break
	fi
done
for _ in $(seq 60); do
	sleep 1
	if tmux capture-pane -p -t "$session" | grep -q 'answer=42'; then
		seen=answer
		break
	fi
done
tmux kill-session -t "$session" 2>/dev/null || true
is "$seen" answer "make shell gives an interactive shell that runs typed commands"
sleep 1
ok "grep -q 'PCLAB-EXIT 5' '$CHECK_RESULTS/plumbing-shell/console.log'" \
	"the shell's exit status reaches the runner"

done_testing
