#!/bin/bash
# A kernel built from a tree without some of the series' layers (make bench
# BASELINE=1's: none of them; make kernel-core's: the core alone) is
# configured from the shared fragments and its own.  An option a missing
# layer introduces ("config NAME" in its patches) that the shared fragments
# ask for must be switched off by the variant's own fragments, or
# check-config stops that kernel's build: the tree has no such option.
set -u
# shellcheck source=../lib/host/preamble.sh
. "$(dirname "$0")/../lib/host/preamble.sh"

# fragments VARIABLE: the fragments the Makefile merges for a variant
fragments() {
	make -s -C "$top" -f Makefile -f - show-fragments <<<"show-fragments: ; @echo \$($1)"
}
# introduced LAYER...: the options the layers' patches add to Kconfig
introduced() {
	local layer
	for layer in "$@"; do
		sed -n 's/^+\(menu\)\{0,1\}config \([A-Za-z0-9_]*\)$/CONFIG_\2/p' "$top"/kernel/patches/"$layer"/*.patch
	done
}
# requested FRAGMENT...: "CONFIG_NAME value" as the merged fragments ask
# (later fragments override earlier ones; "is not set" is n)
requested() {
	awk '
		/^CONFIG_[A-Za-z0-9_]+=/ { n = $0; sub(/=.*/, "", n); want[n] = substr($0, length(n) + 2) }
		/^# CONFIG_[A-Za-z0-9_]+ is not set$/ { want[$2] = "n" }
		END { for (n in want) print n, want[n] }' "$@"
}

all=$(introduced core lab test)
ok "[ -n '$(echo "$all" | tr '\n' ' ')' ]" "the series' patches add Kconfig options (parsed: $(echo "$all" | tr '\n' ' '))"
# variant, its fragments' variable, the layers its tree lacks
for variant in "baseline BASELINE_FRAGMENTS core lab test" "core CORE_FRAGMENTS lab test"; do
	read -r name var missing <<<"$variant"
	# shellcheck disable=SC2086 # the layers are words
	missing_opts=$(introduced $missing)
	# shellcheck disable=SC2046 # the fragments are words
	want=$(requested $(cd "$top" && fragments "$var" | sed "s|[^ ]*|$top/&|g"))
	checked=0
	for opt in $missing_opts; do
		value=$(awk -v n="$opt" '$1 == n { print $2 }' <<<"$want")
		[ -n "$value" ] || continue
		checked=$((checked + 1))
		is "$value" n "$name kernel: $opt (a layer its tree lacks) is switched off"
	done
	diag "$name kernel: $checked requested option(s) of layers its tree lacks ($missing)"
done
done_testing
