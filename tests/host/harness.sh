#!/bin/bash
# Unit tests of the harness's own pieces: TAP summaries, the kernel-log
# scanner, the config checker, and the runner's and deps' input checks.
# A harness that cannot fail is no harness, so most checks feed it failures.
set -u
# shellcheck source=../lib/host/preamble.sh
. "$(dirname "$0")/../lib/host/preamble.sh"

summary() { "$top/tests/tap-summary" "$@" | tail -n 1; }

printf '1..2\nok 1 - a\nok 2 - b # SKIP no reason\n' >"$tmp/good.tap"
is "$(summary "$tmp/good.tap")" "TOTAL 1 0 1" "tap-summary counts passes and skips"
printf '1..2\nok 1 - a\nnot ok 2 - b\n' >"$tmp/bad.tap"
is "$(summary "$tmp/bad.tap")" "TOTAL 1 1 0" "tap-summary counts a failure"
printf 'ok 1 - a\n' >"$tmp/noplan.tap"
is "$(summary "$tmp/noplan.tap")" "TOTAL 1 1 0" "a TAP stream without a plan fails"
printf '1..3\nok 1 - a\n' >"$tmp/short.tap"
is "$(summary "$tmp/short.tap")" "TOTAL 1 1 0" "a TAP stream that stops before its plan fails"
printf '1..1\nBail out! no disk\n' >"$tmp/bail.tap"
is "$(summary "$tmp/bail.tap")" "TOTAL 0 1 0" "Bail out! fails"
is "$(summary "$tmp/good.tap" "$tmp/bad.tap")" "TOTAL 2 1 1" "tap-summary adds up several files"
: >"$tmp/empty.tap"
is "$(summary "$tmp/empty.tap")" "TOTAL 0 1 0" "tap-summary counts a file with no output as a failure (a test that could not run)"
is "$("$top/tests/tap-summary" "$tmp/empty.tap" | head -n 1 | cut -c1-4)" FAIL "... and names it FAIL"
is "$(summary "$tmp/good.tap" "$tmp/empty.tap" "$tmp/bad.tap")" "TOTAL 2 2 1" "... among others"
# The kselftest harness's TAP (the guest C suites): "# " lines are comments,
# a known failure is no pass, and its totals line must agree with the results.
ksft_tap() { # totals
	printf 'TAP version 13
1..4
# Starting 4 tests from 1 test cases.
'
	printf '#  RUN           fs.ext4.a ...
# t.c:9:a:Expected 1 (1) == x (2)
'
	printf '# ok 7 nested output is no result
not ok 1 fs.ext4.a
'
	printf 'ok 2 fs.ext4.b
ok 3 fs.xfs.a # SKIP /mnt/xfs is not mounted
'
	printf 'ok 4 fs.xfs.b # XFAIL known
# FAILED: 1 / 4 tests passed.
# Totals: %s
' "$1"
}
ksft_tap "pass:1 fail:1 xfail:1 xpass:0 skip:1 error:0" >"$tmp/ksft.tap"
is "$(summary "$tmp/ksft.tap")" "TOTAL 1 1 2" "tap-summary reads the kselftest harness's TAP"
ksft_tap "pass:2 fail:1 xfail:1 xpass:0 skip:1 error:0" >"$tmp/ksft-bad.tap"
is "$(summary "$tmp/ksft-bad.tap")" "TOTAL 1 2 2" \
	"harness totals that disagree with the results count a failure"
ok "! '$top/tests/tap-summary'" "tap-summary without files is an error"

