#!/bin/bash
# A kernel exercise's tree (kernel/scripts/exercise-tree): the series with
# the bug in one commit without parents, so that `git revert HEAD` or `git
# show HEAD` give nothing away (they are the whole tree) and `git diff HEAD` shows the student's
# changes only; -r starts again from the bug.  Needs the extracted tree
# (build/linux); makes a worktree of it in a scratch directory.
set -u
# shellcheck source=../lib/host/preamble.sh
. "$(dirname "$0")/../lib/host/preamble.sh"
cd "$top" || exit 1
src=build/linux
if ! git -C "$src" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	skip "kernel exercise trees" "$src is not extracted (make kernel)"
	done_testing
	exit
fi
patch=labs/kernel-exercises/drops-mapped.patch
dest=$tmp/kx/build/linux
trap 'git -C "$src" worktree remove --force "$dest" 2>/dev/null; rm -rf "$tmp"' EXIT
file=mm/filemap.c

kernel/scripts/exercise-tree "$src" "$patch" "$dest" >/dev/null
is "$(git -C "$dest" rev-list --count HEAD)" 1 "the exercise's tree is one commit, without parents"
is "$(git -C "$dest" status --porcelain --untracked-files=no)" "" "... and nothing changed against it"
ok "! cmp -s '$src/$file' '$dest/$file'" "... whose $file has the bug"
ok "git -C '$dest' apply --check -R '$top/$patch'" "... exactly the bug of $patch"
# no parent: a revert or a show of HEAD is the whole tree, not the bug
ok "! git -C '$dest' rev-parse -q --verify 'HEAD^'" "HEAD has no parent to revert to or diff against"

echo '/* a student was here */' >>"$dest/$file"
is "$(git -C "$dest" diff --stat HEAD | tail -n 1)" " 1 file changed, 1 insertion(+)" \
	"git diff HEAD shows the student's change and nothing else"
kernel/scripts/exercise-tree "$src" "$patch" "$dest" 2>"$tmp/again.err" >/dev/null
ok "grep -qx '/\\* a student was here \\*/' '$dest/$file' && [ ! -s '$tmp/again.err' ]" \
	"making it again keeps the student's work, without a notice while the series is the same"
kernel/scripts/exercise-tree -r "$src" "$patch" "$dest" >/dev/null
ok "! grep -q 'a student was here' '$dest/$file' && git -C '$dest' apply --check -R '$top/$patch'" \
	"-r starts again from the bug"
is "$(git -C "$dest" rev-list --count HEAD)" 1 "... in one commit again"
done_testing
