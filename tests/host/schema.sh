#!/bin/bash
# The keys the labs and the bench read of the C programs' JSON (iolab's
# summary, pcviz's lines, pclab-rw -S -J) are listed once, in
# tests/fixtures/schema.
#  (a) Every listed key is in what its producer writes: pcviz --synthetic,
#      and iolab and pclab-rw (their static guest builds run on the host)
#      on a scratch file.  A key under an array the host leaves empty or
#      without (reclaimers, kswapd wakers and charges need reclaim; cgroups
#      are live only), or of a program not built, is looked for in the
#      producer's source instead, as a "key".  A "script" key is one a
#      script writes with jq under a C program's key name: it must be a
#      word of a script that writes facts.
#  (b) Every key the consumers (labs/, bench/, scripts/) read that a
#      producer writes is listed, so a new reader of an unlisted key fails
#      here.  Read means: a jq member (.key) or object shorthand ({key,
#      ...}), a key argument of the grading helpers in a .jq file
#      (num("FACT"; "KEY")), or the KEY of the shell helpers json, fact,
#      facts, stat, median, cstat and cmedian.  A key passed in a variable
#      is not seen.
set -eu
# shellcheck source=../lib/host/preamble.sh
. "$(dirname "$0")/../lib/host/preamble.sh"
cd "$top"

schema=tests/fixtures/schema
declare -A sources=([pcviz]="pcviz/*.c" [iolab]="tools/iolab/*.c" [pclab-rw]="tools/pclab-rw.c"
	[script]="labs/*/guest.sh labs/lib/guest.sh labs/*/*/check.sh labs/kernel-exercises/guest.sh
		  bench/guest.sh labs/grading/*.jq")

# The paths of the JSON lines on stdin, one a line: a.b for a key of an
# object, a[].b for a key of an array's objects
json_paths() {
	jq -rn '[inputs | paths | map(if type == "number" then "[]" else . end) | join(".")] | unique[]' |
		sed 's/\.\[\]/[]/g'
}

# Whether PRODUCER's source writes KEY: as a "key" in C, as a word in a script
source_has() {
	# shellcheck disable=SC2086 # the globs of the producer's sources
	if [ "$1" = script ]; then
		grep -qwF "$2" ${sources[$1]}
	else
		grep -qF "\"$2\"" ${sources[$1]}
	fi
}

# produced NAME PROGRAM ARGS...: the paths of what PROGRAM writes, in $tmp/NAME.paths
produced() {
	local name=$1
	shift
	if [ -x "$1" ]; then
		"$@" 2>/dev/null | json_paths >"$tmp/$name.paths"
	else
		diag "$1 is not built (make pcviz, make initramfs): $name's keys are looked for in its source"
		: >"$tmp/$name.paths"
	fi
}

head -c 262144 /dev/zero >"$tmp/data"
produced pcviz build/host/pcviz --synthetic --json --count 2 -i 0.1
produced iolab build/guest/bin/iolab -j -b 4K "$tmp/data"
produced pclab-rw build/guest/bin/pclab-rw -S -J "$tmp/data"

# (a) what the list says each producer writes
grep -vE '^(#|$)' "$schema" >"$tmp/listed" || true
while read -r producer path; do
	leaf=${path##*.}
	array=${path%.*}
	if [ -z "${sources[$producer]:-}" ]; then
		fail "$producer writes $path" "no producer $producer: $schema names ${!sources[*]}"
	elif [ "$producer" = script ]; then
		if source_has script "$path"; then
			pass "a script writes $path"
		else
			fail "a script writes $path" "no word $path in ${sources[script]}"
		fi
	elif grep -qxF "$path" "$tmp/$producer.paths"; then
		pass "$producer writes $path"
	elif { [ ! -s "$tmp/$producer.paths" ] || [[ "$array" == *"[]" ]]; } &&
		! grep -qF "$array." "$tmp/$producer.paths" && source_has "$producer" "$leaf"; then
		pass "$producer writes $path (its source; nothing of ${array%[]} in its output here)"
	else
		fail "$producer writes $path" "not among the $(wc -l <"$tmp/$producer.paths") paths it wrote here"
	fi
done <"$tmp/listed"

# (b) what the consumers read
consumers=()
while read -r f; do
	case "$f" in
	*.jq | *.sh) consumers+=("$f") ;;
	*.*) ;;
	*) head -n 1 "$f" | grep -q '^#!.*sh' && consumers+=("$f") ;;
	esac
done < <(git ls-files labs bench scripts)
ident='[a-z_][a-z0-9_]*'
{
	# cgroup v2's file names (memory.events, cgroup.procs, io.max) are paths, not keys
	sed -E 's/\b(memory|cgroup|io|cpu|pids)\.[a-z_.]+//g' "${consumers[@]}" | grep -oE "\\.$ident" | cut -c2- ||
		true
	grep -ohP "(?:^|(?<=[{,]))\\s*$ident(?=\\s*[,}])" "${consumers[@]}" | grep -oE "$ident" || true
	grep -ohE ";[[:space:]]*\"$ident(\\.$ident)*\"" "${consumers[@]}" | grep -oE "$ident(\\.$ident)*" || true
	grep -ohE '\b(json|fact|facts|stat|median|cstat|cmedian)( +("[^"]*"|[^ "();|]+))+' "${consumers[@]}" |
		awk '{ print $NF }' | grep -xE "$ident(\\.$ident)*" || true
} | sort -u >"$tmp/read"
# a key a producer writes: its whole path, or its last name (.key in jq)
cat "$tmp"/*.paths | sed 's/.*[].]//' | cat - "$tmp"/*.paths | grep . | sort -u >"$tmp/written"
awk '{ print $2; n = split($2, p, "."); print p[n] }' "$tmp/listed" | sort -u >"$tmp/listed.names"
n=0
while read -r key; do
	n=$((n + 1))
	if grep -qxF "$key" "$tmp/listed.names"; then
		pass "consumers read $key: listed"
	else
		fail "consumers read $key, which a producer writes: $schema does not list it" \
			"read in: $(grep -lwF "$key" "${consumers[@]}" | tr '\n' ' ')"
	fi
done < <(comm -12 "$tmp/read" "$tmp/written")
[ "$n" -gt 0 ] || fail "consumers read some producer keys" "none found: the consumers or the producers moved"
done_testing
