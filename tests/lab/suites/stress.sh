# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154
# Suite "stress" (not in the default set): a tool for judging the lab itself. The guest runs
# fio write+verify on a disk for xlab.runtime seconds (default 120) while dom0 forks/execs
# small programs as fast as it can; the case fails on any user-space crash (dom0 or guest
# kernel log "traps:/segfault at") or a verify error. Used to compare QEMU settings
# (XLAB_ACCEL, XLAB_CPU) against the rare spurious user-space faults seen under TCG.

# what run.sh needs to know about this suite (README.md "Suite metadata")
suite_meta() {
	:   # the defaults: 1200 s, wall clock, Debian's Xen, not in the default set
}
. /lab/dom0.sh
G=g1 FRONT=${XLAB_FRONT:-xen-blkfront} BACK=${XLAB_BACK:-xen-blkback}
RT=${XLAB_RUNTIME:-120}

c_stress() {
	local n=0 f=0 t0 segv
	be_use "$BACK" || return 1
	fe_use "$G" "$FRONT" || return 1
	disk_attach "$G" nullb0 xvdb || return 1
	g_ok "$G" "rm -f /tmp/bg.rc; (fio --name=s --filename=/dev/xvdb --ioengine=libaio --direct=1 --rw=randrw --bs=4k --iodepth=16 --size=64M --time_based --runtime=$RT --verify=crc32c --verify_fatal=1 > /tmp/bg.log 2>&1; echo \$? > /tmp/bg.rc) &" || return 1
	t0=$SECONDS
	while [ $((SECONDS - t0)) -lt "$RT" ]; do
		n=$((n + 1))
		xenstore-read "/local/domain/${G_DOMID[$G]}/name" >/dev/null || f=$((f + 1))
		bash -c 'x=$(echo a b c | wc -w); [ "$x" = 3 ]' || f=$((f + 1))
		head -c 100 /proc/cpuinfo | grep -q processor || f=$((f + 1))
	done
	g_ok -t 300 "$G" "wait_until 300 1 test -f /tmp/bg.rc; grep -E 'err=|IOPS' /tmp/bg.log; exit \$(cat /tmp/bg.rc)"
	segv=$(dmesg | grep -cE 'segfault at|traps:')
	case_note "dom0 loop iterations=$n failed=$f dom0 crash lines=$segv"
	[ "$f" = 0 ] || case_fail "$f dom0 commands failed"
	[ "$segv" = 0 ] || case_fail "dom0 user-space crashes: $(dmesg | grep -E 'segfault at|traps:' | head -2 | tr '\n' '|')"
}
if suite_begin; then
	run_case stress c_stress
fi
suite_end
