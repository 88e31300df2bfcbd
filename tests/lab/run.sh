#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# xblk system-test lab: real Xen 4.17 under QEMU (TCG), PV dom0 + PV guests, our modules.
#
#   tests/lab/run.sh [SUITE...]        default: the suites whose metadata says SUITE_DEFAULT
#   tests/lab/run.sh --list            every suite with its metadata
#
# A suite is a file suites/<name>.sh; run.sh knows none by name. What it needs to know about
# one (boot timeout, modules, clock, Xen, image extras, memory, default set) the suite
# declares in its own suite_meta() function, which run.sh reads out of the file and runs
# without the rest of it (suite_load below; README.md "Suite metadata").
#
# Installs missing Debian packages, builds our modules against the headers matching the kernel
# image each side boots (6.1 by default), builds the images into tests/lab/out/, boots Xen once per suite
# and prints one line per case
#     XLAB-CASE <suite>/<case>: PASS|FAIL|SKIP <detail>
# then "N passed, N failed" alone on the last line. Exit 0 iff nothing failed (and something
# passed). A skipped case (module not written yet) counts as neither.
#
# Environment:
#   XLAB_CASES=a,b          run only these cases (data-case suites)
#   XLAB_OPTS="k=v ..."     passed to the dom0 suites as XLAB_<K> (e.g. "front=xen-blkfront
#                           runtime=20": XLAB_FRONT, XLAB_RUNTIME, which suites may read);
#                           dom0_kernel=6.12, guest_kernel=6.12: that side boots bookworm-
#                           backports' 6.12 (scripts/kimage612.sh) instead of 6.1, with our
#                           modules built against its headers (README.md "Kernels");
#                           tier=ci: make test's cut (long-only cases skipped, smaller fio
#                           runs; README.md "tier=ci"); hotplug=stock|lab: xl's disk
#                           hotplug script, Xen's own or the lab's shortcut (init/hotplug-
#                           block), for every suite of the run (default: its SUITE_HOTPLUG);
#                           xen=shadow|stock: the hypervisor every suite of the run boots:
#                           Debian's (stock), or the same 4.17 built with shadow paging by
#                           scripts/xen-shadow.sh (cached in /var/cache/xblk/xen-shadow/,
#                           built on first use; Debian's has none, and a PV guest cannot be
#                           live-migrated without it). Default: the suite's SUITE_XEN
#   XLAB_VERBOSE=1          stream the whole serial console (it is always in out/logs/)
#   XLAB_NO_APT=1           never run apt-get (fail if something is missing)
#   XLAB_NO_BUILD=1         reuse out/modules as they are
#   XLAB_MODULES=dkms       xblkfront/xblkback from /lib/modules/<6.1>/updates/dkms (what the
#                           xblk-dkms package built), loaded with modprobe
#   XLAB_STRICT=1           skipped cases make the run fail
#   XLAB_TOTAL_TIMEOUT=s    whole script incl. waiting for the lock (default 3600)
#   XLAB_QEMU_TIMEOUT=s     one boot (default: the suite's SUITE_TIMEOUT, 1200 unless it says)
#   XLAB_LOCK_WAIT=s        how long to wait for another lab run (default 2400)
#   XLAB_ACCEL, XLAB_CPU    QEMU -accel / -cpu (default tcg,thread=multi / qemu64); -accel
#                           only applies to the wall clock
#   XLAB_CLOCK=icount|wall  the clock of every boot (default: the suite's SUITE_CLOCK, wall
#                           unless it says icount). icount: deterministic, single-
#                           threaded TCG with -icount shift=0,sleep=off -rtc clock=vm (1
#                           instruction = 1 ns of virtual time, idle time skipped;
#                           Documentation/bench.rst); wall: multi-threaded TCG on the host's
#                           time. dom0 sees it as XLAB_CLOCK
#   XLAB_SHELL=1            boot one dom0 with an interactive shell on this terminal, no suite
#
# The whole script is one function called on the last line: bash reads a script while it runs
# it, and other people edit this file while a lab run (which can take 30 min) is in progress.

main() {
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
OUT=${XLAB_OUT:-$HERE/out}
LOCK=/tmp/xblk-lab.lock
TOTAL_TIMEOUT=${XLAB_TOTAL_TIMEOUT:-3600}
# shellcheck source=tests/lab/lib/common.sh
. "$HERE/lib/common.sh"
if [ "${1:-}" = --list ]; then
	list_suites
	return
fi
mkdir -p "$OUT/logs"

if [ -z "${XLAB_INNER:-}" ] && [ -z "${XLAB_SHELL:-}" ]; then
	outer "$@"
else
	inner "$@"
fi
}

ts() { date +%T; }
say() { echo "[lab $(ts)] $*"; }

# Count the XLAB-CASE lines of $RESULTS, print the closing lines, return the exit status.
summary() {
	local p f s
	p=$(grep -c '^XLAB-CASE [^ ]*: PASS' "$RESULTS" 2>/dev/null)
	f=$(grep -c '^XLAB-CASE [^ ]*: FAIL' "$RESULTS" 2>/dev/null)
	s=$(grep -c '^XLAB-CASE [^ ]*: SKIP' "$RESULTS" 2>/dev/null)
	echo "----"
	[ "${s:-0}" -gt 0 ] && echo "skipped (not counted as passed): $s"
	echo "${p:-0} passed, ${f:-0} failed"
	[ "${f:-0}" = 0 ] && [ "${p:-0}" -gt 0 ] || return 1
	[ -n "${XLAB_STRICT:-}" ] && [ "${s:-0}" -gt 0 ] && return 1
	return 0
}

