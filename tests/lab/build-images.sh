#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the lab's boot images from installed Debian packages (called by run.sh):
#   $OUT/xen                 uncompressed Xen (QEMU's multiboot loader cannot read the .gz)
#   $OUT/xen-shadow          with XLAB_XEN_SHADOW set: that uncompressed Xen, the same 4.17 built
#                            with shadow paging (scripts/xen-shadow.sh; run.sh's xen=shadow)
#   $OUT/vmlinuz             Debian 6.1 kernel, dom0
#   $OUT/dom0.cpio           dom0 initramfs: Xen toolstack, QEMU xen-block backend, blkback,
#                            null_blk, loop, dm, lab scripts, and the whole domU payload in /guest
#   $OUT/rootfs-*/           the unpacked trees (for inspection)
# Our modules are taken from $OUT/modules/*.ko (xblkfront.ko and the test-only xblkhostile.ko go
# to the domU, xblkback.ko and the test-only xblkhostileback.ko and xlabprobe.ko to dom0, all
# under /extra).
#
# usage: build-images.sh KVER       env: OUT (default tests/lab/out)
# KVER is dom0's kernel. The guest may boot another one (run.sh's guest_kernel=6.12):
#   XLAB_GUEST_KVER      the guest's kernel release (default KVER)
#   XLAB_DOM0_ROOT, XLAB_GUEST_ROOT   the root each side's boot/vmlinuz-<kver> and
#                        lib/modules/<kver> are under (default "": the host's /; the 6.12 tree
#                        is unpacked by scripts/kimage612.sh and read with modprobe -d)
#   XLAB_GUEST_MODULES   where the guest's xblkfront.ko & co are (default $OUT/modules)
#   XLAB_XEN_SHADOW      an uncompressed Xen with shadow paging, copied to $OUT/xen-shadow
#   XLAB_EXTRAS          what the suites of the run want in the images (their SUITE_IMAGE):
#                        small-guest: a second, small guest image, $OUT/payload/domU-small.cpio
#                        (the agent, both frontends and xlab-ackw: many guests at once fit in
#                        memory); NAME: extras/NAME.sh, whose extra_domu ROOT adds to the guest
#                        image (run.sh ran its extra_prep)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
KVER=${1:?usage: build-images.sh KVER}
OUT=${OUT:-$HERE/out}
DOM0_ROOT=${XLAB_DOM0_ROOT:-}
GKVER=${XLAB_GUEST_KVER:-$KVER}
GUEST_ROOT=${XLAB_GUEST_ROOT:-}
GMODS=${XLAB_GUEST_MODULES:-$OUT/modules}
XENVER=4.17
XENBIN=/usr/lib/xen-$XENVER/bin
QEMU_XEN=/usr/libexec/xen-qemu-system-i386   # from qemu-system-xen; libxl's default DM path
mkdir -p "$OUT"

log() { echo "[build-images] $*" >&2; }

for f in "$DOM0_ROOT/boot/vmlinuz-$KVER" "$GUEST_ROOT/boot/vmlinuz-$GKVER" /boot/xen-$XENVER-amd64.gz $XENBIN/xl $QEMU_XEN /bin/busybox \
	 /usr/bin/fio /sbin/mke2fs /usr/sbin/blkdiscard /usr/sbin/dmsetup; do
	[ -e "$f" ] || { echo "missing $f: install the packages (run.sh does it)" >&2; exit 2; }
done

zcat /boot/xen-$XENVER-amd64.gz > "$OUT/xen"
rm -f "$OUT/xen-shadow"
if [ -n "${XLAB_XEN_SHADOW:-}" ]; then
	cp "$XLAB_XEN_SHADOW" "$OUT/xen-shadow"
fi
cp "$DOM0_ROOT/boot/vmlinuz-$KVER" "$OUT/vmlinuz"
cp "$GUEST_ROOT/boot/vmlinuz-$GKVER" "$OUT/vmlinuz-guest"
echo "dom0 $KVER${DOM0_ROOT:+ from $DOM0_ROOT}, guest $GKVER${GUEST_ROOT:+ from $GUEST_ROOT}" > "$OUT/kernels"

