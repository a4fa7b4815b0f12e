#!/bin/bash
# The runner without a guest: run-vm and `make run` from copies of the tree
# (one of them in a directory whose path has spaces), with a stand-in for
# qemu-system-x86_64 on PATH.  It checks that run-vm deletes only what it
# made, that two runs of one NAME cannot clobber each other, that the
# Makefile passes its variables intact, and the exit statuses and messages.
set -u
# shellcheck source=../lib/host/preamble.sh
. "$(dirname "$0")/../lib/host/preamble.sh"
gen_init_cpio=$top/build/host/gen_init_cpio
if [ ! -x "$gen_init_cpio" ]; then
	skip "run-vm with a stand-in QEMU" "$gen_init_cpio is not built (make kernel)"
	done_testing
	exit
fi
fake=$tmp/fake
mkdir -p "$fake" "$tmp/bin"
export FAKE_QEMU_DIR=$fake

# The stand-in reads the run's files from the initrd (the tree copies have
# an empty base initramfs, so the initrd is the run's own archive), writes
# the command, /etc/pclab/env and the list of /extra into the results share
# (-fsdev) as cmd, env and extra.list, the files of the inputs share as
# inputs.list (with "read-only" first if QEMU was told so), records its parent's arguments and the disks' file systems
# (UUID, type, KiB allocated on the host) in FAKE_QEMU_DIR, and reports
# "PCLAB-EXIT N" for "exit N".
# "hold" waits for FAKE_QEMU_DIR/release.NAME (at most 60 s); "silent" ends
# without a status.
cat >"$tmp/bin/qemu-system-x86_64" <<'EOF'
#!/bin/bash
set -eu
console="" initrd="" results="" inputs="" ro="" drives=() args=("$@")
while [ $# -gt 0 ]; do
	case "$1" in
	-initrd) initrd=$2; shift ;;
	-serial) case "$2" in file:*) [ -n "$console" ] || console=${2#file:} ;; esac; shift ;;
	-drive)
		file=${2#*,file=}
		drives+=("${file%%,format=*}")
		shift ;;
	-fsdev)
		path=${2#local,id=*,path=}
		path=${path%%,security_model=*}
		case "$2" in
		local,id=results,*) results=${path//,,/,} ;;
		local,id=inputs,*)
			inputs=${path//,,/,}
			case "$2" in *,readonly=on*) ro=read-only ;; esac ;;
		esac
		shift ;;
	esac
	shift
done
[ -n "$initrd" ] || exit 1
: >>"$console"
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cpio -i --quiet --to-stdout etc/pclab/cmd <"$initrd" >"$d/cmd" || true
cpio -i --quiet --to-stdout etc/pclab/env <"$initrd" >"$d/env"
cpio -it --quiet <"$initrd" | { grep '^extra/' || true; } >"$d/extra.list"
name=$(sed -n "s/^PCLAB_RUN='\(.*\)'$/\1/p" "$d/env")
tr '\0' '\n' </proc/$PPID/cmdline >"$FAKE_QEMU_DIR/parent.$name"
printf '%s\n' "${args[@]}" >"$FAKE_QEMU_DIR/args.$name"
for f in "${drives[@]}"; do
	blkid -o value -s TYPE -s UUID "$f" | tr '\n' ' '
	du -k "$f" | cut -f 1
done >"$FAKE_QEMU_DIR/disks.$name"
[ -d "$results" ] && cp "$d/cmd" "$d/env" "$d/extra.list" "$results/"
[ -d "$inputs" ] && { echo "$ro"; cd "$inputs" && find . -type f | sort; } >"$results/inputs.list"
cmd=$(cat "$d/cmd")
case "$cmd" in
silent) exit 0 ;;
plant)
	# what a guest could leave in its share were QEMU to pass links and
	# special files through: each named like a file the host writes later
	ln -s "$FAKE_QEMU_DIR/victim" "$results/checks.jsonl"
	mkfifo "$results/results.jsonl"
	mkdir -p "$results/sub/.virtfs_metadata"
	ln -s / "$results/sub/steps.csv"
	echo mode >"$results/sub/.virtfs_metadata/steps.csv"
	echo data >"$results/sub/kept.csv"
	status=0 ;;
