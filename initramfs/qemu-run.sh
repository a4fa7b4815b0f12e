# shellcheck shell=bash
# Set up, boot and clean up after one run of run-vm: sourced by run-vm after its
# checks, which set kernel, initrd, inputs, mem, cpus, name, results_root, extra,
# disks, disk_size, disk_write_mbps, timeout, boot_timeout, accel,
# interactive, command, gen_init_cpio, here and top, and define die().
# shellcheck disable=SC2154 # the variables above are run-vm's

# What a run may delete.  build/vm/NAME.lock is locked (flock) from the
# start of the run until QEMU has ended, by run-vm and by QEMU, which
# inherits it, so a second run of NAME is refused while the first lives.
# Under that lock run-vm deletes build/vm/NAME, which only runs of NAME use,
# and empties RESULTS/NAME if it holds the marker file that run-vm writes
# into every results directory it makes or takes; an empty directory is
# taken as it is (its mode and owner kept), anything else is refused.
run_marker=.run-vm

# The marker's first line: the directory it was written into, by device
# and inode.  A marker copied along with a run's files (cp -a) names
# another directory, and proves nothing where it lies.
marker_identity() { stat -c 'directory: device %d, inode %i' -- "$out"; }
own_marker() {
	[ -f "$out/$run_marker" ] && [ ! -L "$out/$run_marker" ] &&
		[ "$(head -n 1 -- "$out/$run_marker")" = "$(marker_identity)" ]
}

claim_run() {
	local lock holder
	work=$top/build/vm/$name
	out=$results_root/$name
	console_log=$out/console.log
	mkdir -p -- "$top/build/vm"
	lock=$work.lock
	exec {lock_fd}>>"$lock"
	if ! flock -n "$lock_fd"; then
		holder=$(cat -- "$lock" 2>/dev/null || true)
		die "NAME=$name: another run of that name is going on (${holder:-starting}); wait for it, or give another NAME"
	fi
	printf 'pid %s, started %s, results in %s\n' "$$" "$(date '+%F %T')" "$out" >"$lock"

	if [ -L "$out" ] || { [ -e "$out" ] && [ ! -d "$out" ]; }; then
		die "$out exists and is not a directory run-vm made; move it away, or give another NAME or RESULTS"
	elif [ -d "$out" ] && own_marker; then
		find "$out" -mindepth 1 -maxdepth 1 -exec rm -rf -- {} +
	elif [ -d "$out" ] && [ -n "$(ls -A -- "$out")" ]; then
		die "$out holds files, and no $run_marker of its own: run-vm did not make it; move it away, or give another NAME or RESULTS"
	fi
	rm -rf -- "$work"
	mkdir -p -- "$work/run/etc/pclab" "$results_root"
	[ -d "$out" ] || mkdir -- "$out"
	{
		marker_identity
		echo "run-vm made or took this directory for the run $name, and empties it at the next run of that name"
	} >"$out/$run_marker"
}

choose_accel() {
	local why
	if [ "$accel" = auto ]; then
		if why=$("$here/kvm-probe" "$kernel"); then
			accel=kvm
		else
			accel=tcg
			echo "run-vm: KVM not usable ($why); using TCG emulation, slower" >&2
		fi
	fi
	if [ "$accel" = kvm ]; then
		accel_args=(-accel kvm -cpu host)
		boot_timeout=${boot_timeout:-20}
	elif [ "$accel" = icount ]; then
		# One emulation thread whose clock counts instructions (1 ns
		# each): guest time measures the work done, whatever the host's
		# load, for comparing kernels; waits for I/O pass in real time.
		accel_args=(-accel "tcg,thread=single" -icount "shift=0,sleep=on" -cpu max)
		boot_timeout=${boot_timeout:-120}
	else
		accel_args=(-accel "tcg,thread=multi" -cpu max)
		boot_timeout=${boot_timeout:-60}
	fi
	cmdline="console=ttyS0 panic=-1 oops=panic printk.time=1 rdinit=/init"
	# Under TCG the guest's TSC runs at the host's rate; told so, the guest
	# does not calibrate it against the emulated PIT, which fails on a busy
	# host and leaves the guest a jiffies clock (latencies in 4 ms steps).
	# tsc=reliable: the clocksource watchdog would check the TSC against
	# jiffies, whose timer interrupts a busy host delays: it measured a
	# 96 ms skew in 480 ms once, and switched the guest to jiffies.
	if [ "$accel" = tcg ] && [ -x "$top/build/host/tsc-khz" ]; then
		cmdline="$cmdline tsc_early_khz=$("$top/build/host/tsc-khz") tsc=reliable"
	elif [ "$accel" = icount ]; then
		# the TSC then ticks with the instruction clock: 1 GHz
		cmdline="$cmdline tsc_early_khz=1000000 tsc=reliable"
	fi
}