# ------------------------------------------------------------------ outer: hard timeout
# The real work runs in a child under timeout(1); if that is stopped, we still report what it
# had finished, plus the cases of the boot in progress.
outer() {
	local child rc line
	export RESULTS=$OUT/results.$$ XLAB_CURRENT=$OUT/current.$$ XLAB_RUN=$$
	: > "$RESULTS"
	XLAB_INNER=1 timeout -k 60 "$TOTAL_TIMEOUT" "$0" "$@" &
	child=$!
	trap 'kill -TERM $child 2>/dev/null' INT TERM
	wait $child
	rc=$?
	# a signal interrupts wait: wait again for the child's own cleanup
	while kill -0 $child 2>/dev/null; do wait $child; rc=$?; done
	# the child's cleanup stops its QEMU; if the child was killed before it could, do it here
	# (only a QEMU our child started: a child that waited for the lock started none)
	[ "$(cat "$OUT/qemu.owner" 2>/dev/null)" = "$$" ] && MY_QEMU=1 cleanup
	if [ $rc = 124 ] || [ $rc = 137 ] || [ $rc -gt 128 ]; then
		if [ -s "$XLAB_CURRENT" ] && [ -f "$(cat "$XLAB_CURRENT")" ]; then
			boot_results "$(cat "$XLAB_CURRENT")" '[^/]*' live | sed 's/$/ [run stopped]/' | tee -a "$RESULTS"
		fi
		line="XLAB-CASE lab/run: FAIL the run was stopped (rc=$rc; timeout ${TOTAL_TIMEOUT}s or signal)"
		echo "$line" | tee -a "$RESULTS"
		rc=1
	fi
	cp "$RESULTS" "$OUT/results.txt" 2>/dev/null
	rm -f "$RESULTS" "$XLAB_CURRENT"
	return $rc
}

# ------------------------------------------------------------------ inner
MY_QEMU=
cleanup() {
	local p
	# A second signal (pkill of the whole run reaches us, then timeout(1)
	# forwards its own) must not cut this short, QEMU still running.
	trap '' TERM INT HUP
	# never leave our QEMU behind (and never touch another run's)
	if [ -n "$MY_QEMU" ] && [ -f "$OUT/qemu.pid" ]; then
		p=$(cat "$OUT/qemu.pid" 2>/dev/null)
		if [ -n "$p" ] && grep -q qemu-system "/proc/$p/cmdline" 2>/dev/null; then
			say "stopping QEMU (pid $p)"
			kill -TERM "$p" 2>/dev/null
			wait_until 2 0.2 ! kill -0 "$p" 2>/dev/null
			kill -KILL "$p" 2>/dev/null
		fi
		rm -f "$OUT/qemu.pid" "$OUT/qemu.owner" "$OUT/serial.in"
	fi
}

