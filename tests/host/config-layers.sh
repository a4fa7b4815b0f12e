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
# switched_on FRAGMENT...: the options the merged fragments switch on, as
# check-config reads them (against a .config that sets nothing it names
# each one; the .config needs a line, as check-config tells its files apart
# by their first lines)
switched_on() {
	echo "# nothing set" >"$tmp/empty.config"
	"$top/kernel/scripts/check-config" "$tmp/empty.config" "$@" 2>&1 |
		sed -n 's/^check-config: \(CONFIG_[A-Za-z0-9_]*\)=.* requested, but .*/\1/p'
}

all=$(introduced core lab test)
is "$(echo "$all" | paste -sd " ")" "CONFIG_DROPBEHIND_LEGACY_2019 CONFIG_FAIL_DROPBEHIND" "the series' patches add Kconfig options, parsed from them"
# variant, its fragments' variable, the layers its tree lacks
for variant in "baseline BASELINE_FRAGMENTS core lab test" "core CORE_FRAGMENTS lab test"; do
	read -r name var missing <<<"$variant"
	# shellcheck disable=SC2086 # the layers are words
	missing_opts=$(introduced $missing)
	# shellcheck disable=SC2046 # the fragments are words
	on=$(switched_on $(cd "$top" && fragments "$var" | sed "s|[^ ]*|$top/&|g"))
	for opt in $missing_opts; do
		what="$name kernel: $opt (a layer its tree lacks) is not switched on"
		if grep -qx "$opt" <<<"$on"; then
			fail "$what" "the fragments of $var ask for $opt"
		else
			pass "$what"
		fi
	done
done
done_testing