# ---------------------------------------------------------------- helpers
# Copy executables/libraries at their canonical (usr-merged) path plus every library ldd
# reports, and keep the path each was named by as a symlink (e.g. /lib64/ld-linux-x86-64.so.2,
# the ELF interpreter, must exist under exactly that name).
copy_bins() {
	local root=$1 f c lib cl
	shift
	for f in "$@"; do
		c=$(readlink -f "$f")
		[ -e "$root$c" ] || install -D -m 0755 "$c" "$root$c"
		if [ "$c" != "$f" ] && [ ! -e "$root$f" ]; then
			mkdir -p "$root$(dirname "$f")"
			ln -sf "$c" "$root$f"
		fi
		while read -r lib; do
			cl=$(readlink -f "$lib")
			[ -e "$root$cl" ] || install -D -m 0755 "$cl" "$root$cl"
			[ -e "$root$(dirname "$cl")/$(basename "$lib")" ] ||
				ln -sf "$(basename "$cl")" "$root$(dirname "$cl")/$(basename "$lib")"
			[ -e "$root$lib" ] || { mkdir -p "$root$(dirname "$lib")"; ln -sf "$cl" "$root$lib"; }
		done < <(ldd "$c" 2>/dev/null | awk '/=> \//{print $3} /^\t\//{print $1}')
	done
}

skeleton() {
	local root=$1
	rm -rf "$root"
	mkdir -p "$root"/{usr/bin,usr/sbin,usr/lib/x86_64-linux-gnu,usr/lib64,proc,sys,dev,run,tmp,root,etc,var/log,mnt,lab,extra}
	# Debian 12 is usr-merged; ldd and scripts use both spellings
	ln -s usr/bin "$root/bin"; ln -s usr/sbin "$root/sbin"
	ln -s usr/lib "$root/lib"; ln -s usr/lib64 "$root/lib64"
	ln -s ../run "$root/var/run"; ln -s ../run/lock "$root/var/lock"
	install -m 0755 /bin/busybox "$root/usr/bin/busybox"
	echo 'root:x:0:0:root:/root:/bin/sh' > "$root/etc/passwd"
	echo 'root:x:0:' > "$root/etc/group"
	: > "$root/etc/fstab"
	# glibc dlopen()s libgcc_s for pthread_cancel; ldd cannot see that (xl aborts without it)
	copy_bins "$root" /usr/lib/x86_64-linux-gnu/libgcc_s.so.1
	# kmod's real modprobe/insmod (busybox's cannot do everything we need)
	copy_bins "$root" /usr/bin/kmod
	local t
	for t in modprobe insmod rmmod lsmod modinfo depmod; do ln -sf /usr/bin/kmod "$root/usr/sbin/$t"; done
}

# busybox applet links, only where no real binary was installed. (Note: busybox `sh` itself
# may still prefer its own applets over $PATH; our scripts run under bash for that reason.)
busybox_links() {
	local root=$1 a p
	for a in $(/bin/busybox --list-full); do
		p="$root/usr/${a#usr/}"
		[ -e "$p" ] || [ -L "$p" ] || ln -s /usr/bin/busybox "$p"
	done
}

# copy_modules ROOT KVER MROOT MODULE...: MODULE and its dependencies from the module tree of
# KVER under MROOT ("" = the host's) to the same path in ROOT, plus KVER's builtin lists; then
# ROOT's own depmod index
copy_modules() {
	local root=$1 kver=$2 mroot=$3 m line
	shift 3
	for m in "$@"; do
		while read -r line; do
			set -- $line
			[ "$1" = insmod ] && install -D -m 0644 "$2" "$root${2#"$mroot"}"
		done < <(modprobe ${mroot:+-d "$mroot"} -S "$kver" --show-depends "$m")
	done
	cp "$mroot/lib/modules/$kver"/modules.order "$mroot/lib/modules/$kver"/modules.builtin* \
		"$root/usr/lib/modules/$kver/" 2>/dev/null || true
	depmod -b "$root" "$kver"
}

# dkms_modules ROOT MODULE...: with XLAB_DKMS_DIR set (run.sh, XLAB_MODULES=dkms), the modules
# DKMS installed on this host go where DKMS puts them, with the package's modprobe.d file, and
# the image's depmod index knows them: the suites load them with modprobe, as udev would.
dkms_modules() {
	local root=$1 m
	shift
	[ -n "${XLAB_DKMS_DIR:-}" ] || return 0
	for m in "$@"; do
		install -D -m 0644 "$XLAB_DKMS_DIR/$m.ko" "$root/usr/lib/modules/$KVER/updates/dkms/$m.ko"
	done
	# (the package's blacklist is in /lib/modprobe.d, as a package's belongs)
	if [ -f /lib/modprobe.d/xblk-dkms.conf ]; then
		install -D -m 0644 /lib/modprobe.d/xblk-dkms.conf "$root/lib/modprobe.d/xblk-dkms.conf"
	fi
	depmod -b "$root" "$KVER"
}

