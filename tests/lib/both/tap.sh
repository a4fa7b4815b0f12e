# shellcheck shell=sh
# TAP helpers for pclab's shell tests (sourced; POSIX sh, so busybox runs it).
#
#   plan N            print the plan (or call done_testing at the end)
#   ok COND DESC      COND is a shell command; passes when it succeeds
#   pass DESC / fail DESC [DIAG]
#   is GOT WANT DESC  string equality, with a diagnostic on mismatch
#   skip DESC REASON
#   diag TEXT         a "# " comment line
#   done_testing      print the plan if none was given; exit 1 on failures

tap_n=0
tap_failed=0
tap_planned=0

plan() {
	tap_planned=$1
	echo "1..$1"
}
diag() {
	printf '%s\n' "$*" | sed 's/^/# /'
}
pass() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1"
}
fail() {
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - $1"
	[ $# -lt 2 ] || diag "$2"
}
ok() {
	if sh -c "$1" >/dev/null 2>&1; then
		pass "$2"
	else
		fail "$2" "command failed: $1"
	fi
}
is() {
	if [ "$1" = "$2" ]; then
		pass "$3"
	else
		fail "$3" "got '$1', expected '$2'"
	fi
}
skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1 # SKIP $2"
}
done_testing() {
	[ "$tap_planned" -gt 0 ] || echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}
