# shellcheck shell=bash
# tests/lab/boards.sh: root file systems and binfmt_misc for the lab's boards.
#
# Sourced by tests/lab/lab.  A board is a busybox-only root file system of
# another architecture, assembled from Debian packages of that architecture
# (busybox-static:ARCH) and run through qemu-user by binfmt_misc.  The
# assembled tree is cached in $CACHE/ARCH/rootfs, so only the first `lab up`
# on a machine touches the package registry; every lab copies it.
#
# Uses from the caller: CACHE, LAB_DIR, log, state_set.

# shellcheck disable=SC2034 # used by tests/lab/lab
BOARDS_KNOWN="armhf s390x"
ROOTFS_VERSION=fmlab-rootfs-1
BINFMT=/proc/sys/fs/binfmt_misc

# board_info BOARD: set B_QEMU, B_UNAME, B_MAGIC, B_MASK for a board
# architecture (Debian's name).  Magic and mask are those of qemu's own
# binfmt registrations, in binfmt_misc's \x notation.
board_info() {
	case $1 in
	armhf)
		B_QEMU=/usr/bin/qemu-arm-static
		B_UNAME=armv7l
		B_MAGIC='\x7f\x45\x4c\x46\x01\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x28\x00'
		B_MASK='\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff'
		;;
	s390x)
		B_QEMU=/usr/bin/qemu-s390x-static
		B_UNAME=s390x
		B_MAGIC='\x7f\x45\x4c\x46\x02\x02\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x16'
		B_MASK='\xff\xff\xff\xff\xff\xff\xff\xfc\xff\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff'
		;;
	*) return 1 ;;
	esac
}

# board_cache BOARD: build the board's root file system template once.
board_cache() {
	local b=$1 dir=$CACHE/$1 debs=() deb a
	board_info "$b" || return 1
	if [ -f "$dir/rootfs.ok" ] && [ "$(<"$dir/rootfs.ok")" = "$ROOTFS_VERSION" ]; then
		return 0
	fi
	mkdir -p "$dir/debs" && chmod 755 "$CACHE" "$dir" || return 1
	for a in $(dpkg --print-foreign-architectures); do
		[ "$a" = "$b" ] && break
	done
	if [ "${a:-}" != "$b" ]; then
		log "adding dpkg architecture $b for board-$b"
		dpkg --add-architecture "$b" || return 1
		# A failing index of another suite must not stop us: only the
		# download below decides.
		timeout 600 apt-get update -qq >&2
	fi
	debs=("$dir"/debs/busybox-static_*_"$b".deb)
	if [ ! -f "${debs[0]}" ]; then
		log "downloading busybox-static:$b"
		if ! (cd "$dir/debs" && timeout 300 apt-get download -q "busybox-static:$b") >&2 2>&1; then
			timeout 600 apt-get update -qq >&2
			(cd "$dir/debs" && timeout 300 apt-get download -q "busybox-static:$b") >&2 2>&1 ||
				{ log "cannot download busybox-static:$b (dpkg --add-architecture $b; apt-get update)"; return 1; }
		fi
		debs=("$dir"/debs/busybox-static_*_"$b".deb)
	fi
	deb=${debs[0]}
	log "assembling the board-$b root file system in $dir"
	rm -rf --one-file-system "$dir/rootfs.new" && mkdir "$dir/rootfs.new" || return 1
	dpkg -x "$deb" "$dir/rootfs.new" || return 1
	rm -rf "$dir/rootfs.new/usr/share"
	(
		cd "$dir/rootfs.new" || exit 1
		mkdir -p dev proc tmp root home etc sbin usr/bin usr/sbin || exit 1
		chmod 1777 tmp && chmod 700 root || exit 1
		"$B_QEMU" ./bin/busybox --list-full >applets || exit 1
		while read -r a; do
			[ -e "$a" ] || [ -L "$a" ] || ln -s /bin/busybox "$a" || exit 1
		done <applets
		rm -f applets
		mknod -m 666 dev/null c 1 3 && mknod -m 666 dev/zero c 1 5 &&
			mknod -m 666 dev/full c 1 7 && mknod -m 666 dev/random c 1 8 &&
			mknod -m 666 dev/urandom c 1 9 && mknod -m 666 dev/tty c 5 0
	) || { log "cannot assemble the board-$b root file system"; return 1; }
	rm -rf --one-file-system "$dir/rootfs" && mv "$dir/rootfs.new" "$dir/rootfs" &&
		echo "$ROOTFS_VERSION" >"$dir/rootfs.ok"
}