printf '[    0.1] Linux version 6.12\n[    1.0] ext4 mounted\n' >"$tmp/clean.log"
ok "'$top/tests/scan-console' '$tmp/clean.log'" "scan-console accepts a clean log"
for line in "WARNING: CPU: 0 PID: 1 at mm/filemap.c:123 filemap_read+0x1/0x2" \
	"BUG: Bad page state in process cat  pfn:01234" \
	"WARNING: possible circular locking dependency detected" \
	"BUG: KFENCE: out-of-bounds read in foo" \
	"Kernel panic - not syncing: Fatal exception" \
	"INFO: task kworker/0:1:12 blocked for more than 120 seconds." \
	"WARNING: stack going in the wrong direction? at filemap_read+0x46/0x4d"; do
	printf '[    0.1] ok\n[    2.0] %s\n' "$line" >"$tmp/bad.log"
	ok "! '$top/tests/scan-console' '$tmp/bad.log' >/dev/null" "scan-console flags: ${line%%:*}: ..."
done

printf '[    0.1] ok\n[   77.3] WARNING: stack going in the wrong direction? at return_to_handler+0x46/0x4d\n' \
	>"$tmp/graph.log"
ok "'$top/tests/scan-console' '$tmp/graph.log'" \
	"scan-console lets the unwinder's report at the function-graph trampoline pass (lab 6)"
printf 'CONFIG_FOO=y\nCONFIG_BAR="x"\n# CONFIG_BAZ is not set\n' >"$tmp/config"
printf 'CONFIG_FOO=y\nCONFIG_BAR="x"\n# CONFIG_BAZ is not set\n' >"$tmp/good.frag"
ok "'$top/kernel/scripts/check-config' '$tmp/config' '$tmp/good.frag'" \
	"check-config accepts a config that has every requested option"
printf 'CONFIG_FOO=y\nCONFIG_QUX=y\n' >"$tmp/bad.frag"
out=$("$top/kernel/scripts/check-config" "$tmp/config" "$tmp/bad.frag" 2>&1)
is "$?" 1 "check-config fails when a requested option is missing"
ok "printf '%s' '$out' | grep -q CONFIG_QUX" "check-config names the missing option"
printf 'CONFIG_BAZ=y\n' >"$tmp/later.frag"
ok "! '$top/kernel/scripts/check-config' '$tmp/config' '$tmp/good.frag' '$tmp/later.frag' 2>/dev/null" \
	"check-config lets a later fragment override an earlier one"

runvm() { "$top/initramfs/run-vm" -k "$top/Makefile" -i "$top/Makefile" "$@" true 2>&1; }
for bad in "-m abc" "-m 8" "-c 0" "-c 99" "-t soon" "-n ../up" "-d btrfs" "-e /nonexistent" "-a xen"; do
	# shellcheck disable=SC2086 # option and value are two words
	out=$(runvm $bad)
	status=$?
	if [ "$status" = 2 ] && printf '%s' "$out" | grep -q '^run-vm: '; then
		first=${out%%$'\n'*}
		pass "run-vm rejects '$bad' with a message: ${first#run-vm: }"
	else
		fail "run-vm rejects '$bad' with a message" "status $status: $out"
	fi
done
out=$("$top/initramfs/run-vm" -k /nonexistent true 2>&1)
is "$?" 2 "run-vm with a missing kernel exits 2"
ok "printf '%s' '$out' | grep -q 'make kernel'" "and names the fix (make kernel)"

printf 'coreutils\npclab-no-such-package\n' >"$tmp/packages"
out=$("$top/scripts/deps" --check "$tmp/packages" 2>&1)
is "$?" 1 "deps --check fails when a package is missing"
ok "printf '%s' '$out' | grep -q pclab-no-such-package" "deps names the missing package"
ok "'$top/scripts/deps' --check '$top/scripts/packages.list'" "every package in packages.list is installed"

mkdir -p "$tmp/root/has space"
ok "! '$top/initramfs/mkcpio' /bin/true '$tmp/root' '$tmp/x.cpio' 2>/dev/null" \
	"mkcpio refuses file names it cannot pack"
mkdir -p "$tmp/linked"
ln -s '/extra/a target' "$tmp/linked/link"
ok "! '$top/initramfs/mkcpio' /bin/true '$tmp/linked' '$tmp/y.cpio' 2>/dev/null" \
	"mkcpio refuses a link whose target it cannot pack"

done_testing