# The run's own files ride in a second cpio appended to the base initramfs;
# the kernel unpacks both.
pack_run_files() {
	local rows=24 cols=80 term=vt100
	if [ -t 1 ]; then
		read -r rows cols < <(stty size 2>/dev/null || echo "24 80")
		term=${TERM:-vt100}
	fi
	cat >"$work/run/etc/pclab/env" <<-ENV
		PCLAB_RUN='$name'
		PCLAB_ROWS=$rows
		PCLAB_COLS=$cols
		PCLAB_TERM='$term'
		PCLAB_INTERACTIVE=$interactive
	ENV
	if [ -n "$command" ]; then
		printf '%s\n' "$command" >"$work/run/etc/pclab/cmd"
	fi
	if [ -n "$extra" ]; then
		mkdir -p -- "$work/run/extra"
		cp -a -- "$extra/." "$work/run/extra/"
	fi
	"$here/mkcpio" "$gen_init_cpio" "$work/run" "$work/run.cpio"
	cat -- "$initrd" "$work/run.cpio" >"$work/initrd"
}

# The inputs (lab scripts, test suites) as they are when the run starts:
# hard links, or copies across file systems, in the run's work directory,
# so that a make that rebuilds them while the guest runs changes nothing
# under it.  The make rule writes new files, never into old ones.
snapshot_inputs() {
	if ! cp -al -- "$inputs" "$work/inputs" 2>/dev/null; then
		rm -rf -- "$work/inputs"
		cp -a -- "$inputs" "$work/inputs"
	fi
}

# formatted_copy DEST DISK SIZE MKFS [OPTION...]: DEST becomes a fresh,
# formatted image.  mkfs allocates its journal or log, 64 MiB per disk, on
# the host, and with deleting that at the end a boot of three disks spent
# about 0.28 s on them.  So each disk is formatted once per name, size and
# mkfs command, kept in build/vm/images without those blocks, and a run
# gets a sparse copy (about 0.07 s for three).  The name is part of the key
# so that every disk of a run has its own file system UUID: XFS refuses to
# mount a second file system with the same one.
formatted_copy() {
	local dest=$1 disk=$2 size=$3 key image tmp status
	shift 3
	key=$(printf '%s\n' "$*" | cksum | cut -d ' ' -f 1)
	image=$top/build/vm/images/$disk.$size.$key.img
	if [ ! -e "$image" ]; then
		mkdir -p -- "$top/build/vm/images"
		tmp=$(mktemp -- "$image.XXXXXX")
		status=0
		# the sparse copy leaves out what mkfs allocated but never wrote
		{ truncate -s "$size" -- "$tmp" && "$@" "$tmp" &&
			cp --sparse=always -- "$tmp" "$tmp.sparse"; } || status=$?
		rm -f -- "$tmp"
		if [ "$status" != 0 ]; then
			rm -f -- "$tmp.sparse"
			exit "$status"
		fi
		mv -f -- "$tmp.sparse" "$image"
	fi
	cp --sparse=always -- "$image" "$dest"
}

add_disk() { # serial image [extra -drive options]
	# werror/rerror=report: a full host disk is an I/O error in the guest,
	# not a guest paused for ever.  A comma in a -drive value is doubled.
	drive_args+=(-drive "if=none,id=$1,file=${2//,/,,},format=raw,cache=unsafe,aio=threads,werror=report,rerror=report${3:-}"
		-device "virtio-blk-pci,drive=$1,serial=$1")
}

