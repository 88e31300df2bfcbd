# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154
# (DI_* and FI_* are set dynamically by devinfo/feinfo in lib/dom0.sh)
# Suite "back-extra": xblkback-specific cases that the shared data cases do not cover:
#   nullb4k-*        a 4 KiB logical block device (null_blk bs=4096 through configfs)
#   geometry-*       a device-mapper stripe (2 x null_blk, chunk 128 KiB) whose queue has io_min
#                    and io_opt: the backend's xblk-io-min/-io-opt/-max-sectors keys follow dom0's
#                    queue limits; xblkfront's queue takes them (minimum_io_size, optimal_io_size,
#                    max_sectors_kb, segments per request); xen-blkfront ignores them (same limits
#                    as on a plain null_blk); fio verify on the stripe
#   leak-*           attach / write+verify / detach, XLAB_LEAK_CYCLES (20) times: after every
#                    detach the driver holds no grant mapping and no page (/sys/bus/xen-backend/
#                    drivers/xblkback/grants_mapped and pages_in_use are 0), Xen's grant table
#                    of the guest has as many active entries as before (xl debug-keys g), and
#                    dom0's MemFree/Slab do not drift; persistent grants on
#   destroy-inflight xl destroy of a guest with I/O in flight, XLAB_DESTROY_CYCLES (8) times,
#                    alternating xblkfront and xen-blkfront: the backend drains, unmaps and frees
#                    everything, the vbd disappears, Xen frees the domain (no zombie), dom0's
#                    MemFree/Slab do not drift
#   pgnt-lru         persistent grants beyond max_persistent_grants=64: the least recently used
#                    are unmapped (pgnt_evict grows, never more than 64 mapped), data stays right
#   resize           the loop device grows in dom0: "sectors" and the guest's size follow
#   readonly         access=ro: info has VDISK_READONLY, reads work, writes do not
#   dmerror-*        device errors (dm "error" target) under the disk: EIO in the guest for
#                    those blocks only, nothing hangs, the disk works again once healed
#   rmmod            rmmod of either module is refused while a disk is attached, the disk
#                    keeps working; after the detach both unload and reload
#   mapfail-*        the fail_map fault point (debugfs) at 3: one page reservation or
#                    grant map batch in three fails "for now"; fio write+verify with 6 jobs
#                    (4k/64k random, 1M sequential, 44 MiB) passes with no error, the
#                    backend's map_retry grows and io_err/err_req do not; after the detach
#                    nothing is mapped. mapfail-ours runs without persistent grants (every
#                    segment mapped per request: map_again must grow too; fio writes half
#                    as much, as it is ~3x slower), mapfail-intree
#                    with them. mapfail-ours then tears down during a backoff: a
#                    second guest (gd) with I/O in flight and fail_map=1 (every request waits)
#                    is destroyed; the backend answers the waiting requests, frees everything,
#                    the domain goes away
#   mempressure      dom0 memory filled (tmpfs) down to a few MiB above its high watermark
#                    (XLAB_MEMPRESSURE_MARGIN_KB, 4096) while the guest runs the same fio
#                    write+verify (xblkfront): it passes with no error, dom0 has no kernel
#                    problem; the lowest MemFree seen and the backend's map_retry/oo_req
#                    are noted; nothing is mapped after the detach
# "ours" uses xblkfront (skipped when not built), "intree" the guest's xen-blkfront.

# what run.sh needs to know about this suite (README.md "Suite metadata")
suite_meta() {
	SUITE_TIMEOUT=1500 SUITE_NEEDS="blkback/xblkback.ko"
}
. /lab/dom0.sh
G=g1 BACK=xblkback

# Bounds for dom0's memory drift over the repeated cycles, from the first cycle's figures (the
# first one warms caches and slabs) to the last, in KiB. A leak of what one vbd holds (ring and
# persistent-grant pages: ~2 MiB with these fio jobs) would exceed them within a few cycles;
# the backend's own counters catch smaller leaks exactly.
MEMFREE_DRIFT_MAX=${XLAB_MEMFREE_DRIFT_MAX:-8192}
SLAB_DRIFT_MAX=${XLAB_SLAB_DRIFT_MAX:-4096}

# mem_snap: dom0's "MemFree Slab" (KiB) after dropping clean caches
mem_snap() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
	awk '/^MemFree:/{f=$2} /^Slab:/{s=$2} END{print f, s}' /proc/meminfo
}

# mem_drift LABEL "FREE0 SLAB0" "FREE1 SLAB1": fail if MemFree fell or Slab grew by more than
# the bounds; sets MEM_DRIFT to the changes ("MemFree -N KiB, Slab +N KiB")
mem_drift() {
	local f0 s0 f1 s1 df ds
	read -r f0 s0 <<< "$2"
	read -r f1 s1 <<< "$3"
	df=$((f0 - f1)) ds=$((s1 - s0))
	printf -v MEM_DRIFT 'MemFree %+d KiB, Slab %+d KiB' $((-df)) "$ds"
	[ "$df" -le "$MEMFREE_DRIFT_MAX" ] ||
		case_fail "$1: dom0 MemFree fell by $df KiB (bound $MEMFREE_DRIFT_MAX)"
	[ "$ds" -le "$SLAB_DRIFT_MAX" ] ||
		case_fail "$1: dom0 Slab grew by $ds KiB (bound $SLAB_DRIFT_MAX)"
}