inner() {
	local s missing v w suite tmo try log bs qrc res why
	RESULTS=${RESULTS:-$OUT/results.txt}
	XLAB_CURRENT=${XLAB_CURRENT:-/dev/null}
	trap cleanup EXIT
	# ignore the next signal at once: pkill of the run and timeout(1)'s own TERM arrive
	# together, and a second 'exit' would cut the cleanup short
	trap 'trap "" TERM INT HUP; exit 143' TERM INT HUP

	if [ -n "${XLAB_SHELL:-}" ]; then
		SUITES=()
	else
		if [ $# = 0 ]; then read -r -a SUITES <<< "$(default_suites)"; else SUITES=("$@"); fi
		for s in "${SUITES[@]}"; do
			if [ ! -f "$HERE/suites/$s.sh" ]; then
				echo "unknown suite '$s' (have: $(all_suites | tr '\n' ' '))" >&2
				exit 2
			fi
			suite_load "$s" || exit 2
		done
	fi
	T0=$SECONDS
	case ${XLAB_CLOCK:-} in
	"" | icount | wall) ;;
	*) echo "XLAB_CLOCK=$XLAB_CLOCK: icount or wall" >&2; exit 2 ;;
	esac
	case $(xlab_str xen "") in
	"" | stock | shadow) ;;
	*) echo "XLAB_OPTS xen=$(xlab_str xen ""): stock or shadow" >&2; exit 2 ;;
	esac

	# -------------------------------------------------------------- packages
	PKGS="qemu-system-x86 qemu-system-xen xen-hypervisor-4.17-amd64 xen-utils-4.17 xen-utils-common
	      xenstore-utils linux-image-amd64 linux-headers-amd64 busybox-static fio cpio kmod
	      e2fsprogs util-linux dmsetup make gcc perl xz-utils git"
	# shellcheck disable=SC2086
	missing=$(pkg_missing $PKGS | tr '\n' ' ')
	# shellcheck disable=SC2086
	[ -n "${missing// /}" ] && apt_install $missing

	if ! KVER=$(pick_kver); then
		# by exact name: linux-image-amd64 may be backports' 6.12 here
		v=$("$REPO/scripts/kver61.sh" 2>/dev/null) ||
			{ apt_update; v=$("$REPO/scripts/kver61.sh") || exit 2; }
		apt_install "linux-image-$v" "linux-headers-$v"
		KVER=$(pick_kver) || { echo "no 6.1 kernel image with matching headers" >&2; exit 2; }
	fi
	KDIR=/lib/modules/$KVER/build
	# dom0_kernel / guest_kernel (XLAB_OPTS): 6.1 (default: the kernel just picked) or 6.12
	# (bookworm-backports, unpacked into the cache by scripts/kimage612.sh, never installed).
	# Each side boots its own kernel with its own module tree and our modules built against
	# its headers: with two series, out/modules is dom0's set and out/modules-guest the guest's.
	DOM0_SERIES=$(xlab_str dom0_kernel 6.1)
	GUEST_SERIES=$(xlab_str guest_kernel 6.1)
	kernel_series dom0 "$DOM0_SERIES" || exit 2
	kernel_series guest "$GUEST_SERIES" || exit 2
	if [ "$DOM0_SERIES" != 6.1 ] || [ "$GUEST_SERIES" != 6.1 ]; then
		[ "${XLAB_MODULES:-build}" = build ] ||
			{ echo "XLAB_MODULES=$XLAB_MODULES: only with the 6.1 kernel on both sides" >&2; exit 2; }
	fi
	KVER=$DOM0_KVER KDIR=$DOM0_KDIR
	if [ "$GUEST_KVER" = "$DOM0_KVER" ]; then
		say "kernel $KVER (headers $KDIR)"
	else
		say "dom0 kernel $KVER (headers $KDIR), guest kernel $GUEST_KVER (headers $GUEST_KDIR)"
	fi

	# -------------------------------------------------------------- one lab at a time
	# Two QEMUs on 2 cores slow each other ~10x: every lab run holds this lock around build+boot
	exec 9> "$LOCK"
	if ! flock -n 9; then
		say "waiting for the lab lock $LOCK (another lab run is active) ..."
		flock -w "${XLAB_LOCK_WAIT:-2400}" 9 || { echo "gave up waiting for $LOCK" >&2; exit 2; }
		say "got the lab lock"
	fi
	# a QEMU started by something that does not take the lock (e.g. the reference recipe)
	if [ -n "$(foreign_qemu)" ]; then
		say "another qemu-system-x86_64 is running (pid $(foreign_qemu)), waiting for it to end ..."
		wait_until "${XLAB_LOCK_WAIT:-2400}" 10 ! foreign_qemu_runs
	fi

	# -------------------------------------------------------------- build
	GUEST_MODS=$OUT/modules
	[ "$GUEST_KVER" != "$KVER" ] && GUEST_MODS=$OUT/modules-guest
	if [ -z "${XLAB_NO_BUILD:-}" ]; then
		rm -f "$OUT/build-info"
		build_modules "$KVER" "$KDIR" "$OUT/src" "$OUT/modules"
		rm -rf "$OUT/modules-guest" "$OUT/src-guest"
		if [ "$GUEST_MODS" != "$OUT/modules" ]; then
			local rc0=$BUILD_RC
			build_modules "$GUEST_KVER" "$GUEST_KDIR" "$OUT/src-guest" "$GUEST_MODS"
			[ "$rc0" != 0 ] && BUILD_RC=$rc0
		fi
	else
		BUILD_RC=0
		say "XLAB_NO_BUILD: using $(ls "$OUT/modules" 2>/dev/null | tr '\n' ' ')"
	fi
	# XLAB_MODULES=dkms: xblkfront and xblkback as DKMS installed them on this host (the
	# xblk-dkms package, scripts/test-package.sh), in the images' module tree, not /extra
	DKMS_DIR=
	case ${XLAB_MODULES:-build} in
	build) ;;
	dkms)
		DKMS_DIR=/lib/modules/$KVER/updates/dkms
		for m in xblkfront xblkback; do
			[ -f "$DKMS_DIR/$m.ko" ] ||
				{ echo "XLAB_MODULES=dkms: no $DKMS_DIR/$m.ko (install xblk-dkms first)" >&2; exit 2; }
			rm -f "$OUT/modules/$m.ko"
		done
		say "modules from DKMS: $DKMS_DIR/xblkfront.ko $DKMS_DIR/xblkback.ko" ;;
	*) echo "XLAB_MODULES=$XLAB_MODULES: build or dkms" >&2; exit 2 ;;
	esac
	# what the suites of the run want in the images (SUITE_IMAGE): small-guest is
	# build-images.sh's own; any other NAME is extras/NAME.sh, whose extra_prep runs here,
	# inside the lock (it may build something), and whose extra_domu build-images.sh calls
	EXTRAS=
	for s in "${SUITES[@]}"; do
		suite_load "$s"
		for x in $SUITE_IMAGE; do [[ " $EXTRAS " == *" $x "* ]] || EXTRAS="${EXTRAS:+$EXTRAS }$x"; done
	done
	for x in $EXTRAS; do
		[ "$x" = small-guest ] && continue
		[ -f "$HERE/extras/$x.sh" ] || { echo "image extra '$x': no $HERE/extras/$x.sh" >&2; exit 2; }
		# shellcheck source=/dev/null
		. "$HERE/extras/$x.sh"
		extra_prep || { echo "image extra '$x': its preparation failed" >&2; exit 2; }
		unset -f extra_prep extra_domu
	done
	# xen=shadow (SUITE_XEN=shadow, or XLAB_OPTS): the hypervisor rebuilt with shadow paging,
	# from the cache or built now (inside the lock: the build would slow another lab's QEMU)
	XEN_SHADOW=
	for s in "${SUITES[@]}" ""; do
		[ -n "$s" ] || [ -n "${XLAB_SHELL:-}" ] || continue
		suite_load "$s"
		[ "$(xen_flavour)" = shadow ] || continue
		say "a Xen with shadow paging (scripts/xen-shadow.sh; a first build takes minutes)"
		XEN_SHADOW=$("$REPO/scripts/xen-shadow.sh" 2> >(sed 's/^/    /' >&2)) || XEN_SHADOW=
		[ -n "$XEN_SHADOW" ] || say "no Xen with shadow paging: scripts/xen-shadow.sh failed"
		break
	done
	say "building images${EXTRAS:+ (with $EXTRAS)}"
	XLAB_XEN_SHADOW=$XEN_SHADOW XLAB_EXTRAS=$EXTRAS \
		XLAB_DKMS_DIR=$DKMS_DIR OUT=$OUT XLAB_DOM0_ROOT=$DOM0_ROOT XLAB_GUEST_KVER=$GUEST_KVER \
		XLAB_GUEST_ROOT=$GUEST_ROOT XLAB_GUEST_MODULES=$GUEST_MODS \
		"$HERE/build-images.sh" "$KVER" > "$OUT/images.log" 2>&1 ||
		{ tail -20 "$OUT/images.log"; echo "image build failed" >&2; exit 2; }
	say "images built ($((SECONDS - T0)) s so far)"

	if [ -n "${XLAB_SHELL:-}" ]; then
		say "interactive dom0 (xl, xenstore, blkback, null_blk...); 'poweroff -f' ends it"
		suite_load ""
		[ "$(xen_flavour)" = shadow ] && [ ! -f "$OUT/xen-shadow" ] &&
			{ echo "xen=shadow: no Xen with shadow paging" >&2; exit 2; }
		boot "" "$OUT/logs/shell.log" "${XLAB_QEMU_TIMEOUT:-3600}"
		exit $?
	fi

	# -------------------------------------------------------------- suites
	for suite in "${SUITES[@]}"; do
		suite_load "$suite"
		# the modules it needs: the first one missing is its SKIP (not written yet) or FAIL
		# (not built) line
		for m in $SUITE_NEEDS ""; do
			[ -n "$m" ] || break
			need_module "$suite" "${m%/*}" "${m##*/}" | tee -a "$RESULTS" | grep -q . && continue 2
		done
		if [ "$(xen_flavour)" = shadow ] && [ ! -f "$OUT/xen-shadow" ]; then
			echo "XLAB-CASE $suite/all: FAIL no Xen with shadow paging for it (scripts/xen-shadow.sh failed; XLAB_OPTS xen=stock boots Debian's)" |
				tee -a "$RESULTS"
			continue
		fi
		if [ -n "$SUITE_QEMU_DISK" ] && [ ! -f "$OUT/$SUITE_QEMU_DISK" ]; then
			echo "XLAB-CASE $suite/all: FAIL no ${OUT#"$REPO"/}/$SUITE_QEMU_DISK (its image extra '$SUITE_IMAGE' failed: see its log in ${OUT#"$REPO"/})" |
				tee -a "$RESULTS"
			continue
		fi
		tmo=${XLAB_QEMU_TIMEOUT:-$SUITE_TIMEOUT}
		for try in 1 2; do
			log=$OUT/logs/$suite.log
			[ $try = 2 ] && log=$OUT/logs/$suite.retry.log
			rm -f "$log"
			echo "$log" > "$XLAB_CURRENT" 2>/dev/null
			say "suite $suite: booting Xen ($(xen_flavour), boot $try, $(suite_clock) clock, timeout ${tmo}s, console: ${log#"$REPO"/})"
			bs=$SECONDS
			boot "$suite" "$log" "$tmo"
			qrc=$?
			res=$(boot_results "$log" "$suite")
			if grep -q "XLAB-SUITE-END $suite" "$log" && [ -n "$res" ]; then
				say "suite $suite: boot finished in $((SECONDS - bs)) s (qemu rc=$qrc)"
				break
			fi
			why="qemu rc=$qrc"
			[ "$qrc" = 124 ] && why="timeout after ${tmo}s"
			grep -q XLAB-BOOT-ERROR "$log" && why="$why, $(grep -o 'XLAB-BOOT-ERROR.*' "$log" | head -1)"
			# the whole line: a guest's console line starts with "[NAME] ", dom0's does not
			grep -qE 'Kernel panic|Panic on CPU' "$log" &&
				why="$why, $(grep -aE 'Kernel panic|Panic on CPU' "$log" | head -1 | tr -d '\r' | cut -c1-200)"
			# a boot that ended early but did report cases is not retried (a hanging driver
			# would only hang again); one that reported nothing (crash, flake) is, once
			if [ -n "$res" ]; then
				res="$res"$'\n'"XLAB-CASE $suite/boot: FAIL the suite did not finish ($why), see ${log#"$REPO"/}"
				break
			fi
			if [ $try = 1 ]; then
				echo "XLAB-RETRY $suite: boot 1 produced no result ($why); booting once more"
				mv "$log" "$OUT/logs/$suite.boot1.log"
				continue
			fi
			res="XLAB-CASE $suite/boot: FAIL no result in 2 boots ($why), see ${log#"$REPO"/}"
		done
		[ $try = 2 ] && res=$(echo "$res" | sed '/^XLAB-CASE [^ ]*\/boot: FAIL/!s/$/ [retry boot]/')
		: > "$XLAB_CURRENT" 2>/dev/null
		echo "$res" | grep . | tee -a "$RESULTS"
	done

	say "total $((SECONDS - T0)) s"
	summary
}

