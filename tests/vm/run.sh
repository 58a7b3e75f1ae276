#!/bin/bash
# Run one command as root in a throw-away guest on a pure cgroup v2 kernel,
# seeing this machine's own filesystem (read-only), and hand back its output
# and exit status. For code paths a cgroup v1 (or hybrid) host cannot reach.
#
# usage: tests/vm/run.sh [--share DIR]... [--tmpfs DIR]... [--cgroup PATH]
#          [--cwd DIR] [--env K=V]... [-i] [--accel auto|kvm|tcg]
#          [--cpus N] [--mem MB] [--timeout S] [-t] [-v] -- CMD [ARG]...
#   --share DIR   host DIR read-write at the same path in the guest
#   --tmpfs DIR   a fresh tmpfs at DIR (the rest of / is read-only)
#   --cgroup PATH group the command starts in (default /mcpfs.service: made,
#                 with +memory +pids enabled above it, like a systemd unit
#                 with Delegate=yes); "/" leaves it in the untouched root
#   --cwd DIR     working directory (default: this repository)
#   -i            give the command this script's stdin (else /dev/null)
#   -t            print boot and run times on stderr;  -v  the guest console
# Exit: the command's status; 77 when qemu, the kernel or KVM (with --accel
# kvm) cannot be had; 124 on timeout; 125 when the guest failed.
# Artifacts: ${MCPFS_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mcpfs-vm}.
set -eu
t0=$(date +%s.%N)
here=$(cd "$(dirname "$0")" && pwd)
cache=${MCPFS_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mcpfs-vm}
# Modules the guest loads at boot; see init.sh for why each is there.
modules="virtio_pci 9pnet_virtio 9p loop crc32c_generic ext4 fuse overlay"

say() { echo "mcpfs-vm: $*" >&2; }
skip() { say "$*"; exit 77; }
q() { printf "'%s'" "${1//\'/\'\\\'\'}"; }   # quote for sh

shares=() tmpfss=() envs=() cgroup=/mcpfs.service cwd=$(cd "$here/../.." && pwd)
stdin=/dev/null accel=auto cpus=2 mem=2048 timeout=900 times='' verbose=''
while [ $# -gt 0 ]; do
	case $1 in
	--share) [ -d "$2" ] || { say "--share $2: no such folder"; exit 2; }
		shares+=("$(cd "$2" && pwd)"); shift 2 ;;
	--tmpfs) tmpfss+=("$2"); shift 2 ;;
	--cgroup) cgroup=$2; shift 2 ;;
	--cwd) cwd=$2; shift 2 ;;
	--env) envs+=("$2"); shift 2 ;;
	-i) stdin=- ; shift ;;
	--accel) accel=$2; shift 2 ;;
	--cpus) cpus=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	-t) times=1; shift ;;
	-v) verbose=1 quiet=''; shift ;;
	--) shift; break ;;
	*) sed -n '/^# usage/,/^# Artifacts/s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
