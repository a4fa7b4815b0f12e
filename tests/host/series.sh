#!/bin/bash
# The series in kernel/patches is what build/linux holds: exporting the
# applied tree gives back the same files, byte for byte (the layers, their
# cover letters' generated parts, their base commits), because
# prepare-tree fixes format-patch's defaults and the pristine import's
# date, and apply-series dates each commit by its patch.  And each layer
# ends where its branch says.
set -u
# shellcheck source=../lib/host/preamble.sh
. "$(dirname "$0")/../lib/host/preamble.sh"
tree=$top/build/linux

if ! git -C "$tree" rev-parse -q --verify pclab >/dev/null 2>&1; then
	skip "the series exports to kernel/patches unchanged" "no kernel tree (make kernel)"
	done_testing
	exit
fi
layers="core lab test"
dirs=()
for l in $layers; do
	mkdir -p "$tmp/$l"
	cp "$top/kernel/patches/$l/0000-cover-letter.patch" "$tmp/$l/"
	dirs+=("$tmp/$l")
done
ok "'$top/kernel/scripts/export-series' '$tree' ${dirs[*]}" "export-series exports the applied tree"
for l in $layers; do
	ok "diff -r '$top/kernel/patches/$l' '$tmp/$l'" "kernel/patches/$l is what build/linux holds"
done
for l in core lab; do
	n=$(find "$top/kernel/patches/$l" -name '0*.patch' ! -name '0000-*' | wc -l)
	base=pclab-base
	[ "$l" = core ] || base=pclab-core
	is "$(git -C "$tree" rev-list --count "$base..pclab-$l")" "$n" \
		"branch pclab-$l ends the $l layer ($n patches)"
done
done_testing