# ------------------------------------------------------------------ helpers
pkg_missing() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"
	done
}
apt_update() {
	[ -n "${APT_UPDATED:-}" ] && return
	apt-get update -qq > "$OUT/apt.log" 2>&1
	APT_UPDATED=1
}
apt_install() {
	[ -n "${XLAB_NO_APT:-}" ] && { echo "missing packages: $* (XLAB_NO_APT set)" >&2; exit 2; }
	say "apt-get install $*"
	export DEBIAN_FRONTEND=noninteractive
	apt_update
	# linux-image-amd64 runs update-initramfs on the host (harmless); xen-hypervisor only drops
	# files in /boot
	apt-get install -y -qq --no-install-recommends "$@" >> "$OUT/apt.log" 2>&1 ||
		{ tail -20 "$OUT/apt.log"; echo "apt-get install failed" >&2; exit 2; }
}

# The kernel the lab boots and the headers we build against must be the same 6.1 ABI
# (vermagic): pair /boot/vmlinuz-6.1.0-N-amd64 with /lib/modules/6.1.0-N-amd64/build. Newer
# series (e.g. 6.12 from backports) may be installed too and are ignored.
pick_kver() {
	local v
	for v in $(ls /boot/vmlinuz-6.1.0-*-amd64 2>/dev/null | sed 's,.*/vmlinuz-,,' | sort -rV); do
		[ -f "/lib/modules/$v/build/Makefile" ] && [ -f "/lib/modules/$v/modules.dep" ] &&
			{ echo "$v"; return 0; }
	done
	return 1
}

