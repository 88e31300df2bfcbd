# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154
# Suite "pvh" (not in the default set; make test-long): our pair with the guest in a PVH domain
# (type = "pvh") instead of PV: xblkfront in a 4-vCPU PVH guest against xblkback, some data
# cases (4 queues and ring order 4, ring order 3, indirect off, persistent grants off, discard,
# flush, ext4, hot-plug under I/O), then xen-blkfront in it against xblkback.
#
# A PVH domain is an HVM container: Xen needs SVM (QEMU's qemu64 CPU has it, and Xen says
# "HVM: SVM enabled") and either hardware-assisted paging or shadow paging. Under TCG the
# qemu64 CPU has no nested paging ("HVM: Hardware Assisted Paging (HAP) not detected") and
# Debian's Xen is built without shadow paging, so there xl refuses a PVH guest: "libxl:
# error: libxl_create.c:46:libxl__domain_create_info_setdefault: neither hap nor shadow paging
# available". This suite boots the same Xen 4.17 built with shadow paging (SUITE_XEN=shadow,
# scripts/xen-shadow.sh): xl info's virt_caps has "shadow" and the guest runs on shadow page
# tables. QEMU's CPU with SVM's nested paging (XLAB_CPU=qemu64,+npt) gives Debian's Xen HAP
# instead, and PVH guests boot there too, but under I/O they died of triple faults, with
# xen-blkfront as with xblkfront (tests/lab/RUNS.md, 2026-12-06); on shadow paging none did,
# and I/O ran 2.5x faster. Its I/O rates under TCG, against a PV guest's: tests/lab/RUNS.md.

# what run.sh needs to know about this suite (README.md "Suite metadata")
suite_meta() {
	SUITE_XEN=shadow SUITE_NEEDS="blkfront/xblkfront.ko blkback/xblkback.ko"
}
. /lab/dom0.sh
. /lab/data-cases.sh
G=g1 FRONT=xblkfront BACK=xblkback
GUEST_TYPE=pvh
suite_require

# c_pvh_boot: the guest is a PVH domain: Xen and xl say so, and so does its kernel; Xen can
# page it (virt_caps: hap or shadow)
c_pvh_boot() {
	local caps
	caps=$(xl info | sed -n 's/^virt_caps *: *//p')
	[[ " $caps " == *" hap "* || " $caps " == *" shadow "* ]] ||
		case_fail "xl info virt_caps has neither hap nor shadow: $caps"
	xl list -l "$G" | grep -q '"type": "pvh"' || case_fail "xl list -l $G: not type pvh"
	g_ok "$G" "dmesg | grep -m1 'Booting kernel on Xen PVH'; read -r c < /sys/devices/system/cpu/online; echo cpus=\$c" ||
		return 1
	grep -q 'Booting kernel on Xen PVH' "$G_OUT" || case_fail "the guest's kernel did not boot as PVH"
	case_note "virt_caps: $caps; guest: $(grep -o 'Booting kernel on Xen PVH' "$G_OUT"), CPUs $(g_field cpus)"
}

if suite_begin "$(main_vcpus)"; then
	want pvh-boot && run_case pvh-boot c_pvh_boot
	data_cases pvh-ours- -nullb-q1 -nullb-q2 -loop-q2 -indirect-on -persistent-on -persistent-beoff \
		-ring-order0 -ring-order2 -ring-order-fe1 -sched -bounce -untrusted -qdisk -trace -xblkstat
	FRONT=xen-blkfront
	data_cases pvh-intree- -nullb-q1 -loop-q2 -nullb-q4 -indirect-off -indirect-on -persistent-off \
		-persistent-on -persistent-beoff -ring-order0 -ring-order2 -ring-order3 -ring-order-fe1 \
		-discard -flush -hotplug -sched -qdisk
else
	setup_failed
fi
suite_end
