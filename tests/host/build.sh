#!/bin/bash
# Build-system promises: a second make does nothing, every shell script
# passes shellcheck, and the kernel tree is the packaged source plus exactly
# the series in kernel/patches.
set -u
# shellcheck source=../lib/host.sh
. "$(dirname "$0")/../lib/host.sh"
cd "$top" || exit 1

# make check has just built these; nothing may be left to do.
for target in build/kernel/debug/arch/x86/boot/bzImage build/initramfs.cpio build/headers/.installed; do
	if [ -e "$target" ]; then
		ok "make -q '$target'" "$target is up to date: a second make does nothing"
	else
		skip "$target is up to date" "not built"
	fi
done

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
