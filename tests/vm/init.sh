#!/bin/busybox sh
# PID 1 of the test guest (busybox, from the initramfs that run.sh builds).
# The host's / becomes the guest's / (read-only), so the binaries under test
# and python3/node are the host's own; only /proc, /sys, /dev, the cgroup2
# tree, the scratch tmpfs and the caller's shares are the guest's.
# run.sh writes the job folder (a writable 9p share, tag "job"): "setup" is
# sourced here, "run" is executed by the host's /bin/sh after the switch,
# and "rc" is where the command's exit status goes back.
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev

fail() { echo "mcpfs-vm init: $*"; poweroff -f; }

# The Debian kernel has virtio, 9p, loop, ext4 and fuse as modules; busybox
# modprobe resolves their dependencies from the initramfs's modules.dep.
# loop/ext4/crc32c/fuse/overlay are for the code under test: nothing in the
# guest can load a module later (the host / has no modules for this kernel).
modprobe -a $(cat /modules) || fail "modprobe failed"

o9p="trans=virtio,version=9p2000.L,msize=262144"
# cache=loose: the root is read-only here and nobody changes it meanwhile
# that the guest must see; it makes exec and imports much faster.
mount -t 9p -o "ro,$o9p,cache=loose" root /newroot || fail "no 9p root"
cd /newroot || fail "no /newroot"
mount -t proc proc proc
mount -t sysfs sys sys
mount -t devtmpfs dev dev
mkdir -p dev/pts dev/shm
mount -t devpts -o newinstance,ptmxmode=0666 devpts dev/pts
mount -t tmpfs -o mode=1777 shm dev/shm
# As systemd mounts it on a pure v2 host.
mount -t cgroup2 -o nsdelegate,memory_recursiveprot cgroup2 sys/fs/cgroup ||
	fail "no cgroup2"
# cache=mmap: writes reach the host at once, and shared mmap works.
mkdir -p /job
mount -t 9p -o "$o9p,cache=mmap" job /job || fail "no job share"
# job/setup calls these. Paths are relative to the new root (no leading /).
# A folder the command needs that lies under a fresh tmpfs (a clone of the
# repository in /tmp) is bound aside first and put back on top of it.
shares='' scratches='' keeps=''
share() { shares="$shares $1:$2"; }
scratch() { scratches="$scratches $1"; }
keep() { keeps="$keeps $1"; }
CGROUP=/
. /job/setup
i=0
for k in $keeps; do
	mkdir -p "/keep$i" && mount --bind "$k" "/keep$i" || fail "keep $k"
	i=$((i + 1))
done
for d in tmp run var/tmp; do mount -t tmpfs -o mode=1777 tmpfs "$d"; done
i=0
for k in $keeps; do
	mkdir -p "$k" && mount --move "/keep$i" "$k" || fail "keep $k"
	i=$((i + 1))
done
mkdir -p run/mcpfs-vm
mount --move /job run/mcpfs-vm || fail "job share"
for s in $shares; do
	mkdir -p "${s#*:}" && mount -t 9p -o "$o9p,cache=mmap" "${s%%:*}" "${s#*:}" ||
		fail "share ${s#*:}"
done
for d in $scratches; do
	mkdir -p "$d" && mount -t tmpfs -o mode=1777 tmpfs "$d" || fail "tmpfs $d"
done

ip link set lo up
hostname mcpfs-vm

# A delegated v2 group as systemd gives a Delegate=yes service: the
# controllers are enabled in every ancestor, the group itself holds the
# process. Left alone for "/": the command then starts in the root group.
if [ "$CGROUP" != / ]; then
	g=sys/fs/cgroup
	for part in $(echo "$CGROUP" | tr / ' '); do
		echo "+memory +pids" >"$g/cgroup.subtree_control" || fail "controllers"
		g="$g/$part"
		mkdir -p "$g"
	done
fi

# Make the 9p root the namespace's root (not a chroot: unshare(CLONE_NEWUSER)
# refuses a chrooted caller); this PID 1 keeps the initramfs as its own root
# and reaches the job folder through its working directory.
mount --move . / || fail "mount --move"
sh -c 'echo $$ >"sys/fs/cgroup$1/cgroup.procs" && exec chroot . /bin/sh /run/mcpfs-vm/run' \
	- "${CGROUP%/}"
echo $? >run/mcpfs-vm/rc
kill -9 -1 2>/dev/null
sync
poweroff -f