mkcpio() { (cd "$1" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0); }

xenstore_links() {
	local t
	# xenstore-read & co are the same binary, dispatching on argv[0]
	for t in read write exists list ls rm watch chmod; do ln -sf xenstore "$1/usr/bin/xenstore-$t"; done
}

# ---------------------------------------------------------------- domU
log "domU initramfs"
D=$OUT/rootfs-domU
skeleton "$D"
copy_bins "$D" /usr/bin/bash /usr/bin/fio /usr/bin/xenstore /sbin/mke2fs /sbin/e2fsck \
	/usr/sbin/blkdiscard /sbin/blockdev /usr/bin/md5sum /usr/bin/timeout /usr/bin/dd \
	/usr/bin/chrt
# the image extras (before the busybox links: a real binary they bring must win)
for x in ${XLAB_EXTRAS:-}; do
	[ "$x" = small-guest ] && continue
	# shellcheck source=/dev/null
	. "$HERE/extras/$x.sh"
	extra_domu "$D"
	unset -f extra_prep extra_domu
done
for t in mkfs.ext4 mkfs.ext2; do ln -sf mke2fs "$D/usr/sbin/$t"; done
for t in fsck.ext4 fsck.ext2; do ln -sf e2fsck "$D/usr/sbin/$t"; done
[ -f /etc/mke2fs.conf ] && cp /etc/mke2fs.conf "$D/etc/"
xenstore_links "$D"
busybox_links "$D"
# xl shutdown: the kernel runs /sbin/poweroff, and busybox's signals an init we do not have
rm -f "$D/usr/sbin/poweroff"
printf '#!/bin/sh\n# the lab agent is no init: power off the way the kernel does\nsync\necho o > /proc/sysrq-trigger\n' > "$D/usr/sbin/poweroff"
chmod 0755 "$D/usr/sbin/poweroff"
copy_modules "$D" "$GKVER" "$GUEST_ROOT" xen-blkfront ext4 kyber-iosched bfq   # (mq-deadline is built in)
[ -f "$GMODS/xblkfront.ko" ] && cp "$GMODS/xblkfront.ko" "$D/extra/"
dkms_modules "$D" xblkfront
# the hostile test frontend (tests/hostile/)
[ -f "$GMODS/xblkhostile.ko" ] && cp "$GMODS/xblkhostile.ko" "$D/extra/"
# the acknowledged-writes writer/checker (tools/xlab-ackw.c; static: no library to copy)
gcc -O2 -Wall -static -o "$D/usr/bin/xlab-ackw" "$HERE/tools/xlab-ackw.c"
# the kernel tick profiler's reader (XLAB_OPTS=kprof=1), in both images
gcc -O2 -Wall -static -o "$OUT/xlab-kprof" "$HERE/../bench/xlab-kprof.c"
install -m 0755 "$OUT/xlab-kprof" "$D/usr/bin/xlab-kprof"
# scripts/xblkstat, the iostat-like view of xblk's counters
install -m 0755 "$HERE/../../scripts/xblkstat" "$D/usr/bin/xblkstat"
install -m 0755 "$HERE/init/domU-init.sh" "$D/init"
install -m 0644 "$HERE/lib/common.sh" "$HERE/lib/guest.sh" "$D/lab/"
# Stored uncompressed: libxenguest would gunzip it in dom0 user space, ~8 s per xl create
# under TCG.
mkdir -p "$OUT/payload"
mkcpio "$D" > "$OUT/payload/domU.cpio"
log "domU initramfs $(du -h "$OUT/payload/domU.cpio" | cut -f1)"

