#!/bin/bash
# Every command the host-side scripts run comes from a package the project
# declares (scripts/packages.list, with what those packages depend on) or
# from the minimal base system (Essential or Priority: required, and make
# and git, which the README asks for): "make check" on a fresh minimal
# Debian must not find a command missing.  The commands are found by
# reading the scripts: the first word at a command position (line start,
# after | ; & ( $( then do else exec time !) that is a program on PATH.
set -u
# shellcheck source=../lib/host/preamble.sh
. "$(dirname "$0")/../lib/host/preamble.sh"
cd "$top" || exit 1

# Words at a command position that are not commands the scripts run: awk
# and gnuplot code, C code a test writes out (write), and prose in
# messages.  Each was read in its script.
not_run="as col column dir file install join kvm last man split sum top w write"

# host_scripts: the tracked shell scripts that run on the host (the
# guest's run under busybox, from the initramfs)
host_scripts() {
	local f
	git ls-files | while read -r f; do
		case "$f" in
		labs/*/guest.sh | labs/lib/proc.sh | labs/live.sh | bench/guest.sh | tests/guest/* | \
			tests/run-guest-suites | tests/soak | initramfs/init | tests/fixtures/* | kernel/patches/*) continue ;;
		esac
		[ -f "$f" ] || continue
		case "$f" in
		*.sh) ;;
		*) head -n 1 "$f" | grep -qE '^#!.*\b(ba)?sh\b' || continue ;;
		esac
		echo "$f"
	done
}

# Commands are looked up as on a fresh Debian, not in this user's PATH
# (a pyenv or /usr/local build would hide what the system lacks).
system_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# package COMMAND: the Debian package that installed it ("" if none)
package() {
	local path real p owner
	path=$(PATH=$system_path command -v "$1") || return 0
	real=$(realpath "$path")
	# merged /usr: dpkg knows some files by their /bin or /sbin name
	for p in "$real" "$path" "${real#/usr}" "${path#/usr}"; do
		# a diverted file's first lines name the diversion, not its owner
		owner=$(dpkg -S "$p" 2>/dev/null | grep -v '^diversion by ' | head -n 1)
		[ -z "$owner" ] || { echo "${owner%%:*}"; return 0; }
	done
}

declared=$(sed 's/#.*//' scripts/packages.list | tr -s ' \n' '\n' | grep .)
# shellcheck disable=SC2086 # a list of packages
closure=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
	--no-replaces --no-enhances $declared 2>/dev/null | grep -v '^[ <]' | sort -u)
ok "[ $(wc -l <<<"$closure") -gt $(wc -l <<<"$declared") ]" \
	"the declared packages and their dependencies: $(wc -l <<<"$closure") packages"

commands=$(host_scripts | while read -r f; do
	sed -E 's/#.*$//' "$f" |
		grep -oE '(^|[|;&(`]|\$\(|\bthen|\bdo|\belse|\bexec|\btime|!)[[:space:]]*[a-z][a-z0-9_.+-]*' |
		sed -E 's/.*[[:space:]|;&(`!]//; s/^(then|do|else|exec|time)//'
done | grep -E '^[a-z]' | sort -u)
# verdict COMMAND: declared, base, "undeclared PACKAGE" or none
verdict() {
	local pkg base
	pkg=$(package "$1")
	if [ -z "$pkg" ]; then
		echo none
	elif grep -qx "$pkg" <<<"$closure" || [ "$pkg" = make ] || [ "$pkg" = git ]; then
		echo declared
	else
		base=$(dpkg-query -W -f='${Essential} ${Priority}' "$pkg" 2>/dev/null)
		case "$base" in
		yes* | *required) echo base ;;
		*) echo "undeclared $pkg" ;;
		esac
	fi
}

# The check can fail: man-db is neither declared nor in the base system.
if PATH=$system_path command -v man >/dev/null; then
	is "$(verdict man)" "undeclared man-db" "a command of an undeclared package is found out (man)"
else
	skip "a command of an undeclared package is found out" "man is not installed"
fi

# A diverted command is its package's, not "diversion by ..." (linux-perf
# diverts /usr/bin/perf to a wrapper)
if [ -n "$(dpkg-divert --list /usr/bin/perf 2>/dev/null)" ]; then
	is "$(package perf)" linux-perf "a diverted command's package is its owner (perf: linux-perf)"
else
	skip "a diverted command's package is its owner" "/usr/bin/perf is not diverted here"
fi

n=0
for c in $commands; do
	[ "$(PATH=$system_path type -t "$c")" = file ] || continue
	case " $not_run " in *" $c "*) continue ;; esac
	n=$((n + 1))
	v=$(verdict "$c")
	case "$v" in
	declared) pass "$c: its package is declared, or a dependency of one that is" ;;
	base) pass "$c: its package is in the minimal base system" ;;
	none) fail "$c: from a Debian package" "no package owns $(PATH=$system_path command -v "$c")" ;;
	*) fail "$c: its package is declared" "add ${v#undeclared } to scripts/packages.list" ;;
	esac
done
ok "[ $n -ge 40 ]" "the scan found the scripts' commands ($n)"
done_testing
