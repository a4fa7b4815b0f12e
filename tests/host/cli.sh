#!/bin/bash
# One command-line convention for every command with a man page in docs/man
# (include/pclab/cli.h, util-linux's): --help prints the usage on stdout
# and exits 0; -V, --version prints "TOOL (pclab) VERSION" and exits 0; an
# unknown option, an option without its value or a bad value prints one
# line and "Try 'TOOL --help'." on stderr and exits 2.  And every option
# the source defines (its getopt_long() tables, run-vm's getopts and case)
# is in --help, heads an item of the man page's OPTIONS, and is in its
# SYNOPSIS, or the SYNOPSIS says [options].
#
# Usage: tests/host/cli.sh [--tree DIR]
#   --tree DIR  read the sources and man pages from DIR instead of the
#               checkout (the programs are still the checkout's builds)
# Without --tree, the test ends by running itself on a copy of the tree
# with one option taken out of a man page and one added to a source: that
# run must fail on exactly those two, or this test could not fail.
set -u
# shellcheck source=../lib/host/preamble.sh
. "$(dirname "$0")/../lib/host/preamble.sh"
tree=$top
if [ "${1:-}" = --tree ] && [ -n "${2:-}" ]; then
	tree=$2
fi

# The commands: the program to run, the source with its options, and the
# arguments of a bad value (refused before any I/O, so a path that does
# not exist must not matter).
tools="pclab-rw iolab pcviz run-vm"
describe() { # TOOL: sets bin, src, man, pre (arguments before all others), bad
	man=$tree/docs/man/$1.1
	pre=()
	case "$1" in
	pclab-rw) bin=$top/build/guest/bin/pclab-rw src=tools/pclab-rw.c bad=(--block 0 /nonexistent) ;;
	iolab) bin=$top/build/guest/bin/iolab src=tools/iolab/options.c bad=(--bs 12X /nonexistent) ;;
	pcviz) bin=$top/build/host/pcviz src=pcviz/options.c bad=(--interval 0 /nonexistent) ;;
	run-vm)
		bin=$top/initramfs/run-vm src=initramfs/run-vm bad=(-m abc true)
		# past the checks of the kernel and the initramfs, to the values'; a
		# run that got further would stay in $tmp
		pre=(-k "$top/Makefile" -i "$top/Makefile" -o "$tmp/results" -n cli-test)
		;;
	esac
	src=$tree/$src
}

# options SOURCE: one line per option the source defines, "SHORT LONG
# VALUE": -w --write 0, -k - 1 (no long form), - --ascii 0 (no short one).
options() {
	case "$1" in
	*.c)
		# the string given to getopt_long(), and the long options' table
		awk -v q="'" '
			match($0, /shortopts\[\] = "[^"]*"/) {
				s = substr($0, RSTART, RLENGTH); sub(/^[^"]*"/, "", s); sub(/"$/, "", s)
				for (i = 1; i <= length(s); i++) {
					c = substr(s, i, 1)
					if (c == ":") continue
					order[++n] = c
					value[c] = substr(s, i + 1, 1) == ":"
				}
			}
			{
				line = $0
				while (match(line, /\{ "[a-z][a-z-]*", [a-z_]+_argument, NULL, [^}]*\}/)) {
					e = substr(line, RSTART, RLENGTH)
					line = substr(line, RSTART + RLENGTH)
					split(e, f, "[\"," q " ]+")
					name = f[2]; val = f[5]
					lvalue[name] = f[3] == "required_argument"
					# a character, unless the number of a long-only option (OPT_...)
					if (length(val) == 1) long[val] = name
					lorder[++m] = name; lval[name] = val
				}
			}
			END {
				for (i = 1; i <= n; i++) {
					c = order[i]
					print "-" c, (c in long ? "--" long[c] : "-"), value[c]
				}
				# long-only options, and any whose character getopt is not given
				for (i = 1; i <= m; i++)
					if (!(lval[lorder[i]] in value))
						print "-", "--" lorder[i], lvalue[lorder[i]]
			}' "$1"
		;;
	*)
		# getopts' string; its long options are the cases under "-)", and
		# a long one is the short one that does the same
		awk '
			match($0, /getopts "[^"]*"/) {
				s = substr($0, RSTART + 9, RLENGTH - 10)
				for (i = 1; i <= length(s); i++) {
					c = substr(s, i, 1)
					if (c == ":" || c == "-") continue
					order[++n] = c
					value[c] = substr(s, i + 1, 1) == ":"
				}
				inopts = 1
				next
			}
			inopts && /^\t-\)$/ { inlong = 1; next }
			inlong && /^\t\tesac/ { inlong = 0; next }
			inlong && match($0, /^\t\t[a-z][a-z-]*\) /) {
				act = substr($0, RLENGTH + 1)
				long[act] = substr($0, 3, RLENGTH - 4)
				lorder[++m] = act
				next
			}
			inopts && !inlong && match($0, /^\t[A-Za-z]\) /) { action[substr($0, 2, 1)] = substr($0, RLENGTH + 1) }
			inopts && /^done/ { inopts = 0 }
			END {
				for (i = 1; i <= n; i++) {
					c = order[i]
					a = action[c]
					print "-" c, (a != "" && a in long ? "--" long[a] : "-"), value[c]
					if (a != "") paired[a] = 1
				}
				for (i = 1; i <= m; i++)
					if (!(lorder[i] in paired))
						print "-", "--" long[lorder[i]], 0
			}' "$1"
		;;
	esac
}

