# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Suite "back-extra": xblkback-specific cases that the shared data cases do not cover:
#   nullb4k-*        a 4 KiB logical block device (null_blk bs=4096 through configfs)
#   leak-*           attach / write+verify / detach, three times: afterwards the driver holds
#                    no grant mapping and no page (/sys/bus/xen-backend/drivers/xblkback/
#                    grants_mapped and pages_in_use are 0), persistent grants on
#   destroy-inflight xl destroy of the guest with I/O in flight: the backend drains, unmaps
#                    and frees everything, the vbd disappears
#   resize           the loop device grows in dom0: "sectors" and the guest's size follow
#   readonly         access=ro: info has VDISK_READONLY, reads work, writes do not
# "ours" uses xblkfront (skipped when not built), "intree" the guest's xen-blkfront.
. /lab/dom0.sh
. /lab/cases.sh
G=g1 BACK=xblkback
DRV=/sys/bus/xen-backend/drivers/xblkback

# no_leak LABEL: the driver holds no grant and no page (no vbd may be attached)
no_leak() {
	local g p
	g=$(cat $DRV/grants_mapped 2>/dev/null) p=$(cat $DRV/pages_in_use 2>/dev/null)
	[ -n "$g" ] || { case_fail "$1: $DRV/grants_mapped missing"; return 1; }
	[ "$g" = 0 ] && [ "$p" = 0 ] || { case_fail "$1: grants_mapped=$g pages_in_use=$p"; return 1; }
}

# nullb_4k: a 256 MiB memory-backed null_blk with 4 KiB logical blocks; prints its name (nb4k)
nullb_4k() {
	local d=/sys/kernel/config/nullb/nb4k
	modprobe configfs 2>/dev/null
	[ -d /sys/kernel/config/nullb ] || mount -t configfs configfs /sys/kernel/config 2>/dev/null
	[ -d /sys/kernel/config/nullb ] || { log "no /sys/kernel/config/nullb"; return 1; }
	if [ ! -d $d ]; then
		mkdir $d || return 1
		echo 4096 > $d/blocksize && echo 256 > $d/size && echo 1 > $d/memory_backed &&
			echo 1 > $d/power || return 1
	fi
	# a configfs null_blk is named after its directory
	echo nb4k
}

c_nullb4k() {   # FRONT
	local nb ss
	nb=$(nullb_4k) || { case_fail "cannot create a 4k null_blk (configfs)"; return 1; }
	[ "$(cat /sys/block/$nb/queue/logical_block_size)" = 4096 ] ||
		{ case_fail "$nb has logical_block_size $(cat /sys/block/$nb/queue/logical_block_size)"; return 1; }
	be_use "$BACK" || return 1
	fe_use "$G" "$1" || return 1
	disk_attach "$G" "/dev/$nb" xvdb || return 1
	ss=$(xs_back "$G" xvdb sector-size)
	expect "backend sector-size" "$ss" 4096
	expect "guest logical_block_size" "$DI_lbs" 4096
	fio_case "$G" xvdb || return 1
	g_ok -t 400 "$G" "ext4_check /dev/xvdb" || return 1
	case_note "$nb: sector-size=$ss, $(grep -o 'ext4: .*' "$G_OUT" | head -1)"
}

c_leak() {   # FRONT
	local i st
	be_use "$BACK" || return 1
	fe_use "$G" "$1" || return 1
	no_leak "before" || return 1
	for i in 1 2 3; do
		disk_attach "$G" nullb0 xvdb || return 1
		g_ok "$G" "fio_verify /dev/xvdb 2M 4M" || return 1
		st="gnt_map=$(be_stat "$G" xvdb gnt_map) gnt_unmap=$(be_stat "$G" xvdb gnt_unmap)"
		st="$st pgnt_hit=$(be_stat "$G" xvdb pgnt_hit) persistent_grants=$(be_stat "$G" xvdb persistent_grants)"
		disk_detach "$G" xvdb || return 1
		no_leak "after detach $i" || { case_note "last stats: $st"; return 1; }
	done
	case_note "3 attach/detach cycles, nothing left mapped; last cycle before detach: $st"
}

