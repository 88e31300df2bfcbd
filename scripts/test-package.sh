#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The xblk-dkms package, end to end, on this machine (root, Debian 12):
#
#   1. build it with scripts/build-package.sh (dpkg-buildpackage -us -uc -b in
#      a temporary copy of the tree; the tree itself is left as it was);
#   2. install it with apt-get, then have DKMS build and install both modules
#      for the 6.1 and the 6.12 kernel trees of scripts/deps.sh
#      ($XBLK_CACHE/kdirs);
#   3. check what landed in /lib/modules/<kernel>/updates/dkms/ with modinfo
#      (name, vermagic, aliases), that depmod indexed it, and that with the
#      package's modprobe.d blacklist modprobe would load our modules, and
#      only those, for the vbd aliases (modprobe -n -v: a dry run);
#      The postinst's output shows DKMS's (not thrown away), the modules are
#      signed with DKMS's key (the package depends on openssl), and the
#      initramfs of each installed kernel carries xblkfront and the blacklist;
#      the initramfs hook leaves the blacklist out of an image for a kernel
#      without xblkfront (mkinitramfs to a scratch file after "dkms remove"
#      for that kernel);
#   4. purge the package and check that nothing of it is left: dkms status,
#      /usr/src/xblk-*, /var/lib/dkms/xblk, /lib/modules/*/updates/dkms/,
#      the modprobe.d file and the hooks, and that the initramfs images were
#      rebuilt without xblkfront and the blacklist.
#
# The DKMS kernel version is the kernel's release string (UTS_RELEASE, what
# vermagic starts with), its directory name under /lib/modules.  The 6.1 headers are installed (/lib/modules/<kver>/build
# is the tree).  The 6.12 headers are normally only unpacked into the cache
# (scripts/deps.sh says why), so /lib/modules knows no such kernel; DKMS then
# gets the tree with "-k <kver> --kernelsourcedir <tree>", and since "dkms
# install" only installs into an existing /lib/modules/<kver>, this script
# creates that directory for the run and removes it afterwards.
#
# Installs dkms, openssl, debhelper, dpkg-dev and rsync with
# --no-install-recommends when they are missing (those stay, like everything
# scripts/deps.sh installs).  Everything else it changes on the host is undone
# on exit, also when a check fails or the run is interrupted: the package is
# purged, leftovers of it are removed (and reported), as are the
# /lib/modules/<kver> directories and the DKMS signing key (/var/lib/dkms/mok.*)
# if this run created them, and depmod is rerun for those kernels.  It refuses
# to run when xblk is already installed here, rather than remove someone's
# install.
#
# One line per check, "PASS ..." or "FAIL ...", then the time taken, then
# "N passed, N failed" alone on the last line.  Exit status 0 iff nothing
# failed.  Logs: build/test-package/.
#
# With XBLK_PKG_LAB=1, before the purge: one lab boot (tests/lab/run.sh dkms,
# XLAB_MODULES=dkms) loads the DKMS-built 6.1 modules with modprobe in dom0
# and in a guest and runs fio write + verify over them.
#
# env: XBLK_CACHE (default /var/cache/xblk), XBLK_PKG_LAB
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
kdirs=${XBLK_CACHE:-/var/cache/xblk}/kdirs
logdir=$root/build/test-package
TOOLS=(dkms openssl debhelper dpkg-dev rsync initramfs-tools)
PKG=xblk-dkms
# what the package installs outside /usr/src (and the 0.1 package's conffile)
CONF=(/lib/modprobe.d/$PKG.conf /usr/share/initramfs-tools/hooks/xblk
      /etc/kernel/header_postinst.d/$PKG /etc/modprobe.d/$PKG.conf)
MODS=(xblkfront xblkback)
declare -A ALIAS=([xblkfront]=xen:vbd [xblkback]=xen-backend:vbd)
declare -A INTREE=([xblkfront]=xen_blkfront [xblkback]=xen_blkback)
APT=(apt-get -y --no-install-recommends -o DPkg::Lock::Timeout=300)
export DEBIAN_FRONTEND=noninteractive
start=$SECONDS
pass=0
fail=0