# slab_snap FILE: bytes in active objects per slab cache; slab_growth FILE0 FILE1: the caches
# that grew most between two snapshots ("name +N KiB ...")
slab_snap() { awk 'NR > 2 { print $1, $2 * $4 }' /proc/slabinfo > "$1" 2>/dev/null; }
slab_growth() {
	awk 'NR == FNR { a[$1] = $2; next } { d = $2 - a[$1]; if (d >= 1024) print d, $1 }' "$1" "$2" |
		sort -rn | head -4 | awk '{ printf "%s%s +%d KiB", (NR > 1 ? ", " : ""), $2, $1 / 1024 }'
}

# xen_active_grants DOMID: the number of active (mapped or copied-from) entries in the grant
# table of domain DOMID, from Xen's debug key 'g' (xl debug-keys g, read back with xl dmesg);
# empty when the output has no block for that domain
xen_active_grants() {
	xl dmesg -c >/dev/null 2>&1
	xl debug-keys g >/dev/null 2>&1 || return 0
	xl dmesg 2>/dev/null | awk -v d="$1" '
		BEGIN { cur = -1 }
		/grant-table for remote/ { s = $0; sub(/.*remote (domain:)? *d?/, "", s); cur = s + 0; seen[cur] = 1; next }
		/\] done/ { cur = -1 }
		cur == d && /\[ *(0x)?[0-9a-f]+\]/ { n++ }
		END { if (d in seen) print n + 0 }'
}

# nullb_4k: a 256 MiB memory-backed null_blk with 4 KiB logical blocks; prints its name (nb4k)
nullb_4k() {
	nullb_make nb4k blocksize=4096 size=256 memory_backed=1 || return 1
	echo nb4k
}

