# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154
# Suite "probe33" (issue 33, exploratory): what this Xen offers for HVM/PVH, whether a PVH guest
# starts, a 4-vCPU PV guest's negotiation, and Xen's own block hotplug script with xblkback.

suite_meta() {
	SUITE_TIMEOUT=1500 SUITE_NEEDS="blkfront/xblkfront.ko blkback/xblkback.ko"
}
. /lab/dom0.sh
G=g1 FRONT=xblkfront BACK=xblkback
suite_require

c_xeninfo() {
	local caps
	xl info | sed 's/^/    xl info: /'
	xl dmesg | grep -iE 'hvm|svm|vmx|hap|shadow|paging|npt|asid' | sed 's/^/    xl dmesg: /'
	caps=$(xl info | sed -n 's/^virt_caps *: *//p')
	case_note "virt_caps: $caps; xen_caps: $(xl info | sed -n 's/^xen_caps *: *//p')"
	case_note "Xen: $(xl dmesg | grep -iE 'HVM|HAP|SVM|VMX' | sed 's/^(XEN) //' | tr '\n' '|' | cut -c1-600)"
}

c_pvh() {
	local rc
	GUEST_TYPE=pvh _guest_create1 gp 2 512 > $LAB_TMP/pvh.out 2>&1
	rc=$?
	cat $LAB_TMP/pvh.out
	log "xl-gp.log:"; tail -30 /var/log/xen/xl-gp.log 2>/dev/null | sed 's/^/    /'
	log "xl dmesg tail:"; xl dmesg | tail -25 | sed 's/^/    /'
	if [ $rc != 0 ]; then
		case_fail "PVH guest: $(grep -iE 'error|fail|cannot|unable' $LAB_TMP/pvh.out /var/log/xen/xl-gp.log 2>/dev/null | head -4 | tr '\n' '|' | cut -c1-500) / Xen: $(xl dmesg | tail -6 | tr '\n' '|' | cut -c1-400)"
		xl destroy gp 2>/dev/null
		return 1
	fi
	g_ok gp "uname -a; nproc; dmesg | grep -iE 'pvh|booting paravirtualized' | head -3" || return 1
	case_note "PVH guest: $(grep -iE 'pvh|paravirt' "$G_OUT" | head -2 | tr '\n' '|')"
	fe_use gp xblkfront || return 1
	disk_attach gp nullb1 xvdb || return 1
	fio_case gp xvdb 4M 8M
	disk_detach gp xvdb
	guest_destroy gp
}

# a 4-vCPU PV guest: 4 queues and ring order 4 with xblkfront; time a write+verify
c_vcpu4() {
	local t0
	be_use xblkback max_queues=4 || return 1
	fe_use "$G" xblkfront max_ring_page_order=4 || return 1
	disk_attach "$G" nullb2 xvdc || return 1
	t0=$(now)
	fio_case "$G" xvdc
	case_note "2-vCPU guest: fio $(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.0f", b-a}')s, nr_queues=$FI_nr_queues order=$FI_ring_page_order"
	disk_detach "$G" xvdc
	t0=$(now)
	guest_create g4 4 512 || return 1
	case_note "create $(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.0f", b-a}')s"
	be_use xblkback max_queues=4 || return 1
	fe_use g4 xblkfront max_ring_page_order=4 || return 1
	disk_attach g4 nullb1 xvdb || return 1
	g_ok g4 "nproc; cat /sys/block/xvdb/device/xblk/nr_queues /sys/block/xvdb/device/xblk/ring_page_order"
	case_note "nproc/nr_queues/order: $(grep -v '^XLAB' "$G_OUT" | tr '\n' ' ')"
	t0=$(now)
	fio_case g4 xvdb
	case_note "fio $(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.0f", b-a}')s"
	disk_detach g4 xvdb
	guest_destroy g4
}