c_destroy_inflight() {
	local q=gd domid i
	be_use "$BACK" || return 1
	guest_create "$q" 2 384 "format=raw,vdev=xvdb,access=rw,target=$(backing nullb1)" ||
		{ case_fail "could not create guest $q"; return 1; }
	domid=${G_DOMID[$q]}
	fe_use "$q" xen-blkfront || { guest_destroy "$q"; return 1; }
	g_ok "$q" "waitdev /dev/xvdb 45 && (fio --name=bg --filename=/dev/xvdb --ioengine=libaio --direct=1 \
		--rw=randrw --bs=64k --iodepth=32 --size=64M --time_based --runtime=600 >/dev/null 2>&1 &) && sleep 5" ||
		{ guest_destroy "$q"; return 1; }
	case_note "before destroy: rd_req=$(be_stat "$q" xvdb rd_req) wr_req=$(be_stat "$q" xvdb wr_req) grants_mapped=$(cat $DRV/grants_mapped)"
	guest_destroy "$q"
	i=0
	while xenstore-exists "/local/domain/0/backend/vbd/$domid" 2>/dev/null && [ $i -lt 150 ]; do
		sleep 0.2; i=$((i + 1))
	done
	xenstore-exists "/local/domain/0/backend/vbd/$domid" 2>/dev/null &&
		case_fail "backend/vbd/$domid still in xenstore 30 s after destroy"
	i=0
	while [ -e "/sys/bus/xen-backend/devices/vbd-$domid-$(vdev_devid xvdb)" ] && [ $i -lt 150 ]; do
		sleep 0.2; i=$((i + 1))
	done
	[ -e "/sys/bus/xen-backend/devices/vbd-$domid-$(vdev_devid xvdb)" ] &&
		case_fail "backend device vbd-$domid-$(vdev_devid xvdb) still there"
	no_leak "after destroy"
}

c_resize() {
	local s0 s1 i gs
	be_use "$BACK" || return 1
	fe_use "$G" "${1:-xen-blkfront}" || return 1
	truncate -s 256M $LAB_TMP/disk1.img && /usr/sbin/losetup -c /dev/loop1
	disk_attach "$G" loop1 xvdb || return 1
	s0=$(xs_back "$G" xvdb sectors)
	truncate -s 320M $LAB_TMP/disk1.img && /usr/sbin/losetup -c /dev/loop1 ||
		{ case_fail "cannot grow loop1"; return 1; }
	i=0
	while [ "$(xs_back "$G" xvdb sectors)" = "$s0" ] && [ $i -lt 100 ]; do sleep 0.2; i=$((i + 1)); done
	s1=$(xs_back "$G" xvdb sectors)
	expect "backend sectors after growing to 320 MiB" "$s1" $((320 * 2048))
	g_ok "$G" "i=0; while [ \$(cat /sys/block/xvdb/size) != $s1 ] && [ \$i -lt 100 ]; do sleep 0.2; i=\$((i+1)); done; cat /sys/block/xvdb/size" ||
		return 1
	gs=$(grep -v '^XLAB-' "$G_OUT" | tail -1)
	expect "guest size" "$gs" "$s1"
	fio_case "$G" xvdb 4M 8M 300M
	case_note "sectors $s0 -> $s1, guest sees $gs"
	truncate -s 256M $LAB_TMP/disk1.img && /usr/sbin/losetup -c /dev/loop1
}

c_readonly() {
	local info
	be_use "$BACK" || return 1
	fe_use "$G" "${1:-xen-blkfront}" || return 1
	disk_attach "$G" nullb2 xvdb access=ro || return 1
	info=$(xs_back "$G" xvdb info)
	[ $((info & 4)) = 4 ] || case_fail "backend info=$info lacks VDISK_READONLY"
	expect "backend feature-flush-cache (read-only)" "$(xs_back "$G" xvdb feature-flush-cache)" 0
	g_ok "$G" "dd if=/dev/xvdb of=/dev/null bs=1M count=16 iflag=direct 2>&1 | tail -1" || return 1
	if g_run "$G" "dd if=/dev/zero of=/dev/xvdb bs=4k count=1 oflag=direct 2>&1"; then
		case_fail "a write to the read-only disk succeeded"
	fi
	case_note "info=$info, reads ok, write refused"
}

if [ ! -f /extra/xblkback.ko ]; then
	case_skip all "xblkback.ko not in the image"
	suite_end
	exit
fi
FRONT=xen-blkfront
if suite_begin; then
	want() { [ -z "${XLAB_CASES:-}" ] || [[ ,$XLAB_CASES, == *,$1,* ]]; }
	if [ -f /extra/xblkfront.ko ]; then
		want nullb4k-ours && run_case nullb4k-ours c_nullb4k xblkfront
		want leak-ours && run_case leak-ours c_leak xblkfront
	else
		case_skip ours "xblkfront.ko not in the image"
	fi
	want nullb4k-intree && run_case nullb4k-intree c_nullb4k xen-blkfront
	want leak-intree && run_case leak-intree c_leak xen-blkfront
	want readonly && run_case readonly c_readonly xen-blkfront
	want resize && run_case resize c_resize xen-blkfront
	want destroy-inflight && run_case destroy-inflight c_destroy_inflight
else
	case_begin setup; case_fail "suite setup failed"; case_end
fi
suite_end
