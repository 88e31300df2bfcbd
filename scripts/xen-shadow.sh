#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A Xen 4.17 hypervisor with shadow paging, for the lab's migrate suite.
#
# Why: live migration of a PV guest tracks the pages it dirties with Xen's
# shadow paging (log-dirty mode).  Debian 12's hypervisor is built with
# "# CONFIG_SHADOW_PAGING is not set" (/boot/xen-4.17-amd64.config), so on it
# `xl migrate` of a PV guest fails in the sender ("xc: error: Failed to enable
# logdirty: 95") and tests/lab's migrate suite can only skip.  This script
# builds the same hypervisor with CONFIG_SHADOW_PAGING=y, for the lab to boot
# under QEMU (tests/lab/run.sh, XLAB_OPTS xen=shadow, the migrate suite's
# default).  It builds only the hypervisor (make -C xen), never the tools: the
# lab's dom0 keeps Debian's xl and libraries.
#
#   source   Debian's xen source package of the installed hypervisor's version
#            (dpkg-query xen-hypervisor-4.17-amd64, else libxenmisc4.17), fetched
#            with `apt-get source` through a private deb-src list in the cache
#            (bookworm, -updates, -security), else from snapshot.debian.org (each
#            file checked against the signed Sources index), and unpacked with
#            dpkg-source -x, which applies Debian's patches.  If neither has that
#            version, the newest 4.17 source the archive has is used, with a
#            warning, and recorded in xen.info (the hypercall interfaces do not
#            change within a Xen stable series); XBLK_XEN_EXACT=1 refuses that.
#   config   /boot/xen-4.17-amd64.config with CONFIG_SHADOW_PAGING=y, then
#            `make -C xen olddefconfig`; the result must still say
#            CONFIG_SHADOW_PAGING=y and differ from Debian's in nothing else
#            but the version line.
#   result   $XBLK_CACHE/xen-shadow/xen (the uncompressed ELF image QEMU's
#            multiboot loader boots), xen.config (the config it was built
#            with), xen.info (installed version, source version, config
#            checksum).  Nothing goes to /boot; the machine's boot and its
#            package state are untouched (only build tools are installed).
#
# Idempotent: when xen.info matches the installed version and config, the
# cached image is reused and only its path is printed.
# Prints the path of the uncompressed image on stdout; progress on stderr;
# the build's output goes to $XBLK_CACHE/xen-shadow/build.log.
# env: XBLK_CACHE (default /var/cache/xblk); XLAB_NO_APT=1: never run apt-get
#      (fail if the image must be built and something is missing);
#      XBLK_XEN_EXACT=1: only the installed version's source will do
set -euo pipefail

CACHE=${XBLK_CACHE:-/var/cache/xblk}
DIR=$CACHE/xen-shadow
LOG=$DIR/build.log
SERIES=4.17
BOOTCFG=/boot/xen-$SERIES-amd64.config
MIRROR=http://deb.debian.org/debian
SECMIRROR=http://deb.debian.org/debian-security
SNAPSHOT=https://snapshot.debian.org
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
# bump when the way the image is made changes (the cache is rebuilt)
RECIPE="shadow-1 CONFIG_SHADOW_PAGING=y"
BUILD_PKGS=(build-essential bison flex python3 dpkg-dev xz-utils gzip
	    debian-archive-keyring ca-certificates)
export DEBIAN_FRONTEND=noninteractive

say() { printf 'xen-shadow: %s\n' "$*" >&2; }
die() { say "$*"; exit 2; }

# run CMD...: quietly into the log; on failure the command and the log's tail
run() {
	printf '\n+ %s\n' "$*" >>"$LOG"
	if ! "$@" >>"$LOG" 2>&1; then
		say "FAILED: $*"
		tail -n 30 "$LOG" >&2
		exit 2
	fi
}

pkg_version() {
	dpkg-query -W -f='${db:Status-Abbrev} ${Version}\n' "$1" 2>/dev/null |
		awk '$1 == "ii" { print $2 }'
}