# Xen's /etc/xen/scripts/block instead of the lab's shortcut: attach time, the sharing check
c_stock() {
	local t0 out=$LAB_TMP/share.out
	if [ -f /etc/xen/scripts/block-stock ]; then
		mv /etc/xen/scripts/block /etc/xen/scripts/block-lab &&
			mv /etc/xen/scripts/block-stock /etc/xen/scripts/block
	fi
	grep -q check_device_sharing /etc/xen/scripts/block || { case_fail "not Xen's script"; return 1; }
	cat > /etc/xen/scripts/block-shared <<-'EOF'
	#!/bin/sh
	# the toolstack's shared-writable mode (w!), which xl's disk syntax cannot write
	[ "$1" = add ] && xenstore-write "$XENBUS_PATH/mode" 'w!'
	exec /etc/xen/scripts/block "$@"
	EOF
	chmod 755 /etc/xen/scripts/block-shared
	be_use xblkback || return 1
	fe_use "$G" xblkfront || return 1
	t0=$(now)
	disk_attach_xl "$G" nullb0 xvdb || return 1
	case_note "attach $(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}')s"
	devinfo "$G" xvdb "waitdev /dev/xvdb 45 &&" || return 1
	guest_create g2 2 384 || return 1
	fe_use g2 xblkfront || return 1
	timeout 90 xl block-attach g2 "format=raw,vdev=xvdb,access=rw,target=/dev/nullb0" > $out 2>&1
	log "second rw attach: rc=$? $(tr '\n' '|' < $out)"
	case_note "2nd rw attach: $(tr '\n' '|' < $out | cut -c1-300)"
	be_in_xenstore "${G_DOMID[g2]}" 51728 && case_note "(g2 vbd left in xenstore)"
	timeout 90 xl block-detach g2 xvdb 2>/dev/null
	timeout 90 xl block-attach g2 "format=raw,vdev=xvdc,access=ro,target=/dev/nullb0" > $out 2>&1
	log "ro attach: rc=$? $(tr '\n' '|' < $out)"
	case_note "ro attach: $(tr '\n' '|' < $out | cut -c1-300)"
	timeout 90 xl block-detach g2 xvdc 2>/dev/null
	timeout 90 xl block-attach g2 "format=raw,vdev=xvdd,access=rw,script=/etc/xen/scripts/block-shared,target=/dev/nullb0" > $out 2>&1
	log "w! attach: rc=$? $(tr '\n' '|' < $out)"
	xenstore-ls -f "/local/domain/0/backend/vbd/${G_DOMID[g2]}" | grep -E 'mode|script|physical|state|hotplug' | sed 's/^/    /'
	g_run g2 "waitdev /dev/xvdd 45 && dd if=/dev/xvdd bs=4k count=1 iflag=direct 2>/dev/null | md5sum"
	case_note "w! attach: $(tr '\n' '|' < $out | cut -c1-200) g2: $(grep -v '^XLAB' "$G_OUT" | tr '\n' ' ')"
	dmesg | grep -iE 'xblkback|claim' | tail -8 | sed 's/^/    /'
	log "syslog of the hotplug scripts:"; grep -E 'scripts/block' /var/log/messages | tail -30 | sed 's/^/    /'
	tail -20 /var/log/xen/xen-hotplug.log 2>/dev/null | sed 's/^/    hotplug.log: /'
	xenstore-ls -f "/local/domain/0/backend/vbd" | grep -E 'hotplug-error|hotplug-status' | sed 's/^/    /'
	t0=$(now)
	timeout 90 xl block-detach g2 xvdd
	case_note "detach $(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}')s"
	guest_destroy g2
}

if backing_setup && be_use $BACK && guest_create $G 2 384; then
	want xeninfo && run_case xeninfo c_xeninfo
	want pvh && run_case pvh c_pvh
	want vcpu4 && run_case vcpu4 c_vcpu4
	want stock && run_case stock c_stock
else
	setup_failed
fi
suite_end