# binfmt_entry_ok FILE MAGIC MASK: an enabled binfmt_misc entry for this
# magic whose interpreter is opened at registration (F, so it works in a
# chroot) and keeps argv[0] (P, which busybox needs).
binfmt_entry_ok() {
	local key val enabled=0 flags='' magic='' mask='' want_magic want_mask
	want_magic=${2//\\x/}
	want_mask=${3//\\x/}
	while read -r key val; do
		case $key in
		enabled) enabled=1 ;;
		flags:) flags=$val ;;
		magic) magic=$val ;;
		mask) mask=$val ;;
		esac
	done <"$1" || true
	[ "$enabled" = 1 ] && [[ $flags == *F* ]] && [[ $flags == *P* ]] &&
		[ "$magic" = "$want_magic" ] && [ "$mask" = "$want_mask" ]
}

# board_binfmt BOARD: make the kernel run the board's binaries with qemu,
# registering a lab-owned entry fmlab-BOARD unless a suitable one exists.
board_binfmt() {
	local b=$1 e name=fmlab-$1
	board_info "$b" || return 1
	if [ ! -e "$BINFMT/register" ]; then
		mount -t binfmt_misc binfmt_misc "$BINFMT" || { log "cannot mount binfmt_misc"; return 1; }
		state_set BINFMT_MOUNTED 1
	fi
	for e in "$BINFMT"/*; do
		case ${e##*/} in register | status) continue ;; esac
		if binfmt_entry_ok "$e" "$B_MAGIC" "$B_MASK"; then
			log "board-$b: using binfmt_misc entry ${e##*/}"
			return 0
		fi
	done
	[ -x "$B_QEMU" ] || { log "$B_QEMU is missing (package qemu-user-static)"; return 1; }
	printf ':%s:M::%s:%s:%s:FP' "$name" "$B_MAGIC" "$B_MASK" "$B_QEMU" >"$BINFMT/register" ||
		{ log "cannot register binfmt_misc entry $name"; return 1; }
	state_set BINFMT_ENTRY "$name"
}

# binfmt_remove: remove the entries the lab registered (all are fmlab-*),
# and unmount binfmt_misc if the lab mounted it and nothing else uses it.
binfmt_remove() { # MOUNTED
	local e left=0
	[ -e "$BINFMT/register" ] || return 0
	for e in "$BINFMT"/fmlab-*; do
		[ -e "$e" ] && echo -1 >"$e"
	done
	if [ "${1:-0}" = 1 ]; then
		for e in "$BINFMT"/*; do
			case ${e##*/} in register | status) ;; *) left=1 ;; esac
		done
		[ "$left" = 1 ] || umount "$BINFMT"
	fi
	return 0
}

# board_rootfs BOARD DIR BENCH_UID BENCH_GID: give a board its own copy of
# the cached tree, with the users root and bench, then check that it runs.
board_rootfs() {
	local b=$1 root=$2/root out
	board_info "$b" || return 1
	cp -a "$CACHE/$b/rootfs" "$root" || return 1
	printf 'root:x:0:0:root:/root:/bin/sh\nbench:x:%s:%s:bench:/home/bench:/bin/sh\n' "$3" "$4" >"$root/etc/passwd"
	printf 'root:x:0:\nbench:x:%s:\n' "$4" >"$root/etc/group"
	printf 'board-%s\n' "$b" >"$root/etc/hostname"
	mkdir -p "$root/home/bench" "$root/dev/pts" && chown "$3:$4" "$root/home/bench" || return 1
	out=$(timeout 20 chroot "$root" /bin/uname -m 2>&1)
	[ "$out" = "$B_UNAME" ] || { log "board-$b: uname -m in its root says '$out', not $B_UNAME (binfmt_misc?)"; return 1; }
}
