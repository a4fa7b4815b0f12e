#!/bin/bash
# Build-system promises: a second make does nothing, a header rebuilds what
# includes it and nothing else, make help documents every target, every
# shell script passes shellcheck, and the kernel tree is the packaged source
# plus exactly the series in kernel/patches.
set -u
# shellcheck source=../lib/host/preamble.sh
. "$(dirname "$0")/../lib/host/preamble.sh"
cd "$top" || exit 1

# make check has just built these; nothing may be left to do.
for target in build/kernel/debug/arch/x86/boot/bzImage build/initramfs.cpio build/headers/.installed \
	build/guest/bin/iolab build/host/iolab-unit build/host/lib-unit build/host/pcviz; do
	if [ -e "$target" ]; then
		ok "make -q '$target'" "$target is up to date: a second make does nothing"
	else
		skip "$target is up to date" "not built"
	fi
done

# Header dependencies are the compiler's (-MMD -MP), not globs: after each
# header of include/pclab/, make recompiles exactly the sources that include
# it, as gcc -MM sees them (a source already out of date is left out).
# compiled MAKE-ARGS...: the C sources make -n would compile, one a line
compiled() {
	make -n "$@" 2>/dev/null | grep -oE ' [a-z][a-z0-9/_-]*\.c( |$)' | tr -d ' ' | sort -u
}
goals=(build/guest/bin/pclab-rw build/guest/bin/iolab build/guest/libpclab.a)
srcs=(tools/pclab-rw.c tools/iolab/main.c tools/iolab/options.c lib/table.c)
suites=(build/guest/tests/*)
if [ -e build/guest/libpclab.a ] && [ -e build/host/lib-unit ] && [ -e "${suites[0]}" ]; then
	stale=$(compiled "${goals[@]}" build/host/lib-unit "${suites[@]}")
	headers=(include/pclab/*.h)
	declare -A after=()
	for h in "${headers[@]}"; do
		after[$h]=$(compiled -W "$h" "${goals[@]}")
	done
	for src in "${srcs[@]}"; do
		if grep -qxF "$src" <<<"$stale"; then
			skip "$src is recompiled after exactly the headers it includes" "out of date already"
			continue
		fi
		includes=$(gcc -MM -isystem build/headers/include -Iinclude -Itests/lib/both -Itests/lib/guest "$src" |
			tr -s '\\ ' '\n')
		wrong=
		for h in "${headers[@]}"; do
			want=no got=no
			grep -qxF "$h" <<<"$includes" && want=yes
			grep -qxF "$src" <<<"${after[$h]}" && got=yes
			[ "$want" = "$got" ] || wrong="$wrong $h (includes it: $want, recompiled: $got)"
		done
		is "$wrong" "" "$src is recompiled after exactly the include/pclab headers it includes"
	done
	out=$(compiled -W tools/iolab/iolab.h "${goals[@]}")
	if grep -qx tools/iolab/options.c <<<"$out" &&
		{ grep -qx tools/pclab-rw.c <<<"$stale" || ! grep -qx tools/pclab-rw.c <<<"$out"; }; then
		pass "tools/iolab/iolab.h recompiles iolab, not pclab-rw"
	else
		fail "tools/iolab/iolab.h recompiles iolab, not pclab-rw" "$out"
	fi
	out=$(compiled -W tests/lib/both/tap.h build/host/lib-unit "${suites[@]}")
	if grep -qx lib/tests/lib-unit.c <<<"$out" &&
		! grep '^tests/guest/' <<<"$out" | grep -qvxF "$stale"; then
		pass "tests/lib/both/tap.h recompiles the host's lib-unit, not the guest suites"
	else
		fail "tests/lib/both/tap.h recompiles the host's lib-unit, not the guest suites" "$out"
	fi
else
	skip "header dependencies" "not built (make guest-programs build/host/lib-unit)"
fi

# iolab is the folder tools/iolab/: main.c beside its parts, not tools/iolab.c
ok "[ ! -e tools/iolab.c ]" "tools/iolab.c is gone: iolab lives in tools/iolab/"
out=$(make -n -W tools/iolab/main.c build/guest/bin/iolab 2>&1)
if grep -qF -- '-o build/guest/tools-obj/iolab/main.o tools/iolab/main.c' <<<"$out" &&
	grep -qF -- '-o build/guest/bin/iolab ' <<<"$out"; then
	pass "build/guest/bin/iolab is linked from tools/iolab/main.c"
else
	fail "build/guest/bin/iolab is linked from tools/iolab/main.c" "$out"
fi

# make help is the "## make USAGE: TEXT" comments above the targets.
# help_gaps MAKEFILE...: what they miss, a line each: a .PHONY target whose
# rule has none, a comment block that does not start "## make USAGE:" or
# stands above no rule (conditionals may come between)
help_gaps() {
	awk '
		/^\.PHONY:/ { phony = 1; sub(/^\.PHONY:/, "") }
		phony { more = sub(/\\$/, ""); for (i = 1; i <= NF; i++) want[$i] = FILENAME ":" FNR
			phony = more; next }
		/^## / { if (!block) { head = $0; at = FILENAME ":" FNR }; block = 1; next }
		!block || /^(ifeq|ifneq|else|endif)([ \t]|$)/ { next }
		{ block = 0
		  if (head !~ /^## make [^:]*:( |$)/) print at ": help text that does not start \"## make USAGE:\""
		  if (match($0, /^[^#\t:=][^:=]*:/)) {
			n = split(substr($0, 1, RLENGTH - 1), targets, " ")
			for (i = 1; i <= n; i++) documented[targets[i]] = 1
		  } else print at ": help text above no rule" }
		END { for (t in want) if (!(t in documented)) print want[t] ": .PHONY target " t " has no help text" }
	' "$@"
}
gaps=$(help_gaps Makefile pcviz/pcviz.mk)
is "$gaps" "" "every .PHONY target has its make help text above its rule"
cp Makefile "$tmp/Makefile"
printf '\n.PHONY: new-target\nnew-target:\n\t@true\n' >>"$tmp/Makefile"
gaps=$(help_gaps "$tmp/Makefile" pcviz/pcviz.mk)
if grep -q ' new-target has no help text' <<<"$gaps"; then
	pass "... and a new target without it is caught"
else
	fail "... and a new target without it is caught" "$gaps"
fi
help=$(make -s help 2>&1)
mapfile -t usages < <(sed -n 's/^## \(make [^:]*\):\( .*\)\{0,1\}$/\1/p' Makefile pcviz/pcviz.mk)
missing=
for use in "${usages[@]}"; do
	grep -qF "  $use" <<<"$help" || missing="$missing $use;"
done
is "$missing" "" "make help lists all ${#usages[@]} annotated targets"
help=$(make -s help MEM=123 2>&1)
if grep -q '^  MEM=123 ' <<<"$help"; then
	pass "make help shows the variables with their current values"
else
	fail "make help shows the variables with their current values" "$(tail -n 20 <<<"$help")"
fi

mapfile -t scripts < <({
	git ls-files | while read -r f; do
		[ -f "$f" ] && head -n 1 "$f" | grep -qE '^#!.*/(ba)?sh' && echo "$f"
	done
	git ls-files '*.sh'
} | sort -u)
if out=$(shellcheck "${scripts[@]}" 2>&1); then
	pass "shellcheck is clean on ${#scripts[@]} scripts"
else
	fail "shellcheck is clean on ${#scripts[@]} scripts" "$(printf '%s\n' "$out" | head -n 30)"
fi

if [ -d build/linux/.git ]; then
	ok "git -C build/linux rev-parse -q --verify pclab-base" "build/linux has the pristine tag pclab-base"
	applied=$(git -C build/linux rev-list --count pclab-base..HEAD)
	want=$(find kernel/patches -name '*.patch' ! -name '0000-cover-letter.patch' | wc -l)
	is "$applied" "$want" "build/linux carries exactly the $want patch(es) of kernel/patches"
	is "$(cat build/linux/.git/pclab-package-version 2>/dev/null)" \
		"$(dpkg-query -W -f='${Version}' linux-source-6.12)" \
		"the tree was extracted from the installed linux-source-6.12"
else
	skip "kernel tree checks" "build/linux not extracted"
fi

done_testing
