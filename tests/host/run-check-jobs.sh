#!/bin/bash
# tests/run-check runs its two guest boots (the suites, the core series)
# beside the host and VM tests, reports them after those, counts them in
# the summary, runs everything in turn with --serial, and leaves no boot
# behind when it is stopped.  Runs a copy of run-check whose tests and
# run-vm are stand-ins that note when they start and end.
set -u
# shellcheck source=../lib/host/preamble.sh
. "$(dirname "$0")/../lib/host/preamble.sh"
copy=$tmp/tree
mkdir -p "$copy/tests/host" "$copy/tests/vm" "$copy/tests/guest" "$copy/initramfs"
cp "$top/tests/run-check" "$top/tests/tap-summary" "$top/tests/scan-console" "$copy/tests/"
: >"$copy/tests/guest/one.c"
timeline=$tmp/timeline
export timeline

# a host and a VM test: two seconds each, noted in the timeline
for kind in host vm; do
	cat >"$copy/tests/$kind/stand-in.sh" <<EOF
#!/bin/sh
echo "$kind-start" >>"\$timeline"
sleep 2
echo "$kind-end" >>"\$timeline"
echo 1..1
echo ok 1 - stand-in
EOF
	chmod +x "$copy/tests/$kind/stand-in.sh"
done
# run-vm: -o OUT -n NAME ... -- COMMAND SUITE...: a boot of two seconds
# (GUEST_SLEEP) whose suites each pass, with their markers in the console
cat >"$copy/initramfs/run-vm" <<'EOF'
#!/bin/bash
set -eu
while [ "$1" != -- ]; do
	case "$1" in
	-o) out=$2 ;;
	-n) name=$2 ;;
	esac
	shift
done
shift 2
echo "$name-start" >>"$timeline"
echo $$ >"$timeline.$name.pid"
mkdir -p "$out/$name/tap"
sleep "${GUEST_SLEEP:-2}"
for s in "$@"; do
	s=${s##*/}
	echo "pclab-test: begin $s" >>"$out/$name/console.log"
	echo "pclab-test: end $s 0" >>"$out/$name/console.log"
	printf '1..1\nok 1 - stand-in %s\n' "$s" >"$out/$name/tap/$s.tap"
done
echo "$name-end" >>"$timeline"
EOF
chmod +x "$copy/initramfs/run-vm"

# run_check ARGS...: the copy's run-check; its output in $out, status in $status
run_check() {
	: >"$timeline"
	status=0
	out=$("$copy/tests/run-check" --out "$tmp/results" "$@" 2>&1) || status=$?
}
# at NAME: the line of the timeline where NAME happened
at() { grep -nx "$1" "$timeline" | cut -d: -f1; }

run_check
is "$status" 0 "run-check passes when every stand-in passes"
ok "[ '$(at guest-start)' -lt '$(at vm-end)' ]" \
	"the suites' boot starts before the VM tests end: $(paste -sd' ' "$timeline")"
ok "[ '$(at core-start)' -gt '$(at guest-end)' ]" "... and the core series' boot after the suites' ends"
order=$(printf '%s\n' "$out" | sed -n 's/^== \([a-zA-Z]*\).*/\1/p' | paste -sd' ')
is "$order" "host VM guest the summary" "the report comes in the usual order: host, VM, guest suites, core, summary"
is "$(printf '%s\n' "$out" | tail -n 1)" "14 passed, 0 failed, 0 skipped" \
	"the summary counts the guest boots' tests: 1 host, 1 VM, 3 of the suites' boot, 9 of the core's"

run_check --serial
is "$status" 0 "run-check --serial passes"
ok "[ '$(at guest-start)' -gt '$(at vm-end)' ] && [ '$(at core-start)' -gt '$(at guest-end)' ]" \
	"--serial boots after the VM tests, one boot at a time: $(paste -sd' ' "$timeline")"
is "$(printf '%s\n' "$out" | tail -n 1)" "14 passed, 0 failed, 0 skipped" "... with the same count"

run_check --only vm
ok "[ $status = 0 ] && [ -z '$(at guest-start)' ]" "--only vm boots no guest (status $status)"

# stopped while the suites' boot runs (beside the tests, or alone with
# --serial): run-check exits at once, and the boot goes too
stopped() {
	local check boot state
	: >"$timeline"
	rm -f "$timeline.guest.pid"
	GUEST_SLEEP=60 "$copy/tests/run-check" --out "$tmp/results" "$@" >"$tmp/stopped.out" 2>&1 &
	check=$!
	for _ in $(seq 100); do
		[ -s "$timeline.guest.pid" ] && break
		sleep 0.1
	done
	kill -TERM "$check"
	wait "$check"
	is "$?" 143 "run-check${*:+ $*} stopped by SIGTERM while a guest boots exits with 143"
	boot=$(cat "$timeline.guest.pid" 2>/dev/null)
	sleep 0.5
	# gone, or a zombie nobody reaps (a container's init may not)
	state=$(ps -o stat= -p "${boot:-0}" 2>/dev/null)
	ok "[ -n '$boot' ] && case '$state' in ''|Z*) true ;; *) false ;; esac" \
		"... and the boot (pid ${boot:-none}) is gone${state:+, state $state}"
}
stopped
stopped --serial
done_testing