done
[ $# -gt 0 ] || { say "no command (usage: $0 [options] -- CMD [ARG]...)"; exit 2; }
case $cgroup in /*[[:space:]]* | [!/]*) say "--cgroup: an absolute path, no spaces"; exit 2 ;; esac
# The guest's init lists these in words.
for d in "${shares[@]}" "${tmpfss[@]}" "$cwd"; do
	case $d in *[[:space:]]*) say "$d: a path with spaces cannot be shown to the guest"; exit 2 ;; esac
done

# --- what the host needs: Debian packages only, installed when we can ----
apt_install() {
	[ "$(id -u)" = 0 ] || skip "needs $*: apt-get install --no-install-recommends $*"
	say "installing $*"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" \
		>"$cache/apt.log" 2>&1 || skip "apt-get install $* failed (see $cache/apt.log)"
}
mkdir -p "$cache"
command -v qemu-system-x86_64 >/dev/null || apt_install qemu-system-x86
# The initramfs has no libc: its busybox must be the static one.
bb=/bin/busybox
{ [ -x $bb ] && ! ldd $bb >/dev/null 2>&1; } || apt_install busybox-static

# The cache is filled by one run at a time: two test suites on one machine
# (a developer's and CI's) would otherwise fetch into the same folder at once
# and boot a half-unpacked kernel. Held until the initramfs is there.
exec 9>"$cache/.lock"
flock 9
# The guest kernel: Debian's current one, unpacked into the cache rather
# than installed (its install hooks would touch the host's /boot).
kpkg() { apt-cache depends linux-image-amd64 2>/dev/null |
	sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\).*/\1/p' | head -n1; }
# One fetched before is kept (asking apt costs half a second a run): remove
# the cache folder to move to a newer kernel.
pkg=$(cd "$cache" && ls -d linux-image-*/.done 2>/dev/null | tail -n1) pkg=${pkg%/.done}
[ -n "$pkg" ] || pkg=$(kpkg)
if [ -z "$pkg" ] && [ "$(id -u)" = 0 ]; then apt-get update -qq >/dev/null 2>&1 || :; pkg=$(kpkg); fi
[ -n "$pkg" ] || skip "no kernel: apt-cache knows no linux-image-amd64 (run apt-get update)"
kdir=$cache/$pkg
if [ ! -e "$kdir/.done" ]; then
	say "fetching $pkg"
	rm -rf "$kdir" && mkdir -p "$kdir/dl"
	(cd "$kdir/dl" && apt-get download -o APT::Sandbox::User="$(id -un)" "$pkg") \
		>"$cache/apt.log" 2>&1 || skip "apt-get download $pkg failed (see $cache/apt.log)"
	dpkg-deb -x "$kdir"/dl/*.deb "$kdir" && rm -rf "$kdir/dl"
	# The .deb ships no modules.dep (depmod runs in its postinst).
	kver=$(ls "$kdir/lib/modules")
	$bb depmod -b "$kdir" "$kver"
	# The ELF inside the bzImage boots straight into 64-bit mode (PVH): no
	# BIOS real mode, no decompressing, which halves boot time under TCG.
	# (busybox's xz lacks the x86 BCJ filter the kernel uses: xz-utils'.)
	z=$(LC_ALL=C grep -abo $'\xfd7zXZ' "$kdir/boot/vmlinuz-$kver" | head -n1) || :
	[ -z "$z" ] || ! command -v xz >/dev/null || tail -c +$((${z%%:*} + 1)) "$kdir/boot/vmlinuz-$kver" |
		xz -dcq >"$kdir/vmlinux" 2>/dev/null || :
	[ "$(head -c4 "$kdir/vmlinux" 2>/dev/null)" = $'\177ELF' ] || rm -f "$kdir/vmlinux"
	touch "$kdir/.done"
fi
kver=$(ls "$kdir/lib/modules")
kernel=$kdir/vmlinux
[ -e "$kernel" ] || kernel=$kdir/boot/vmlinuz-$kver

# --- the initramfs: busybox, init.sh, the modules and their dependencies --
sum=$( { cat "$here/init.sh"; echo "$modules $kver"; } | cksum | cut -d' ' -f1)
initrd=$cache/initrd-$kver-$sum.cpio
if [ ! -e "$initrd" ]; then
	ir=$(mktemp -d "$cache/initrd.XXXXXX")
	mkdir -p "$ir/bin" "$ir/proc" "$ir/sys" "$ir/dev" "$ir/newroot" "$ir/lib/modules/$kver"
	cp $bb "$ir/bin/busybox"
	for a in $($bb --list); do [ -e "$ir/bin/$a" ] || ln -s busybox "$ir/bin/$a"; done
	cp "$here/init.sh" "$ir/init" && chmod 755 "$ir/init"
	echo "$modules" >"$ir/modules"
	dep=$kdir/lib/modules/$kver/modules.dep
	files=
	for m in $modules; do   # a line of modules.dep: the module, then all it needs
		line=$(grep -E "(^|/)$m\.ko:" "$dep") || { say "no module $m in $pkg"; exit 1; }
		files="$files ${line/:/}"
	done
	for f in $files; do
		mkdir -p "$ir/lib/modules/$kver/${f%/*}"
		cp "$kdir/lib/modules/$kver/$f" "$ir/lib/modules/$kver/$f"
		grep "^$f:" "$dep" >>"$ir/lib/modules/$kver/modules.dep"
	done
	# Uncompressed: unpacking beats inflating when the guest is emulated.
	(cd "$ir" && find . | $bb cpio -o -H newc 2>/dev/null) >"$initrd.tmp"
	rm -f "$cache"/initrd-*.cpio   # older ones: init.sh or the kernel changed since
	mv "$initrd.tmp" "$initrd" && rm -rf "$ir"
fi
exec 9>&-

# --- acceleration ----------------------------------------------------------
# A /dev/kvm without vmx/svm in the CPU flags is a paravirtual one (PVM on
# this project's machines, kvm_pvm): it runs only guest kernels built for it
# and hangs in a stock kernel's boot, so there we emulate (TCG) instead.
kvm_ok() { [ -r /dev/kvm ] && [ -w /dev/kvm ] && grep -qw -e vmx -e svm /proc/cpuinfo; }
case $accel in
auto) if kvm_ok; then accel=kvm; else
	accel=tcg; [ -n "$verbose$times" ] && say "KVM unusable for a stock kernel here; emulating (TCG)"
	fi ;;
kvm) kvm_ok || skip "KVM needed (--accel kvm): no usable /dev/kvm with vmx/svm" ;;
tcg) ;;
*) say "--accel auto|kvm|tcg"; exit 2 ;;
esac
if [ "$accel" = kvm ]; then cpu=(-accel kvm -cpu host); else cpu=(-accel 'tcg,thread=multi' -cpu max); fi

# --- the job folder: how the guest learns what to run and reports back ----
mkdir -p "$cache/jobs"
# Left by runs killed outright; a day is longer than any run.
find "$cache/jobs" -mindepth 1 -maxdepth 1 -mmin +1440 -exec rm -rf {} + 2>/dev/null || :
job=$(mktemp -d "$cache/jobs/XXXXXX")
qpid=
cleanup() {
	# timeout passes TERM on to qemu, and reaps it.
	[ -z "$qpid" ] || { kill "$qpid" 2>/dev/null; wait "$qpid" 2>/dev/null; } || :
	rm -rf "$job"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
if [ "$stdin" = - ]; then cat >"$job/stdin"; else : >"$job/stdin"; fi
[ "$(id -u)" = 0 ] && sm=passthrough || sm=none   # passthrough keeps owners
o() { printf %s "${1//,/,,}"; }   # a path in a qemu option
fs9p=(-virtfs "local,path=/,mount_tag=root,security_model=$sm,readonly=on,multidevs=remap"
	-virtfs "local,path=$(o "$job"),mount_tag=job,security_model=$sm")
{
	echo "CGROUP=$(q "$cgroup")"
	# the guest mounts fresh tmpfs there: a cwd beneath would be hidden
	case $cwd in /tmp/* | /run/* | /var/tmp/*) echo "keep $(q "${cwd#/}")" ;; esac
	for d in "${tmpfss[@]}"; do echo "scratch $(q "${d#/}")"; done
	i=0
	for d in "${shares[@]}"; do
		echo "share share$i $(q "${d#/}")"
		fs9p+=(-virtfs "local,path=$(o "$d"),mount_tag=share$i,security_model=$sm")
		i=$((i + 1))
	done
} >"$job/setup"
{
	echo "exec </run/mcpfs-vm/stdin >/run/mcpfs-vm/out 2>/run/mcpfs-vm/err"
	echo "export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	echo "export HOME=/root LANG=C.UTF-8 TERM=dumb"
	for e in "${envs[@]}"; do echo "export $(q "$e")"; done
	echo "cd $(q "$cwd") || exit 125"
	echo ": >/run/mcpfs-vm/started"
	printf 'exec'; for a in "$@"; do printf ' %s' "$(q "$a")"; done; echo
} >"$job/run"

# --- boot ------------------------------------------------------------------
# No NIC, no VGA, no option ROMs (-nodefaults): less to probe at boot.
# pdeathsig on timeout and on qemu: the guest dies with this script, however
# it ends (even by SIGKILL, which no trap sees).
setpriv --pdeathsig KILL -- timeout -k 5 "$timeout" \
	setpriv --pdeathsig KILL -- qemu-system-x86_64 -nodefaults -no-user-config -no-reboot \
	"${cpu[@]}" -M pc -smp "$cpus" -m "$mem" -display none -serial "file:$(o "$job")/console.log" \
	-kernel "$(o "$kernel")" -initrd "$(o "$initrd")" "${fs9p[@]}" \
	-append "console=ttyS0 ${quiet-quiet} panic=-1 systemd.unified_cgroup_hierarchy=1 cgroup_no_v1=all" \
	>"$job/qemu.log" 2>&1 &
qpid=$!
wait $qpid && qrc=0 || qrc=$?
qpid=

cat "$job/out" 2>/dev/null || :
cat "$job/err" >&2 2>/dev/null || :
[ -z "$verbose" ] || { say "guest console:"; cat "$job/console.log" >&2; }
if [ -n "$times" ] && [ -e "$job/started" ]; then
	t1=$(stat -c %.9Y "$job/started") t2=$(date +%s.%N)
	say "$(awk -v a="$t0" -v b="$t1" -v c="$t2" -v x="$accel" \
		'BEGIN { printf "%s: boot %.1f s, command %.1f s, total %.1f s", x, b-a, c-b, c-a }')"
fi
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then say "timed out after $timeout s"; exit 124; fi
if [ ! -s "$job/rc" ]; then
	say "the guest failed before the command ended; its console and qemu said:"
	tail -n 30 "$job/console.log" "$job/qemu.log" >&2 2>/dev/null
	exit 125
fi
exit "$(cat "$job/rc")"