mkdir -p "$DIR"
exec 9>"$DIR/.lock"
flock 9

[ -f "$BOOTCFG" ] || die "no $BOOTCFG (install xen-hypervisor-$SERIES-amd64)"
ver=$(pkg_version "xen-hypervisor-$SERIES-amd64")
[ -n "$ver" ] || ver=$(pkg_version "libxenmisc$SERIES")
[ -n "$ver" ] || die "neither xen-hypervisor-$SERIES-amd64 nor libxenmisc$SERIES is installed"
cfgsum=$(sha256sum "$BOOTCFG" | cut -d' ' -f1)
key="installed=$ver bootconfig=$cfgsum recipe=$RECIPE"
if [ -s "$DIR/xen" ] && [ -f "$DIR/xen.info" ] && grep -qxF "$key" "$DIR/xen.info"; then
	say "cached: $DIR/xen ($(grep '^source=' "$DIR/xen.info"))"
	echo "$DIR/xen"
	exit 0
fi
[ -z "${XLAB_NO_APT:-}" ] || die "$DIR/xen is missing or stale and XLAB_NO_APT is set"
[ "$(id -u)" = 0 ] || die "building needs root (apt-get)"
: >"$LOG"
start=$SECONDS

missing=()
for p in "${BUILD_PKGS[@]}"; do [ -n "$(pkg_version "$p")" ] || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
	say "apt-get install ${missing[*]}"
	run apt-get update
	run apt-get install -y --no-install-recommends "${missing[@]}"
fi

# ---------------------------------------------------------------- source --
# A private apt configuration: the deb-src lists live only in the cache, the
# system's apt never sees them.
APTDIR=$DIR/apt
mkdir -p "$APTDIR/lists/partial" "$APTDIR/sources.list.d"
cat >"$APTDIR/sources.list.d/xen-src.sources" <<EOF
Types: deb-src
URIs: $MIRROR
Suites: bookworm bookworm-updates
Components: main
Signed-By: $KEYRING