# kernel_series SIDE SERIES: the kernel SIDE (dom0, guest) boots: sets <SIDE>_KVER, _ROOT (the
# root its /boot and /lib/modules are under: "" for the host's own 6.1) and _KDIR (headers)
kernel_series() {
	local side=${1^^} k r d
	case $2 in
	6.1) k=$KVER r= d=/lib/modules/$KVER/build ;;
	6.12)
		read -r k r d < <("$REPO/scripts/kimage612.sh") && [ -n "$k" ] ||
			{ echo "no 6.12 kernel for the $1 (scripts/kimage612.sh)" >&2; return 1; } ;;
	*) echo "${1}_kernel=$2: 6.1 or 6.12" >&2; return 1 ;;
	esac
	printf -v "${side}_KVER" %s "$k"
	printf -v "${side}_ROOT" %s "$r"
	printf -v "${side}_KDIR" %s "$d"
}

# ------------------------------------------------------------------ suite metadata
# suite_load SUITE: the metadata of suites/SUITE.sh into SUITE_*, defaults first ("" = the
# XLAB_SHELL boot: the defaults). The suite declares it in a function of its own file,
#     suite_meta() {
#         SUITE_TIMEOUT=1500
#         SUITE_NEEDS="blkback/xblkback.ko"
#     }
# which is read out of the file (from "suite_meta() {" to the first "}" alone on a line) and
# run here, without the rest of the suite (dom0 code). It may compute its values with
# xlab_opt/xlab_str (lib/common.sh) and XLAB_CLOCK. Fields (README.md "Suite metadata"):
#   SUITE_TIMEOUT   one boot, seconds (1200); XLAB_QEMU_TIMEOUT overrides it
#   SUITE_NEEDS     modules that must be built, as DIR/NAME.ko of the repo (none); the first
#                   one missing makes the suite SKIP (DIR has no Kbuild yet) or FAIL (the
#                   build failed); dom0 gets their names as xlab.needs (suite_require)
#   SUITE_CLOCK     icount | wall (wall); XLAB_CLOCK overrides it
#   SUITE_XEN       stock | shadow (stock); XLAB_OPTS xen= overrides it
#   SUITE_IMAGE     image extras: small-guest, or NAME for extras/NAME.sh (none)
#   SUITE_DOM0_MEM  dom0's memory, MiB (1024)
#   SUITE_QEMU_MEM  the machine's memory, MiB (3072)
#   SUITE_QEMU_DISK a file of $OUT QEMU gives dom0 as a virtio disk, /dev/vda (none); made by
#                   one of its image extras: missing, the suite FAILs unbooted
#   SUITE_CPU       QEMU's -cpu for its boot (qemu64); XLAB_CPU overrides it
#   SUITE_HOTPLUG   xl's disk hotplug script in its dom0: lab, the lab's shortcut
#                   (init/hotplug-block), or stock, Xen's own /etc/xen/scripts/block (lab);
#                   XLAB_OPTS hotplug= overrides it
#   SUITE_DEFAULT   its place in the default set, 1 first (empty: not in it)
suite_load() {
	local def
	SUITE_TIMEOUT=1200 SUITE_NEEDS="" SUITE_CLOCK=wall SUITE_XEN=stock SUITE_IMAGE=""
	SUITE_DOM0_MEM=1024 SUITE_QEMU_MEM=3072 SUITE_QEMU_DISK="" SUITE_DEFAULT="" SUITE_CPU=qemu64 SUITE_HOTPLUG=lab
	[ -n "$1" ] || return 0
	def=$(sed -n '/^suite_meta() {/,/^}/p' "$HERE/suites/$1.sh" 2>/dev/null)
	[ -n "$def" ] || { echo "suites/$1.sh: no suite_meta() (README.md \"Suite metadata\")" >&2; return 1; }
	unset -f suite_meta
	eval "$def"
	if ! suite_meta; then
		echo "suites/$1.sh: its suite_meta() failed" >&2
		return 1
	fi
	unset -f suite_meta
}

