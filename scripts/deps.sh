#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install everything xblk's build and tests need on a Debian 12 (bookworm)
# machine, and prepare the three kernel trees the build matrix uses:
#
#   6.1   Debian 12's kernel (the one the lab boots) and its headers, by
#         exact package name, also where linux-image-amd64 is backports' 6.12
#   6.12  the bookworm-backports headers, unpacked into the cache (see below)
#   sid   the newest mainline linux-source-X.Y Debian ships in sid, unpacked
#         into the cache and configured with Xen + xen-blk* enabled
#
# Idempotent: every step is skipped when its result is already there, so a
# second run takes a few seconds.  Command output goes to $XBLK_CACHE/deps.log;
# only errors (with the log's tail) reach the console.  The KDIR of each tree
# is printed and written to $XBLK_CACHE/kdirs ("name kdir version" per line),
# which scripts/matrix.sh and the Makefile read.
#
# Nothing here makes the system upgrade from backports or sid:
#  - bookworm-backports is added as an apt source with its default (and here
#    explicitly pinned) priority 100, so apt never prefers it by itself;
#  - sid is only ever read through a private lists dir in the cache, which
#    the system's apt never sees; its package is fetched with apt-get download
#    and unpacked by hand, never installed.
#
# Why the 6.12 headers are unpacked rather than installed: Debian's
# linux-headers-6.12.*-amd64 hard-depends on the matching linux-image, so
# installing them adds a second kernel to /boot and /lib/modules (and a
# 6.12 linux-headers-amd64 meta package would replace the 6.1 one).  The
# headers, their -common part and linux-kbuild are unpacked with dpkg -x
# instead; if the 6.12 headers are already installed (someone installed that
# image on purpose) the installed tree is used.
#
# env: XBLK_CACHE (default /var/cache/xblk)
#      XBLK_SID_MAX_AGE  seconds before the sid package list is refreshed
#                        (default 86400)
set -euo pipefail

CACHE=${XBLK_CACHE:-/var/cache/xblk}
SID_MAX_AGE=${XBLK_SID_MAX_AGE:-86400}
LOG=$CACHE/deps.log
KDIRS=$CACHE/kdirs
MIRROR=http://deb.debian.org/debian
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
export DEBIAN_FRONTEND=noninteractive

mkdir -p "$CACHE"
# Serialise concurrent runs (two make test at once must not race on the cache).
exec 9>"$CACHE/.lock"
flock 9
: >"$LOG"
start=$SECONDS
installed=()

say() { printf 'deps: %s\n' "$*"; }

# run CMD...: run quietly into the log; on failure show the command and the
# log's tail, then stop.
run() {
	printf '\n+ %s\n' "$*" >>"$LOG"
	if ! "$@" >>"$LOG" 2>&1; then
		printf 'deps: FAILED: %s\n--- last lines of %s ---\n' "$*" "$LOG" >&2
		tail -n 40 "$LOG" >&2
		exit 1
	fi
}

# timed LABEL CMD...: like run, and say how long it took.
timed() {
	local label=$1 t=$SECONDS
	shift
	run "$@"
	say "$label ($((SECONDS - t)) s)"
}

need_root() {
	[ "$(id -u)" = 0 ] || { echo "deps: $* needs root" >&2; exit 1; }
}

pkg_installed() {
	[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null)" = "ii " ]
}

apt_updated=
apt_update() {
	[ -n "$apt_updated" ] && return
	timed "apt-get update" apt-get update
	apt_updated=1
}

# ---------------------------------------------------------------- packages --
# Build: compiler, kbuild's host tools, pahole (Debian's 6.12 headers ship a
# vmlinux, so module BTF is generated), sparse (make check), rsync (matrix
# copies), codespell (checkpatch --codespell), universal-ctags (make style:
# scripts/callgraph.py), linux-source-6.1 (checkpatch.pl,
# spelling.txt, const_structs.checkpatch).  Unit tests: clang with its
# libFuzzer/sanitizer runtime.  Lab (tests/lab): Xen 4.17 under QEMU, with a
# busybox/fio initramfs (the list tests/lab/run.sh checks, so it installs
# nothing more).  Package (scripts/test-package.sh): dkms, dh-dkms, debhelper,
# dpkg-dev.
PKGS=(
	build-essential bc bison flex libelf-dev libssl-dev kmod cpio rsync
	xz-utils perl python3 git ca-certificates debian-archive-keyring
	linux-image-amd64 linux-headers-amd64 linux-source-6.1
	sparse codespell pahole universal-ctags
	clang libclang-rt-dev
	qemu-system-x86 qemu-system-xen qemu-utils xen-hypervisor-4.17-amd64
	xen-utils-4.17 xen-utils-common xenstore-utils busybox-static fio
	e2fsprogs util-linux dmsetup
	dkms dh-dkms debhelper dpkg-dev
)
missing=()
for p in "${PKGS[@]}"; do
	pkg_installed "$p" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	need_root "installing ${missing[*]}"
	apt_update
	timed "installed ${missing[*]}" \
		apt-get install -y --no-install-recommends "${missing[@]}"
	installed+=("${missing[@]}")
