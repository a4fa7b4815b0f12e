#!/bin/bash
# What reaches the guest, and what an edit rebuilds.  The initramfs holds
# programs only; the scripts of the labs, exercises and bench and the test
# tree come through run-vm's read-only share of build/guest/inputs
# (Makefile: GUEST_INPUTS).  Checked here: an edit of a handout or of a
# guest script rebuilds no initramfs (make's graph, with -n), the inputs
# hold nothing the guest must not see (answer keys, solutions, the host's
# scripts), and every /usr/share/pclab or /usr/lib/pclab path the project
# names is in them.
set -u
# shellcheck source=../lib/host/preamble.sh
. "$(dirname "$0")/../lib/host/preamble.sh"
cd "$top" || exit 1
inputs=build/guest/inputs

# rebuilt ARGS...: the build steps `make -n ARGS` announces ("  INITRD ...").
# Kernels count as built: the graph below them is not what is tested.
rebuilt() {
	make -n -o build/kernel/release/arch/x86/boot/bzImage "$@" 2>&1 |
		sed -n 's/^echo "  \([A-Z]*\) .*/\1/p' | sort -u | paste -sd ' '
}
before=$(rebuilt lab1)
case " $before " in
*" INITRD "*)
	fail "the initramfs is up to date before the edits" "make -n lab1 rebuilds it already ($before): make initramfs first"
	;;
*)
	pass "the initramfs is up to date before the edits"
	after=$(rebuilt -W labs/lab1/README.md -W labs/lab1/ANSWERS.md lab1)
	is "$after" "$before" "a handout edit: make lab1 rebuilds nothing more than without it ('${after:-nothing}')"
	after=$(rebuilt -W labs/lab1/guest.sh -W labs/lib/guest.sh -W tests/guest/plumbing.sh lab1)
	case " $after " in
	*" INITRD "*) fail "a guest script edit rebuilds no initramfs" "make -n lab1: $after" ;;
	*" INPUTS "*) pass "a guest script edit rebuilds the inputs only ($after)" ;;
	*) fail "a guest script edit rebuilds the inputs" "make -n lab1: $after" ;;
	esac
	after=$(rebuilt -W tools/pclab-rw.c lab1)
	case " $after " in
	*" INITRD "*) pass "a tool's edit still rebuilds the initramfs (the test can tell)" ;;
	*) fail "a tool's edit still rebuilds the initramfs (the test can tell)" "make -n lab1: $after" ;;
	esac
	;;
esac

if [ ! -d "$inputs" ]; then
	fail "the guest's inputs are built" "$inputs is missing: make initramfs"
	done_testing
	exit
fi
# Nothing the guest must not see: answer keys, solutions, handouts, the
# host's run and grade scripts, the checks.
leaked=$(cd "$inputs" && find . -type f \( -path './labs/solutions/*' -o -name 'ANSWERS*' \
	-o -name '*.md' -o -name run -o -name grade -o -name '*.jq' -o -name '*.patch' \
	-o -path './labs/lib/host.sh' \) -printf '%P\n' | paste -sd ' ')
is "$leaked" "" "no answer key, solution, handout or host script is among the guest's inputs"
ok "[ -z \"\$(find '$inputs' -type l)\" ]" "the inputs hold no symbolic links"

# Every such path the project names, in the guest's view: /usr/share/pclab
# is the inputs, /usr/lib/pclab/tests their tests/.  Names in capitals
# (NAME) are placeholders.
missing=""
for path in $(git grep -ohE '/usr/(share|lib)/pclab[A-Za-z0-9_./-]*' -- . ':!kernel' | sort -u); do
	path=${path%.}
	case "$path" in
	*/[A-Z]* | /usr/lib/pclab | /usr/lib/pclab/) continue ;;
	# only the inputs labs/grade-submission makes for a hand-in hold them
	/usr/share/pclab/hidden-tests*) continue ;;
	/usr/lib/pclab/tests*) rel=tests${path#/usr/lib/pclab/tests} ;;
	/usr/share/pclab*) rel=${path#/usr/share/pclab} rel=${rel#/} ;;
	esac
	[ -e "$inputs/${rel:-.}" ] || missing="$missing $path"
done
is "$missing" "" "every /usr/share/pclab and /usr/lib/pclab path named in the project is in the inputs"
done_testing