# all_suites: the name of every suites/*.sh, one a line
all_suites() {
	local f
	for f in "$HERE"/suites/*.sh; do f=${f##*/}; echo "${f%.sh}"; done
}

# default_suites: the suites with a SUITE_DEFAULT, in its order, on one line
default_suites() {
	local s
	for s in $(all_suites); do
		suite_load "$s" 2>/dev/null && [ -n "$SUITE_DEFAULT" ] && echo "$SUITE_DEFAULT $s"
	done | sort -n | cut -d' ' -f2 | tr '\n' ' '
}

# list_suites: run.sh --list, every suite's metadata as run.sh sees it with this XLAB_OPTS
list_suites() {
	local s
	printf '%-13s %-7s %-7s %-6s %-6s %-7s %-7s %-12s %s\n' suite default timeout clock xen mem hotplug image \
		needs
	for s in $(all_suites); do
		suite_load "$s" || continue
		printf '%-13s %-7s %-7s %-6s %-6s %-7s %-7s %-12s %s\n' "$s" "${SUITE_DEFAULT:--}" "$SUITE_TIMEOUT" \
			"$(suite_clock)" "$(xen_flavour)" "$SUITE_DOM0_MEM/$SUITE_QEMU_MEM" \
			"$(xlab_str hotplug "$SUITE_HOTPLUG")" "${SUITE_IMAGE:--}" "${SUITE_NEEDS:--}"
	done
}

# xen_flavour: the hypervisor the loaded suite boots: XLAB_OPTS xen=, else its SUITE_XEN
# (shadow: Debian's Xen cannot live-migrate a PV guest)
xen_flavour() { xlab_str xen "$SUITE_XEN"; }

# xen_image: the uncompressed hypervisor QEMU boots for the loaded suite
xen_image() {
	if [ "$(xen_flavour)" = shadow ]; then echo "$OUT/xen-shadow"; else echo "$OUT/xen"; fi
}

foreign_qemu() { pgrep -x qemu-system-x86_64 2>/dev/null | head -1; }
# (a condition for wait_until)
# shellcheck disable=SC2317
foreign_qemu_runs() { [ -n "$(foreign_qemu)" ]; }

# suite_clock: the clock the loaded suite boots on: XLAB_CLOCK if set, else its SUITE_CLOCK
# (icount: deterministic figures, see Documentation/bench.rst)
suite_clock() { echo "${XLAB_CLOCK:-$SUITE_CLOCK}"; }

# clock_args: QEMU's accelerator and clock options for the loaded suite's clock. icount needs
# single-threaded TCG (QEMU refuses thread=multi); shift=0: 1 instruction = 1 ns; sleep=off:
# when every vCPU is idle the clock jumps to the next timer; -rtc clock=vm: the RTC on the
# same virtual clock
clock_args() {
	if [ "$(suite_clock)" = icount ]; then
		echo "-accel tcg,thread=single -icount shift=0,sleep=off -rtc clock=vm"
	else
		echo "-accel ${XLAB_ACCEL:-tcg,thread=multi}"
	fi
}