Types: deb-src
URIs: $SECMIRROR
Suites: bookworm-security
Components: main
Signed-By: $KEYRING
EOF
APT=(-o "Dir::State::Lists=$APTDIR/lists"
     -o "Dir::Etc::SourceList=/dev/null"
     -o "Dir::Etc::SourceParts=$APTDIR/sources.list.d"
     -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=")
say "updating the private deb-src lists"
run apt-get "${APT[@]}" update

# src_field VERSION FIELD: a multi-line field (Checksums-Sha256...) of the
# xen source record of VERSION in the signed Sources index
src_field() {
	apt-cache "${APT[@]}" showsrc xen 2>/dev/null | awk -v v="$1" -v f="$2:" '
		/^$/ { inrec = 0; next }
		/^Version: / { ok = ($2 == v) }
		/^[^ ]/ { infld = ($1 == f) ; next }
		infld && ok { print }'
}

DL=$DIR/dl
# fetch_apt VERSION: apt-get source --download-only into $DL
fetch_apt() {
	rm -rf "$DL"; mkdir -p "$DL"
	(cd "$DL" && apt-get "${APT[@]}" source --download-only "xen=$1") >>"$LOG" 2>&1
}

# fetch_snapshot VERSION: the same files from snapshot.debian.org, by the
# SHA-1 its API gives for each name, each checked against the SHA-256 of the
# signed Sources index
fetch_snapshot() {
	local v=$1 enc name sum sha1 files
	rm -rf "$DL"; mkdir -p "$DL"
	files=$(src_field "$v" Checksums-Sha256)
	[ -n "$files" ] || return 1
	enc=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$v")
	/usr/lib/apt/apt-helper download-file "$SNAPSHOT/mr/package/xen/$enc/srcfiles?fileinfo=1" \
		"$DL/srcfiles.json" >>"$LOG" 2>&1 || return 1
	while read -r sum _ name; do
		sha1=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for h, infos in d.get("fileinfo", {}).items():
    if any(i.get("name") == sys.argv[2] for i in infos):
        print(h)
        break' "$DL/srcfiles.json" "$name")
		[ -n "$sha1" ] || return 1
		/usr/lib/apt/apt-helper download-file "$SNAPSHOT/file/$sha1" "$DL/$name" \
			"SHA256:$sum" >>"$LOG" 2>&1 || return 1
	done <<<"$files"
	rm -f "$DL/srcfiles.json"
}

srcver=
if fetch_apt "$ver"; then
	srcver=$ver
elif say "the archive has no source of xen $ver, trying $SNAPSHOT" && fetch_snapshot "$ver"; then
	srcver=$ver
elif [ -n "${XBLK_XEN_EXACT:-}" ]; then
	die "no source of xen $ver (XBLK_XEN_EXACT set; see $LOG)"
else
	for v in $(apt-cache "${APT[@]}" showsrc xen 2>/dev/null | sed -n 's/^Version: //p' |
		   grep -F "$SERIES." | sort -rV | uniq); do
		[ "$v" = "$ver" ] && continue
		if fetch_apt "$v"; then srcver=$v; break; fi
	done
	[ -n "$srcver" ] || die "no xen $SERIES source could be fetched (see $LOG)"
	say "WARNING: building the hypervisor from xen $srcver, not the installed $ver (whose"
	say "source neither the archive nor $SNAPSHOT serves here); the tools stay $ver"
fi
say "source: xen $srcver"

SRC=$DIR/src
rm -rf "$SRC"
run dpkg-source --no-copy -x "$DL"/xen_*.dsc "$SRC"

# ---------------------------------------------------------------- build --
MAKE_ARGS=(XEN_TARGET_ARCH=x86_64 XEN_COMPILE_ARCH=x86_64)
cp "$BOOTCFG" "$SRC/xen/.config"
sed -i 's/^# CONFIG_SHADOW_PAGING is not set$/CONFIG_SHADOW_PAGING=y/' "$SRC/xen/.config"
grep -qx 'CONFIG_SHADOW_PAGING=y' "$SRC/xen/.config" || echo 'CONFIG_SHADOW_PAGING=y' >>"$SRC/xen/.config"
run make -C "$SRC/xen" "${MAKE_ARGS[@]}" olddefconfig
grep -qx 'CONFIG_SHADOW_PAGING=y' "$SRC/xen/.config" ||
	die "olddefconfig dropped CONFIG_SHADOW_PAGING (see $SRC/xen/.config)"
# nothing but the option and the version comment may differ from Debian's
extra=$(diff <(grep -v '^# Xen/x86 ' "$BOOTCFG") <(grep -v '^# Xen/x86 ' "$SRC/xen/.config") |
	grep '^[<>]' | grep -v 'CONFIG_SHADOW_PAGING' || true)
if [ -n "$extra" ]; then
	printf 'config lines changed beyond CONFIG_SHADOW_PAGING:\n%s\n' "$extra" >>"$LOG"
	say "note: the config differs from $BOOTCFG beyond CONFIG_SHADOW_PAGING (see $LOG)"
fi
t=$SECONDS
say "make -C xen -j$(nproc) (log: $LOG)"
run make -C "$SRC/xen" "${MAKE_ARGS[@]}" -j"$(nproc)"
build_s=$((SECONDS - t))
[ -s "$SRC/xen/xen" ] || die "the build made no xen/xen"
# the multiboot loader needs the ELF image with its multiboot header
head -c 4 "$SRC/xen/xen" | grep -q 'ELF' || die "xen/xen is not an ELF image"

install -m 0644 "$SRC/xen/xen" "$DIR/xen.new"
install -m 0644 "$SRC/xen/.config" "$DIR/xen.config"
mv "$DIR/xen.new" "$DIR/xen"
{
	echo "$key"
	echo "source=$srcver"
	echo "built=$(date -u +%FT%TZ) make_seconds=$build_s"
} >"$DIR/xen.info"
rm -rf "$SRC" "$DL"
say "built $DIR/xen from xen $srcver with shadow paging (make ${build_s} s, all $((SECONDS - start)) s)"
echo "$DIR/xen"
