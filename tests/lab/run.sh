#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# xblk system-test lab: real Xen 4.17 under QEMU (TCG), PV dom0 + PV guests, our modules.
#
#   tests/lab/run.sh [SUITE...]        default: intree front back demo
#                                      also available: back-extra stress bench bench-r1 bench-r2
#                                      bench-r3 bench-wall hostile
#                                      hostile-back restore lifecycle qos blktests migrate many
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
#                           runtime=20" for the demo on the in-tree frontend, 20 s per job);
#                           dom0_kernel=6.12, guest_kernel=6.12: that side boots bookworm-
#                           backports' 6.12 (scripts/kimage612.sh) instead of 6.1, with our
#                           modules built against its headers (README.md "Kernels");
#                           tier=ci: make test's cut (long-only cases skipped, smaller fio
#                           runs; README.md "CI's time"); hotplug=stock: Xen's own disk
#                           hotplug script instead of init/hotplug-block;
#                           xen=shadow|stock: the hypervisor every suite of the run boots:
#                           Debian's (stock), or the same 4.17 built with shadow paging by
#                           scripts/xen-shadow.sh (cached in /var/cache/xblk/xen-shadow/,
#                           built on first use; Debian's has none, and a PV guest cannot be
#                           live-migrated without it). Default: shadow for the migrate suite,
#                           stock for every other one
#   XLAB_VERBOSE=1          stream the whole serial console (it is always in out/logs/)
#   XLAB_NO_APT=1           never run apt-get (fail if something is missing)
#   XLAB_NO_BUILD=1         reuse out/modules as they are
#   XLAB_MODULES=dkms       xblkfront/xblkback from /lib/modules/<6.1>/updates/dkms (what the
#                           xblk-dkms package built), loaded with modprobe (suite "dkms")
#   XLAB_STRICT=1           skipped cases make the run fail
#   XLAB_TOTAL_TIMEOUT=s    whole script incl. waiting for the lock (default 3600)
#   XLAB_QEMU_TIMEOUT=s     one boot (default per suite: demo 480, back and back-extra 1500,
#                           bench and bench-rN 3600 (icount; 2400 on the wall clock), bench-wall 1200,
#                           hostile-back 2400, hostile 1800, lifecycle 600 + 90 per detach cycle (XLAB_OPTS
#                           detach_cycles, default 10), others 1200)
#   XLAB_LOCK_WAIT=s        how long to wait for another lab run (default 2400)
#   XLAB_ACCEL, XLAB_CPU    QEMU -accel / -cpu (default tcg,thread=multi / qemu64); -accel
#                           only applies to the wall clock
#   XLAB_CLOCK=icount|wall  the clock of every boot (default: icount for bench, bench-rN, qos and many
#                           suites, wall for the others). icount: deterministic, single-
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
ALL_SUITES="intree front back demo"
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
			for _ in 1 2 3 4 5 6 7 8 9 10; do
				kill -0 "$p" 2>/dev/null || break
				sleep 0.2
			done
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
		if [ $# = 0 ]; then read -r -a SUITES <<< "$ALL_SUITES"; else SUITES=("$@"); fi
		for s in "${SUITES[@]}"; do
			if [ ! -f "$HERE/suites/$s.sh" ] || [ "$s" = data-cases ]; then
				echo "unknown suite '$s' (have: $ALL_SUITES)" >&2
				exit 2
			fi
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
	w=0
	while [ -n "$(foreign_qemu)" ] && [ $w -lt "${XLAB_LOCK_WAIT:-2400}" ]; do
		[ $w = 0 ] && say "another qemu-system-x86_64 is running (pid $(foreign_qemu)), waiting for it to end ..."
		sleep 10; w=$((w + 10))
	done

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
	# suite "blktests": blktests unpacked and built here, carried by the guest image
	BLKTESTS_DIR=
	if [[ " ${SUITES[*]} " == *" blktests "* ]]; then
		blktests_prep || exit 2
	fi
	# xen=shadow (the migrate suite's default): the hypervisor rebuilt with shadow paging,
	# from the cache or built now (inside the lock: the build would slow another lab's QEMU)
	XEN_SHADOW=
	for s in "${SUITES[@]}" ""; do
		[ -n "$s" ] || [ -n "${XLAB_SHELL:-}" ] || continue
		[ "$(xen_flavour "$s")" = shadow ] || continue
		say "a Xen with shadow paging (scripts/xen-shadow.sh; a first build takes minutes)"
		XEN_SHADOW=$("$REPO/scripts/xen-shadow.sh" 2> >(sed 's/^/    /' >&2)) || XEN_SHADOW=
		[ -n "$XEN_SHADOW" ] || say "no Xen with shadow paging: scripts/xen-shadow.sh failed"
		break
	done
	say "building images"
	# suite "many": a small guest image too (16 guests must fit in memory)
	SMALL_GUEST=
	[[ " ${SUITES[*]} " == *" many "* ]] && SMALL_GUEST=1
	XLAB_XEN_SHADOW=$XEN_SHADOW XLAB_SMALL_GUEST=$SMALL_GUEST XLAB_BLKTESTS=$BLKTESTS_DIR \
		XLAB_DKMS_DIR=$DKMS_DIR OUT=$OUT XLAB_DOM0_ROOT=$DOM0_ROOT XLAB_GUEST_KVER=$GUEST_KVER \
		XLAB_GUEST_ROOT=$GUEST_ROOT XLAB_GUEST_MODULES=$GUEST_MODS \
		"$HERE/build-images.sh" "$KVER" > "$OUT/images.log" 2>&1 ||
		{ tail -20 "$OUT/images.log"; echo "image build failed" >&2; exit 2; }
	say "images built ($((SECONDS - T0)) s so far)"

	if [ -n "${XLAB_SHELL:-}" ]; then
		say "interactive dom0 (xl, xenstore, blkback, null_blk...); 'poweroff -f' ends it"
		[ "$(xen_flavour "")" = shadow ] && [ ! -f "$OUT/xen-shadow" ] &&
			{ echo "xen=shadow: no Xen with shadow paging" >&2; exit 2; }
		boot "" "$OUT/logs/shell.log" "${XLAB_QEMU_TIMEOUT:-3600}"
		exit $?
	fi

	# -------------------------------------------------------------- suites
	for suite in "${SUITES[@]}"; do
		case $suite in
		front) need_module "$suite" blkfront xblkfront.ko | tee -a "$RESULTS" | grep -q . && continue ;;
		back | lifecycle) need_module "$suite" blkback xblkback.ko | tee -a "$RESULTS" | grep -q . && continue ;;
		hostile)
			need_module "$suite" blkback xblkback.ko | tee -a "$RESULTS" | grep -q . && continue
			need_module "$suite" tests/hostile xblkhostile.ko | tee -a "$RESULTS" | grep -q . && continue ;;
		hostile-back)
			{ need_module "$suite" blkfront xblkfront.ko && need_module "$suite" blkback xblkback.ko &&
				need_module "$suite" tests/hostile-back xblkhostileback.ko; } |
				tee -a "$RESULTS" | grep -q . && continue ;;
		demo)
			if [[ " ${XLAB_OPTS:-} " != *" front=xen-blkfront "* ]]; then
				need_module "$suite" blkfront xblkfront.ko | tee -a "$RESULTS" | grep -q . && continue
			fi ;;
		esac
		if [ "$(xen_flavour "$suite")" = shadow ] && [ ! -f "$OUT/xen-shadow" ]; then
			echo "XLAB-CASE $suite/all: FAIL no Xen with shadow paging for it (scripts/xen-shadow.sh failed; XLAB_OPTS xen=stock boots Debian's)" |
				tee -a "$RESULTS"
			continue
		fi
		case $suite in demo) tmo=480 ;; back | back-extra) tmo=1500 ;; hostile-back) tmo=2400 ;; hostile) tmo=1800 ;;
		# bench under icount: one TCG thread for all vCPUs, a 2 s (virtual) CPU-bound job takes
		# 25-40 s of wall time, the whole suite ~30 min
		bench | bench-r[0-9]) [ "$(suite_clock bench)" = icount ] && tmo=3600 || tmo=2400 ;;
		bench-wall) tmo=1200 ;;
		blktests) tmo=2400 ;;
		migrate | many) tmo=3600 ;;
		lifecycle) tmo=$((600 + 90 * $(xlab_opt detach_cycles 10))) ;;
		*) tmo=1200 ;; esac
		tmo=${XLAB_QEMU_TIMEOUT:-$tmo}
		for try in 1 2; do
			log=$OUT/logs/$suite.log
			[ $try = 2 ] && log=$OUT/logs/$suite.retry.log
			rm -f "$log"
			echo "$log" > "$XLAB_CURRENT" 2>/dev/null
			say "suite $suite: booting Xen ($(xen_flavour "$suite"), boot $try, $(suite_clock "$suite") clock, timeout ${tmo}s, console: ${log#"$REPO"/})"
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