# build_modules KVER KDIR SRC DEST: our modules (and the test-only ones) built against KDIR into
# DEST, each checked to have KVER's vermagic.
# Built in a private copy of the work tree (tracked + untracked, not ignored files) so that we
# neither see nor disturb other people's build products in the shared checkout.
build_modules() {
	local KVER=$1 KDIR=$2 src=$3 dest=$4 rc m d t info=
	[ "$dest" != "$OUT/modules" ] && info=-guest
	rm -rf "$src" "$dest"
	mkdir -p "$src" "$dest"
	if git -C "$REPO" rev-parse >/dev/null 2>&1; then
		(cd "$REPO" && git ls-files -co --exclude-standard -z |
			tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$src"
	else
		(cd "$REPO" && tar --exclude=./tests/lab/out -cf - .) | tar -xf - -C "$src"
	fi
	say "make -C <copy of repo> KDIR=$KDIR"
	make -C "$src" KDIR="$KDIR" -j"$(nproc)" > "$OUT/build$info.log" 2>&1
	rc=$?
	BUILD_RC=$rc
	# the test-only modules (a hostile frontend, a hostile backend, dom0 probes...): every
	# tests/<dir>/ with a Kbuild, each by its own make, so that none can ever break the drivers'
	# build; a failure only means the suites that need it have no module
	for d in "$src"/tests/*/Kbuild; do
		d=${d%/Kbuild} t=${d##*/}
		[ -f "$d/Makefile" ] || continue
		make -C "$d" KDIR="$KDIR" > "$OUT/build-$t$info.log" 2>&1 ||
			say "tests/$t build failed, see $OUT/build-$t$info.log"
	done
	for m in "$src"/blkfront/xblkfront.ko "$src"/blkback/xblkback.ko "$src"/tests/*/*.ko; do
		[ -f "$m" ] || continue
		m=${m#"$src"/}
		cp "$src/$m" "$dest/"
		if [ "$(modinfo -F vermagic "$src/$m" | cut -d' ' -f1)" != "$KVER" ]; then
			echo "vermagic of $m is not $KVER" >&2; exit 2
		fi
	done
	{
		if [ ! -s "$OUT/build-info" ]; then
			echo "commit=$(git -C "$REPO" describe --always --dirty 2>/dev/null || echo none)"
			echo "kver=$KVER"
			echo "make_rc=$rc"
			echo "modules=$(cd "$dest" && ls 2>/dev/null | tr '\n' ' ')"
		else
			echo "guest_kver=$KVER"
			echo "guest_make_rc=$rc"
			echo "guest_modules=$(cd "$dest" && ls 2>/dev/null | tr '\n' ' ')"
		fi
	} >> "$OUT/build-info"
	if [ $rc != 0 ]; then
		say "module build failed (rc=$rc), last lines of $OUT/build$info.log:"
		tail -15 "$OUT/build$info.log" | sed 's/^/    /'
	fi
	say "built for $KVER: $(ls "$dest" | tr '\n' ' ')"
}

# requirements of a suite: our module, or a SKIP/FAIL line explaining why it is missing
need_module() {   # SUITE DIR KO
	local d=$OUT/modules
	case $3 in xblkfront.ko | xblkhostile.ko) d=$GUEST_MODS ;; esac
	[ -f "$d/$3" ] && return 0
	if [ ! -f "$REPO/$2/Kbuild" ] && [ ! -f "$REPO/$2/Makefile" ]; then
		echo "XLAB-CASE $1/all: SKIP $3 not built ($2/ has no Kbuild yet)"
	else
		echo "XLAB-CASE $1/all: FAIL $3 not built (make rc=$BUILD_RC, see tests/lab/out/build.log)"
	fi
	return 1
}

# smap=0: with QEMU's -cpu max (TCG) Xen's PV entry path faults on SMAP and dom0 dies on its
# first exception bounce (harmless with qemu64, which has no SMAP; kept for XLAB_CPU=max).
# dom0 needs 2 vCPUs (with 1 it stalls under TCG). Its memory: the loaded suite's
# SUITE_DOM0_MEM (more for one that keeps a guest's image in dom0's tmpfs, say).
xen_cmdline() {
	local mem=$SUITE_DOM0_MEM
	echo "console=com1 com1=115200,8n1 dom0_mem=${mem}M,max:${mem}M dom0_max_vcpus=2 loglvl=all guest_loglvl=all smap=0"
}

# boot SUITE LOG TIMEOUT: one QEMU run of SUITE (its metadata loaded: suite_load); the console
# goes to LOG with "[seconds] " stamps; case lines are echoed live. Returns QEMU's status (124 =
# timeout).
boot() {
	local suite=$1 log=$2 tmo=$3 dom0_cmdline initrd start rc w m needs=
	# xlab.budget: dom0 stops starting cases when its uptime passes it, so that a slow or hanging
	# suite still ends with a complete report before QEMU's timeout
	dom0_cmdline="console=hvc0 earlyprintk=xen loglevel=6 ${suite:+xlab.suites=$suite} xlab.budget=$((tmo - 120)) ${XLAB_CASES:+xlab.cases=$XLAB_CASES}"
	# the suite's disk hotplug script (SUITE_HOTPLUG), before XLAB_OPTS: dom0 takes the last
	dom0_cmdline="$dom0_cmdline xlab.hotplug=$SUITE_HOTPLUG"
	for w in ${XLAB_OPTS:-}; do dom0_cmdline="$dom0_cmdline xlab.$w"; done
	# kprof=1: the kernel's tick profiler (/proc/profile) in dom0 and the guests
	[[ " ${XLAB_OPTS:-} " == *" kprof=1 "* ]] && dom0_cmdline="$dom0_cmdline profile=2"
	[ -n "${XLAB_SHELL:-}" ] && dom0_cmdline="$dom0_cmdline xlab.mode=shell"
	dom0_cmdline="$dom0_cmdline xlab.clock=$(suite_clock)"
	# the modules the suite needs, for its suite_require in dom0 (XLAB_NEEDS)
	for m in $SUITE_NEEDS; do needs=${needs:+$needs,}${m##*/}; done
	[ -z "$needs" ] || dom0_cmdline="$dom0_cmdline xlab.needs=$needs"
	local clk
	read -r -a clk <<< "$(clock_args)"
	# QEMU's multiboot -initrd is a comma separated module list: ",," is a literal comma
	initrd="$OUT/vmlinuz ${dom0_cmdline//,/,,},$OUT/dom0.cpio"
	# -cpu qemu64, not max: with max, user processes in dom0 and guests died every few minutes
	# on a wrong %fs-relative (TLS) load or corrupted malloc state (busybox, xl, xenstore-read,
	# bash), with thread=multi or single and also with max,-fsgsbase; the stress suite saw
	# 4-5 such crashes per 150 s with max and none with qemu64.
	# SUITE_QEMU_DISK: dom0's /dev/vda (the rootdisk suite's guest root file system)
	local disk=()
	[ -n "$SUITE_QEMU_DISK" ] && disk=(-drive "file=$OUT/$SUITE_QEMU_DISK,if=virtio,format=raw,cache=unsafe")
	local cmd=(qemu-system-x86_64 -machine pc "${clk[@]}" "${disk[@]}"
		-cpu "${XLAB_CPU:-$SUITE_CPU}" -smp 2 -m "$SUITE_QEMU_MEM"
		-display none -vga none -monitor none -no-reboot -nodefaults -serial stdio
		-pidfile "$OUT/qemu.pid" -kernel "$(xen_image)" -append "$(xen_cmdline)" -initrd "$initrd")
	# insnprof=1: count every instruction per translation block (tests/bench/xlab-insnprof.c);
	# a console line "XLAB-PROF-MARK TAG" asks for a dump into $OUT/insnprof/prof-TAG.txt
	local prof=
	if [[ " ${XLAB_OPTS:-} " == *" insnprof=1 "* ]]; then
		prof=$OUT/insnprof
		rm -rf "$prof"; mkdir -p "$prof"
		if gcc -O2 -Wall -shared -fPIC -o "$OUT/xlab-insnprof.so" "$REPO/tests/bench/xlab-insnprof.c" \
			-lpthread 2> "$prof/build.log"; then
			cmd+=(-plugin "$OUT/xlab-insnprof.so,dir=$prof")
		else
			say "xlab-insnprof.so did not build ($prof/build.log): no instruction profile"
			prof=
		fi
	fi
	printf '%q ' "${cmd[@]}" > "$log.cmd"
	MY_QEMU=1
	# which run's QEMU this is, for the outer process (outer())
	echo "${XLAB_RUN:-}" > "$OUT/qemu.owner"
	if [ -n "${XLAB_SHELL:-}" ]; then
		timeout -k 10 "$tmo" "${cmd[@]}"
		return $?
	fi
	# serial input from a FIFO: `printf '\001\001\001q' > tests/lab/out/serial.in` sends Xen
	# debug key 'q' (CTRL-a x3 switches the input to Xen)
	rm -f "$OUT/serial.in"; mkfifo "$OUT/serial.in"; exec 3<> "$OUT/serial.in"
	start=$EPOCHREALTIME
	rm -f "$OUT/qemu.rc"
	# in the background + wait: a foreground pipeline would defer our TERM trap (and so the
	# QEMU cleanup) until QEMU exits by itself
	{ timeout -k 10 "$tmo" "${cmd[@]}" <&3 2>&1; echo $? > "$OUT/qemu.rc"; } | while IFS= read -r line; do
		line=${line//$'\r'/}
		now=$EPOCHREALTIME
		d=$(( (${now/./} - ${start/./}) / 100000 ))
		printf '[%5d.%d] %s\n' $((d / 10)) $((d % 10)) "$line" >> "$log"
		# (renamed into place: the plugin must never read a trigger half written)
		[ -n "$prof" ] && [[ $line == *XLAB-PROF-MARK\ * ]] &&
			echo "${line##*XLAB-PROF-MARK }" > "$prof/trigger.new" && mv "$prof/trigger.new" "$prof/trigger"
		if [ -n "${XLAB_VERBOSE:-}" ]; then
			printf '[%5d.%d] %s\n' $((d / 10)) $((d % 10)) "$line"
		elif [[ $line == XLAB-CASE\ * ]]; then
			printf '  [%4ds] %s\n' $((d / 10)) "${line#XLAB-CASE }"
		elif [[ $line == XLAB-INFO\ * ]]; then
			echo "  ${line#XLAB-INFO }"
		elif [[ $line == XLAB-BOOT-ERROR* ]]; then
			echo "  $line"
		fi
	done &
	wait $!
	rc=$(cat "$OUT/qemu.rc" 2>/dev/null || echo 255)
	exec 3>&-
	rm -f "$OUT/serial.in" "$OUT/qemu.pid" "$OUT/qemu.owner"
	MY_QEMU=
	return "$rc"
}

# boot_results LOG SUITE [live]: the case lines of one boot: the XLAB-SUMMARY block if the
# suite finished (kernel messages cannot interleave with it), else the live lines
boot_results() {
	if [ -z "${3:-}" ] && grep -q "XLAB-SUMMARY-END $2" "$1"; then
		sed -n 's/^\[[ 0-9.]*\] //; s/^.*\(XLAB-SUMMARY \)/\1/p' "$1" | grep "^XLAB-SUMMARY $2/" |
			sed 's/^XLAB-SUMMARY /XLAB-CASE /'
	else
		sed -n 's/^\[[ 0-9.]*\] //; s/^.*\(XLAB-CASE \)/\1/p' "$1" | grep "^XLAB-CASE $2/"
	fi | grep -E '^XLAB-CASE [^ ]+/[^ ]+: (PASS|FAIL|SKIP)'
}

# (one line: bash reads it whole before main runs, and nothing of this file after it)
main "$@"; exit $?