# domU kernel: the vmlinux ELF (libxenguest would otherwise xz-decompress the bzImage in dom0
# user space, ~5 s per xl create under TCG)
# (xz --single-stream stops early and tail gets SIGPIPE: ignore the pipeline status, check ELF)
# 6.1's payload is xz, 6.12's zstd (zstd then complains about the bytes after its frame: the
# ELF check below decides)
rm -f "$OUT/payload/vmlinux" "$OUT/payload/vmlinuz"
off=$(perl -0777 -ne 'print index($_, "\xfd7zXZ\x00")' "$OUT/vmlinuz-guest")
if [ "$off" -gt 0 ]; then
	tail -c +$((off + 1)) "$OUT/vmlinuz-guest" | xz -dc --single-stream > "$OUT/payload/vmlinux" 2>/dev/null || true
else
	off=$(perl -0777 -ne 'print index($_, "\x28\xb5\x2f\xfd")' "$OUT/vmlinuz-guest")
	if [ "$off" -gt 0 ]; then
		tail -c +$((off + 1)) "$OUT/vmlinuz-guest" | zstd -dcq > "$OUT/payload/vmlinux" 2>/dev/null || true
	fi
fi
if head -c 4 "$OUT/payload/vmlinux" 2>/dev/null | grep -q ELF; then
	DOMU_KERNEL=vmlinux
else
	log "no xz payload in vmlinuz, the domU boots the bzImage"
	rm -f "$OUT/payload/vmlinux"; cp "$OUT/vmlinuz-guest" "$OUT/payload/vmlinuz"; DOMU_KERNEL=vmlinuz
fi

# ---------------------------------------------------------------- small domU (extra small-guest)
# Many guests at once must fit in the lab's memory: an image with the agent, both frontends
# and xlab-ackw only (no fio and its libraries)
rm -f "$OUT/payload/domU-small.cpio"
if [[ " ${XLAB_EXTRAS:-} " == *" small-guest "* ]]; then
	log "small domU initramfs"
	S=$OUT/rootfs-domU-small
	skeleton "$S"
	copy_bins "$S" /usr/bin/bash /usr/bin/xenstore /usr/bin/timeout
	xenstore_links "$S"
	busybox_links "$S"
	copy_modules "$S" "$GKVER" "$GUEST_ROOT" xen-blkfront
	[ -f "$GMODS/xblkfront.ko" ] && cp "$GMODS/xblkfront.ko" "$S/extra/"
	install -m 0755 "$D/usr/bin/xlab-ackw" "$S/usr/bin/xlab-ackw"
	install -m 0755 "$HERE/init/domU-init.sh" "$S/init"
	install -m 0644 "$HERE/lib/common.sh" "$HERE/lib/guest.sh" "$S/lab/"
	mkcpio "$S" > "$OUT/payload/domU-small.cpio"
	log "small domU initramfs $(du -h "$OUT/payload/domU-small.cpio" | cut -f1)"
fi

# ---------------------------------------------------------------- dom0
log "dom0 initramfs"
R=$OUT/rootfs-dom0
skeleton "$R"
copy_bins "$R" $XENBIN/xl $XENBIN/xenstored $XENBIN/xenconsoled $XENBIN/xenconsole \
	$XENBIN/xen-init-dom0 $XENBIN/xenstore-control $XENBIN/libxl-save-helper $XENBIN/xentop \
	/usr/bin/xenstore /usr/bin/bash /usr/bin/stat /usr/bin/flock /usr/sbin/losetup \
	/sbin/blockdev /usr/bin/timeout /usr/sbin/dmsetup /usr/bin/dd /usr/bin/truncate \
	/usr/bin/awk /usr/bin/fio /usr/bin/chrt "$QEMU_XEN"