hold)
	touch "$FAKE_QEMU_DIR/held.$name"
	for _ in $(seq 600); do
		[ ! -e "$FAKE_QEMU_DIR/release.$name" ] || break
		sleep 0.1
	done
	status=0 ;;
"exit "*) status=${cmd#exit } ;;
*) status=0 ;;
esac
printf 'PCLAB-BOOTED 1.00 0.50\r\nPCLAB-EXIT %s\r\n' "$status" >>"$console"
EOF
chmod +x "$tmp/bin/qemu-system-x86_64"
export PATH="$tmp/bin:$PATH"

# copy_tree DIR: the parts of the tree that run-vm and `make run` use, with
# a stand-in kernel, an empty base initramfs and one input file.
copy_tree() {
	mkdir -p "$1/build/host" "$1/build/kernel/debug/arch/x86/boot" "$1/pcviz" "$1/kernel" "$1/scripts" \
		"$1/build/guest/inputs/labs/lab1"
	echo 'echo lab 1' >"$1/build/guest/inputs/labs/lab1/guest.sh"
	cp -a "$top/initramfs" "$top/Makefile" "$1/"
	cp -a "$top/scripts/version" "$1/scripts/"
	cp -a "$top/kernel/scripts" "$top/kernel/config" "$1/kernel/"
	cp -a "$top/pcviz/pcviz.mk" "$1/pcviz/"
	cp "$gen_init_cpio" "$1/build/host/"
	echo "not a kernel" >"$1/build/kernel/debug/arch/x86/boot/bzImage"
	: >"$1/build/initramfs.cpio"
}
tree=$tmp/tree
copy_tree "$tree"
kernel=$tree/build/kernel/debug/arch/x86/boot/bzImage
res=$tmp/results
mkdir -p "$res"

# said PATTERN: the output of the last run matches the grep PATTERN.
said() { printf '%s\n' "$out" | grep -q -- "$1"; }
# verdict RC DESCRIPTION: one check, passing when RC (a $? just taken) is 0.
verdict() {
	if [ "$1" = 0 ]; then
		pass "$2"
	else
		fail "$2" "status $status; output: $out"
	fi
}

# runvm ARGS...: run-vm of the copy with TCG (no probe) and no scratch disks;
# its output in $out, its status in $status.
runvm() {
	status=0
	out=$("$tree/initramfs/run-vm" -k "$kernel" -i "$tree/build/initramfs.cpio" -a tcg -d '' "$@" 2>&1) ||
		status=$?
}

runvm -o "$res" -n basic -- 'exit 3'
is "$status" 3 "run-vm exits with the status the guest reports"
is "$(cat "$res/basic/cmd" 2>/dev/null)" "exit 3" "the guest's results share is RESULTS/NAME"
is "$(cat "$res/basic/inputs.list" 2>/dev/null)" "read-only
./labs/lab1/guest.sh" "the guest's inputs share is build/guest/inputs, read-only"
ok "[ ! -e '$tree/build/vm/basic/inputs' ]" "the run's snapshot of the inputs is gone after it"
runvm -o "$res" -n noinputs -r "$tmp/nowhere" -- true
[ "$status" = 2 ] && said "^run-vm: the guest's inputs $tmp/nowhere not found (make initramfs)"
verdict $? "run-vm refuses inputs that are not there, naming the make target: ${out%%$'\n'*}"
ok "[ -s '$res/basic/console.log' ] && ! grep -q \$'\\r' '$res/basic/console.log'" \
	"the console log is there, without carriage returns"
