# shellcheck shell=bash
# shellcheck disable=SC2154 # top, results, host_facts, lab_tmp: lib/host.sh's; derived: lab_grade's
# The run's facts: the guest's (results.jsonl, lib/guest.sh's fact) and
# the host's (host.jsonl) read for reports, and the host's own written
# while lab_grade derives them.
#
#   host_fact NAME JSON     in derive: record a fact of the host's
#   numbers KEY VALUE...    a JSON object of KEY: VALUE, each VALUE a number
#                           if it is one (what awk or grep printed), else null
#   fact NAME [KEY]         the fact NAME of the run (results.jsonl, then
#                           host.jsonl) or its field KEY (a path such as
#                           lat_us.p99), "-" if none: for reports
#   facts_eval [OPTION...] PROGRAM
#                           PROGRAM, jq with grading.jq's helpers, over
#                           the run's facts ("-" if a fact it reads is
#                           missing or invalid); values reach it as data,
#                           names as --arg
#   facts DIR REGEX KEY     "NAME VALUE" of field KEY (the value itself if
#                           KEY is "") of every fact of DIR/results.jsonl
#                           whose name matches REGEX
#   trace_fact NAME TRACE   in derive: the event counts of TRACE (a
#                           trace.dat) as pcviz's replay decodes them, a
#                           host fact NAME; keys as in pcviz's batch output
#                           (docs/pcviz.md: ev_KIND, pages_KIND, db_end_...)

# readable FILE: FILE if the guest left a regular file there, else
# /dev/null: what jq reads in its place
readable() {
	if guest_file "$1"; then echo "$1"; else echo /dev/null; fi
}

facts_eval() {
	local program=${*: -1}
	jq -rn -L "$top/labs/grading" --rawfile guest "$(readable "$results")" \
		--rawfile host "$(readable "$host_facts")" "${@:1:$#-1}" \
		"include \"grading\"; facts([\$guest, \$host]) | try ($program) catch \"-\""
}

fact() {
	# shellcheck disable=SC2016 # jq's variables
	facts_eval --arg name "$1" --arg key "${2:-}" \
		'fact($name; $key) | if type == "object" or type == "array" then tojson else . end'
}

facts() {
	guest_file "$1/results.jsonl" || return 0
	jq -rR --arg re "$2" --arg key "$3" \
		'fromjson? | select(type == "object" and (.name | type) == "string") | select(.name | test($re)) |
		"\(.name) \((if $key == "" then .value else .value | getpath($key | split("."))? end) // "-")"' \
		"$1/results.jsonl"
}

host_fact() {
	jq -cn --arg name "$1" --argjson value "$2" '{name: $name, value: $value}' >>"$derived"
}

numbers() {
	local args=()
	while [ $# -gt 0 ]; do
		args+=(--arg "$1" "$2")
		shift 2
	done
	jq -cn '$ARGS.named | to_entries | map(.value = (.value | tonumber? // null)) | from_entries' "${args[@]}"
}

# Traces are decoded by one decoder, pcviz's, never by parsing report text.
trace_fact() {
	local pcviz=$top/build/host/pcviz summary errors
	[ -x "$pcviz" ] || { echo "$LAB: $pcviz is missing: make pcviz builds it" >&2; exit 1; }
	guest_file "$2" || return 0
	errors=$lab_tmp/pcviz.err
	summary=$("$pcviz" --replay "$2" --json -i 3600 2>"$errors" | tail -n 1) || true
	if [ -z "$summary" ]; then
		echo "$LAB: pcviz could not replay $2: $(head -n 2 "$errors")" >&2
		return 0
	fi
	host_fact "$1" "$(jq -c 'del(.per_file)' <<<"$summary")"
}
