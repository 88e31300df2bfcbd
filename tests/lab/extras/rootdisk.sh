# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Image extra "rootdisk" (the rootdisk suite's SUITE_IMAGE): $OUT/rootdisk.img, the disk its
# guest boots from, which QEMU gives dom0 as /dev/vda (SUITE_QEMU_DISK). Nothing goes into the
# guest image: the guest's kernel, initramfs and root are on that disk.

ROOTDISK_PKGS="debootstrap debhelper dpkg-dev rsync e2fsprogs"

# extra_prep: the cached Debian 12 base image (built on first use, minutes) with the xblk-dkms
# package of this tree installed in it; unless tier=ci, also the guest's kernel upgrade in its
# apt cache. A failure is the suite's FAIL line (no disk), not the run's end.
extra_prep() {
	local t=$SECONDS up=--upgrade deb missing
	[ "$(xlab_str tier "")" = ci ] && up=
	rm -f "$OUT/rootdisk.img"
	# (the suite's pvgrub case boots Debian's pvgrub image from grub-xen-host; pvgrub=0: not)
	missing=$(pkg_missing $ROOTDISK_PKGS $([ "$(xlab_str pvgrub 1)" != 0 ] && echo grub-xen-host) | tr '\n' ' ')
	# shellcheck disable=SC2086 # (a list)
	[ -n "${missing// /}" ] && apt_install $missing
	say "rootdisk: the xblk-dkms package and the guest's root disk (tests/lab/tools/rootdisk.sh)"
	if ! deb=$("$REPO/scripts/build-package.sh" "$OUT/package" 2> "$OUT/rootdisk-prep.log" | tail -n 1); then
		sed 's/^/    /' "$OUT/rootdisk-prep.log"
		return 0
	fi
	# shellcheck disable=SC2086 # ($up: empty or one word)
	if ! "$HERE/tools/rootdisk.sh" prepare "$deb" "$OUT/rootdisk.img" $up >> "$OUT/rootdisk-prep.log" 2>&1; then
		rm -f "$OUT/rootdisk.img"
		tail -n 20 "$OUT/rootdisk-prep.log" | sed 's/^/    /'
		return 0
	fi
	say "rootdisk: ready in $((SECONDS - t)) s ($(grep -c '^upgrade: ' "$OUT/rootdisk-prep.log") packages for the upgrade)"
}

# extra_domu ROOT: nothing (dom0's image carries what the suite needs: build-images.sh)
extra_domu() { :; }