xenstore_links "$R"
# Debian's /usr/sbin/xl is a wrapper script picking the Xen version: call the binary directly
for t in xl xentop; do ln -sf $XENBIN/$t "$R/usr/sbin/$t"; done
busybox_links "$R"
mkdir -p "$R/etc/xen" "$R/var/lib/xen" "$R/var/log/xen/console" "$R/var/lib/xenstored"
cp -a /etc/xen/scripts "$R/etc/xen/"      # hotplug scripts (bash) run by xl for phy: disks
cp /etc/xen/xl.conf "$R/etc/xen/"
# QEMU as xen-block (qdisk) backend: keymaps and data files it may look up
mkdir -p "$R/usr/share/qemu"
cp -a /usr/share/qemu/keymaps "$R/usr/share/qemu/" 2>/dev/null || true
copy_modules "$R" "$KVER" "$DOM0_ROOT" xenfs xen-evtchn xen-gntdev xen-gntalloc xen-privcmd xen-blkback null_blk loop dm-mod bfq
# suite "rootdisk": QEMU's virtio disk holding the guest's root file system (dom0 serves it,
# and reads the guest's kernel from it), and what udev needs to load a vbd backend by alias
# (systemd-udevd with Debian's 80-drivers.rules only; started by that suite alone) with the
# package's blacklist (scripts/xblk-modprobe.conf)
copy_modules "$R" "$KVER" "$DOM0_ROOT" virtio_pci virtio_blk ext4
copy_bins "$R" /usr/bin/udevadm /lib/systemd/systemd-udevd
install -D -m 0644 /usr/lib/udev/rules.d/80-drivers.rules "$R/usr/lib/udev/rules.d/80-drivers.rules"
install -m 0644 "$HERE/../../scripts/xblk-modprobe.conf" "$R/lab/xblk-modprobe.conf"
# Debian's pvgrub (grub-xen-host), where installed: the rootdisk suite's pvgrub case
[ ! -f /usr/lib/grub-xen/grub-x86_64-xen.bin ] ||
	install -m 0644 /usr/lib/grub-xen/grub-x86_64-xen.bin "$R/lab/grub-x86_64-xen.bin"
[ -f "$OUT/modules/xblkback.ko" ] && cp "$OUT/modules/xblkback.ko" "$R/extra/"
dkms_modules "$R" xblkback
# test-only: the hostile backend (tests/hostile-back/) and the dom0 probes (tests/probe/)
[ -f "$OUT/modules/xblkhostileback.ko" ] && cp "$OUT/modules/xblkhostileback.ko" "$R/extra/"
[ -f "$OUT/modules/xlabprobe.ko" ] && cp "$OUT/modules/xlabprobe.ko" "$R/extra/"
# xblkfront.ko in dom0 too: only so that suites can see it was built (the guest's build)
[ -f "$GMODS/xblkfront.ko" ] && cp "$GMODS/xblkfront.ko" "$R/extra/"
[ -f "$GMODS/xblkhostile.ko" ] && cp "$GMODS/xblkhostile.ko" "$R/extra/"
install -m 0755 "$OUT/xlab-kprof" "$R/usr/bin/xlab-kprof"
# Xen's per-domain and per-vCPU CPU-time reader (tests/bench/xlab-cputime.c): linked against
# the libxenctrl that xl uses (its headers are not installed: the source declares what it
# calls). A failed build leaves it out; a suite that needs it says so.
if gcc -O2 -Wall -o "$OUT/xlab-cputime" "$HERE/../bench/xlab-cputime.c" \
	/usr/lib/x86_64-linux-gnu/libxenctrl.so.4.17 2> "$OUT/xlab-cputime.log"; then
	install -D -m 0755 "$OUT/xlab-cputime" "$R/usr/bin/xlab-cputime"
	# (the same libraries as xl's, already there; copied in case that changes)
	copy_bins "$R" $(ldd "$OUT/xlab-cputime" | awk '/=> \//{print $3}')
else
	log "xlab-cputime not built (see $OUT/xlab-cputime.log): Xen's CPU times cannot be read"
fi
install -m 0755 "$HERE/../../scripts/xblkstat" "$R/usr/bin/xblkstat"
install -m 0755 "$HERE/init/dom0-init.sh" "$R/init"
install -m 0755 "$HERE/init/hotplug-block" "$R/lab/hotplug-block"
# the libraries (common, dom0, cases, data-cases; guest.sh only rides along) and the suites
install -m 0644 "$HERE"/lib/*.sh "$R/lab/"
mkdir -p "$R/lab/suites"
install -m 0644 "$HERE"/suites/*.sh "$R/lab/suites/"
[ -f "$OUT/build-info" ] && cp "$OUT/build-info" "$R/lab/build-info"
cp "$OUT/kernels" "$R/lab/kernels"
mkdir -p "$R/guest"
cp "$OUT/payload/$DOMU_KERNEL" "$R/guest/"
cp "$OUT/payload/domU.cpio" "$R/guest/domU.cpio"
[ ! -f "$OUT/payload/domU-small.cpio" ] || cp "$OUT/payload/domU-small.cpio" "$R/guest/"
mkcpio "$R" > "$OUT/dom0.cpio"
log "dom0 initramfs $(du -h "$OUT/dom0.cpio" | cut -f1)"