# The man page's text without roff: escapes and macro names gone, one
# line per source line.
deroff() {
	sed -e '/^\.\\"/d' -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/\\ / /g' -e 's/\\%//g' \
		-e 's/"//g' -e 's/^\.[A-Za-z]*//'
}
# section MAN NAME: the lines of the section .SH NAME
section() {
	awk -v s=".SH $2" '/^\.SH/ { on = $0 == s; next } on' "$1"
}
# item_heads MAN: the head lines of the OPTIONS section's items (after .TP)
item_heads() {
	section "$1" OPTIONS | awk 'tp { print } { tp = /^\.TP/ }' | deroff
}
# has TEXT WORD: WORD (-x or --name) stands in TEXT as a word of its own
has() {
	printf '%s\n' "$1" | grep -Eq -- "(^|[^A-Za-z0-9-])$2([^A-Za-z0-9-]|$)"
}

# convention TOOL: what the program does with --help, --version and usage errors
convention() {
	local tool=$1 status want first
	describe "$tool"
	status=0
	"$bin" --help >"$tmp/out" 2>"$tmp/err" || status=$?
	if [ "$status" = 0 ] && grep -q '^Usage: ' "$tmp/out" && [ ! -s "$tmp/err" ]; then
		pass "$tool --help: the usage on stdout, status 0"
	else
		fail "$tool --help: the usage on stdout, status 0" \
			"status $status; stdout: $(head -n 3 "$tmp/out"); stderr: $(cat "$tmp/err")"
	fi
	status=0
	"$bin" --version >"$tmp/out" 2>"$tmp/err" || status=$?
	# what the C programs were built with, what run-vm says now
	case "$bin" in
	*/run-vm) want=$("$top/scripts/version") ;;
	*) want=$(cat "$top/build/version" 2>/dev/null) ;;
	esac
	if [ "$status" = 0 ] && [ "$(cat "$tmp/out")" = "$tool (pclab) $want" ] && [ ! -s "$tmp/err" ] &&
		[[ "$want" =~ ^[0-9A-Za-z._+-]+$ ]]; then
		pass "$tool --version: $(cat "$tmp/out")"
	else
		fail "$tool --version: '$tool (pclab) VERSION', status 0" \
			"status $status; stdout: $(cat "$tmp/out"); stderr: $(cat "$tmp/err"); want version '$want'"
	fi
	status=0
	"$bin" -V >"$tmp/out2" 2>&1 || status=$?
	ok "[ $status = 0 ] && cmp -s '$tmp/out' '$tmp/out2'" "$tool -V is --version"

	first=$(options "$src" | awk '$3 == 1 { print ($2 != "-" ? $2 : $1); exit }')
	usage_error "$tool" "an unknown long option" "${pre[@]}" --no-such-option
	usage_error "$tool" "an unknown short option" "${pre[@]}" -9
	usage_error "$tool" "$first without its value" "${pre[@]}" "$first"
	usage_error "$tool" "a bad value (${bad[*]})" "${pre[@]}" "${bad[@]}"
}

# usage_error TOOL DESCRIPTION ARGS...: status 2, nothing on stdout, and on
# stderr "TOOL: ..." and "Try 'TOOL --help'."
usage_error() {
	local tool=$1 what=$2 status=0
	shift 2
	"$bin" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null || status=$?
	if [ "$status" = 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 2 ] &&
		[[ "$(head -n 1 "$tmp/err")" == "$tool: "?* ]] &&
		[ "$(tail -n 1 "$tmp/err")" = "Try '$tool --help'." ]; then
		pass "$tool, $what: status 2, $(head -n 1 "$tmp/err")"
	else
		fail "$tool, $what: status 2, one line and \"Try '$tool --help'.\" on stderr" \
			"status $status; stdout: $(head -n 3 "$tmp/out"); stderr: $(cat "$tmp/err")"
	fi
}

