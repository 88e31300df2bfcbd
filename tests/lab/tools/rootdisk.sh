#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The root disk of the lab's "rootdisk" suite: a Debian 12 guest installed on an ext4 image
# with Debian's own tools, which the suite boots from xvda (tests/lab/suites/rootdisk.sh).
#
#   rootdisk.sh base
#       the cached base image, built if missing, its path on the last line:
#       $XBLK_CACHE/rootdisk/base-<key>.img (4 GiB, sparse). debootstrap --variant=minbase
#       bookworm, then apt-get: Debian's 6.1 kernel and its headers (linux-image-amd64,
#       linux-headers-amd64; the kernel's postinst makes its initramfs), dkms, openssl,
#       initramfs-tools, udev, xenstore-utils (for the lab's guest agent). Nothing of xblk.
#       <key> is a hash of this recipe: a changed recipe builds a new image, and the older
#       ones are deleted.
#   rootdisk.sh prepare DEB IMAGE [--upgrade]
#       IMAGE: a copy of the base with the package DEB installed by apt-get in a chroot (DKMS
#       builds, the package's postinst rebuilds the initramfs), then "update-initramfs -u"
#       once more, as the next kernel or package update would run it; the lab's guest agent
#       in /lab (init=/lab/init); this tree's sources (without tests/) in /usr/local/src/xblk.
#       With --upgrade also the packages of bookworm-backports' 6.12
#       kernel and headers in the image's apt cache (the suite's upgrade case installs them
#       in the running guest, which has no network); they are kept between runs in
#       $XBLK_CACHE/rootdisk/archives-upgrade.
#
# Logs: the commands' output on stdout (run.sh keeps it in out/rootdisk-prep.log).
# env: XBLK_CACHE (/var/cache/xblk), XBLK_DEBIAN_MIRROR (http://deb.debian.org/debian),
#      XBLK_DEBIAN_SECURITY_MIRROR (http://deb.debian.org/debian-security)
set -euo pipefail

