#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the Debian 12 (bookworm) 6.1 kernel ABI the lab boots and the build
# matrix's 6.1 column uses, e.g. "6.1.0-57-amd64", so that the caller can
# install linux-image-<ABI> and linux-headers-<ABI> by their exact names.
#
# The linux-image-amd64 meta package is only a pointer: on a host that tracks
# bookworm-backports it names a 6.12 kernel.  So, in order:
#   1. the installed linux-image-amd64, if it points at a 6.1 kernel;
#   2. the newest linux-image-amd64 that apt knows from bookworm or
#      bookworm-security (never backports), and the ABI it depends on;
#   3. the newest 6.1 image already in /boot.
# Exit 1 with a message on stderr when none of them gives a 6.1 kernel (on a
# fresh machine: run "apt-get update" first).
#
# usage: scripts/kver61.sh
set -euo pipefail

# abi_of DEPENDS: the 6.1 ABI named by a linux-image-amd64 Depends field
abi_of() {
	grep -o 'linux-image-6\.1\.[^ ,]*-amd64' <<<"$1" | head -n 1 | sed 's/^linux-image-//'
}

dep=$(dpkg-query -W -f='${Depends}' linux-image-amd64 2>/dev/null || true)
abi=$(abi_of "$dep" || true)
if [ -z "$abi" ]; then
	# apt-cache madison: "linux-image-amd64 | 6.1.176-1 | URL bookworm/main amd64 Packages"
	v=$(apt-cache madison linux-image-amd64 2>/dev/null |
		awk -F'|' '$3 !~ /backports/ { gsub(/ /, "", $2); print $2 }' |
		sort -V | tail -n 1)
	if [ -n "$v" ]; then
		dep=$(apt-cache show "linux-image-amd64=$v" 2>/dev/null | sed -n 's/^Depends: //p')
		abi=$(abi_of "$dep" || true)
	fi
fi
if [ -z "$abi" ]; then
	abi=$(find /boot -maxdepth 1 -name 'vmlinuz-6.1.0-*-amd64' 2>/dev/null |
		sed 's,.*/vmlinuz-,,' | sort -V | tail -n 1)
fi
if [ -z "$abi" ]; then
	inst=$(dpkg-query -W -f='${Version}' linux-image-amd64 2>/dev/null || true)
	echo "kver61: no Debian 12 6.1 kernel found: linux-image-amd64 is '${inst:-not installed}'" \
		"and apt knows no bookworm linux-image-amd64 (run apt-get update?)" >&2
	exit 1
fi
echo "$abi"