# documented TOOL: every option of the source in --help, in an OPTIONS item
# of the man page and in its SYNOPSIS
documented() {
	local tool=$1 help heads synopsis short long missing n=0
	describe "$tool"
	if [ ! -r "$man" ]; then
		fail "$tool has a man page" "no $man"
		return
	fi
	help=$("$bin" --help 2>/dev/null)
	heads=$(item_heads "$man")
	synopsis=$(section "$man" SYNOPSIS | deroff)
	while read -r short long _; do
		n=$((n + 1))
		missing=""
		for o in "$short" "$long"; do
			[ "$o" = - ] || has "$help" "$o" || missing="$missing, $o not in --help"
			[ "$o" = - ] || has "$heads" "$o" || missing="$missing, $o heads no item of OPTIONS"
		done
		if ! printf '%s\n' "$synopsis" | grep -Eq '\[ *options *\]' &&
			! { [ "$short" != - ] && has "$synopsis" "$short"; } &&
			! { [ "$long" != - ] && has "$synopsis" "$long"; }; then
			missing="$missing, not in the SYNOPSIS"
		fi
		if [ -z "$missing" ]; then
			pass "$tool: $short $long is documented in --help and the man page"
		else
			fail "$tool: $short $long is documented in --help and the man page" "${missing#, }"
		fi
	done < <(options "$src")
	[ "$n" -gt 2 ] || fail "$tool: the options of $src are found" "only $n"
}

for tool in $tools; do
	describe "$tool"
	if [ ! -x "$bin" ]; then
		skip "$tool's command line" "$bin is not built (make initramfs, make pcviz)"
		continue
	fi
	[ "$tree" != "$top" ] || convention "$tool"
	documented "$tool"
done
# a command with a man page and no checks above would escape the convention
for m in "$tree"/docs/man/*.1; do
	name=$(basename "$m" .1)
	ok "case ' $tools ' in *' $name '*) true ;; *) false ;; esac" "$name(1) is a command checked here"
done

# The test must fail where the documentation is short: a copy of the tree
# with the item of iolab's --hits cut out of its man page, and an option
# added to pclab-rw's source that nothing documents (nor the program has).
if [ "$tree" = "$top" ]; then
	copy=$tmp/tree
	mkdir -p "$copy/docs/man" "$copy/tools/iolab" "$copy/pcviz" "$copy/initramfs"
	cp "$top"/docs/man/*.1 "$copy/docs/man/"
	cp "$top/tools/iolab/options.c" "$copy/tools/iolab/"
	cp "$top/pcviz/options.c" "$copy/pcviz/"
	cp "$top/initramfs/run-vm" "$copy/initramfs/"
	awk '/^\.(TP|PP|SH)/ { skip = 0 }
		/^\.TP/ { held = $0; next }
		held != "" && /\\-\\-hits/ { skip = 1; held = ""; next }
		skip { next }
		held != "" { print held; held = "" }
		{ print }' "$top/docs/man/iolab.1" >"$copy/docs/man/iolab.1"
	sed -e 's/^\(\t*\){ "help", no_argument, NULL, .h. },$/&\n\1{ "undocumented", no_argument, NULL, '"'Z'"' },/' \
		-e 's/\(shortopts\[\] = "[^"]*\)"/\1Z"/' "$top/tools/pclab-rw.c" >"$copy/tools/pclab-rw.c"
	status=0
	"$0" --tree "$copy" >"$tmp/self.tap" 2>&1 || status=$?
	failed=$(grep '^not ok' "$tmp/self.tap")
	if [ "$status" != 0 ] && [ "$(printf '%s\n' "$failed" | grep -c .)" = 2 ] &&
		printf '%s\n' "$failed" | grep -q 'iolab: -H --hits is documented' &&
		printf '%s\n' "$failed" | grep -q 'pclab-rw: -Z --undocumented is documented'; then
		pass "self-check: an option cut out of a man page and one added to a source fail, nothing else"
	else
		fail "self-check: an option cut out of a man page and one added to a source fail, nothing else" \
			"status $status; $(grep -A3 '^not ok' "$tmp/self.tap" | head -n 20)"
	fi
	diag "$(grep -A1 '^not ok' "$tmp/self.tap")"
fi

done_testing
