# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Image extra "blktests" (a suite's SUITE_IMAGE="blktests"): blktests, the block layer
# maintainers' test suite, and what it runs, in the guest image. An extra is two functions:
#   extra_prep        run.sh, on the host, inside the lab lock (it may install and build); it
#                     has run.sh's helpers (say, pkg_missing, apt_install) and OUT, REPO
#   extra_domu ROOT   build-images.sh, into the guest's tree ROOT before the busybox links
#                     (a real binary it copies wins over busybox's applet); it has
#                     build-images.sh's helpers (copy_bins, copy_modules) and GKVER, GUEST_ROOT
# Both find the build in $OUT/blktests.

BLKTESTS_COMMIT=613b8377e4d30fb5b0e0e0882885b3bf103b2c7c

# extra_prep: blktests at the commit we test with, built in $OUT/blktests. The source is the
# snapshot in ../shared/third-party/ beside the project (or $XLAB_BLKTESTS_TGZ); without one,
# the same commit from upstream, as a machine with network would get it.
extra_prep() {
	local d=$OUT/blktests tgz=${XLAB_BLKTESTS_TGZ:-$REPO/../shared/third-party/blktests-${BLKTESTS_COMMIT:0:8}.tar.gz}
	local missing
	# what extra_domu copies into the guest image, and blktests' build
	missing=$(pkg_missing xfsprogs gawk bsdextrautils udev g++ diffutils findutils | tr '\n' ' ')
	# shellcheck disable=SC2086 # (a list)
	[ -n "${missing// /}" ] && apt_install $missing
	if [ ! -f "$d/.built-$BLKTESTS_COMMIT" ]; then
		rm -rf "$d"
		mkdir -p "$d"
		if [ -f "$tgz" ]; then
			say "blktests: unpacking ${tgz#"$REPO"/}"
			tar -xzf "$tgz" -C "$d" --strip-components=1 || return 1
		else
			say "blktests: no snapshot at $tgz, cloning upstream at ${BLKTESTS_COMMIT:0:12}"
			git clone -q https://github.com/osandov/blktests "$d" &&
				git -C "$d" checkout -q "$BLKTESTS_COMMIT" || return 1
		fi
		make -C "$d" > "$OUT/blktests-build.log" 2>&1 ||
			{ tail -20 "$OUT/blktests-build.log"; echo "blktests build failed" >&2; return 1; }
		touch "$d/.built-$BLKTESTS_COMMIT"
	fi
}

# extra_domu ROOT: blktests (built by extra_prep) in /blktests, and what it runs: bash, GNU
# coreutils, awk, grep, sed, find, diff (blktests relies on GNU options and compares outputs
# with diff; busybox's applets would make tests fail for the wrong reason), util-linux,
# hexdump, xfs_io, dmsetup, udevadm, the kernel's config (for _have_kernel_option) and the
# device-mapper module
extra_domu() {
	local root=$1 p f
	cp -a "$OUT/blktests" "$root/blktests"
	rm -rf "$root/blktests/.git" "$root/blktests/results"
	for p in coreutils findutils diffutils grep sed gawk util-linux mount bsdextrautils xfsprogs \
		 dmsetup procps; do
		while read -r f; do
			[ -f "$f" ] && [ -x "$f" ] && copy_bins "$root" "$f"
		done < <(dpkg -L "$p" 2>/dev/null | grep -E '^(/usr)?/s?bin/[^/]+$')
	done
	copy_bins "$root" /usr/bin/udevadm
	ln -sf gawk "$root/usr/bin/awk"
	mkdir -p "$root/boot"
	cp "$GUEST_ROOT/boot/config-$GKVER" "$root/boot/"
	copy_modules "$root" "$GKVER" "$GUEST_ROOT" dm-mod
}