HERE=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${XBLK_CACHE:-/var/cache/xblk}/rootdisk
MIRROR=${XBLK_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SECURITY=${XBLK_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
SIZE=4G
PKGS="linux-image-amd64 linux-headers-amd64 dkms openssl initramfs-tools udev kmod e2fsprogs
      xenstore-utils procps zstd"
UPGRADE_PKGS="linux-image-amd64 linux-headers-amd64"

say() { echo "[rootdisk $(date +%T)] $*"; }
die() { echo "rootdisk: $*" >&2; exit 1; }

MNT=
cleanup() {
	[ -n "$MNT" ] || return 0
	umount -R "$MNT" 2>/dev/null || { sleep 1; umount -R -l "$MNT" 2>/dev/null; }
	rmdir "$MNT" 2>/dev/null
	MNT=
}
trap cleanup EXIT

# mount_image IMAGE: IMAGE on $MNT with what apt and the kernel's scripts need in a chroot
mount_image() {
	MNT=$(mktemp -d /tmp/xblk-rootdisk.XXXXXX)
	mount -o loop "$1" "$MNT"
	mkdir -p "$MNT"/proc "$MNT"/sys "$MNT"/dev
	mount -t proc proc "$MNT/proc"
	mount -t sysfs sysfs "$MNT/sys"
	mount --bind /dev "$MNT/dev"
	mount -t devpts devpts "$MNT/dev/pts" -o newinstance,ptmxmode=0666 2>/dev/null || true
}
# inchroot CMD...: CMD in the image with a clean environment; no service is started there
inchroot() {
	chroot "$MNT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive "$@"
}
APT=(apt-get -y -q --no-install-recommends -o DPkg::Lock::Timeout=300)

# The recipe of the base image; its text (and PKGS, SIZE, the mirrors) is the cache key.
build_base() {
	local img=$1
	truncate -s "$SIZE" "$img"
	mkfs.ext4 -q -F -L xblkroot -E lazy_itable_init=0,lazy_journal_init=0 "$img"
	# debootstrap mounts what it needs itself, on an empty file system
	MNT=$(mktemp -d /tmp/xblk-rootdisk.XXXXXX)
	mount -o loop "$img" "$MNT"
	say "debootstrap --variant=minbase bookworm ($MIRROR)"
	if ! debootstrap --variant=minbase bookworm "$MNT" "$MIRROR"; then
		tail -n 20 "$MNT/debootstrap/debootstrap.log" 2>/dev/null
		die "debootstrap failed"
	fi
	cleanup
	mount_image "$img"
	rm -f "$MNT/etc/apt/sources.list"
	cat > "$MNT/etc/apt/sources.list.d/debian.sources" <<-EOF
	Types: deb
	URIs: $MIRROR
	Suites: bookworm bookworm-updates bookworm-backports
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

	Types: deb
	URIs: $SECURITY
	Suites: bookworm-security
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOF
	printf '/dev/xvda / ext4 errors=remount-ro 0 1\n' > "$MNT/etc/fstab"
	echo xblkguest > "$MNT/etc/hostname"
	printf '127.0.0.1 localhost\n127.0.1.1 xblkguest\n' > "$MNT/etc/hosts"
	printf '#!/bin/sh\nexit 101\n' > "$MNT/usr/sbin/policy-rc.d"
	chmod 755 "$MNT/usr/sbin/policy-rc.d"
	say "apt-get install $(echo $PKGS)"
	inchroot apt-get -q update
	# shellcheck disable=SC2086
	inchroot "${APT[@]}" install $PKGS
	inchroot apt-get clean
	rm -f "$MNT/usr/sbin/policy-rc.d"
	ls "$MNT/lib/modules" | sed 's/^/kernel /' > "$img.info"
	ls "$MNT/boot" | sed 's/^/boot /' >> "$img.info"
	cleanup
}

base() {
	local key img tmp
	mkdir -p "$CACHE"
	key=$( { declare -f build_base; echo "$PKGS $SIZE $MIRROR $SECURITY"; } | sha256sum | cut -c1-12)
	img=$CACHE/base-$key.img
	exec 8> "$CACHE/.lock"
	flock -w 3600 8 || die "cannot lock $CACHE/.lock"
	if [ ! -f "$img" ]; then
		command -v debootstrap >/dev/null || die "no debootstrap (apt-get install debootstrap)"
		say "building the base image $img (not in the cache)" >&2
		tmp=$img.tmp
		rm -f "$tmp" "$tmp.info"
		# (its output on stderr: "rootdisk.sh base" prints only the path on stdout)
		build_base "$tmp" >&2
		mv "$tmp.info" "$img.info"
		mv "$tmp" "$img"
		# older recipes' images
		find "$CACHE" -maxdepth 1 -name 'base-*.img*' ! -name "base-$key.img*" -delete
		say "base image built" >&2
	fi
	BASE_IMG=$img
}

prepare() {
	local deb=$1 img=$2 upgrade=${3:-} base_img name arch
	[ -f "$deb" ] || die "no package $deb"
	# (not in $(...): set -e must stay in force in the base image's recipe)
	base >&2
	base_img=$BASE_IMG
	say "copying $base_img to $img"
	rm -f "$img"
	cp --sparse=always "$base_img" "$img"
	mount_image "$img"
	printf '#!/bin/sh\nexit 101\n' > "$MNT/usr/sbin/policy-rc.d"
	chmod 755 "$MNT/usr/sbin/policy-rc.d"
	name=${deb##*/}
	cp "$deb" "$MNT/tmp/$name"
	say "apt-get install ./$name (in the guest's root)"
	inchroot "${APT[@]}" install "/tmp/$name"
	rm -f "$MNT/tmp/$name"
	say "update-initramfs -u (the next kernel or package update does the same)"
	inchroot update-initramfs -u
	if [ "$upgrade" = --upgrade ]; then
		arch=$CACHE/archives-upgrade
		mkdir -p "$arch"
		say "bookworm-backports' kernel and headers into the guest's apt cache"
		cp "$arch"/*.deb "$MNT/var/cache/apt/archives/" 2>/dev/null || true
		inchroot apt-get -q update
		# shellcheck disable=SC2086
		inchroot "${APT[@]}" install --download-only -t bookworm-backports $UPGRADE_PKGS
		# keep exactly this set for the next run
		rsync -a --delete --include='*.deb' --exclude='*' "$MNT/var/cache/apt/archives/" "$arch/"
		ls "$MNT/var/cache/apt/archives/" | grep '\.deb$' | sed 's/^/upgrade: /'
	fi
	rm -f "$MNT/usr/sbin/policy-rc.d"
	# the sources of this tree (not tests/), for the suite's "source" case: README.md's
	# recipe, make install and make install-config, in the guest
	mkdir -p "$MNT/usr/local/src/xblk"
	if git -C "$HERE/../.." rev-parse >/dev/null 2>&1; then
		(cd "$HERE/../.." && git ls-files -co --exclude-standard -z -- . ':!tests' |
			tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$MNT/usr/local/src/xblk"
	else
		(cd "$HERE/../.." && tar --exclude=./tests --exclude=./build -cf - .) | tar -xf - -C "$MNT/usr/local/src/xblk"
	fi
	# the lab's guest agent, as /sbin/init of this guest (kernel argument init=/lab/init)
	install -D -m 0755 "$HERE/init/domU-init.sh" "$MNT/lab/init"
	install -D -m 0644 "$HERE/lib/guest.sh" "$MNT/lab/guest.sh"
	ls "$MNT/boot" | sed 's/^/boot: /'
	cleanup
}

case ${1:-} in
base) base; echo "$BASE_IMG" ;;
prepare)
	[ $# -ge 3 ] || die "usage: rootdisk.sh prepare DEB IMAGE [--upgrade]"
	prepare "$2" "$3" "${4:-}" ;;
*) echo "usage: rootdisk.sh base | prepare DEB IMAGE [--upgrade]" >&2; exit 2 ;;
esac