fi

# ----------------------------------------------------------- 6.1 (Debian) --
# The kernel the lab boots and its headers, by their exact package names:
# linux-image-amd64 may point at a backports 6.12 kernel on a host that
# tracks backports (scripts/kver61.sh).  Never "the newest /lib/modules/*".
if ! kver61=$("$(dirname "$0")"/kver61.sh 2>/dev/null); then
	apt_update
	kver61=$("$(dirname "$0")"/kver61.sh) || exit 1
fi
for p in "linux-image-$kver61" "linux-headers-$kver61"; do
	pkg_installed "$p" && continue
	need_root "installing $p"
	apt_update
	timed "installed $p" apt-get install -y --no-install-recommends "$p"
	installed+=("$p")
done
kdir61=/lib/modules/$kver61/build
[ -f "$kdir61/Makefile" ] || { echo "deps: $kdir61 has no Makefile" >&2; exit 1; }

# ------------------------------------------------ 6.12 (bookworm-backports) --
BPO_SRC=/etc/apt/sources.list.d/xblk-bookworm-backports.sources
BPO_PIN=/etc/apt/preferences.d/xblk-bookworm-backports
if [ ! -f "$BPO_SRC" ] && ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	need_root "adding bookworm-backports"
	cat >"$BPO_SRC" <<-EOF
	# Added by xblk scripts/deps.sh: only for the 6.12 kernel headers.
	Types: deb
	URIs: $MIRROR
	Suites: bookworm-backports
	Components: main
	Signed-By: $KEYRING
	EOF
	installed+=("(apt source) bookworm-backports")
	apt_updated=
fi
if [ ! -f "$BPO_PIN" ]; then
	need_root "pinning bookworm-backports"
	# Backports' Release file already says NotAutomatic/ButAutomaticUpgrades
	# (priority 100); the pin makes that explicit and independent of mirrors.
	cat >"$BPO_PIN" <<-EOF
	# Added by xblk scripts/deps.sh: never prefer backports over bookworm.
	Package: *
	Pin: release n=bookworm-backports
	Pin-Priority: 100
	EOF
fi

# The backports version of the linux-headers-amd64 meta package names the
# versioned headers package, e.g. linux-headers-6.12.95+deb12-amd64.
bpo_headers() {
	local v
	v=$(apt-cache madison linux-headers-amd64 2>/dev/null |
	    awk -F'|' '$3 ~ /bookworm-backports/ { gsub(/ /, "", $2); print $2; exit }')
	[ -n "$v" ] || return 0
	apt-cache show "linux-headers-amd64=$v" 2>/dev/null |
		sed -n 's/^Depends:.*\(linux-headers-[^ ,]*-amd64\).*/\1/p' | head -n 1
}
hdr612=$(bpo_headers)
if [ -z "$hdr612" ]; then
	apt_update
	hdr612=$(bpo_headers)
