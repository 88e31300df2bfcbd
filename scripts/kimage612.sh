#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The bookworm-backports 6.12 kernel for the lab (tests/lab/run.sh with
# XLAB_OPTS="dom0_kernel=6.12" and/or "guest_kernel=6.12"), unpacked into the
# cache, never installed:
#
#   $XBLK_CACHE/k612/<kver>/boot/vmlinuz-<kver>
#   $XBLK_CACHE/k612/<kver>/lib/modules/<kver>/...   with depmod's index
#
# <kver> (e.g. 6.12.95+deb12-amd64) is the one whose headers scripts/deps.sh
# unpacked for the build matrix ("6.12" line of $XBLK_CACHE/kdirs), so that
# our modules built against those headers have the booted kernel's vermagic.
# The image package is fetched with "apt-get download" by its exact name and
# unpacked with dpkg-deb -x: nothing lands in /boot or /lib/modules, the
# machine's kernel and its package state are untouched.  Then
# "modprobe -d <root> -S <kver>" and "depmod -b <root> <kver>" see the tree.
#
# Prints "KVER ROOT KDIR" on stdout.  Idempotent (a second run only prints).
# env: XBLK_CACHE (default /var/cache/xblk); XLAB_NO_APT=1: never download
set -euo pipefail

CACHE=${XBLK_CACHE:-/var/cache/xblk}
KDIRS=$CACHE/kdirs
read -r _ kdir kver < <(awk '$1 == "6.12"' "$KDIRS" 2>/dev/null) || true
if [ -z "${kver:-}" ] || [ ! -f "$kdir/Makefile" ]; then
	echo "kimage612: no 6.12 headers in $KDIRS: run scripts/deps.sh first" >&2
	exit 2
fi
root=$CACHE/k612/$kver
if [ ! -f "$root/.xblk-done" ]; then
	[ -z "${XLAB_NO_APT:-}" ] ||
		{ echo "kimage612: $root missing and XLAB_NO_APT set" >&2; exit 2; }
	pkg=linux-image-$kver
	mkdir -p "$CACHE/k612"
	# serialise with another run preparing the same tree
	exec 8>"$CACHE/k612/.lock"
	flock 8
	if [ ! -f "$root/.xblk-done" ]; then
		tmp=$CACHE/k612/dl.$$
		rm -rf "$tmp" "$root"
		mkdir -p "$tmp"
		# apt's _apt user cannot write into a root-only dir: that is only a warning
		if ! (cd "$tmp" && apt-get download "$pkg") >"$tmp/apt.log" 2>&1; then
			# the version in old lists may be gone from the mirror
			apt-get update -qq >>"$tmp/apt.log" 2>&1 || true
			(cd "$tmp" && apt-get download "$pkg") >>"$tmp/apt.log" 2>&1 ||
				{ tail -n 20 "$tmp/apt.log" >&2; echo "kimage612: apt-get download $pkg failed" >&2; exit 2; }
		fi
		mkdir -p "$root.new"
		dpkg-deb -x "$tmp"/"$pkg"_*.deb "$root.new"
		if [ ! -f "$root.new/boot/vmlinuz-$kver" ] || [ ! -d "$root.new/lib/modules/$kver" ]; then
			echo "kimage612: $pkg has no boot/vmlinuz-$kver or lib/modules/$kver" >&2
			exit 2
		fi
		depmod -b "$root.new" "$kver"
		rm -rf "$tmp"
		mv "$root.new" "$root"
		touch "$root/.xblk-done"
		echo "kimage612: unpacked $pkg into $root" >&2
	fi
	# keep only the current one
	for old in "$CACHE"/k612/*; do
		[ -d "$old" ] && [ "$old" != "$root" ] && rm -rf "$old"
	done
fi
echo "$kver $root $kdir"