# stripe_dev: a device-mapper "striped" target over two 128 MiB null_blks (nbs0, nbs1), chunk
# 256 sectors (128 KiB): its queue gets io_min = chunk, io_opt = 2 x chunk; prints dm-N
STRIPE=xlab-stripe
stripe_dev() {
	local n d sectors=$((128 * 2048))
	nullb_make nbs0 size=128 memory_backed=1 && nullb_make nbs1 size=128 memory_backed=1 || return 1
	modprobe dm-mod || return 1
	if ! dmsetup info "$STRIPE" >/dev/null 2>&1; then
		dmsetup create --noudevsync "$STRIPE" \
			--table "0 $((2 * sectors)) striped 2 256 /dev/nbs0 0 /dev/nbs1 0" || return 1
	fi
	for d in /sys/block/dm-*; do
		[ "$(cat "$d/dm/name" 2>/dev/null)" = "$STRIPE" ] && n=${d##*/}
	done
	if [ -z "${n:-}" ] || [ ! -b "/dev/$n" ]; then
		log "no block device for $STRIPE"
		return 1
	fi
	echo "$n"
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

# c_geometry FRONT: the geometry keys, from dom0's dm stripe to the guest's queue
c_geometry() {   # FRONT
	local dm q mn op ms chunk want xmin xopt xms bemax segs hw gq
	dm=$(stripe_dev) || { case_fail "cannot create the dm stripe (dmsetup)"; return 1; }
	q=/sys/block/$dm/queue
	mn=$(cat "$q/minimum_io_size") op=$(cat "$q/optimal_io_size")
	ms=$(cat "$q/max_sectors_kb") chunk=$(cat "$q/chunk_sectors" 2>/dev/null || echo 0)
	log "dom0 $dm ($STRIPE): minimum_io_size=$mn optimal_io_size=$op max_sectors_kb=$ms chunk_sectors=$chunk"
	# the stripe must really have a geometry, or this case would prove nothing
	expect "dom0 $dm minimum_io_size" "$mn" 131072
	expect "dom0 $dm optimal_io_size" "$op" 262144
	case_ok || return 1
	# the backend's largest useful request: max_sectors (sysfs rounds it down to KiB: null_blk's
	# 255 sectors read 127), not across a chunk boundary (dm-stripe on 6.1 splits at its chunks
	# internally but leaves chunk_sectors 0)
	want=$ms
	[ "$chunk" -gt 0 ] && [ $((chunk / 2)) -lt "$want" ] && want=$((chunk / 2))
	be_use "$BACK" || return 1
	if [ "$1" = xblkfront ]; then
		fe_use "$G" "$1" max_indirect_segments=256 || return 1
	else
		fe_use "$G" "$1" || return 1
	fi
	disk_attach "$G" "/dev/$dm" xvdb || return 1
	xmin=$(xs_back "$G" xvdb xblk-io-min) xopt=$(xs_back "$G" xvdb xblk-io-opt)
	xms=$(xs_back "$G" xvdb xblk-max-sectors) bemax=$(xs_back "$G" xvdb feature-max-indirect-segments)
	expect "backend xblk-io-min (bytes)" "$xmin" "$mn"
	expect "backend xblk-io-opt (bytes)" "$xopt" "$op"
	expect "backend xblk-max-sectors (512 B) in KiB" "$((${xms:-0} / 2))" "$want"
	case_note "dom0 $dm io_min=$mn io_opt=$op max_sectors_kb=$ms chunk_sectors=$chunk; backend xblk-io-min=$xmin xblk-io-opt=$xopt xblk-max-sectors=$xms"
	gq="minimum_io_size=$DI_io_min optimal_io_size=$DI_io_opt max_sectors_kb=$DI_max_sectors_kb max_hw_sectors_kb=$DI_max_hw_sectors_kb max_segments=$DI_max_segments"
	if [ "$1" = xblkfront ]; then
		local FRONT=xblkfront	# fe_expect: our frontend must export what it checks
		# Documentation/protocol.rst: segments = min(backend max, parameter (256),
		# max(ceil(xblk-max-sectors / 8), 32)); request size = min(segments * 8,
		# max(xblk-max-sectors rounded up to whole 4 KiB pages, 256)) (null_blk's 255
		# sectors give 256: dom0 splits, the guest sends one request per 128 KiB)
		segs=$(((xms + 7) / 8))
		[ "$segs" -lt 32 ] && segs=32
		[ "$segs" -gt 256 ] && segs=256
		[ -n "$bemax" ] && [ "$bemax" -lt "$segs" ] && segs=$bemax
		hw=$(((xms + 7) / 8 * 8))
		[ "$hw" -lt 256 ] && hw=256
		[ "$hw" -gt $((segs * 8)) ] && hw=$((segs * 8))
		expect "guest minimum_io_size" "$DI_io_min" "$xmin"
		expect "guest optimal_io_size" "$DI_io_opt" "$xopt"
		expect "guest max_hw_sectors_kb" "$DI_max_hw_sectors_kb" $((hw / 2))
		# the block layer's default cap for max_sectors is 1280 KiB on 6.1
		expect "guest max_sectors_kb" "$DI_max_sectors_kb" $((hw / 2 < 1280 ? hw / 2 : 1280))
		fe_expect "segments per request" max_segments "$segs"
		case_note "guest (xblkfront) $gq"
	else
		# xen-blkfront does not know the keys: the same limits as on a plain null_blk
		disk_attach "$G" nullb0 xvdc || return 1
		case_note "guest (xen-blkfront) $gq; on nullb0 (no xblk-io-*): minimum_io_size=$DI_io_min optimal_io_size=$DI_io_opt max_sectors_kb=$DI_max_sectors_kb"
		[ "$gq" = "minimum_io_size=$DI_io_min optimal_io_size=$DI_io_opt max_sectors_kb=$DI_max_sectors_kb max_hw_sectors_kb=$DI_max_hw_sectors_kb max_segments=$DI_max_segments" ] ||
			case_fail "xen-blkfront's limits differ between the stripe and a plain null_blk"
		disk_detach "$G" xvdc || return 1
	fi
	fio_case "$G" xvdb 4M 16M
}

# c_leak FRONT: XLAB_LEAK_CYCLES x (attach, small write+verify, detach), nothing left behind
c_leak() {   # FRONT
	local i st n=${XLAB_LEAK_CYCLES:-20} domid g gmax=0 maps="" xa xatt xbase m0 m1 m
	be_use "$BACK" || return 1
	fe_use "$G" "$1" || return 1
	no_leak "before" || return 1
	domid=${G_DOMID[$G]}
	xbase=$(xen_active_grants "$domid")
	m0=$(mem_snap)
	log "leak: before: Xen active grants of d$domid: ${xbase:-?}, dom0 MemFree/Slab KiB: $m0"
	for i in $(seq 1 "$n"); do
		disk_attach "$G" nullb0 xvdb || return 1
		# once, while attached: Xen must see the backend's mappings (the ring at least), or
		# "as many as before" after the detach would prove nothing
		if [ "$i" = 1 ] && [ -n "$xbase" ]; then
			xa=$(xen_active_grants "$domid")
			[ -n "$xa" ] && [ "$xa" -gt "$xbase" ] ||
				{ case_fail "Xen shows ${xa:-?} active grants of d$domid with a disk attached, $xbase without"; return 1; }
			xatt=$xa
		fi
		g_ok "$G" "fio_verify /dev/xvdb 1M 2M" || return 1
		g=$(cat "$DRV/grants_mapped")
		[ "$g" -gt "$gmax" ] && gmax=$g
		st="gnt_map=$(be_stat "$G" xvdb gnt_map) gnt_unmap=$(be_stat "$G" xvdb gnt_unmap)"
		st="$st persistent_grants=$(be_stat "$G" xvdb persistent_grants) grants_mapped=$g pages_in_use=$(cat "$DRV/pages_in_use")"
		maps="$maps $(be_stat "$G" xvdb gnt_map)"
		disk_detach "$G" xvdb || return 1
		no_leak "after detach $i" || { case_note "last stats: $st"; return 1; }
		xa=$(xen_active_grants "$domid")
		if [ -n "$xbase" ]; then
			[ "$xa" = "$xbase" ] ||
				{ case_fail "after detach $i: Xen shows ${xa:-?} active grants of d$domid, $xbase before"; return 1; }
		fi
		m=$(mem_snap)
		[ "$i" = 1 ] && { m1=$m; slab_snap $LAB_TMP/slab.1; }
		log "leak cycle $i/$n: attached: $st; detached: grants_mapped=0 pages_in_use=0 Xen active grants=${xa:-?} MemFree/Slab KiB: $m"
	done
	# the counters must have moved, or "0 after detach" would prove nothing
	[ "$gmax" -gt 0 ] || case_fail "grants_mapped was 0 while attached in every cycle"
	mem_drift "cycles 1..$n" "$m1" "$m"
	slab_snap $LAB_TMP/slab.n
	case_note "$n attach/detach cycles, grants_mapped=0 pages_in_use=0 after each (up to $gmax while attached; gnt_map per cycle:$maps)"
	if [ -n "$xbase" ]; then
		case_note "Xen (debug-keys g): d$domid has $xbase active grants before and after every cycle ($xatt just after the 1st attach)"
	else
		case_note "xl debug-keys g gave nothing usable"
	fi
	case_note "dom0 after cycle 1 -> $n: $MEM_DRIFT (MemFree/Slab KiB before: $m0, after 1: $m1, after $n: $m; grew most: $(slab_growth $LAB_TMP/slab.1 $LAB_TMP/slab.n))"
}

# c_destroy_inflight: XLAB_DESTROY_CYCLES x (create a guest with a disk, fio in flight, destroy)
c_destroy_inflight() {
	local q=gd domid i n=${XLAB_DESTROY_CYCLES:-8} fe m0 m1 m g gmin="" line
	be_use "$BACK" || return 1
	no_leak "before" || return 1
	m0=$(mem_snap)
	for i in $(seq 1 "$n"); do
		fe=xen-blkfront
		[ -f /extra/xblkfront.ko ] && [ $((i % 2)) = 1 ] && fe=xblkfront
		guest_create "$q" 2 384 "format=raw,vdev=xvdb,access=rw,target=$(backing nullb1)" ||
			{ case_fail "cycle $i: could not create guest $q"; return 1; }
		domid=${G_DOMID[$q]}
		fe_use "$q" "$fe" || { guest_destroy "$q"; return 1; }
		g_ok "$q" "waitdev /dev/xvdb 45 && (fio --name=bg --filename=/dev/xvdb --ioengine=libaio --direct=1 \
			--rw=randrw --bs=64k --iodepth=32 --size=64M --time_based --runtime=600 >/dev/null 2>&1 &) && sleep 4" ||
			{ guest_destroy "$q"; return 1; }
		g=$(cat "$DRV/grants_mapped")
		[ -z "$gmin" ] || [ "$g" -lt "$gmin" ] && gmin=$g
		line="cycle $i ($fe, d$domid): before destroy rd_req=$(be_stat "$q" xvdb rd_req) wr_req=$(be_stat "$q" xvdb wr_req) grants_mapped=$g"
		guest_destroy "$q"
		wait_until 30 0.2 ! xenstore-exists "/local/domain/0/backend/vbd/$domid" 2>/dev/null ||
			{ case_fail "cycle $i: backend/vbd/$domid still in xenstore 30 s after destroy"; return 1; }
		wait_until 30 0.2 ! test -e "/sys/bus/xen-backend/devices/vbd-$domid-$(vdev_devid xvdb)" ||
			{ case_fail "cycle $i: backend device vbd-$domid-$(vdev_devid xvdb) still there"; return 1; }
		no_leak "after destroy $i" || return 1
		# a page dom0 still maps keeps the dead domain around (a zombie in xl list)
		wait_until 30 0.2 ! domain_listed "$domid" ||
			{ case_fail "cycle $i: domain $domid still exists 30 s after destroy: $(xl list | awk -v d="$domid" '$2 == d')"; return 1; }
		m=$(mem_snap)
		[ "$i" = 1 ] && { m1=$m; slab_snap $LAB_TMP/slab.1; }
		log "destroy $line; after: grants_mapped=0 pages_in_use=0, domain gone, MemFree/Slab KiB: $m"
	done
	[ "${gmin:-0}" -gt 0 ] || case_fail "grants_mapped was 0 with I/O in flight (the check would prove nothing)"
	# MemFree across guest creates and destroys moves by itself: over cycles 1..3, with flat
	# slabs, process count, anonymous and shared memory, -11.7 MiB, -7.8 MiB and +0.8 MiB were
	# seen. Below 4 cycles (make test) a leak of one vbd's pages cannot stand out of that, so
	# MemFree is only recorded there; the exact counters above and the slab bound still hold.
	local MEMFREE_DRIFT_MAX=$MEMFREE_DRIFT_MAX
	[ "$n" -ge 4 ] || MEMFREE_DRIFT_MAX=$((1 << 40))
	mem_drift "destroy cycles 1..$n" "$m1" "$m"
	slab_snap $LAB_TMP/slab.n
	case_note "$n destroy cycles with I/O in flight (xblkfront and xen-blkfront alternating): grants_mapped $gmin+ before, 0 and pages_in_use 0 after each, backend and domain gone; dom0 after cycle 1 -> $n: $MEM_DRIFT (MemFree/Slab KiB before: $m0, after 1: $m1, after $n: $m; grew most: $(slab_growth $LAB_TMP/slab.1 $LAB_TMP/slab.n))"
}

# _sectors_moved OLD: the backend's sectors key of $G's xvdb is no longer OLD
_sectors_moved() { [ "$(xs_back "$G" xvdb sectors)" != "$1" ]; }

c_resize() {
	local s0 s1 gs
	be_use "$BACK" || return 1
	fe_use "$G" "${1:-xen-blkfront}" || return 1
	truncate -s 256M $LAB_TMP/disk1.img && /usr/sbin/losetup -c /dev/loop1
	disk_attach "$G" loop1 xvdb || return 1
	s0=$(xs_back "$G" xvdb sectors)
	truncate -s 320M $LAB_TMP/disk1.img && /usr/sbin/losetup -c /dev/loop1 ||
		{ case_fail "cannot grow loop1"; return 1; }
	wait_until 20 0.2 _sectors_moved "$s0"
	s1=$(xs_back "$G" xvdb sectors)
	expect "backend sectors after growing to 320 MiB" "$s1" $((320 * 2048))
	g_ok "$G" "wait_until 20 0.2 size_is xvdb $s1; cat /sys/block/xvdb/size" ||
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

# dm_node NAME: the dm-N block device of a device-mapper device (no udev in dom0)
dm_node() {
	local d
	for d in /sys/block/dm-*; do
		[ "$(cat "$d/dm/name" 2>/dev/null)" = "$1" ] && { echo "${d##*/}"; return 0; }
	done
	return 1
}

# c_dmerror FRONT: device errors under the disk.  A dm device over nullb2 whose second half is
# the "error" target: the guest gets EIO there (and the backend counts io_err), I/O to the
# first half still completes, nothing hangs; then the table is switched to a healthy one
# (dmsetup reload + resume, the disk stays attached) and the same blocks work again.
DMERR=xlab-err
c_dmerror() {
	local sz half dm blk r0 r1 e0 e1
	be_use "$BACK" || return 1
	fe_use "$G" "$1" || return 1
	modprobe dm-mod
	sz=$(blockdev --getsz /dev/nullb2) && half=$((sz / 2)) || { case_fail "no nullb2"; return 1; }
	dmsetup remove --noudevsync "$DMERR" 2>/dev/null
	printf '0 %d linear /dev/nullb2 0\n%d %d error\n' "$half" "$half" $((sz - half)) |
		dmsetup create --noudevsync "$DMERR" || { case_fail "dmsetup create $DMERR failed"; return 1; }
	dm=$(dm_node "$DMERR") || { case_fail "no dm node for $DMERR"; dmsetup remove --noudevsync "$DMERR"; return 1; }
	blk=$((half / 8 + 16))    # a 4 KiB block well inside the failing half
	disk_attach "$G" "/dev/$dm" xvdb || { dmsetup remove --noudevsync "$DMERR"; return 1; }
	e0=$(be_stat "$G" xvdb io_err)
	g_ok -t 150 "$G" "fio_verify /dev/xvdb 2M 4M" || case_fail "write+verify on the healthy half failed"
	g_run -t 60 "$G" "dd if=/dev/zero of=/dev/xvdb bs=4k count=1 seek=$blk oflag=direct 2>&1; echo w_rc=\$?;
		dd if=/dev/xvdb of=/dev/null bs=4k count=1 skip=$blk iflag=direct 2>&1; echo r_rc=\$?"
	[ "$G_RC" = 0 ] || case_fail "dd on the failing half did not return (rc $G_RC)"
	r0="w_rc=$(g_field w_rc) r_rc=$(g_field r_rc)"
	[ "$(g_field w_rc)" != 0 ] && [ "$(g_field r_rc)" != 0 ] ||
		case_fail "I/O to the failing half succeeded ($r0)"
	grep -q 'Input/output error' "$G_OUT" || case_fail "no EIO in the guest: $(g_out | tail -3 | tr '\n' '|')"
	e1=$(be_stat "$G" xvdb io_err)
	[ -n "$e0" ] && [ "$e1" -gt "$e0" ] || case_fail "backend io_err did not grow ($e0 -> $e1)"
	g_ok -t 150 "$G" "fio_verify /dev/xvdb 2M 4M" || case_fail "the healthy half failed after the errors"
	# heal: the whole device linear again, without detaching
	dmsetup reload --noudevsync "$DMERR" --table "0 $sz linear /dev/nullb2 0" &&
		dmsetup resume --noudevsync "$DMERR" || case_fail "dmsetup reload/resume failed"
	g_ok -t 150 "$G" "dd if=/dev/zero of=/dev/xvdb bs=4k count=1 seek=$blk oflag=direct &&
		dd if=/dev/xvdb of=/dev/null bs=4k count=1 skip=$blk iflag=direct &&
		fio_verify /dev/xvdb 2M 4M $((blk * 4096))" || case_fail "the healed device did not work"
	r1=$(be_stat "$G" xvdb io_err)
	disk_detach "$G" xvdb
	dmsetup remove --noudevsync "$DMERR" || case_fail "dmsetup remove $DMERR failed (still open?)"
	case_ok && case_note "failing half: $r0, EIO in the guest, backend io_err $e0 -> $e1; healed: write+verify at block $blk passed, io_err $r1"
}

# mapfail_fio [DIV]: the mapfail/mempressure workload, 6 fio jobs at once, each on its own
# region (so that the verify of one never reads blocks another rewrote), write then verify
# (crc32c), O_DIRECT: 3 x 4 MiB of 4 KiB random writes, 16 MiB of 64 KiB random writes,
# 2 x 8 MiB of 1 MiB sequential writes (indirect requests with xblkfront), 44 MiB in all;
# every size divided by DIV (1, 2 or 4)
mapfail_fio() {
	local d=${1:-1}
	echo "xfio mapfail --ioengine=libaio --direct=1 --filename=/dev/xvdb \
	--verify=crc32c --do_verify=1 --verify_fatal=1 --randrepeat=0 \
	--name=r4k --rw=randwrite --bs=4k --size=$((4 / d))M --iodepth=16 --numjobs=3 --offset=0 --offset_increment=8M \
	--name=r64k --rw=randwrite --bs=64k --size=$((16 / d))M --iodepth=8 --offset=32M \
	--name=s1m --rw=write --bs=1M --size=$((8 / d))M --iodepth=4 --numjobs=2 --offset=64M --offset_increment=16M"
}
# xblkback's fail_map fault point (debugfs, blkback/fault.c): a file taking N (1 in N fails)
# on a kernel without CONFIG_FAULT_INJECTION (Debian's, the lab's), the fault-injection
# framework's directory on one with it
FAIL_MAP=/sys/kernel/debug/xblkback/fail_map

# fail_map N: make 1 in N page reservations and grant map batches fail for now (0: none)
fail_map() {
	if [ -d $FAIL_MAP ]; then
		if [ "$1" = 0 ]; then
			echo 0 > $FAIL_MAP/probability
		else
			echo "$1" > $FAIL_MAP/interval && echo -1 > $FAIL_MAP/times &&
				echo 100 > $FAIL_MAP/probability
		fi
	else
		echo "$1" > $FAIL_MAP
	fi
}

# fio_errs: the XLAB-FIO lines of the last g_run whose job had rc or err not 0 (none: empty)
fio_errs() { grep -o 'XLAB-FIO [^ ]* rc=[^ ]* err=[^ ]*' "$G_OUT" | grep -v 'rc=0 err=0$'; }

# c_mapfail FRONT [BACKEND-PARAMS...]: fail_map=3 under fio write+verify (with
# feature_persistent=0 every segment is mapped per request, so grant maps must have failed
# too, not only page reservations; that is ~3x slower, so fio writes half as much, 22 MiB;
# XLAB_TIER=ci halves it again); then (xblkfront) destroy during a backoff
c_mapfail() {   # FRONT [BACKEND-PARAMS...]
	local fe=$1 r0 r1 a0 a1 e0 e1 q0="" q1="" st n iops div=1
	shift
	[[ " $* " == *" feature_persistent=0 "* ]] && div=2
	[ "${XLAB_TIER:-}" != ci ] || div=$((div * 2))   # (CI's time: thousands of retries still)
	be_use "$BACK" "$@" || return 1
	[ -e $FAIL_MAP ] || { case_fail "no $FAIL_MAP (debugfs not mounted?)"; return 1; }
	fail_map 0
	fe_use "$G" "$fe" || return 1
	no_leak "before" || return 1
	disk_attach "$G" nullb0 xvdb || return 1
	r0=$(be_stat "$G" xvdb map_retry) a0=$(be_stat "$G" xvdb map_again)
	e0="io_err=$(be_stat "$G" xvdb io_err) err_req=$(be_stat "$G" xvdb err_req)"
	[ -n "$r0" ] || { case_fail "backend has no statistics/map_retry"; return 1; }
	[ -n "${FI_q_errors:-}" ] && q0=$FI_q_errors
	fail_map 3 || { case_fail "cannot set fail_map=3"; return 1; }
	g_run -t 170 "$G" "$(mapfail_fio $div)"
	fail_map 0
	[ "$G_RC" = 0 ] && [ -z "$(fio_errs)" ] ||
		case_fail "fio write+verify with fail_map=3: rc $G_RC $(fio_errs | tr '\n' ' ')$(g_out | grep -iE 'error|verify' | head -3 | tr '\n' '|' | cut -c1-300)"
	iops=$(grep -o 'XLAB-FIO mapfail/r4k .*' "$G_OUT" | grep -o 'write_iops=[0-9]*' | cut -d= -f2 | tr '\n' '+')
	r1=$(be_stat "$G" xvdb map_retry) a1=$(be_stat "$G" xvdb map_again)
	e1="io_err=$(be_stat "$G" xvdb io_err) err_req=$(be_stat "$G" xvdb err_req)"
	st=$(be_stats "$G" xvdb)
	[ "${r1:-0}" -gt "$r0" ] || case_fail "backend map_retry did not grow ($r0 -> $r1)"
	if [[ " $* " == *" feature_persistent=0 "* ]]; then
		[ "${a1:-0}" -gt "${a0:-0}" ] || case_fail "backend map_again did not grow ($a0 -> $a1) without persistent grants"
	fi
	[ "$e1" = "$e0" ] || case_fail "backend error counters moved: $e0 -> $e1"
	if [ -n "$q0" ] && feinfo "$G" xvdb; then
		q1=$FI_q_errors
		[ "$q1" = "$q0" ] || case_fail "xblkfront counted errors: $q0 -> $q1"
	fi
	case_note "backend ${*:-defaults}, fail_map=3: fio $((44 / div)) MiB write+verify passed (4k write IOPS ${iops%+}), map_retry $r0 -> $r1, map_again $a0 -> $a1, oo_req $(be_stat "$G" xvdb oo_req), $e1${q1:+, frontend errors $q1}"
	log "mapfail: backend stats after fio: $st"
	disk_detach "$G" xvdb || return 1
	no_leak "after the detach" || return 1
	case_ok || return 1
	[ "$fe" = xblkfront ] || return 0
	mapfail_destroy
	n=$?
	fail_map 0
	return $n
}

# mapfail_destroy: a guest with I/O in flight, fail_map=1 so that every request waits for a
# retry, is destroyed: the ring threads must stop during the backoff, answer what waits,
# unmap everything; the vbd and the domain go away
# _retry_grew DEV R0: DEV's map_retry, into r1, is above R0
_retry_grew() {
	r1=$(cat "$1/statistics/map_retry" 2>/dev/null)
	[ "${r1:-0}" -gt "${2:-0}" ]
}
mapfail_destroy() {
	local q=gd domid dev j r0 r1="" w0 w1
	guest_create "$q" 2 384 "format=raw,vdev=xvdb,access=rw,target=$(backing nullb1)" ||
		{ case_fail "could not create guest $q"; return 1; }
	domid=${G_DOMID[$q]}
	dev=/sys/bus/xen-backend/devices/vbd-$domid-$(vdev_devid xvdb)
	fe_use "$q" xblkfront || { guest_destroy "$q"; return 1; }
	g_ok "$q" "waitdev /dev/xvdb 45 && (fio --name=bg --filename=/dev/xvdb --ioengine=libaio --direct=1 \
		--rw=randrw --bs=64k --iodepth=16 --size=32M --time_based --runtime=600 >/dev/null 2>&1 &) && sleep 3" ||
		{ guest_destroy "$q"; return 1; }
	r0=$(cat "$dev/statistics/map_retry" 2>/dev/null)
	w0=$(cat "$dev/statistics/wr_req" 2>/dev/null)
	fail_map 1
	# wait until requests are waiting: map_retry grows while no request completes (2 s at
	# least, 10 s at most)
	sleep 2
	j=$SECONDS
	wait_until 8 0.5 _retry_grew "$dev" "$r0"
	w1=$(cat "$dev/statistics/wr_req" 2>/dev/null)
	j=$((SECONDS - j + 2))
	[ "${r1:-0}" -gt "${r0:-0}" ] ||
		{ case_fail "gd: map_retry did not grow with fail_map=1 ($r0 -> $r1)"; guest_destroy "$q"; return 1; }
	log "mapfail destroy: d$domid map_retry $r0 -> $r1, wr_req $w0 -> $w1, grants_mapped=$(cat "$DRV/grants_mapped") pages_in_use=$(cat "$DRV/pages_in_use"); destroying"
	guest_destroy "$q"
	wait_until 20 0.2 ! test -e "$dev" ||
		{ case_fail "backend device ${dev##*/} still there 20 s after the destroy (fail_map=1)"; return 1; }
	fail_map 0
	wait_until 20 0.2 ! xenstore-exists "/local/domain/0/backend/vbd/$domid" 2>/dev/null ||
		{ case_fail "backend/vbd/$domid still in xenstore 20 s after the destroy"; return 1; }
	no_leak "after destroying gd during a backoff" || return 1
	wait_until 20 0.2 ! domain_listed "$domid" ||
		{ case_fail "domain $domid still exists 20 s after the destroy"; return 1; }
	case_note "destroy of d$domid during a backoff (fail_map=1, map_retry $r0 -> $r1 in ${j} s, wr_req $w0 -> $w1): vbd and domain gone, grants_mapped=0 pages_in_use=0"
}

# mem_free_kb: dom0's MemFree in KiB (a builtin read: no fork under memory pressure)
mem_free_kb() {
	local k v _u
	while read -r k v _u; do
		[ "$k" = MemFree: ] && { echo "$v"; return; }
	done < /proc/meminfo
}

# mem_fill TARGET_KB: fill a tmpfs at $FILL until dom0's MemFree is at most TARGET_KB (in steps
# of at most 32 MiB, smaller near the target); mem_unfill: give it back
FILL=/mnt/xlab-fill
mem_fill() {
	local free n i=0
	mkdir -p $FILL && mount -t tmpfs -o size=2048m xlab-fill $FILL || return 1
	while [ $i -lt 200 ]; do
		free=$(mem_free_kb)
		[ "$free" -le "$1" ] && return 0
		n=$(((free - $1) / 1024 / 2))
		[ "$n" -gt 32 ] && n=32
		[ "$n" -lt 1 ] && n=1
		dd if=/dev/zero of=$FILL/f$i bs=1M count=$n 2>/dev/null || return 0
		i=$((i + 1))
	done
}
mem_unfill() {
	rm -f $FILL/f* 2>/dev/null
	umount $FILL 2>/dev/null
}

# c_mempressure FRONT: fio write+verify while dom0 has only a few MiB free
c_mempressure() {   # FRONT
	local high min target r0 r1 o0 o1 e0 e1 f0 lo st pid
	be_use "$BACK" || return 1
	fe_use "$G" "$1" || return 1
	no_leak "before" || return 1
	disk_attach "$G" nullb0 xvdb || return 1
	# once without pressure: null_blk allocates its pages for these blocks now, not later
	g_ok -t 170 "$G" "$(mapfail_fio)" || { case_fail "fio write+verify failed before any pressure"; return 1; }
	r0=$(be_stat "$G" xvdb map_retry) o0=$(be_stat "$G" xvdb oo_req)
	e0="io_err=$(be_stat "$G" xvdb io_err) err_req=$(be_stat "$G" xvdb err_req)"
	high=$(awk '$1 == "high" { s += $2 } END { print s * 4 }' /proc/zoneinfo)
	min=$(cat /proc/sys/vm/min_free_kbytes)
	target=$((high + ${XLAB_MEMPRESSURE_MARGIN_KB:-4096}))
	sync
	echo 3 > /proc/sys/vm/drop_caches
	f0=$(mem_free_kb)
	mem_fill "$target" || { mem_unfill; case_fail "could not fill dom0 memory (tmpfs at $FILL)"; return 1; }
	lo=$(mem_free_kb)
	log "mempressure: MemFree $f0 -> $lo KiB (target $target = high watermarks $high + margin; min_free_kbytes $min)"
	# the lowest MemFree while the guest works, sampled without forking much
	rm -f $LAB_TMP/mp.lo $LAB_TMP/mp.stop
	(
		l=$lo
		while [ ! -e $LAB_TMP/mp.stop ]; do
			v=$(mem_free_kb)
			[ "$v" -lt "$l" ] && { l=$v; echo "$l" > $LAB_TMP/mp.lo; }
			sleep 0.5
		done
	) &
	pid=$!
	g_run -t 170 "$G" "$(mapfail_fio)"
	touch $LAB_TMP/mp.stop
	mem_unfill
	wait "$pid"
	rm -f $LAB_TMP/mp.stop
	[ -s $LAB_TMP/mp.lo ] && lo=$(cat $LAB_TMP/mp.lo)
	[ "$G_RC" = 0 ] && [ -z "$(fio_errs)" ] ||
		case_fail "fio write+verify under memory pressure: rc $G_RC $(fio_errs | tr '\n' ' ')$(g_out | grep -iE 'error|verify' | head -3 | tr '\n' '|' | cut -c1-300)"
	r1=$(be_stat "$G" xvdb map_retry) o1=$(be_stat "$G" xvdb oo_req)
	e1="io_err=$(be_stat "$G" xvdb io_err) err_req=$(be_stat "$G" xvdb err_req)"
	st=$(be_stats "$G" xvdb)
	[ "$e1" = "$e0" ] || case_fail "backend error counters moved: $e0 -> $e1"
	log "mempressure: backend stats: $st"
	case_note "dom0 MemFree $f0 KiB -> $lo KiB at the lowest (high watermarks $high KiB, min_free_kbytes $min) during fio 44 MiB write+verify: passed, map_retry $r0 -> $r1, oo_req $o0 -> $o1, $e1"
	disk_detach "$G" xvdb || return 1
	no_leak "after the detach" || return 1
}

# c_rmmod: unloading either module with a disk attached is refused (xenbus holds a module
# reference for every bound device) and the disk keeps working; after the detach both modules
# unload and load again, and a new attach works.
c_rmmod() {
	be_use "$BACK" || return 1
	fe_use "$G" xblkfront || return 1
	disk_attach "$G" nullb0 xvdb || return 1
	g_run -t 90 "$G" "rmmod xblkfront 2>&1; echo rm_rc=\$?
		dd if=/dev/xvdb of=/dev/null bs=4k count=16 iflag=direct 2>&1 | tail -1; echo dd_rc=\${PIPESTATUS[0]}"
	[ "$(g_field rm_rc)" != 0 ] || { case_fail "rmmod xblkfront succeeded with a disk attached"; return 1; }
	[ "$(g_field dd_rc)" = 0 ] || case_fail "the disk failed after the refused rmmod"
	if rmmod xblkback 2>/dev/null; then
		BE_CUR=""
		case_fail "rmmod xblkback succeeded with a disk attached"
		return 1
	fi
	g_ok -t 150 "$G" "fio_verify /dev/xvdb 2M 4M" || { case_fail "I/O after the refused rmmods"; return 1; }
	disk_detach "$G" xvdb || return 1
	g_ok -t 60 "$G" "rmmod xblkfront && insmod /extra/xblkfront.ko" ||
		{ case_fail "rmmod + insmod of xblkfront after the detach"; return 1; }
	rmmod xblkback || { case_fail "rmmod xblkback after the detach"; return 1; }
	BE_CUR=""
	be_use "$BACK" || return 1
	disk_attach "$G" nullb0 xvdb || return 1
	g_ok -t 150 "$G" "fio_verify /dev/xvdb 2M 4M" || { case_fail "I/O after both modules were reloaded"; return 1; }
	case_note "with a disk attached rmmod is refused on both sides and I/O goes on; after the detach both unload, reload and serve a new attach"
}

# pgnt-lru: persistent grants beyond the backend's bound (max_persistent_grants=64 per ring):
# xblkfront's pool (1024 grants per ring) cycles through far more, so the least recently used
# unused ones are unmapped to make room (pgnt_evict grows, the tree never holds more than 64),
# and fio write+verify stays right
c_pgnt_lru() {
	local e0 e1 h0 h1 n
	be_use "$BACK" max_persistent_grants=64 || return 1
	fe_use "$G" xblkfront max_queues=1 || return 1
	disk_attach "$G" nullb0 xvdb || return 1
	expect "backend persistent" "$(be_attr "$G" xvdb persistent)" 1
	e0=$(be_stat "$G" xvdb pgnt_evict) h0=$(be_stat "$G" xvdb pgnt_hit)
	fio_case "$G" xvdb 8M 16M || return 1
	e1=$(be_stat "$G" xvdb pgnt_evict) h1=$(be_stat "$G" xvdb pgnt_hit)
	n=$(be_stat "$G" xvdb persistent_grants)
	[ -n "$e0" ] && [ -n "$n" ] || { case_fail "xblkback has no pgnt_evict or persistent_grants"; return 1; }
	[ "$e1" -gt "$e0" ] || case_fail "pgnt_evict did not grow ($e0 -> $e1) with 64 grants for a 1024-grant pool"
	[ "$n" -le 64 ] || case_fail "$n persistent grants mapped, bound 64"
	[ "$h1" -gt "$h0" ] || case_fail "no persistent grant was reused (pgnt_hit $h0 -> $h1)"
	case_note "pgnt_evict $e0 -> $e1, pgnt_hit $h0 -> $h1, $n persistent grants mapped (bound 64)"
	disk_detach "$G" xvdb || return 1
	no_leak "after detach"
	be_use "$BACK"
}

suite_require
# shellcheck disable=SC2034  # (read by suite_begin in cases.sh)
FRONT=xen-blkfront
if suite_begin; then
	if [ -f /extra/xblkfront.ko ]; then
		want nullb4k-ours && run_case nullb4k-ours c_nullb4k xblkfront
		want geometry-ours && run_case geometry-ours c_geometry xblkfront
		want leak-ours && run_case leak-ours c_leak xblkfront
		want pgnt-lru && run_case pgnt-lru c_pgnt_lru
	else
		case_skip ours "xblkfront.ko not in the image"
	fi
	want nullb4k-intree && long_only nullb4k-intree && run_case nullb4k-intree c_nullb4k xen-blkfront
	want geometry-intree && long_only geometry-intree && run_case geometry-intree c_geometry xen-blkfront
	want leak-intree && long_only leak-intree && run_case leak-intree c_leak xen-blkfront
	want readonly && run_case readonly c_readonly xen-blkfront
	want resize && run_case resize c_resize xen-blkfront
	want destroy-inflight && run_case destroy-inflight c_destroy_inflight
	[ -f /extra/xblkfront.ko ] && want dmerror-ours && run_case dmerror-ours c_dmerror xblkfront
	want dmerror-intree && long_only dmerror-intree && run_case dmerror-intree c_dmerror xen-blkfront
	[ -f /extra/xblkfront.ko ] && want rmmod && run_case rmmod c_rmmod
	[ -f /extra/xblkfront.ko ] && want mapfail-ours && run_case mapfail-ours c_mapfail xblkfront feature_persistent=0
	want mapfail-intree && long_only mapfail-intree && run_case mapfail-intree c_mapfail xen-blkfront
	want mempressure && run_case mempressure c_mempressure "$([ -f /extra/xblkfront.ko ] && echo xblkfront || echo xen-blkfront)"
	[ -e "$FAIL_MAP" ] && fail_map 0
else
	setup_failed
fi
suite_end