fi
[ -n "$hdr612" ] || { echo "deps: bookworm-backports has no linux-headers-amd64" >&2; exit 1; }
abi612=${hdr612#linux-headers-}			# 6.12.95+deb12-amd64
if [ -f "/usr/src/$hdr612/Makefile" ]; then
	kdir612=/usr/src/$hdr612		# installed by someone on purpose
else
	root612=$CACHE/$hdr612
	kdir612=$root612/usr/src/$hdr612
	if [ ! -f "$root612/.xblk-done" ]; then
		t=$SECONDS
		rm -rf "$root612" "$CACHE/debs"
		mkdir -p "$root612" "$CACHE/debs"
		# The headers package plus its -common and linux-kbuild parts.
		debs=("$hdr612" $(apt-cache show "$hdr612" |
			sed -n '/^Depends:/{s/^Depends://;s/([^)]*)//g;s/[,|]/\n/g;p;q}' |
			tr -d ' ' | grep -E '^linux-(headers|kbuild)-'))
		apt_update	# the versions in old lists may be gone from the mirror
		(cd "$CACHE/debs" && run apt-get download "${debs[@]}")
		for d in "$CACHE"/debs/*.deb; do
			run dpkg -x "$d" "$root612"
		done
		rm -rf "$CACHE/debs"
		# The arch Makefile includes the -common one by absolute path.
		sed -i "s|^include /usr/src/|include $root612/usr/src/|" "$kdir612/Makefile"
		touch "$root612/.xblk-done"
		say "unpacked ${debs[*]} ($((SECONDS - t)) s)"
		installed+=("$hdr612 (unpacked)")
	fi
	# Keep only the current backports headers.
	for old in "$CACHE"/linux-headers-*-amd64; do
		[ -d "$old" ] && [ "$old" != "$root612" ] && rm -rf "$old"
	done
fi
[ -f "$kdir612/Makefile" ] || { echo "deps: $kdir612 has no Makefile" >&2; exit 1; }

# ------------------------------------------------------- sid (mainline) --
# A private apt configuration: sid's package lists live only in the cache.
SID=$CACHE/apt-sid
mkdir -p "$SID/lists/partial" "$SID/sources.list.d"
cat >"$SID/sid.sources.new" <<EOF
Types: deb deb-src
URIs: $MIRROR
Suites: sid
Components: main
Signed-By: $KEYRING
EOF
stamp=$SID/lists/.updated
if ! cmp -s "$SID/sid.sources.new" "$SID/sources.list.d/sid.sources"; then
	mv "$SID/sid.sources.new" "$SID/sources.list.d/sid.sources"
	rm -f "$stamp"
fi
rm -f "$SID/sid.sources.new"
# sid's Release file is valid for a week only; a mirror or snapshot older
# than that must still do for a compile-check tree (signatures are checked).
SID_APT=(-o "Dir::State::Lists=$SID/lists"
	 -o "Acquire::Check-Valid-Until=false"
	 -o "Dir::Etc::SourceList=/dev/null"
	 -o "Dir::Etc::SourceParts=$SID/sources.list.d"
	 -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=")
if [ ! -f "$stamp" ] || [ $(( $(date +%s) - $(stat -c %Y "$stamp") )) -gt "$SID_MAX_AGE" ]; then
	timed "sid package list" apt-get "${SID_APT[@]}" update
	touch "$stamp"
fi
# The newest linux-source-X.Y in sid (during a transition sid may carry two;
# the installed linux-source-6.1 is listed too, hence the check for a sid
# version).
sidsrc=$(apt-cache "${SID_APT[@]}" pkgnames linux-source- |
	 grep -E '^linux-source-[0-9]+\.[0-9]+$' | sort -V | tail -n 1)
sidver=$(apt-cache "${SID_APT[@]}" show "$sidsrc" 2>/dev/null |
	 sed -n 's/^Version: //p' | sort -V | tail -n 1)
[ -n "$sidver" ] || { echo "deps: no linux-source-X.Y in sid" >&2; exit 1; }
kdirsid=$CACHE/linux-$sidver			# e.g. linux-7.2.13-1
if [ ! -f "$kdirsid/.xblk-unpacked" ]; then
	rm -rf "$kdirsid" "$CACHE/sid-deb"
	mkdir -p "$CACHE/sid-deb"
	(cd "$CACHE/sid-deb" && timed "downloaded $sidsrc $sidver" \
		apt-get "${SID_APT[@]}" download "$sidsrc=$sidver")
	t=$SECONDS
	mkdir -p "$kdirsid"
	# The .deb holds usr/src/linux-source-X.Y.tar.xz; untar it in one pipe.
	dpkg-deb --fsys-tarfile "$CACHE"/sid-deb/*.deb |
		tar -xO --wildcards './usr/src/linux-source-*.tar.xz' |
		tar -xJ -C "$kdirsid" --strip-components=1 2>>"$LOG" ||
		{ echo "deps: unpacking $sidsrc failed" >&2; tail -n 20 "$LOG" >&2; exit 1; }
	rm -rf "$CACHE/sid-deb"
	touch "$kdirsid/.xblk-unpacked"
	say "unpacked $sidsrc ($((SECONDS - t)) s)"
	installed+=("$sidsrc $sidver (unpacked)")
fi
# defconfig + what the drivers need.  XEN_BACKEND is what XEN_BLKDEV_BACKEND
# depends on (it needs XEN_DOM0).  WERROR is off so that warnings from the
# kernel's own headers under W=1 do not stop the build: scripts/check.sh
# decides which warnings are ours.  Bump SID_RECIPE when changing this list;
# the tree is then configured and prepared again (not unpacked again).
SID_RECIPE="defconfig +XEN +XEN_PV +XEN_DOM0 +XEN_BACKEND +BLK_DEV m:XEN_BLKDEV_* -WERROR"
if [ "$(cat "$kdirsid/.xblk-done" 2>/dev/null)" != "$SID_RECIPE" ]; then
	t=$SECONDS
	rm -f "$kdirsid/.xblk-done"
	run make -C "$kdirsid" defconfig
	run "$kdirsid/scripts/config" --file "$kdirsid/.config" \
		--enable HYPERVISOR_GUEST --enable PARAVIRT \
		--enable XEN --enable XEN_PV --enable XEN_DOM0 \
		--enable XEN_BACKEND --enable BLK_DEV \
		--module XEN_BLKDEV_FRONTEND --module XEN_BLKDEV_BACKEND \
		--disable WERROR
	run make -C "$kdirsid" olddefconfig
	for opt in XEN=y XEN_PV=y XEN_DOM0=y XEN_BACKEND=y BLK_DEV=y \
		   XEN_BLKDEV_FRONTEND=m XEN_BLKDEV_BACKEND=m MODULES=y; do
		grep -qx "CONFIG_$opt" "$kdirsid/.config" ||
			{ echo "deps: $kdirsid/.config lacks CONFIG_$opt" >&2; exit 1; }
	done
	run make -C "$kdirsid" -j"$(nproc)" modules_prepare
	echo "$SID_RECIPE" >"$kdirsid/.xblk-done"
	say "configured $kdirsid, modules_prepare ($((SECONDS - t)) s)"
	installed+=("$sidsrc $sidver (configured, modules_prepare)")
fi
# Sparse for the sid tree: since 6.14 the kernel requires a sparse that knows
# __typeof_unqual__ (scripts/checker-valid.sh) and silently skips C=1
# otherwise.  Bookworm's sparse 0.6.4 does not, and sid's binary package needs
# sid's libc, so build sid's sparse source (a few seconds) into the cache.
# scripts/check.sh uses it for the trees that reject the system sparse.
SPARSE=$CACHE/sparse
if [ -x "$kdirsid/scripts/checker-valid.sh" ] &&
   [ "$("$kdirsid/scripts/checker-valid.sh" sparse 2>/dev/null)" != 1 ]; then
	spver=$(apt-cache "${SID_APT[@]}" showsrc sparse | sed -n 's/^Version: //p' | sort -V | tail -n 1)
	if [ "$(cat "$SPARSE/.xblk-done" 2>/dev/null)" != "$spver" ]; then
		t=$SECONDS
		rm -rf "$SPARSE"
		mkdir -p "$SPARSE/src"
		(cd "$SPARSE" && run apt-get "${SID_APT[@]}" source --download-only "sparse=$spver")
		run tar -xzf "$SPARSE"/sparse_*.orig.tar.gz -C "$SPARSE/src" --strip-components=1
		run make -C "$SPARSE/src" -j"$(nproc)" sparse \
			HAVE_LLVM=no HAVE_SQLITE=no HAVE_GTK=no HAVE_LIBXML=no
		install -m 0755 "$SPARSE/src/sparse" "$SPARSE/sparse"
		rm -rf "$SPARSE/src" "$SPARSE"/sparse_*
		[ "$("$kdirsid/scripts/checker-valid.sh" "$SPARSE/sparse")" = 1 ] ||
			{ echo "deps: sid's sparse $spver is still too old for $kdirsid" >&2; exit 1; }
		echo "$spver" >"$SPARSE/.xblk-done"
		say "built sparse $spver from sid's source into $SPARSE ($((SECONDS - t)) s)"
		installed+=("sparse $spver (built, $SPARSE/sparse)")
	fi
fi

# Keep only the current sid tree (each is ~1.5 GB).
for old in "$CACHE"/linux-[0-9]*; do
	[ -d "$old" ] && [ "$old" != "$kdirsid" ] && rm -rf "$old"
done

# ------------------------------------------------------------------ report --
kernelrelease() { make -s --no-print-directory -C "$1" kernelrelease 2>/dev/null || echo "?"; }
{
	echo "6.1 $kdir61 $kver61"
	echo "6.12 $kdir612 $abi612"
	echo "sid $kdirsid $(kernelrelease "$kdirsid")"
} >"$KDIRS.tmp"
mv "$KDIRS.tmp" "$KDIRS"

if [ ${#installed[@]} -gt 0 ]; then
	say "installed or prepared this run:"
	printf '  %s\n' "${installed[@]}"
else
	say "nothing to install, everything was already there"
fi
say "kernel trees (also in $KDIRS):"
while read -r name kdir ver; do
	printf '  %-5s %-28s KDIR=%s\n' "$name" "$ver" "$kdir"
done <"$KDIRS"
say "done in $((SECONDS - start)) s (log: $LOG)"