make_disks() {
	local d img
	# The images are written fresh for every boot and never read again: a
	# run that ends early leaves none behind (they grow to gigabytes).
	trap 'rm -f -- "$work"/*.img' EXIT
	# The results directory itself, as the guest's /results (9p; the guest
	# mounts it cache=none).  The guest runs code the host does not trust,
	# as root: security_model=mapped-file makes its symlinks, FIFOs and
	# device nodes plain files on the host, which the host can neither
	# follow nor hang on, and keeps the modes and owners it sets in
	# .virtfs_metadata (removed after the run); every file is the host
	# user's, readable (fmode, dmode).
	drive_args=(-fsdev "local,id=results,path=${out//,/,,},security_model=mapped-file,fmode=0644,dmode=0755"
		-device "virtio-9p-pci,fsdev=results,mount_tag=results")
	# The inputs, which the guest reads and QEMU refuses to let it write.
	drive_args+=(-fsdev "local,id=inputs,path=${work//,/,,}/inputs,security_model=none,readonly=on"
		-device "virtio-9p-pci,fsdev=inputs,mount_tag=inputs")
	for d in $disks; do
		img=$work/$d.img
		case "$d" in
		ext4-1k) formatted_copy "$img" "$d" "$disk_size" \
			mkfs.ext4 -q -F -b 1024 -E lazy_itable_init=0,lazy_journal_init=0 ;;
		ext4*) formatted_copy "$img" "$d" "$disk_size" \
			mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 ;;
		xfs-1k) formatted_copy "$img" "$d" "$disk_size" mkfs.xfs -q -f -b size=1024 ;;
		xfs*) formatted_copy "$img" "$d" "$disk_size" mkfs.xfs -q -f ;;
		esac
		# the emulated disk otherwise writes at memory speed, into the host's cache
		add_disk "$d" "$img" "$([ "$disk_write_mbps" = 0 ] ||
			echo ",throttling.bps-write=$((disk_write_mbps * 1000000))")"
	done
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# Starts QEMU and watches the console log until QEMU ends, the guest misses
# its boot deadline, or the run exceeds TIMEOUT.  Sets verdict and boot_ms,
# and qemu_pid, which the traps use.
boot_guest() {
	local term_args qemu start start_ms booted=0
	if [ "$interactive" = 1 ]; then
		# mux gives the QEMU escape keys: Ctrl-a x quits a stuck guest.
		term_args=(-chardev "stdio,id=term,mux=on,signal=off" -serial "file:$console_log"
			-serial chardev:term -mon "chardev=term,mode=readline")
	else
		term_args=(-chardev "stdio,id=term" -serial "file:$console_log" -serial chardev:term)
	fi
	qemu=(qemu-system-x86_64 -machine q35 "${accel_args[@]}" -smp "$cpus" -m "$mem"
		-display none -nodefaults -no-reboot
		-kernel "$kernel" -initrd "$work/initrd"
		-append "$cmdline" "${term_args[@]}" "${drive_args[@]}")
	echo "${qemu[*]}" >"$work/qemu.cmd"
	# there even if QEMU cannot start
	: >"$console_log"

	exec 3<&0
	if [ "$interactive" = 1 ]; then
		"${qemu[@]}" <&3 &
	else
		"${qemu[@]}" </dev/null &
	fi
	qemu_pid=$!
	# Ctrl-C only stops the guest, and the results are still copied out.
	trap 'kill "$qemu_pid" 2>/dev/null || true; rm -f -- "$work"/*.img' EXIT
	trap 'kill "$qemu_pid" 2>/dev/null || true' INT TERM

	start=$SECONDS
	start_ms=$(now_ms)
	verdict=""
	while kill -0 "$qemu_pid" 2>/dev/null; do
		sleep 0.2
		if [ "$booted" = 0 ] && grep -q '^PCLAB-BOOTED' "$console_log" 2>/dev/null; then
			booted=1
			boot_ms=$(($(now_ms) - start_ms))
		fi
		if [ "$booted" = 0 ] && [ $((SECONDS - start)) -ge "$boot_timeout" ]; then
			verdict="the guest did not boot within ${boot_timeout}s"
			break
		fi
		if [ "$timeout" -gt 0 ] && [ $((SECONDS - start)) -ge "$timeout" ]; then
			verdict="the run exceeded TIMEOUT=${timeout}s"
			break
		fi
	done
	if [ -n "$verdict" ]; then
		kill "$qemu_pid" 2>/dev/null || true
	fi
	wait "$qemu_pid" 2>/dev/null || true
	trap 'rm -f -- "$work"/*.img' EXIT
	trap - INT TERM
	exec 3<&-
}

# check_share: after QEMU has ended, the share holds regular files and
# directories only.  QEMU's mapping (make_disks) already sees to it; should
# anything else be there, it is removed before the host reads or writes a
# file of the run (a link would be followed, a FIFO would hang it), and the
# run refused.
check_share() {
	local specials
	find "$out" -depth -type d -name .virtfs_metadata -exec rm -rf -- {} +
	# the names are the guest's: printable characters only, and a few
	specials=$(find "$out" ! -type f ! -type d -printf '%P\n' | head -n 10 | tr -c '[:print:]\n' '?' |
		paste -sd ' ')
	[ -n "$specials" ] || return 0
	find "$out" ! -type f ! -type d -delete
	clean_up_run
	die "the guest left files that are not regular files or directories in $out (removed): $specials"
}

clean_up_run() {
	# The serial port sends CR LF; keep the log greppable with ordinary tools.
	sed -i 's/\r$//' "$console_log"
	rm -f -- "$work"/*.img "$work/initrd" "$work/run.cpio"
	rm -rf -- "$work/inputs"
	trap - EXIT
}

exit_with_status() {
	local status
	status=$(sed -n 's/^PCLAB-EXIT \([0-9]*\).*/\1/p' "$console_log" | tail -n 1)
	if [ -n "$verdict" ] || [ -z "$status" ]; then
		[ -n "$verdict" ] || verdict="the guest stopped without reporting a status (panic or crash?)"
		{
			echo "run-vm: $verdict; last lines of $console_log:"
			tail -n 25 "$console_log" | sed 's/^/  | /'
		} >&2
		case "$verdict" in
		*exceeded* | *"did not boot"*) exit 124 ;;
		*) exit 125 ;;
		esac
	fi
	# Host time from starting QEMU to the guest's boot marker, for measurements.
	echo "${boot_ms:-}" >"$work/boot-ms"
	exit "$status"
}