# blktests_prep: blktests at the commit we test with, built in $OUT/blktests (BLKTESTS_DIR).
# The source is the snapshot in ../shared/third-party/ beside the project (or
# $XLAB_BLKTESTS_TGZ); without one, the same commit from upstream, as a machine with network
# would get it.
BLKTESTS_COMMIT=613b8377e4d30fb5b0e0e0882885b3bf103b2c7c
blktests_prep() {
	local d=$OUT/blktests tgz=${XLAB_BLKTESTS_TGZ:-$REPO/../shared/third-party/blktests-${BLKTESTS_COMMIT:0:8}.tar.gz}
	local missing
	# what the guest image copies for blktests (build-images.sh blktests_payload) and its build
	missing=$(pkg_missing xfsprogs gawk bsdextrautils udev g++ diffutils findutils | tr '\n' ' ')
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
	BLKTESTS_DIR=$d
}

# xlab_opt KEY DEFAULT: the number KEY=N in XLAB_OPTS (what dom0 sees as XLAB_<KEY>), or DEFAULT
xlab_opt() {
	local w
	for w in ${XLAB_OPTS:-}; do
		[ "${w%%=*}" = "$1" ] && [[ ${w#*=} =~ ^[0-9]+$ ]] && { echo "${w#*=}"; return; }
	done
	echo "$2"
}

# xlab_str KEY DEFAULT: the value of KEY=VALUE in XLAB_OPTS, or DEFAULT
xlab_str() {
	local w v=$2
	for w in ${XLAB_OPTS:-}; do [ "${w%%=*}" = "$1" ] && v=${w#*=}; done
	echo "$v"
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

# xen_flavour SUITE: the hypervisor SUITE boots ("" = the XLAB_SHELL boot): XLAB_OPTS xen=, else
# shadow for migrate (Debian's Xen cannot live-migrate a PV guest) and stock for the others
xen_flavour() {
	local v
	v=$(xlab_str xen "")
	[ -n "$v" ] || { [ "$1" = migrate ] && v=shadow || v=stock; }
	echo "$v"
}

# xen_image SUITE: the uncompressed hypervisor QEMU boots for SUITE
xen_image() {
	if [ "$(xen_flavour "$1")" = shadow ]; then echo "$OUT/xen-shadow"; else echo "$OUT/xen"; fi
}

foreign_qemu() { pgrep -x qemu-system-x86_64 2>/dev/null | head -1; }

# suite_clock SUITE: the clock SUITE boots on: XLAB_CLOCK if set, else icount for the bench,
# qos and many suites (deterministic figures, see Documentation/bench.rst; qos: repeatable rates)
# and wall for every other one
suite_clock() {
	if [ -n "${XLAB_CLOCK:-}" ]; then echo "$XLAB_CLOCK"; return; fi
	case $1 in bench | bench-r[0-9] | qos | many) echo icount ;; *) echo wall ;; esac
}

# clock_args SUITE: QEMU's accelerator and clock options for SUITE's clock. icount needs
# single-threaded TCG (QEMU refuses thread=multi); shift=0: 1 instruction = 1 ns; sleep=off:
# when every vCPU is idle the clock jumps to the next timer; -rtc clock=vm: the RTC on the
# same virtual clock
clock_args() {
	if [ "$(suite_clock "$1")" = icount ]; then
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
	local KVER=$1 KDIR=$2 src=$3 dest=$4 rc m info=
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
	# the hostile test frontend (suite "hostile"): its own make, so that it can never break
	# the drivers' build; a failure only means that suite has no module
	if [ -f "$src/tests/hostile/Makefile" ]; then
		make -C "$src/tests/hostile" KDIR="$KDIR" > "$OUT/build-hostile$info.log" 2>&1 ||
			say "tests/hostile build failed, see $OUT/build-hostile$info.log"
	fi
	# the hostile test backend (suite "hostile-back"), likewise
	if [ -f "$src/tests/hostile-back/Makefile" ]; then
		make -C "$src/tests/hostile-back" KDIR="$KDIR" > "$OUT/build-hostile-back$info.log" 2>&1 ||
			say "tests/hostile-back build failed, see $OUT/build-hostile-back$info.log"
	fi
	# the dom0 probes (workqueue latency, memory fragmentation), likewise
	if [ -f "$src/tests/probe/Makefile" ]; then
		make -C "$src/tests/probe" KDIR="$KDIR" > "$OUT/build-probe$info.log" 2>&1 ||
			say "tests/probe build failed, see $OUT/build-probe$info.log"
	fi
	for m in blkfront/xblkfront.ko blkback/xblkback.ko tests/hostile/xblkhostile.ko \
		tests/hostile-back/xblkhostileback.ko tests/probe/xlabprobe.ko; do
		[ -f "$src/$m" ] || continue
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
# dom0 needs 2 vCPUs (with 1 it stalls under TCG).
# The restore suite's dom0 holds a whole guest image in its tmpfs, the blktests suite's
# initramfs a guest image that carries blktests and its tools: they get more memory.
xen_cmdline() {
	local mem=1024
	case $1 in restore | blktests) mem=1536 ;; esac
	echo "console=com1 com1=115200,8n1 dom0_mem=${mem}M,max:${mem}M dom0_max_vcpus=2 loglvl=all guest_loglvl=all smap=0"
}

# boot SUITE LOG TIMEOUT: one QEMU run; the console goes to LOG with "[seconds] " stamps;
# case lines are echoed live. Returns QEMU's status (124 = timeout).
boot() {
	local suite=$1 log=$2 tmo=$3 dom0_cmdline initrd start rc w
	# xlab.budget: dom0 stops starting cases when its uptime passes it, so that a slow or hanging
	# suite still ends with a complete report before QEMU's timeout
	dom0_cmdline="console=hvc0 earlyprintk=xen loglevel=6 ${suite:+xlab.suites=$suite} xlab.budget=$((tmo - 120)) ${XLAB_CASES:+xlab.cases=$XLAB_CASES}"
	for w in ${XLAB_OPTS:-}; do dom0_cmdline="$dom0_cmdline xlab.$w"; done
	# kprof=1: the kernel's tick profiler (/proc/profile) in dom0 and the guests (bench)
	[[ " ${XLAB_OPTS:-} " == *" kprof=1 "* ]] && dom0_cmdline="$dom0_cmdline profile=2"
	[ -n "${XLAB_SHELL:-}" ] && dom0_cmdline="$dom0_cmdline xlab.mode=shell"
	dom0_cmdline="$dom0_cmdline xlab.clock=$(suite_clock "$suite")"
	local clk
	read -r -a clk <<< "$(clock_args "$suite")"
	# QEMU's multiboot -initrd is a comma separated module list: ",," is a literal comma
	initrd="$OUT/vmlinuz ${dom0_cmdline//,/,,},$OUT/dom0.cpio"
	# -cpu qemu64, not max: with max, user processes in dom0 and guests died every few minutes
	# on a wrong %fs-relative (TLS) load or corrupted malloc state (busybox, xl, xenstore-read,
	# bash), with thread=multi or single and also with max,-fsgsbase; the stress suite saw
	# 4-5 such crashes per 150 s with max and none with qemu64.
	local cmd=(qemu-system-x86_64 -machine pc "${clk[@]}"
		-cpu "${XLAB_CPU:-qemu64}" -smp 2 -m "$([ "$suite" = many ] && echo 4096 || echo 3072)"
		-display none -vga none -monitor none -no-reboot -nodefaults -serial stdio
		-pidfile "$OUT/qemu.pid" -kernel "$(xen_image "$suite")" -append "$(xen_cmdline "$suite")" -initrd "$initrd")
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
