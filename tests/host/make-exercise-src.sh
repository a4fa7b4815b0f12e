#!/bin/bash
# The Makefile reads its variables as data: EXERCISE_SRC, the path of a
# student's source, is written to the file that tracks it, never run by the
# shell, whatever it holds (quotes, $, backquotes, ;), and even under make -n.
set -u
# shellcheck source=../lib/host/preamble.sh
. "$(dirname "$0")/../lib/host/preamble.sh"
build=$tmp/build
# the value as make holds it (make's own $$ is one $), then the command
# line that gives it
for case in quote backquote dollar; do
	case "$case" in
	quote) src="a\"b;touch $tmp/pwned-$case;\"c" arg=$src ;;
	backquote) src="b\`touch $tmp/pwned-$case\`" arg=$src ;;
	dollar) src="c\$(touch $tmp/pwned-$case)" arg="c\$\$(touch $tmp/pwned-$case)" ;;
	esac
	make -s -n -C "$top" B="$build" help EXERCISE_SRC="$arg" >"$tmp/out" 2>&1
	ok "[ ! -e '$tmp/pwned-$case' ]" "EXERCISE_SRC with a $case in it runs nothing: $src"
	is "$(cat "$build/exercises/ucat/source" 2>/dev/null)" "$src" "... and is what the tracking file holds"
done
# a second make with the same EXERCISE_SRC leaves the tracking file alone
touch -d '2000-01-01' "$build/exercises/ucat/source"
make -s -n -C "$top" B="$build" help EXERCISE_SRC="$arg" >"$tmp/out" 2>&1
is "$(stat -c %Y "$build/exercises/ucat/source")" "$(date -d '2000-01-01' +%s)" \
	"the same EXERCISE_SRC again leaves the tracking file as it was"
done_testing