ok() { echo "PASS $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
# check DESCRIPTION CMD...: PASS or FAIL by CMD's exit status.
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}
finish() {
	echo "test-package: $((SECONDS - start)) s"
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
# run LOG CMD...: CMD's output into build/test-package/LOG.log; on failure
# show its tail.
run() {
	local log=$logdir/$1.log
	shift
	printf '+ %s\n' "$*" >>"$log"
	if "$@" >>"$log" 2>&1; then
		return 0
	fi
	echo "--- $* failed, last lines of $log:"
	tail -n 15 "$log" | sed 's/^/    /'
	return 1
}
pkg_status() { dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null; }

if [ "$(id -u)" != 0 ]; then
	echo "test-package: needs root (it installs and purges $PKG)" >&2
	exit 2
fi
if [ ! -f "$kdirs" ]; then
	echo "test-package: no $kdirs: run scripts/deps.sh first" >&2
	exit 2
fi
rm -rf "$logdir"
mkdir -p "$logdir"

# --------------------------------------------------------------- tools --
missing=()
for p in "${TOOLS[@]}"; do
	[ "$(pkg_status "$p")" = "ii " ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	if run tools "${APT[@]}" install "${missing[@]}" ||
	   { run tools apt-get update && run tools "${APT[@]}" install "${missing[@]}"; }; then
		echo "test-package: installed ${missing[*]}"
	else
		bad "tools: could not install ${missing[*]}"
		finish
		exit
	fi
fi

version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$root/dkms.conf")
deb_version=$(dpkg-parsechangelog -l "$root/debian/changelog" -SVersion 2>/dev/null)
check "version: dkms.conf PACKAGE_VERSION ($version) = debian/changelog ($deb_version)" \
	test -n "$version" -a "$version" = "$deb_version"

# Someone's own install of xblk is not ours to purge.
busy=()
case $(pkg_status $PKG) in ""|un*|pn*) ;; *) busy+=("package $PKG") ;; esac
for f in /var/lib/dkms/xblk /usr/src/xblk-* /lib/modules/*/updates/dkms/x*blk* "${CONF[@]}"; do
	[ -e "$f" ] && busy+=("$f")
done
if [ ${#busy[@]} -gt 0 ]; then
	bad "precondition: xblk already installed on this machine (${busy[*]}): remove it first"
	finish
	exit
fi

# The two kernel trees: "name kdir kver" lines of $kdirs.
trees=()
while read -r name kdir kver; do
	case $name in 6.1|6.12) trees+=("$name $kdir $kver") ;; esac
done <"$kdirs"

# ---------------------------------------------------------- host state --
# What the cleanup must restore: kernel dirs and signing key created by us.
created_kdirs=()
mok_before=$(ls /var/lib/dkms/mok.key /var/lib/dkms/mok.pub 2>/dev/null)
work=
cleanup() {
	local st left=() k f
	trap - EXIT
	trap '' INT TERM HUP
	st=$(pkg_status $PKG)
	case $st in
	""|un*|pn*) ;;
	*)	left+=("package $PKG ($st)")
		run cleanup dpkg --purge $PKG || run cleanup dpkg --purge --force-all $PKG ;;
	esac
	if [ -d /var/lib/dkms/xblk ]; then
		left+=(/var/lib/dkms/xblk)
		run cleanup dkms remove -m xblk -v "$version" --all
		rm -rf /var/lib/dkms/xblk
	fi
	for f in /usr/src/xblk-* /lib/modules/*/updates/dkms/x*blk* "${CONF[@]}"; do
		[ -e "$f" ] || continue
		left+=("$f")
		rm -rf "$f"
	done
	for k in /lib/modules/*/updates/dkms; do
		rmdir "$k" "${k%/dkms}" 2>/dev/null
	done
	for k in "${created_kdirs[@]}"; do
		rm -rf "/lib/modules/$k"
	done
	if [ -z "$mok_before" ]; then
		rm -f /var/lib/dkms/mok.key /var/lib/dkms/mok.pub
	fi
	# Leftovers in an installed kernel's tree: reindex it.
	for k in /lib/modules/*/modules.dep; do
		k=${k%/modules.dep}
		grep -q 'xblk' "$k/modules.dep" && run cleanup depmod -a "${k##*/}"
	done
	[ ${#left[@]} -eq 0 ] || echo "test-package: cleanup removed leftovers: ${left[*]}"
	[ -n "$work" ] && rm -rf "$work"
}
trap 'cleanup; finish; exit $?' EXIT
trap 'echo "test-package: interrupted"; fail=$((fail + 1)); exit' INT TERM HUP

# --------------------------------------------------------------- build --
tree_status() { git -C "$root" status --porcelain --ignored -- . ':(exclude)build' 2>/dev/null; }
status_before=$(tree_status)
work=$(mktemp -d /tmp/xblk-package.XXXXXX)
t=$SECONDS
if run build "$root/scripts/build-package.sh" "$work"; then
	ok "build: scripts/build-package.sh -> $(cd "$work" && ls ${PKG}_*.deb) ($((SECONDS - t)) s)"
else
	bad "build: scripts/build-package.sh"
	exit
fi
deb=$work/${PKG}_${version}_all.deb
check "tree: the build left the tree as it was (git status)" \
	test "$(tree_status)" = "$status_before"

# Contents: what a DKMS build needs, the modprobe.d file, the docs; no tests,
# no objects.
dpkg-deb -c "$deb" | awk '{ print $1, $6 }' | sed 's|\./|/|' >"$logdir/contents.txt"
usrc=/usr/src/xblk-$version
want=("$usrc/dkms.conf" "$usrc/Makefile" "$usrc/Kbuild" "$usrc/blkfront/Kbuild"
      "$usrc/blkback/Kbuild" "$usrc/include/xblk/compat.h"
      "$usrc/scripts/probes/HAVE_BDEV_FPUT.c" "/lib/modprobe.d/$PKG.conf"
      /usr/share/initramfs-tools/hooks/xblk "/etc/kernel/header_postinst.d/$PKG"
      "/usr/share/doc/$PKG/README.md" "/usr/share/doc/$PKG/admin-guide.rst"
      "/usr/share/doc/$PKG/xblkstat.rst")
gone=()
for f in "${want[@]}"; do
	grep -qE " $f(\.gz)?\$" "$logdir/contents.txt" || gone+=("$f")
done
grep -q "^-rwxr-xr-x $usrc/scripts/probe.sh\$" "$logdir/contents.txt" ||
	gone+=("executable scripts/probe.sh")
for f in /usr/sbin/xblkstat /usr/share/initramfs-tools/hooks/xblk "/etc/kernel/header_postinst.d/$PKG"; do
	grep -q "^-rwxr-xr-x $f\$" "$logdir/contents.txt" || gone+=("executable $f")
done
extra=$(grep -E '/tests/|\.(o|ko|cmd|mod)$|/build/|/debian/' "$logdir/contents.txt" | awk '{ print $2 }')
check "contents: sources, probes, dkms.conf, modprobe.d file, hooks, xblkstat, docs${gone:+; missing: ${gone[*]}}${extra:+; unwanted: $extra}" \
	test ${#gone[@]} -eq 0 -a -z "$extra"

# ------------------------------------------------------------- install --
if run install "${APT[@]}" install "$deb" && [ "$(pkg_status $PKG)" = "ii " ]; then
	ok "install: apt-get install $(basename "$deb")"
else
	bad "install: apt-get install $(basename "$deb") (status '$(pkg_status $PKG)')"
	exit
fi
st=$(dkms status -m xblk)
check "install: dkms status lists xblk/$version: ${st//$'\n'/; }" \
	test -n "$st" -a -z "$(grep -v "^xblk/$version" <<<"$st")"
modprobe -c >"$logdir/modprobe-config.txt" 2>&1
check "install: /lib/modprobe.d/$PKG.conf blacklists xen_blkfront and xen_blkback" \
	test "$(grep -cxE 'blacklist xen[-_]blk(front|back)' "$logdir/modprobe-config.txt")" -ge 2

# For one kernel tree: dkms build + install, then what landed.
test_kernel() {
	local name=$1 kdir=$2 kver=$3 how=() t m f v a st rel
	# What vermagic carries (Debian's include/config/kernel.release says
	# 6.1.192 for 6.1.0-57-amd64).
	rel=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$kdir/include/generated/utsrelease.h" 2>/dev/null)
	if [ "$rel" != "$kver" ]; then
		bad "$name: $kdir is kernel '$rel', $kdirs says '$kver'"
		return
	fi
	if [ "$(readlink -f "/lib/modules/$kver/build")" != "$(readlink -f "$kdir")" ]; then
		# Not a kernel /lib/modules knows (unpacked headers): give DKMS
		# the tree, and the directory it installs into.
		how=(--kernelsourcedir "$kdir")
		if [ ! -d "/lib/modules/$kver" ]; then
			mkdir -p "/lib/modules/$kver"
			created_kdirs+=("$kver")
		fi
	fi
	st=$(dkms status -m xblk -v "$version" -k "$kver")
	t=$SECONDS
	if [[ $st == *": installed"* ]]; then
		ok "$name: DKMS built and installed xblk for $kver from the package's postinst"
	elif run "dkms-$name" dkms install -m xblk -v "$version" -k "$kver" "${how[@]}"; then
		ok "$name: dkms install -m xblk -v $version -k $kver${how:+ ${how[*]}} ($((SECONDS - t)) s)"
	else
		bad "$name: dkms install -m xblk -v $version -k $kver${how:+ ${how[*]}}"
		return
	fi
	f=/var/lib/dkms/xblk/$version/$kver/$(uname -m)/log/make.log
	check "$name: no warnings in DKMS's build log $f" \
		test -f "$f" -a "$(grep -c 'warning:' "$f" 2>/dev/null)" = 0
	for m in "${MODS[@]}"; do
		f=$(ls /lib/modules/"$kver"/updates/dkms/"$m".ko* 2>/dev/null | head -n 1)
		if [ -z "$f" ]; then
			bad "$name $m: not in /lib/modules/$kver/updates/dkms/"
			continue
		fi
		v=$(modinfo -F vermagic "$f")
		a=$(modinfo -F alias "$f" | tr '\n' ' ')
		check "$name $m: $f: name $(modinfo -F name "$f"), vermagic '${v% }', alias ${a% }" \
			test "$(modinfo -F name "$f")" = "$m" -a "${v%% *}" = "$kver" \
			     -a "$(modinfo -F alias "$f" | grep -cx "${ALIAS[$m]}")" = 1
		# Same vermagic as the kernel's own modules, where we have them.
		intree=$(modinfo -k "$kver" -n "${INTREE[$m]}" 2>/dev/null)
		if [ -n "$intree" ]; then
			check "$name $m: vermagic = ${INTREE[$m]}'s" \
				test "$v" = "$(modinfo -F vermagic "$intree")"
		fi
		check "$name $m: depmod indexed it (modinfo -k $kver -n $m)" \
			test "$(modinfo -k "$kver" -n "$m" 2>/dev/null)" = "$f"
		# What udev's modprobe would load for the vbd alias (a dry run):
		# ours only, the blacklist hides the in-tree module from aliases.
		a=$(modprobe -S "$kver" -n -v "${ALIAS[$m]}" 2>&1 |
		    sed -n 's/^insmod \([^ ]*\).*/\1/p' | tr '\n' ' ')
		check "$name $m: modprobe -n -v ${ALIAS[$m]} would load ${a% }" test "${a% }" = "$f"
	done
}
for t in "${trees[@]}"; do
	test_kernel $t
done
for name in 6.1 6.12; do
	grep -q "^$name " "$kdirs" || bad "$name: no $name tree in $kdirs"
done

# DKMS's output reached the terminal (the postinst does not hide it), and
# it signed the modules with its own key (openssl made it).
f=$logdir/install.log
if grep -q 'Signing module' "$f" && grep -q 'Building module' "$f" && grep -q 'Installing to /lib/modules/' "$f"; then
	ok "install: the postinst shows DKMS's output (Building module, Signing module, Installing to)"
else
	bad "install: the postinst's output lacks DKMS's (see $f)"
fi
for t in "${trees[@]}"; do
	kver=${t##* }
	f=$(modinfo -k "$kver" -n xblkfront 2>/dev/null)
	[ -n "$f" ] || continue
	# DKMS signs with the kernel's scripts/sign-file, which installed
	# headers have; the 6.12 tree here is unpacked in the cache
	# (--kernelsourcedir), and DKMS says "modules won't be signed"
	if [ ! -x "/lib/modules/$kver/build/scripts/sign-file" ]; then
		echo "note: $kver: no /lib/modules/$kver/build/scripts/sign-file (headers not installed): unsigned, not checked"
		continue
	fi
	check "install: $kver: xblkfront signed by '$(modinfo -F signer "$f")'" \
		test "$(modinfo -F signer "$f")" = "DKMS module signing key"
done

# lsinitramfs IMAGE: the lines about xblk and xen-blkfront
initrd_xblk() { lsinitramfs "$1" 2>/dev/null | grep -E 'xblkfront\.ko|modprobe\.d/xblk|xen-blkfront\.ko'; }
# Every initramfs of a kernel with xblkfront was rebuilt with it and the
# blacklist.
kimages=()
for f in /boot/initrd.img-*; do
	[ -f "$f" ] || continue
	kver=${f#/boot/initrd.img-}
	[ -n "$(modinfo -k "$kver" -n xblkfront 2>/dev/null)" ] || continue
	kimages+=("$kver")
	n=$(initrd_xblk "$f" | grep -cE 'xblkfront\.ko|modprobe\.d/xblk-dkms\.conf')
	check "install: $f has xblkfront.ko and the blacklist ($n of 2)" test "$n" = 2
done
[ ${#kimages[@]} -gt 0 ] || echo "test-package: no /boot/initrd.img-* of a kernel xblk was built for: initramfs not checked"
# ----------------------------------------------------------------- lab --
# With XBLK_PKG_LAB=1 (make test-long): one lab boot on the DKMS-built 6.1
# modules, loaded with modprobe as an installed host loads them (suite
# "dkms": the vbd aliases resolve to ours, fio write + verify).
if [ -n "${XBLK_PKG_LAB:-}" ]; then
	t=$SECONDS
	XLAB_MODULES=dkms "$root/tests/lab/run.sh" dkms >"$logdir/lab.log" 2>&1
	rc=$?
	while read -r line; do
		case $line in
		*": PASS"*) line=${line#XLAB-CASE }; ok "lab ${line/: PASS/:}" ;;
		*": FAIL"*) line=${line#XLAB-CASE }; bad "lab ${line/: FAIL/:}" ;;
		esac
	done < <(grep -a '^XLAB-CASE ' "$logdir/lab.log" | cut -c1-400)
	grep -aq '^XLAB-CASE ' "$logdir/lab.log" ||
		bad "lab: tests/lab/run.sh dkms reported no case (rc=$rc, see $logdir/lab.log)"
	[ "$rc" = 0 ] || grep -aq '^XLAB-CASE .*: FAIL' "$logdir/lab.log" ||
		bad "lab: tests/lab/run.sh dkms exited $rc (see $logdir/lab.log)"
	echo "test-package: lab boot on the DKMS modules: $((SECONDS - t)) s"
fi

# The hook's other branch: an image for a kernel without xblkfront gets no
# blacklist (the kernel keeps xen-blkfront for its root disk).
if [ ${#kimages[@]} -gt 0 ]; then
	kver=${kimages[0]}
	if run hook dkms remove -m xblk -v "$version" -k "$kver" &&
	   run hook mkinitramfs -o "$work/no-xblk.img" "$kver"; then
		n=$(initrd_xblk "$work/no-xblk.img" | tr '\n' ' ')
		check "hook: $kver without xblkfront: the initramfs has '${n% }' (xen-blkfront only), and a warning" \
			test "${n% }" = "usr/lib/modules/$kver/kernel/drivers/block/xen-blkfront.ko" -o \
			     "${n% }" = "lib/modules/$kver/kernel/drivers/block/xen-blkfront.ko"
		check "hook: mkinitramfs warned 'W: xblk: no xblkfront for kernel $kver'" \
			grep -q "W: xblk: no xblkfront for kernel $kver" "$logdir/hook.log"
	else
		bad "hook: dkms remove / mkinitramfs for $kver failed"
	fi
fi

# --------------------------------------------------------------- purge --
if run purge "${APT[@]}" purge $PKG; then
	ok "purge: apt-get purge $PKG"
else
	bad "purge: apt-get purge $PKG"
fi
check "purge: package gone from dpkg (status '$(pkg_status $PKG)')" \
	test -z "$(dpkg-query -W -f='${Status}' $PKG 2>/dev/null | grep -v not-installed)"
check "purge: dkms status has no xblk" test -z "$(dkms status -m xblk 2>&1)"
check "purge: no /usr/src/xblk-*" test -z "$(ls -d /usr/src/xblk-* 2>/dev/null)"
check "purge: no /var/lib/dkms/xblk" test ! -e /var/lib/dkms/xblk
rest=$(ls /lib/modules/*/updates/dkms/x*blk* 2>/dev/null | tr '\n' ' ')
check "purge: no /lib/modules/*/updates/dkms/x*blk*${rest:+ ($rest)}" test -z "$rest"
rest=$(ls -d "${CONF[@]}" 2>/dev/null | tr '\n' ' ')
check "purge: no modprobe.d file, initramfs hook, kernel hook${rest:+ ($rest)}" test -z "$rest"
rest=
for t in "${trees[@]}"; do
	kver=${t##* }
	for m in "${MODS[@]}"; do
		modinfo -k "$kver" -n "$m" >/dev/null 2>&1 && rest+="$kver:$m "
	done
done
check "purge: depmod reran, modinfo -k finds no xblk module${rest:+ ($rest)}" test -z "$rest"
for kver in "${kimages[@]}"; do
	n=$(initrd_xblk "/boot/initrd.img-$kver" | grep -c xblk)
	check "purge: /boot/initrd.img-$kver rebuilt without xblkfront and the blacklist ($n left)" test "$n" = 0
done
exit