ok "grep -qx 'virtio-9p-pci,fsdev=results,mount_tag=results' '$fake/args.basic' &&
	! grep -q '^if=none,id=results,' '$fake/args.basic'" \
	"RESULTS/NAME is shared over 9p, as the mount tag /init mounts, and is no disk"
# ACCEL=icount: one TCG thread with the instruction-counted clock, and the
# guest told that its TSC ticks with it
runvm -a icount -c 1 -o "$res" -n icount -- 'exit 0'
ok "[ $status = 0 ] && grep -qx 'tcg,thread=single' '$fake/args.icount' &&
	grep -qx 'shift=0,sleep=on' '$fake/args.icount' &&
	grep -q 'tsc_early_khz=1000000 tsc=reliable' '$fake/args.icount'" \
	"ACCEL=icount runs QEMU with --icount and the guest's TSC at its 1 GHz"
ok "! grep -q icount '$fake/args.basic'" "other runs have no -icount"

# Shims that refuse to delete or create anything outside $tmp, and log the
# attempt: today's run-vm would otherwise delete /NAME here.
mkdir -p "$tmp/shim"
for tool in rm rmdir mkdir; do
	real=$(command -v "$tool")
	cat >"$tmp/shim/$tool" <<EOF
#!/bin/bash
for a in "\$@"; do
	case "\$a" in
	-*) ;;
	'$tmp'/*) ;;
	*) echo "$tool \$*" >>'$tmp/outside.log'; exit 1 ;;
	esac
done
exec '$real' "\$@"
EOF
	chmod +x "$tmp/shim/$tool"
done
refused() { # description, then the run-vm arguments
	local what=$1
	shift
	rm -f "$tmp/outside.log"
	PATH="$tmp/shim:$PATH" runvm "$@"
	if [ "$status" = 2 ] && [ ! -e "$tmp/outside.log" ] && [ -e "$res/keep" ] &&
		printf '%s' "$out" | grep -q '^run-vm: '; then
		first=${out%%$'\n'*}
		pass "run-vm refuses $what with status 2 and deletes nothing: ${first#run-vm: }"
	else
		fail "run-vm refuses $what with status 2 and deletes nothing" \
			"status $status; output: $out; outside: $(cat "$tmp/outside.log" 2>/dev/null)"
	fi
}
echo precious >"$res/keep"
refused "an empty results directory (-o '')" -o "" -n pclab-victim -- true
refused "the root as results directory (-o /)" -o / -n pclab-victim -- true
refused "a results directory that resolves to the root (-o /tmp/..)" -o /tmp/.. -n pclab-victim -- true
RESULTS=/ refused "RESULTS=/" -n pclab-victim -- true
for bad in .. . a/b ../results /abs; do
	refused "NAME '$bad'" -o "$res" -n "$bad" -- true
done
ok "[ ! -e /pclab-victim ]" "nothing was made for a refused run"

mkdir -p "$res/foreign"
echo mine >"$res/foreign/data"
runvm -o "$res" -n foreign -- true
ok "[ $status = 2 ] && [ -e '$res/foreign/data' ]" \
	"a results directory run-vm did not make is refused and kept (status $status)"
said "$res/foreign"
verdict $? "and the message names it: ${out%%$'\n'*}"
mkdir -p "$res/empty"
runvm -o "$res" -n empty -- true
is "$status" 0 "an empty directory in its place is taken"
runvm -o "$res" -n basic -- 'exit 0'
ok "[ $status = 0 ] && [ \"\$(cat '$res/basic/cmd')\" = 'exit 0' ]" \
	"a directory of an earlier run of the name is replaced"

RESULTS=$res runvm -n envres -- true
is "$status" 0 "RESULTS from the environment is the results directory"
ok "[ -s '$res/envres/console.log' ]" "and the run's files land there"

# Two runs of one name at a time: the second is refused and names the first.
"$tree/initramfs/run-vm" -k "$kernel" -i "$tree/build/initramfs.cpio" -a tcg -d '' -o "$res" \
	-n twice -- hold >"$tmp/first.out" 2>&1 &
first=$!
for _ in $(seq 600); do
	[ ! -e "$fake/held.twice" ] || break
	sleep 0.1
done
ok "[ -e '$fake/held.twice' ]" "the first run of NAME=twice is in its guest"
runvm -o "$tmp/results2" -n twice -- 'exit 0'
[ "$status" = 2 ] && said "pid $first,"
verdict $? "a second run of the same name is refused, naming the first (pid $first): ${out%%$'\n'*}"
ok "[ \"\$(cat '$res/twice/cmd' 2>/dev/null || echo 'before the first run ended')\" != 'exit 0' ]" \
	"the second run did not touch the first's results"
touch "$fake/release.twice"
status=0
wait "$first" || status=$?
ok "[ $status = 0 ] && [ \"\$(cat '$res/twice/cmd')\" = hold ]" \
	"the first run ends with its own command's results (status $status)"

ok "grep -qx 'local,id=results,path=$res/basic,security_model=mapped-file,fmode=0644,dmode=0755' '$fake/args.basic'" \
	"the share maps the guest's links and special files to plain files (security_model=mapped-file)"
# A guest's symlinks, FIFOs and devices: removed after the run, never
# followed; the host file a link points at is untouched.
echo precious >"$fake/victim"
runvm -o "$res" -n plant -- plant
is "$status" 2 "a share holding links or FIFOs after the run: status 2"
said "^run-vm: .*not regular files.*checks.jsonl"
verdict $? "... and the message names them: ${out%%$'\n'*}"
is "$(find "$res/plant" ! -type f ! -type d | wc -l)" 0 "... they are removed"
is "$(cat "$fake/victim")" precious "... the file a planted link named is untouched"
ok "[ -s '$res/plant/console.log' ] && [ \"\$(cat '$res/plant/sub/kept.csv')\" = data ]" \
	"... the regular files stay"
ok "[ -z \"\$(find '$res/plant' -name .virtfs_metadata)\" ]" \
	"the guest's file modes (QEMU's .virtfs_metadata) are not left in the results"

# Numbers: decimal whatever their leading zeros, at most nine digits (more
# made [ -lt ] fail, and the value went through unchecked).
for knob in "-m MEM" "-c CPUS" "-t TIMEOUT" "-b BOOT_TIMEOUT" "-w DISK_WRITE_MBPS"; do
	runvm -o "$res" -n knobs "${knob% *}" 99999999999999999999 -- true
	[ "$status" = 2 ] && said "^run-vm: ${knob#* }=99999999999999999999: "
	verdict $? "${knob#* } of 20 digits is refused: ${out%%$'\n'*}"
done
runvm -o "$res" -n knobs -m 0256 -c 02 -- true
ok "[ $status = 0 ] && grep -x -A1 -- -m '$fake/args.knobs' | grep -qx 256 &&
	grep -x -A1 -- -smp '$fake/args.knobs' | grep -qx 2" \
	"MEM=0256 and CPUS=02 reach QEMU as 256 and 2 (status $status)"
for mbps in 010 08; do
	runvm -o "$res" -n knobs -d ext4 -s 512M -w "$mbps" -- true
	ok "[ $status = 0 ] && grep -q 'throttling.bps-write=$((10#$mbps))000000\$' '$fake/args.knobs'" \
		"DISK_WRITE_MBPS=$mbps is $((10#$mbps)) MB/s, not octal (status $status)"
done

# TERM goes into the guest's /etc/pclab/env, which /init sources: a quote
# in it must not end the value and run the rest.
cat >"$tmp/on-a-tty" <<ON_A_TTY
#!/bin/bash
TERM=\$TEST_TERM exec '$tree/initramfs/run-vm' -k '$kernel' -i '$tree/build/initramfs.cpio' -a tcg -d '' \\
	-o '$res' -n term -- true
ON_A_TTY
chmod +x "$tmp/on-a-tty"
on_a_tty() { # TERM: run-vm with that TERM and a terminal on stdout
	rm -rf "$res/term"
	status=0
	out=$(TEST_TERM=$1 script -qec "$tmp/on-a-tty" /dev/null </dev/null 2>&1) || status=$?
}
on_a_tty xterm-256color
ok "[ $status = 0 ] && grep -qx \"PCLAB_TERM='xterm-256color'\" '$res/term/env'" \
	"a terminal's TERM reaches the guest (status $status)"
on_a_tty "xterm'; echo INJECTED; '"
ok "[ $status = 2 ] && ! grep -q INJECTED '$res/term/env' 2>/dev/null" \
	"a TERM with a quote is refused, never written into the guest's env (status $status: ${out%%$'\r'*})"

# What run-vm takes, keeps and deletes of a directory at RESULTS/NAME
mkdir -p "$res/sticky"
chmod 1777 "$res/sticky"
runvm -o "$res" -n sticky -- true
runvm -o "$res" -n sticky -- 'exit 0'
ok "[ $status = 0 ] && [ \"\$(stat -c %a '$res/sticky')\" = 1777 ] && [ \"\$(cat '$res/sticky/cmd')\" = 'exit 0' ]" \
	"an empty directory is taken as it is, its mode kept over two runs (status $status)"
cp -a "$res/basic" "$res/copied"
echo mine >"$res/copied/data"
runvm -o "$res" -n copied -- true
ok "[ $status = 2 ] && [ -e '$res/copied/data' ]" \
	"a directory holding a marker copied from another run is refused and kept (status $status)"
said "$res/copied"
verdict $? "... and the message names it: ${out%%$'\n'*}"
runvm -o "$res" -n "$(printf '%0300d' 0)" -- true
[ "$status" = 2 ] && said "^run-vm: NAME=0*: .*at most"
verdict $? "a NAME of 300 characters is refused as a usage error: ${out:0:40}...${out:320:60}"

runvm -o "$res" -n silent -- silent
is "$status" 125 "a guest that reports no status gives 125"
said 'without reporting a status'
verdict $? "and says so"
runvm -o "$res" -n slow -t 1 -- hold
is "$status" 124 "a run over TIMEOUT gives 124"
touch "$fake/release.slow"

runvm -o "$res" -n disks -d "ext4 ext4-b xfs" -s 512M -- true
is "$status" 0 "a run with scratch disks"
is "$(cut -d' ' -f2 "$fake/disks.disks" 2>/dev/null | tr '\n' ' ')" "ext4 ext4 xfs " \
	"the scratch disks have their file systems"
is "$(cut -d' ' -f1 "$fake/disks.disks" 2>/dev/null | sort -u | wc -l)" 3 \
	"each disk has its own file system UUID"
is "$(awk '$3 > 8192' "$fake/disks.disks" 2>/dev/null)" "" \
	"each fresh disk takes at most 8 MiB of host disk (after mkfs: 64 MiB and more)"
ok "[ -z \"\$(find '$tree/build/vm/disks' -name '*.img')\" ]" "no disk image is left in the work directory"
for bad in "ext4-a/b" "ext4-a,b" "xfs-"; do
	runvm -o "$res" -n disks -d "$bad" -- true
	ok "[ $status = 2 ]" "DISKS='$bad' is refused (status $status)"
done
runvm -o "$res" -n disks -s 8/G -- true
ok "[ $status = 2 ]" "DISK_SIZE=8/G is refused (status $status)"

# The accelerator probe, separately and through run-vm: the stand-in never
# boots a KVM guest, so on any host KVM is found unusable.
status=0
"$tree/initramfs/kvm-probe" >/dev/null 2>&1 || status=$?
is "$status" 2 "kvm-probe without a kernel is a usage error"
status=0
why=$("$tree/initramfs/kvm-probe" "$kernel" 2>&1) || status=$?
out=$why
[ "$status" = 1 ] && [ "$(printf "%s\n" "$why" | wc -l)" = 1 ]
verdict $? "kvm-probe says in one line why KVM is not usable here: $why"
status=0
"$tree/initramfs/run-vm" -k "$kernel" -i "$tree/build/initramfs.cpio" -a auto -d '' -o "$res" \
	-n probe -- true >/dev/null 2>"$tmp/probe.err" || status=$?
is "$(grep -c '^run-vm: KVM not usable (.*); using TCG emulation, slower$' "$tmp/probe.err")" 1 \
	"ACCEL=auto without KVM prints the one-line TCG notice"

# A checkout, results and EXTRA directories whose paths have spaces, used
# through make.
space="$tmp/tree with space"
copy_tree "$space"
mkdir -p "$tmp/ex tra"
echo hello >"$tmp/ex tra/hello"
mk() { # TREE ARGS...
	local dir=$1
	shift
	status=0
	out=$(make -s -C "$dir" -o build/kernel/debug/arch/x86/boot/bzImage -o build/initramfs.cpio -o build/guest/inputs.stamp \
		KERNEL=debug "$@" 2>&1) || status=$?
}
mk "$space" run NAME=spaced "RESULTS=$tmp/res ults" "EXTRA=$tmp/ex tra" CMD="exit 4 # it's \"quoted\""
[ "$status" = 2 ] && said "run] Error 4"
verdict $? "make run in a checkout with spaces, with RESULTS and EXTRA with spaces: the guest's status 4 fails it"
is "$(cat "$tmp/res ults/spaced/cmd" 2>/dev/null)" "exit 4 # it's \"quoted\"" "CMD reaches the guest verbatim"
ok "grep -qx 'extra/hello' '$tmp/res ults/spaced/extra.list'" "EXTRA reaches the guest"
mk "$space" run NAME=spaced RESULTS= CMD=true
[ "$status" != 0 ] && said "^run-vm: .*results" && ! said "invalid option"
verdict $? "make run RESULTS= is refused with a clear message: ${out%%$'\n'*}"
mk "$space" run "NAME=two words" "RESULTS=$tmp/res ults" CMD=true
[ "$status" != 0 ] && said "^run-vm: NAME=two words:"
verdict $? "a NAME with a space reaches run-vm whole, and is refused: ${out%%$'\n'*}"
mk "$space" -n -o build/stamp/deps build/kernel/release/.config-stamp
[ "$status" = 2 ] && said "holds a space or a colon, which the kernel's build system (Kbuild) refuses"
verdict $? "configuring a kernel under a path with spaces stops at once, naming Kbuild"

# Two `make run` at a time, each with its own CMD: the first one's command
# file must still hold its command while the second runs.
make -s -C "$tree" -o build/kernel/debug/arch/x86/boot/bzImage -o build/initramfs.cpio -o build/guest/inputs.stamp \
	KERNEL=debug run NAME=maker-a "RESULTS=$tmp/res ults" CMD=hold >"$tmp/maker-a.out" 2>&1 &
maker=$!
for _ in $(seq 600); do
	[ ! -e "$fake/held.maker-a" ] || break
	sleep 0.1
done
mk "$tree" run NAME=maker-b "RESULTS=$tmp/res ults" CMD='exit 0'
is "$status" 0 "a second make run beside the first"
cmdfile=$(sed -n '/^-C$/{n;p;}' "$fake/parent.maker-a")
is "$(cd "$tree" && cat -- "$cmdfile" 2>&1)" hold "the first make run's command file still holds its own CMD"
touch "$fake/release.maker-a"
status=0
wait "$maker" || status=$?
ok "[ $status = 0 ] && [ \"\$(cat '$tmp/res ults/maker-a/cmd')\" = hold ]" \
	"the first make run ran its own CMD (status $status)"
ok "[ -z \"\$(find '$tree/build' '$space/build' -maxdepth 1 -name '*.cmd')\" ]" "make run leaves no command file behind"

done_testing
