#!/bin/bash
# pclab-rw -S on the host's page cache (cachestat(2), Linux 6.5 and later):
# named columns like fincore(1), --output, --noheadings, --json, and the
# numbers against fincore's; --map and --into-map.  The labs and guest suites read it by column
# name (pclab-rw -S -O cached -n FILE), never by position.
set -u
# shellcheck source=../lib/host/preamble.sh
. "$(dirname "$0")/../lib/host/preamble.sh"
rw=$top/build/guest/bin/pclab-rw
f=$tmp/f

if [ ! -x "$rw" ]; then
	skip "pclab-rw -S" "$rw is not built (make initramfs)"
	done_testing
	exit
fi
"$rw" -w -s 16M -f "$f"
if err=$("$rw" -S "$f" 2>&1 >/dev/null) && [ -z "$err" ]; then
	:
else
	skip "pclab-rw -S" "the host kernel cannot: $err"
	done_testing
	exit
fi
# the file's pages out of the cache, then its first MiB read back in
python3 -c 'import os,sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$f"
is "$("$rw" -S -O cached -n "$f")" 0 "after POSIX_FADV_DONTNEED: -O cached -n gives one bare 0"
"$rw" -s 1M "$f"

"$rw" -S -s 1M "$f" >"$tmp/out"
is "$(head -n 1 "$tmp/out")" "cached dirty writeback evicted recently_evicted" \
	"-S: a header line names the five columns"
is "$(wc -l <"$tmp/out")" 2 "... then one line of values"
is "$(awk 'NR == 2 { print $1 }' "$tmp/out")" 256 "... the first MiB read back: 256 pages cached"
is "$(awk '{ print length($0) }' "$tmp/out" | sort -u | wc -l)" 1 \
	"... each value right-aligned under its name (the lines are as long)"
is "$("$rw" -S -s 1M -n "$f")" "$(tail -n 1 "$tmp/out" | tr -s ' ' | sed 's/^ //')" \
	"-n: the values alone, one space apart"
is "$("$rw" -S -s 1M -O cached -n "$f")" 256 "-O cached -n: the one value"
# past what readahead may have brought in with the first MiB
is "$("$rw" -S -o 12M -s 4M -O cached -n "$f")" 0 "-o 12M -s 4M: a range not read has none"
is "$("$rw" -S -s 1M -O Dirty,CACHED "$f" | tr -s ' ' | sed 's/^ //')" "dirty cached
0 256" "-O names columns in any case, in the order given"
want=$(fincore --noheadings --output PAGES "$f" | tr -d ' ')
is "$("$rw" -S -O cached -n "$f")" "$want" "the whole file: cached agrees with fincore ($want pages)"
ok "'$rw' -S -s 1M -J '$f' | jq -e -s 'length == 1 and (.[0] | keys_unsorted ==
	[\"cached\", \"dirty\", \"writeback\", \"evicted\", \"recently_evicted\"] and .cached == 256)'" \
	"-J: one JSON object, the columns as keys, in order"
is "$("$rw" -S -s 1M -J -O evicted,cached "$f")" '{"evicted":0,"cached":256}' "-J -O: the chosen keys"

# usage errors: status 2 and what was wrong (the format is tests/host/cli.sh's)
refused() { # WANT-IN-MESSAGE ARGS...
	local want=$1 err status=0
	shift
	err=$("$rw" "$@" 2>&1 >/dev/null) || status=$?
	if [ "$status" = 2 ] && [[ "$err" == *"$want"* ]]; then
		pass "pclab-rw $* is refused: ${err%%$'\n'*}"
	else
		fail "pclab-rw $* is refused, naming $want" "status $status: $err"
	fi
}
refused "'nosuch' is not a column" -S -O cached,nosuch "$f"
refused "'cached' is named twice" -S -O cached,CACHED "$f"
refused "'' is not a column" -S -O "" "$f"
refused "'' is not a column" -S -O cached, "$f"
refused "go with --stat" -O cached "$f"
refused "go with --stat" -J "$f"
refused "leave out --write" -S -w -s 1M "$f"
refused "no FILE given" -S
refused "'$f' is one too many" -S "$f" "$f"
status=0
"$rw" -S "$tmp/missing" >/dev/null 2>"$tmp/err" || status=$?
ok "[ $status = 1 ] && grep -q 'missing: No such file or directory' '$tmp/err'" \
	"a missing file is a failure at run time: status 1 ($(cat "$tmp/err"))"

# --map: the range stays mapped, every page resident, until a signal
"$rw" -M -o 4K -s 4M "$f" >"$tmp/map.out" 2>&1 &
mapper=$!
for _ in $(seq 50); do
	[ -s "$tmp/map.out" ] && break
	sleep 0.1
done
is "$(cat "$tmp/map.out")" "mapped 1024 pages" "--map -o 4K -s 4M maps and faults in 1024 pages"
ok "grep -q ' $f\$' /proc/$mapper/maps" "... and holds the mapping"
is "$("$rw" -S -O cached -n -o 4K -s 4M "$f")" 1024 "... all of them cached while it holds it"
kill -TERM "$mapper"
wait "$mapper"
is "$?" 0 "SIGTERM ends it with status 0"
refused "--map goes alone" -M -U "$f"
refused "a multiple of the page size" -M -o 100 "$f"

# --into-map: reads the range into its own mapping (lab 3's claim); the
# file's data is copied onto itself, so it is unchanged, and every page
# of the range is cached (faulted in by the copy)
python3 -c 'import os,sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$f"
want=$(md5sum <"$f")
"$rw" -I -b 64K -o 4K -s 4M "$f"
is "$?" 0 "--into-map -b 64K -o 4K -s 4M reads into its mapping"
is "$(md5sum <"$f")" "$want" "... the file unchanged"
is "$("$rw" -S -O cached -n -o 4K -s 4M "$f")" 1024 "... the range's 1024 pages cached"
refused "leave out --write, --stat and --map" -I -M "$f"
refused "a multiple of the page size" -I -o 100 "$f"
status=0
"$rw" -I -s 17M "$f" 2>"$tmp/err" || status=$?
ok "[ $status = 1 ] && grep -q 'past the end of the file' '$tmp/err'" \
	"--into-map past the end of the file fails at run time: status $status ($(cat "$tmp/err"))"
done_testing
