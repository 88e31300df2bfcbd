#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the xblk-dkms package from this tree without touching it:
#
#   scripts/build-package.sh [OUTDIR]      (default: build/package)
#
# copies the tree (without .git, tests/, build/ and what .gitignore ignores)
# to a temporary directory, runs "dpkg-buildpackage -us -uc -b" there, and
# moves the package to OUTDIR.  The last line of the output is the
# package's path.  (dpkg-buildpackage in a clone puts the package in the
# clone's parent directory, ../xblk-dkms_<version>_all.deb.)
#
# Needs debhelper, dpkg-dev and rsync (scripts/deps.sh installs them).
# Exit status 0 iff the package was built; the build log is
# OUTDIR/build.log.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build/package}
for t in dpkg-buildpackage dh rsync; do
	command -v "$t" >/dev/null ||
		{ echo "build-package: no $t (apt-get install debhelper dpkg-dev rsync)" >&2; exit 2; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$root/dkms.conf")
[ -n "$version" ] || { echo "build-package: no PACKAGE_VERSION in dkms.conf" >&2; exit 2; }
work=$(mktemp -d /tmp/xblk-package.XXXXXX)
trap 'rm -rf "$work"' EXIT
src=$work/xblk-$version
rsync -a --filter=':- .gitignore' --exclude=/.git --exclude=/tests/ --exclude=/build/ \
	"$root/" "$src/"
if ! (cd "$src" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1; then
	echo "build-package: dpkg-buildpackage failed, last lines of $out/build.log:" >&2
	tail -n 20 "$out/build.log" | sed 's/^/    /' >&2
	exit 1
fi
deb=xblk-dkms_${version}_all.deb
[ -f "$work/$deb" ] || { echo "build-package: dpkg-buildpackage made no $deb" >&2; exit 1; }
mv "$work/$deb" "$out/$deb"
echo "$out/$deb"
