#!/bin/bash
# The guest tools (static binaries, so they run on the host too) refuse bad
# sizes and rates with the text they refused and status 2 (a usage error,
# include/pclab/cli.h), before any I/O: the one size parser of lib/, seen
# from the command line.  tests/host/cli.sh checks the convention itself.
set -u
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$top/build/guest/bin
file=$(mktemp -u)

# refused TOOL WANT-IN-MESSAGE ARGS...: status 2, the message names WANT,
# and FILE was not created
refused() {
	local tool=$1 want=$2 err status=0
	shift 2
	err=$("$bin/$tool" "$@" "$file" 2>&1 >/dev/null) || status=$?
	if [ "$status" = 2 ] && [[ "$err" == *"$want"* ]] && [ ! -e "$file" ]; then
		pass "$tool $* is refused: ${err%%$'\n'*}"
	else
		fail "$tool $* is refused, naming $want" "status $status: $err"
	fi
	rm -f "$file"
}

if [ ! -x "$bin/pclab-rw" ] || [ ! -x "$bin/iolab" ]; then
	skip "guest tools" "not built (make initramfs)"
	done_testing
fi
refused pclab-rw "'18014398509481985k' is not a size" -w -s 18014398509481985k
refused pclab-rw "'9223372036854775808' is not a size" -w -s 9223372036854775808
refused pclab-rw "'8589934592G' is not a size" -w -s 8589934592G
refused pclab-rw "--block: '-5' is not a size" -w -s 1M -b -5
refused pclab-rw "--offset: '1X' is not a size" -w -s 1M -o 1X
refused iolab "--size: '18014398509481985k'" -w -s 18014398509481985k
refused iolab "--bs: '+4K'" -b +4K
refused iolab "--rate: '1e-12'" -R 1e-12
refused iolab "--fsync" -S
done_testing
