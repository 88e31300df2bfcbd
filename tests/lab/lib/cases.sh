# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154
# (DI_* and FI_* are set dynamically by devinfo/feinfo in lib/dom0.sh)
#
# The lab's reusable cases (dom0 side). A suite sets
#   G       the guest to use (created by suite_begin)
#   FRONT   xblkfront | xen-blkfront      (frontend module in the guest)
#   BACK    xen-blkback | xblkback        (backend module in dom0)
# and calls   run_case NAME c_xxx ARGS...   for each case. A case function attaches what it needs
# (run_case detaches it afterwards), checks, and returns non-zero to stop early.
# Checks are written against the protocol (xenstore keys both ends write, the backend's
# statistics), so they hold for any conforming pair; the drivers' own negotiated-state files
# (xblkfront: device/xblk/*, device/queue-N/*; xblkback: nr_rings, ring_page_order,
# persistent) are checked too when present (FI_* / be_attr).

# suite_begin [VCPUS]: backing devices, backend, the main guest
suite_begin() {
	log "suite $LAB_SUITE: FRONT=$FRONT BACK=$BACK; build: $(tr '\n' ' ' < /lab/build-info 2>/dev/null)"
	log "dom0 memory: $(free -m | awk '/^Mem/{print $3 " MiB used, " $4 " MiB free"}')"
	backing_setup || return 1
	be_use "$BACK" || return 1
	guest_create "$G" "${1:-2}" 512 || return 1
}

# no_leak LABEL: xblkback holds no grant and no page over all its vbds (none may be connected);
# with NO_LEAK_NOTE set, the case notes each time that it held nothing
no_leak() {
	local g p
	g=$(cat "$DRV/grants_mapped" 2>/dev/null) p=$(cat "$DRV/pages_in_use" 2>/dev/null)
	[ -n "$g" ] || { case_fail "$1: $DRV/grants_mapped missing"; return 1; }
	if [ "$g" != 0 ] || [ "$p" != 0 ]; then
		case_fail "$1: grants_mapped=$g pages_in_use=$p"
		return 1
	fi
	[ -z "${NO_LEAK_NOTE:-}" ] || case_note "$1: grants_mapped=0 pages_in_use=0"
}

# in-tree xen-blkfront turns indirect descriptors off for max_indirect_segments <= 11 (0 is
# raised to 11 at load); ours documents 0 = off
fe_indirect_off() { [ "$FRONT" = xen-blkfront ] && echo 11 || echo 0; }

# backend's "using N queues, protocol ... [persistent grants]" line for a vbd (xen-blkback)
be_connect_msg() {
	[ "${BE_CUR%% *}" = xen-blkback ] || return 0
	dmesg | grep "backend/vbd/${G_DOMID[$1]}/$(vdev_devid "$2"): using" | tail -1
}
# be_attr NAME VDEV ATTR: an attribute of the backend's xenbus device (xblkback: nr_rings,
# ring_page_order, persistent); empty when the backend has no such file
be_attr() {
	cat "/sys/bus/xen-backend/devices/vbd-${G_DOMID[$1]}-$(vdev_devid "$2")/$3" 2>/dev/null
}

# fe_expect LABEL KEY WANTED: check a value of the frontend's negotiated state (device/xblk/
# or summed device/queue-N/ counters, as set by devinfo/feinfo). xblkfront must export it: a
# missing file fails the case. Only the in-tree xen-blkfront, which has no such files, skips the
# check (and the case note says so).
fe_expect() {
	fe_has "$2" || return 0
	local v="FI_$2"
	expect "frontend $1 ($2)" "${!v}" "$3"
}
fe_more() {   # LABEL KEY MIN: counter KEY must be >= MIN
	fe_has "$2" || return 0
	local v="FI_$2"
	[ "${!v}" -ge "$3" ] || case_fail "frontend $1: $2=${!v}, expected >= $3"
}
# fe_has KEY: whether FI_KEY is there; fails the case when xblkfront lacks it
fe_has() {
	local v="FI_$1"
	[ -n "${!v+x}" ] && return 0
	if [ "$FRONT" = xen-blkfront ]; then
		[[ ${FE_UNCHECKED:-} == *" $1 "* ]] || FE_UNCHECKED="${FE_UNCHECKED:- }$1 "
		return 1
	fi
	case_fail "frontend $FRONT exports no $1 (feinfo/devinfo found none)"
	return 1
}
# be_expect NAME VDEV ATTR WANTED: a backend attribute (nr_rings, ring_page_order, persistent);
# xblkback must have it, xen-blkback (which has none of them) is not checked
be_expect() {
	local v
	v=$(be_attr "$1" "$2" "$3")
	if [ -z "$v" ]; then
		[ "${BE_CUR%% *}" = xblkback ] && case_fail "backend xblkback has no $3 for $1/$2"
		return 0
	fi
	expect "backend $3" "$v" "$4"
}

# c_data BACKING [FE-PARAMS...]: attach, write+verify, the backend served the I/O
# (the caller has chosen the backend with be_use)
c_data() {
	local bk=$1 rd0 wr0 rd1 wr1
	shift
	fe_use "$G" "$FRONT" "$@" || return 1
	disk_attach "$G" "$bk" xvdb || return 1
	rd0=$(be_stat "$G" xvdb rd_req) wr0=$(be_stat "$G" xvdb wr_req)
	fio_case "$G" xvdb || return 1
	rd1=$(be_stat "$G" xvdb rd_req) wr1=$(be_stat "$G" xvdb wr_req)
	if [ -n "$rd0" ]; then
		[ "$rd1" -gt "$rd0" ] && [ "$wr1" -gt "$wr0" ] ||
			case_fail "backend rd_req/wr_req did not grow ($rd0->$rd1, $wr0->$wr1)"
		case_note "backend served rd_req=$((rd1 - rd0)) wr_req=$((wr1 - wr0))"
	fi
	feinfo "$G" xvdb
	fe_more "reads" q_reads 1
	fe_more "writes" q_writes 1
	fe_expect "error responses" q_errors 0
}

# c_queues BACKING QUEUES [ORDER]: multi-queue negotiation (frontend max_queues; the backend
# offers num_online_cpus of dom0 = 2, or is loaded with max_queues=QUEUES beyond that) + data.
# With ORDER the frontend also asks that ring order (max_ring_page_order) and must get it. The
# guest needs QUEUES vCPUs: with fewer the case runs in a guest that has them (vcpu_guest),
# detaching and checking its kernel itself (run_case checks $G's)
c_queues() {
	local bk=$1 q=$2 o=${3:-} nq msg adv got main=$G G=$G bep=() fep=(max_queues="$2")
	[ "$q" -le 2 ] || bep=(max_queues="$q")
	[ -z "$o" ] || fep+=(max_ring_page_order="$o")
	vcpu_guest "$q" || return 1
	G=$VG
	be_use "$BACK" "${bep[@]}" || return 1
	c_data "$bk" "${fep[@]}" || return 1
	nq=$(xs_front "$G" xvdb multi-queue-num-queues)
	expect "frontend multi-queue-num-queues" "${nq:-1}" "$q"
	expect "guest blk-mq hw queues" "$DI_hw_queues" "$q"
	fe_expect "queues" nr_queues "$q"
	be_expect "$G" xvdb nr_rings "$q"
	msg=$(be_connect_msg "$G" xvdb)
	[ -z "$msg" ] || [[ $msg == *"using $q queues"* ]] || case_fail "backend says: $msg"
	if [ -n "$o" ]; then
		adv=$(xs_back "$G" xvdb max-ring-page-order)
		[ "${adv:-0}" -ge "$o" ] || case_fail "backend offers ring order ${adv:-0}, below the $o asked"
		got=$(xs_front "$G" xvdb ring-page-order)
		expect "frontend ring-page-order" "${got:-0}" "$o"
		fe_expect "ring order" ring_page_order "$o"
		be_expect "$G" xvdb ring_page_order "$o"
	fi
	case_note "queues=${nq:-1}${o:+ ring-page-order=${got:-0}}, $(neg_note)"
	# a guest of its own (vcpu_guest): detach and check its kernel here, then let it go
	[ "$G" = "$main" ] || { disk_detach "$G" xvdb && guest_destroy "$G"; }
}

# neg_note: for a case note, what the guest's frontend says it negotiated (xblkfront's
# xblk/nr_queues and xblk/ring_page_order, read by devinfo/feinfo) and the guest's CPUs
neg_note() {
	echo "guest $G CPUs ${DI_cpus:-?}${FI_nr_queues:+, xblk/nr_queues=$FI_nr_queues xblk/ring_page_order=$FI_ring_page_order}"
}

# c_indirect SEGS: SEGS=0 -> no indirect descriptors: a request carries at most 11 segments
# (max_hw_sectors_kb <= 44); SEGS>11 -> indirect, max_hw_sectors_kb up to SEGS*4
c_indirect() {
	local segs=$1 be_max p want maxsect=
	p=$segs
	[ "$segs" = 0 ] && p=$(fe_indirect_off)
	be_use "$BACK" || return 1
	c_data nullb0 max_indirect_segments="$p" || return 1
	be_max=$(xs_back "$G" xvdb feature-max-indirect-segments)
	if [ "$segs" = 0 ]; then
		[ "$DI_max_hw_sectors_kb" -le 44 ] ||
			case_fail "indirect off but max_hw_sectors_kb=$DI_max_hw_sectors_kb (> 11 segments)"
		fe_expect "indirect" indirect 0
		fe_expect "segments per request" max_segments 11
		fe_expect "indirect requests sent" q_indirect 0
	else
		[ -n "$be_max" ] || case_fail "backend does not advertise feature-max-indirect-segments"
		[ "$DI_max_hw_sectors_kb" -gt 44 ] && [ "$DI_max_hw_sectors_kb" -le $((segs * 4)) ] ||
			case_fail "indirect=$segs but max_hw_sectors_kb=$DI_max_hw_sectors_kb (want 45..$((segs * 4)))"
		want=$segs
		[ -n "$be_max" ] && [ "$be_max" -lt "$want" ] && want=$be_max
		fe_expect "indirect" indirect 1
		# xblkback may also advertise xblk-max-sectors (its device's request size limit),
		# which xblkfront honours: then max_segments is only bounded
		maxsect=$(xs_back "$G" xvdb xblk-max-sectors)
		if [ -z "$maxsect" ]; then
			fe_expect "segments per request" max_segments "$want"
		elif [ -n "${FI_max_segments:-}" ]; then
			[ "$FI_max_segments" -gt 11 ] && [ "$FI_max_segments" -le "$want" ] ||
				case_fail "frontend max_segments=$FI_max_segments, expected 12..$want (xblk-max-sectors=$maxsect)"
		fi
		fe_more "indirect requests sent (1M writes)" q_indirect 1
	fi
	case_note "backend max-indirect=${be_max:-none}${maxsect:+ xblk-max-sectors=$maxsect} guest max_segments=$DI_max_segments max_hw_sectors_kb=$DI_max_hw_sectors_kb${FI_q_indirect:+ indirect_reqs=$FI_q_indirect}"
}

# c_persistent FE BE: feature-persistent negotiation (on only if both ends say 1)
c_persistent() {
	local fe=$1 be=$2 xf xb msg on=0
	[ "$fe$be" = 11 ] && on=1
	be_use "$BACK" feature_persistent="$be" || return 1
	c_data nullb0 feature_persistent="$fe" || return 1
	xf=$(xs_front "$G" xvdb feature-persistent)
	xb=$(xs_back "$G" xvdb feature-persistent)
	expect "frontend feature-persistent" "${xf:-0}" "$fe"
	expect "backend feature-persistent" "${xb:-0}" "$be"
	fe_expect "persistent grants" persistent $on
	be_expect "$G" xvdb persistent $on
	msg=$(be_connect_msg "$G" xvdb)
	if [ -n "$msg" ]; then
		if [ $on = 1 ]; then
			[[ $msg == *"persistent grants"* ]] || case_fail "backend did not enable persistent grants: $msg"
		else
			[[ $msg != *"persistent grants"* ]] || case_fail "backend enabled persistent grants: $msg"
		fi
	fi
	case_note "persistent fe=$xf be=$xb"
}

# c_ring BE_MAX FE_MAX: ring-page-order = min(backend max-ring-page-order, frontend param)
c_ring() {
	local bemax=$1 femax=$2 want adv got nrefs
	be_use "$BACK" max_ring_page_order="$bemax" || return 1
	c_data nullb0 max_ring_page_order="$femax" max_queues=1 || return 1
	adv=$(xs_back "$G" xvdb max-ring-page-order)
	expect "backend max-ring-page-order" "${adv:-0}" "$bemax"
	want=$((bemax < femax ? bemax : femax))
	got=$(xs_front "$G" xvdb ring-page-order)
	expect "frontend ring-page-order" "${got:-0}" "$want"
	nrefs=$(xs_front_dump "$G" xvdb | grep -c '/ring-ref')
	expect "number of ring-ref nodes" "$nrefs" $((1 << want))
	fe_expect "ring order" ring_page_order "$want"
	be_expect "$G" xvdb ring_page_order "$want"
	case_note "ring-page-order=${got:-0} ($nrefs ring pages), $(neg_note)"
}

# c_discard: blkdiscard reaches the backend (loop on tmpfs supports punch-hole)
c_discard() {
	local d0 d1 fd z
	be_use "$BACK" || return 1
	fe_use "$G" "$FRONT" || return 1
	disk_attach "$G" loop0 xvdb || return 1
	fd=$(xs_back "$G" xvdb feature-discard)
	expect "backend feature-discard" "$fd" 1 || return 1
	[ "${DI_discard_max_bytes:-0}" -gt 0 ] || case_fail "guest queue has discard_max_bytes=0"
	fe_expect "discard" discard 1
	d0=$(be_stat "$G" xvdb ds_req)
	g_ok "$G" "dd if=/dev/urandom of=/dev/xvdb bs=1M count=8 oflag=direct 2>&1 | tail -1 &&
		blkdiscard -v -o 0 -l 8M /dev/xvdb && blkdiscard -v /dev/xvdb" || return 1
	d1=$(be_stat "$G" xvdb ds_req)
	if [ -n "$d0" ]; then
		[ "$d1" -gt "$d0" ] || case_fail "backend ds_req did not grow ($d0 -> $d1)"
	fi
	feinfo "$G" xvdb
	fe_more "discard requests sent" q_discards 1
	# protocol-wise discard need not zero; on loop/tmpfs it does: report, do not require
	if g_run "$G" "cmp -n 8388608 /dev/xvdb /dev/zero"; then z=yes; else z=no; fi
	case_note "ds_req $d0->$d1, discarded range reads zero: $z"
	fio_case "$G" xvdb
}

# c_flush: fsync on the raw disk and sync(1) on a filesystem turn into flush requests at the
# backend (sync(2) alone does not flush a raw block device: only filesystems' sync_fs does)
c_flush() {
	local f0 f1 fm f2 ff
	be_use "$BACK" || return 1
	fe_use "$G" "$FRONT" || return 1
	disk_attach "$G" loop0 xvdb || return 1
	ff=$(xs_back "$G" xvdb feature-flush-cache)
	expect "backend feature-flush-cache" "$ff" 1 || return 1
	[[ $DI_write_cache == write_back ]] || case_fail "guest write_cache=$DI_write_cache (want write back)"
	fe_expect "flush" flush 1
	f0=$(be_stat "$G" xvdb f_req)
	g_ok "$G" "dd if=/dev/urandom of=/dev/xvdb bs=64k count=16 conv=fsync 2>&1 | tail -1" || return 1
	f1=$(be_stat "$G" xvdb f_req)
	g_ok -t 300 "$G" "modprobe ext4 && mkfs.ext4 -q -F -E nodiscard /dev/xvdb && mkdir -p /mnt/f &&
		mount -t ext4 /dev/xvdb /mnt/f && dd if=/dev/urandom of=/mnt/f/x bs=64k count=16 2>/dev/null" || return 1
	fm=$(be_stat "$G" xvdb f_req)
	g_ok "$G" "dd if=/dev/urandom of=/mnt/f/y bs=64k count=16 2>/dev/null && sync && umount /mnt/f" || return 1
	f2=$(be_stat "$G" xvdb f_req)
	if [ -n "$f0" ]; then
		[ "$f1" -gt "$f0" ] || case_fail "fsync: backend f_req did not grow ($f0 -> $f1)"
		[ "$f2" -gt "$fm" ] || case_fail "sync on ext4: backend f_req did not grow ($fm -> $f2)"
	fi
	case_note "f_req $f0->$f1 (fsync), $fm->$f2 (sync on ext4)"
	g_ok "$G" "xfio fsync --name=fsync --filename=/dev/xvdb --rw=randwrite --bs=4k --size=4M --fsync=16 --ioengine=psync --verify=crc32c --do_verify=1"
	feinfo "$G" xvdb
	fe_more "flush requests sent" q_flushes 1
}

# c_ext4 BACKING: filesystem on top: mkfs, files, umount, fsck -n clean, read back
c_ext4() {
	be_use "$BACK" || return 1
	fe_use "$G" "$FRONT" || return 1
	disk_attach "$G" "${1:-loop1}" xvdb || return 1
	g_ok -t 400 "$G" "ext4_check /dev/xvdb" || return 1
	case_note "$(grep -o 'ext4: .*' "$G_OUT" | head -1)"
}

# c_hotplug: attach/detach a 2nd disk while I/O runs on the 1st
c_hotplug() {
	be_use "$BACK" || return 1
	fe_use "$G" "$FRONT" || return 1
	disk_attach "$G" nullb0 xvdb || return 1
	g_ok "$G" "rm -f /tmp/bg.rc; (fio_verify /dev/xvdb 16M 32M > /tmp/bg.log 2>&1; echo \$? > /tmp/bg.rc) &" || return 1
	disk_attach "$G" nullb1 xvdc || return 1
	fio_case "$G" xvdc 4M 8M
	disk_detach "$G" xvdc || return 1
	g_ok -t 400 "$G" "bg_end bg 300" ||
		case_fail "I/O on xvdb during hot-plug of xvdc failed"
	case_note "xvdb I/O ran across attach+detach of xvdc"
	fio_case "$G" xvdb 4M 8M
}

# c_qdisk: QEMU's xen-block backend (backendtype=qdisk; xl starts QEMU as the PV guest's
# device model). It offers fewer features than blkback: whatever it advertises, the frontend
# must not exceed it (queues, ring pages, segments per request).
c_qdisk() {
	local q=gq domid mq mro mis nq rpo
	guest_create "$q" 2 384 "format=raw,vdev=xvdb,access=rw,backendtype=qdisk,target=$(backing nullb2)" ||
		{ case_fail "could not create a guest with a qdisk disk"; tail -20 /var/log/xen/qemu-dm-$q.log 2>/dev/null; guest_destroy "$q"; return 1; }
	domid=${G_DOMID[$q]}
	proc_running xen-qemu-system || case_fail "no QEMU device model running"
	fe_use "$q" "$FRONT" || { guest_destroy "$q"; return 1; }
	devinfo "$q" xvdb "waitdev /dev/xvdb 45 &&" || { guest_destroy "$q"; return 1; }
	xenstore-ls -f "/local/domain/0/backend/qdisk/$domid/51728" 2>/dev/null | grep -E 'feature|max|state' | sed 's/^/    /'
	mq=$(xs_back "$q" xvdb multi-queue-max-queues qdisk)
	mro=$(xs_back "$q" xvdb max-ring-page-order qdisk)
	mis=$(xs_back "$q" xvdb feature-max-indirect-segments qdisk)
	nq=$(xs_front "$q" xvdb multi-queue-num-queues)
	rpo=$(xs_front "$q" xvdb ring-page-order)
	[ "${nq:-1}" -le "${mq:-1}" ] || case_fail "frontend uses $nq queues, qdisk offers ${mq:-1}"
	[ "${rpo:-0}" -le "${mro:-0}" ] || case_fail "frontend ring-page-order $rpo, qdisk offers ${mro:-0}"
	[ "$DI_hw_queues" -le "${mq:-1}" ] || case_fail "guest has $DI_hw_queues hw queues, qdisk offers ${mq:-1}"
	if [ -z "$mis" ]; then
		[ "$DI_max_hw_sectors_kb" -le 44 ] || case_fail "no indirect at qdisk but max_hw_sectors_kb=$DI_max_hw_sectors_kb"
		fe_expect "segments per request" max_segments 11
		fe_expect "indirect" indirect 0
	fi
	fe_expect "queues" nr_queues "${mq:-1}"
	case_note "qdisk offers queues=${mq:-1} max-ring-order=${mro:-0} indirect=${mis:-none}; frontend uses queues=${nq:-1} ring-order=${rpo:-0} max_segments=$DI_max_segments max_hw_sectors_kb=$DI_max_hw_sectors_kb"
	g_run "$q" "dmesg | grep -iE 'blkfront|xvdb' | tail -5"
	fio_case "$q" xvdb 4M 8M
	g_ok "$q" kcheck
	guest_destroy "$q"
}

# c_sched: write+verify under every I/O scheduler the guest has (none, mq-deadline, kyber,
# bfq), then, with xblkfront, sequential 4 KiB reads from 4 jobs must merge at the disk
# (the window keeps requests in the block layer), a runtime ceiling (xblk/max_inflight)
# takes effect, random reads are not held back, and the window follows the device
# (c_sched_window)
c_sched() {
	local s scheds done_s="" merged d0 d1
	be_use "$BACK" || return 1
	fe_use "$G" "$FRONT" || return 1
	disk_attach "$G" nullb0 xvdb || return 1
	g_ok "$G" "modprobe -a mq-deadline kyber-iosched bfq 2>/dev/null; cat /sys/block/xvdb/queue/scheduler" || return 1
	scheds=$(grep -v '^XLAB-' "$G_OUT" | tail -1 | tr -d '[]')
	for s in none mq-deadline kyber bfq; do
		[[ " $scheds " == *" $s "* ]] || { case_note "no $s"; continue; }
		g_ok -t 150 "$G" "echo $s > /sys/block/xvdb/queue/scheduler && fio_verify /dev/xvdb 2M 4M" ||
			{ case_fail "fio verify under $s failed"; return 1; }
		done_s="$done_s $s"
	done
	case_note "verified under:$done_s"
	[ "$FRONT" = xblkfront ] || return 0
	g_ok "$G" "echo none > /sys/block/xvdb/queue/scheduler; read -r -a a < /sys/block/xvdb/stat
		fio --name=m --filename=/dev/xvdb --ioengine=libaio --direct=1 --rw=read --bs=4k \
			--numjobs=4 --iodepth=32 --iodepth_batch_submit=16 --runtime=4 --time_based \
			--group_reporting > /dev/null || exit 1
		read -r -a b < /sys/block/xvdb/stat; echo merged=\$((b[1] - a[1])) reads=\$((b[0] - a[0]))" ||
		return 1
	merged=$(g_field merged)
	[ "${merged:-0}" -gt 0 ] || case_fail "sequential 4 KiB reads did not merge (reads merged: ${merged:-?})"
	case_note "seq 4k read: $(g_field reads) requests, $merged merged"
	g_ok -t 150 "$G" "d=/sys/block/xvdb/device/xblk; cat \$d/budget_denied; echo 2 > \$d/max_inflight &&
		fio_verify /dev/xvdb 2M 4M && cat \$d/budget_denied && echo 0 > \$d/max_inflight &&
		fio_verify /dev/xvdb 2M 4M && ! echo 5000 > \$d/max_inflight 2>/dev/null" ||
		{ case_fail "runtime max_inflight changes"; return 1; }
	# (whether budget 2 refuses anything on nullb0 depends on the lab's speed: 18 -> 20 and
	# 0 -> 0 were seen. That a runtime budget of 2 holds requests back is asserted below, on a
	# disk slow enough for requests to pile up behind it.)
	d0=$(grep -E '^[0-9]+$' "$G_OUT" | head -1) d1=$(grep -E '^[0-9]+$' "$G_OUT" | sed -n 2p)
	case_note "max_inflight 2 -> 0 at runtime with write+verify, budget_denied $d0 -> $d1, 5000 refused"
	# adaptive_budget (default Y, taken at connect): random reads under a ceiling of 2 are not
	# held back; a sequential stream is, and merges. The random reads are counted after 1 s of
	# them, once the score of the sequential run before has decayed: the 50-60 refusals of that
	# decay (the score falls by 1/16 per request of a hardware queue's stream), against the
	# 1100-1400 reads the lab's 3 s give, failed the 1-in-20 check once. On a disk that takes
	# 2 ms per request (null_blk's timer), so that requests pile up behind the bound whatever
	# the lab's speed.
	nullb_make nullbsched size=256 irqmode=2 completion_nsec=2000000 hw_queue_depth=64 ||
		{ case_fail "cannot make a 2 ms null_blk"; return 1; }
	disk_attach "$G" nullbsched xvdc || return 1
	g_ok -t 150 "$G" "d=/sys/block/xvdc/device/xblk
		echo 2 > \$d/max_inflight || exit 1
		echo bound=\$(cat \$d/budget_bound)
		fio --name=s --filename=/dev/xvdc --ioengine=libaio --direct=1 --rw=read --bs=4k \
			--iodepth=32 --size=2M > /dev/null || exit 1
		fio --name=r0 --filename=/dev/xvdc --ioengine=libaio --direct=1 --rw=randread --bs=4k \
			--iodepth=32 --runtime=1 --time_based > /dev/null || exit 1
		read -r -a s0 < /sys/block/xvdc/stat; b0=\$(cat \$d/budget_denied)
		fio --name=r --filename=/dev/xvdc --ioengine=libaio --direct=1 --rw=randread --bs=4k \
			--iodepth=32 --runtime=3 --time_based > /dev/null || exit 1
		read -r -a s1 < /sys/block/xvdc/stat; b1=\$(cat \$d/budget_denied)
		fio --name=m --filename=/dev/xvdc --ioengine=libaio --direct=1 --rw=read --bs=4k \
			--numjobs=4 --iodepth=32 --iodepth_batch_submit=16 --runtime=3 --time_based \
			--group_reporting > /dev/null || exit 1
		read -r -a s2 < /sys/block/xvdc/stat
		echo rand_denied=\$((b1 - b0)) rand_reads=\$((s1[0] - s0[0])) \
			seq_denied=\$((\$(cat \$d/budget_denied) - b1)) seq_merged=\$((s2[1] - s1[1]))
		echo 0 > \$d/max_inflight" || { case_fail "a ceiling of 2 at runtime"; return 1; }
	local dy=$(g_field rand_denied) ry=$(g_field rand_reads) ds=$(g_field seq_denied)
	local ms=$(g_field seq_merged)
	expect "xblk/budget_bound under a ceiling of 2" "$(g_field bound)" 2
	[ "${ry:-0}" -gt 0 ] && [ "$((${dy:-1} * 20))" -lt "$ry" ] ||
		case_fail "random reads under a ceiling of 2 were refused budget $dy times in $ry reads"
	[ "${ds:-0}" -gt 0 ] && [ "${ms:-0}" -gt 0 ] ||
		case_fail "sequential reads under a ceiling of 2: refused ${ds:-?} times, ${ms:-?} merged"
	case_note "ceiling 2: random 4k reads refused $dy times in $ry; 4 sequential jobs refused $ds times, $ms merged"
	c_sched_window
	c_sched_pool
}

# the data grants follow the device (grant.c, xbf_pool_grow()): a ring starts with 1024
# (4 MiB: 16 requests of 256 KiB in flight), and a disk that serves many requests at once keeps
# more in flight only if its rings grow. 4 random 256 KiB read jobs x 32 (random: not held by
# the window) on a 256-tag disk of 200 ms (slow enough for the lab's guest to keep all 128 in
# flight): requests are turned away for grants (queue-N/ring_full), and the rings grow past
# 1024, never past their cap (a 64 KiB request per slot, at most 2048); a write+verify then
# passes on the grown pools.
c_sched_pool() {
	local g gs n=0 over=0 grown=0 segs
	nullb_make nullbpool size=256 memory_backed=1 irqmode=2 completion_nsec=200000000 \
		hw_queue_depth=256 ||
		{ case_fail "cannot make a 256-tag null_blk"; return 1; }
	disk_attach "$G" nullbpool xvde || return 1
	g_ok -t 150 "$G" "d=/sys/block/xvde/device
		slots=\$((32 << \$(cat \$d/xblk/ring_page_order)))
		echo before=\$(cat \$d/queue-*/data_grants | tr '\\n' ,) slots=\$slots segs=\$(cat \$d/xblk/max_segments)
		f0=\$(cat \$d/queue-*/ring_full | awk '{ s += \$1 } END { print s }')
		fio --name=p --filename=/dev/xvde --ioengine=libaio --direct=1 --rw=randread --bs=256k \
			--numjobs=4 --iodepth=32 --runtime=3 --time_based --group_reporting > /dev/null || exit 1
		echo after=\$(cat \$d/queue-*/data_grants | tr '\\n' ,) \
			turned_away=\$((\$(cat \$d/queue-*/ring_full | awk '{ s += \$1 } END { print s }') - f0))
		fio_verify /dev/xvde 1M 8M" || { case_fail "256 KiB random reads on the 256-tag disk"; return 1; }
	gs=$(g_field after) gs=${gs%,}
	local before slots ta base cap
	before=$(g_field before) slots=$(g_field slots) ta=$(g_field turned_away)
	# grant.c: xbf_pool_size() = max(1024, 4 x segments), xbf_pool_cap()
	segs=$(g_field segs) base=$(( 4 * ${segs:-256} ))
	[ "$base" -lt 1024 ] && base=1024
	cap=$(( ${slots:-128} * 16 )); [ "$cap" -gt 2048 ] && cap=2048; [ "$cap" -lt "$base" ] && cap=$base
	for g in ${gs//,/ }; do
		n=$((n + 1))
		[ "$g" -gt "$base" ] && grown=$((grown + 1))
		[ "$g" -gt "$cap" ] && over=$((over + 1))
	done
	[ "$n" -gt 0 ] || { case_fail "no queue-N/data_grants"; return 1; }
	[ "$base" -lt "$cap" ] || { case_note "the rings cannot grow here (start $base, cap $cap)"; return 0; }
	[ "$grown" -gt 0 ] ||
		case_fail "no ring grew its data grants past $base (${gs}) with ${ta:-?} requests turned away"
	[ "$over" -eq 0 ] || case_fail "data grants $gs: above the cap of $cap"
	case_note "256-tag 200 ms disk, 4 random 256k jobs x 32: data grants ${before%,} -> $gs (cap $cap), ${ta:-?} turned away, then write+verify"
}

# the window (inflight_control, default Y) follows the device: on a disk that serves 16
# requests at once, 20 ms each (slow enough for the lab's guest to keep it busy), 8 sequential
# jobs of 32 hold it near its floor of 32 (XBLK_INFLIGHT_FLOOR), not at the 256 they offer, and
# their requests merge where the guest issues them one by one (below); a ceiling of 12 then caps
# it below the floor.
# How near: were the device to serve exactly 16 of the guest's requests at once, the window
# would settle in 32..46 (cut above a quarter queued, 32 / (1 - 1/4) ~ 43, plus one growth
# step; the unit test inflight_floor_holds_above_a_narrow_device, whose model never leaves
# that range, with or without jitter). In the lab the window reads above it at times (66, 114),
# not explained (more room than 16 tags give, as xblkback's plug joins the stream's contiguous
# requests, and a doubling judged by the epoch after it are candidates). So the window is read
# every 0.5 s: its median must be within 32..64 (twice the floor; 40-43 were seen) and no
# reading above four times 46 (184), both below the 256 offered. (The case's old check, one
# reading at the end within 32..46, read 47 once in CI.)
c_sched_window() {
	local c m ws med top
	nullb_make nullbwin size=256 irqmode=2 completion_nsec=20000000 hw_queue_depth=16 ||
		{ case_fail "cannot make a 16-tag null_blk"; return 1; }
	disk_attach "$G" nullbwin xvdd || return 1
	g_ok -t 150 "$G" "d=/sys/block/xvdd/device/xblk; read -r -a s0 < /sys/block/xvdd/stat
		b0=\$(cat \$d/budget_denied); tracefs_begin block/block_plug 4096 || exit 1
		fio --name=w --filename=/dev/xvdd --ioengine=libaio --direct=1 --rw=read --bs=4k \
			--numjobs=8 --iodepth=32 --runtime=8 --time_based --group_reporting > /dev/null &
		f=\$!; sleep 1; ws=
		while kill -0 \$f 2> /dev/null; do ws=\"\$ws\$(cat \$d/budget_bound),\"; sleep 0.5; done
		wait \$f || exit 1
		read -r -a s1 < /sys/block/xvdd/stat
		echo plugs=\$(grep -c ' block_plug:' /sys/kernel/tracing/trace); tracefs_end block/block_plug
		echo windows=\$ws merged=\$((s1[1] - s0[1])) reads=\$((s1[0] - s0[0])) \
			denied=\$((\$(cat \$d/budget_denied) - b0))
		echo 12 > \$d/max_inflight && echo capped=\$(cat \$d/budget_bound) && echo 0 > \$d/max_inflight" ||
		{ case_fail "sequential reads on the 16-tag disk"; return 1; }
	ws=$(g_field windows) c=$(g_field capped) m=$(g_field merged)
	local r=$(g_field reads) p=$(g_field plugs) dn=$(g_field denied) how
	ws=${ws%,}
	if [ -z "$ws" ]; then
		case_fail "no reading of the window while 8 sequential jobs ran"
	else
		med=$(tr , '\n' <<< "$ws" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
		top=$(tr , '\n' <<< "$ws" | sort -n | tail -1)
		[ "$med" -ge 32 ] && [ "$med" -le 64 ] ||
			case_fail "the window on a 16-tag disk is $med (median of $ws), not near its floor (32..64)"
		[ "$top" -le 184 ] ||
			case_fail "the window on a 16-tag disk reached $top ($ws), above two doublings of 46"
	fi
	[ -n "$c" ] && [ "$c" -le 12 ] || case_fail "the window under a ceiling of 12 is ${c:-?}"
	# Wherever the reads come from, the window holds them where bios merge: a 6.1 guest
	# submits each O_DIRECT read on its own (->queue_rq()), and a refused one stays in the
	# software queue; a 6.12 guest plugs each one and flushes it alone (->queue_rqs(),
	# block_plug once per read), and a refused one stops its hardware queue, so that blk-mq
	# puts it in the software queue too (dispatch.c, xbf_dispatch_hold()). The kernel's own
	# block_plug events say which path it was.
	if [ "$((${p:-0} * 2))" -ge "${r:-1}" ]; then
		how="flushed from plugs ($p plugs)"
	else
		how="issued one by one ($p plugs)"
	fi
	how="$how, held back: $dn refused, $m merged"
	[ "${dn:-0}" -gt 0 ] && [ "${m:-0}" -gt 0 ] ||
		case_fail "held-back sequential reads ($how): refused ${dn:-?} times, ${m:-?} merged"
	case_note "16-tag 20 ms disk, 8 seq jobs x 32: window median ${med:-?} max ${top:-?} ($ws), ${r:-?} reads $how; ceiling 12: window $c"
}

# c_bounce (xblkfront): trusted=0 against a backend without persistent grants: the data goes
# through the frontend's bounce pages (xblk/bounce=1, persistent=0), write+verify passes
# untrusted: the toolstack, not the module parameter, says the backend is not trusted: a
# "trusted" key = 0 in the frontend's directory (libxl writes it for an "untrusted" disk from
# Xen 4.16 on with the XSA-403 patches; Debian's xl 4.17 does not know the flag, so dom0 writes
# the key itself, as the toolstack would, before the frontend binds): bounce pages
c_untrusted() {
	local t dir
	be_use "$BACK" feature_persistent=0 || return 1
	g_ok "$G" fe_unload || return 1
	log "xl block-attach $G (no frontend loaded) + trusted=0"
	timeout 90 xl block-attach "$G" "format=raw,vdev=xvdb,access=rw,target=$(backing nullb0)" ||
		{ case_fail "xl block-attach failed"; return 1; }
	CASE_DISKS+=("$G:xvdb")
	dir=/local/domain/${G_DOMID[$G]}/device/vbd/$(vdev_devid xvdb)
	xenstore-write "$dir/trusted" 0 || { case_fail "cannot write $dir/trusted"; return 1; }
	fe_use "$G" "$FRONT" || return 1
	g_ok "$G" "waitdev /dev/xvdb 45" || return 1
	t=$(xs_front "$G" xvdb trusted)
	fio_case "$G" xvdb || return 1
	feinfo "$G" xvdb
	fe_expect "bounce pages" bounce 1
	fe_expect "error responses" q_errors 0
	fe_more "writes" q_writes 1
	case_note "xenstore trusted=$t, bounce=${FI_bounce:-?} (module parameter trusted left at Y)"
}

c_bounce() {
	be_use "$BACK" feature_persistent=0 || return 1
	c_data nullb0 trusted=0 || return 1
	fe_expect "bounce pages" bounce 1
	fe_expect "persistent grants" persistent 0
	be_expect "$G" xvdb persistent 0
	[ -n "${FI_bounce:-}" ] || case_fail "xblkfront has no xblk/bounce"
	case_note "bounce=${FI_bounce:-?} persistent=${FI_persistent:-?}"
}

# ------------------------------------------------------------------ observability (issue 14)
# dom0's side of the tracefs helpers of lib/guest.sh
TRACEFS=/sys/kernel/tracing
dom0_trace_begin() {   # SYSTEM KB
	[ -d $TRACEFS/events ] || mount -t tracefs nodev $TRACEFS ||
		{ case_fail "dom0: cannot mount tracefs"; return 1; }
	[ -d "$TRACEFS/events/$1" ] || { case_fail "dom0: no events/$1 in tracefs"; return 1; }
	echo 0 > $TRACEFS/tracing_on && echo "$2" > $TRACEFS/buffer_size_kb && echo > $TRACEFS/trace &&
		echo 1 > "$TRACEFS/events/$1/enable" && echo 1 > $TRACEFS/tracing_on ||
		{ case_fail "dom0: cannot enable events/$1"; return 1; }
}
dom0_trace_end() {   # SYSTEM; prints the events lost to overruns
	echo 0 > $TRACEFS/tracing_on
	echo 0 > "$TRACEFS/events/$1/enable"
	cat $TRACEFS/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s + 0 }'
}
# gv KEY: KEY=N of the last g_run output, 0 if absent
gv() { local v; v=$(g_field "$1"); echo "${v:-0}"; }
# tr_expect LABEL EVENTS COUNTER-DELTA: an event count must equal a counter's growth
tr_expect() {
	[ "${2:-0}" = "${3:-0}" ] || case_fail "$1: ${2:-0} events, but the counter grew by ${3:-0}"
}

# c_trace (xblkfront + xblkback): the tracepoints fire exactly where the sysfs counters move.
# Both sides trace a short fio (2 s of 4 KiB random reads, then 2 s of 1 MiB sequential writes
# looping over the first 64 MiB: nullb0 keeps every page written in dom0's memory, and 2 s of
# unbounded writes took 300 MiB of dom0's 1 GiB here; more, on a faster machine, ran dom0 out
# of memory in CI: "System is deadlocked on memory");
# the counters are read with the disk idle just after the events are enabled and just before
# they are disabled, so every event count must equal its counter's growth exactly: each event
# is emitted in the same statement, under the same ring lock (frontend) or on the same ring
# thread (backend), as the counter it mirrors. No tolerance is needed anywhere. The two sides
# are also checked against each other: every request the guest sent was consumed, answered
# and its response taken.
c_trace() {
	local domid devid ovf k v
	local -A B0 B1 TB
	be_use "$BACK" || return 1
	fe_use "$G" "$FRONT" || return 1
	disk_attach "$G" nullb0 xvdb || return 1
	domid=${G_DOMID[$G]} devid=$(vdev_devid xvdb)
	dom0_trace_begin xblkback 8192 || return 1
	for k in rd_req wr_req f_req ds_req io_err notify_out passes; do B0[$k]=$(be_stat "$G" xvdb $k); done
	if ! g_ok -t 150 "$G" "tracefs_begin xblkfront 8192 && push_hist_begin && fe_sums c0 xvdb &&
		xfio trace --ioengine=libaio --direct=1 --filename=/dev/xvdb --time_based --runtime=2 \
			--name=rr --rw=randread --bs=4k --iodepth=16 \
			--name=sw --stonewall --rw=write --bs=1M --iodepth=4 --size=64M && fe_sums c1 xvdb
		r=\$?; push_hist_end; tracefs_end xblkfront && fe_trace_count xvdb; exit \$r"; then
		dom0_trace_end xblkback > /dev/null
		return 1
	fi
	for k in rd_req wr_req f_req ds_req io_err notify_out passes; do B1[$k]=$(be_stat "$G" xvdb $k); done
	ovf=$(dom0_trace_end xblkback)
	while IFS='=' read -r k v; do TB[$k]=$v; done < <(awk -v id="d$domid/$devid" '
		/ xblkback_(consume|bio_submit|bio_end|respond): / {
			for (i = 1; i <= NF; i++) if ($i ~ /^xblkback_/) break
			ev = $i; sub(/:$/, "", ev); sub(/^xblkback_/, "", ev)
			if ($(i + 1) != id) next
			split("", kv)
			for (j = i + 2; j <= NF; j++) { split($j, p, "="); kv[p[1]] = p[2] }
			if (ev == "consume") { n["consume"]++; n["consume_batch"] += kv["batch"] }
			else if (ev == "bio_submit") { n["submit"]++; n["submit_" kv["op"]]++; if (kv["flush"] == 1) n["submit_flush1"]++ }
			else if (ev == "bio_end") { n["bio_end"]++; if (kv["status"] != 0) n["bio_err"]++ }
			else { n["respond"]++; n["respond_batch"] += kv["batch"]; if (kv["notify"] == 1) n["respond_notify"]++ }
		}
		END { for (k in n) printf "%s=%d\n", k, n[k] }' $TRACEFS/trace)
	echo 3 > $TRACEFS/buffer_size_kb 2>/dev/null   # give the memory back (a few pages per CPU)
	# a buffer that overran lost events: the counts would prove nothing
	[ "$(g_field overrun)" = 0 ] || { case_fail "guest trace buffer overran ($(g_field overrun) events lost)"; return 1; }
	[ "$ovf" = 0 ] || { case_fail "dom0 trace buffer overran ($ovf events lost)"; return 1; }
	local reads=$(($(gv c1_reads) - $(gv c0_reads))) writes=$(($(gv c1_writes) - $(gv c0_writes)))
	local flushes=$(($(gv c1_flushes) - $(gv c0_flushes))) discards=$(($(gv c1_discards) - $(gv c0_discards)))
	local sent=$((reads + writes + flushes + discards))
	[ "$reads" -gt 0 ] && [ "$writes" -gt 0 ] ||
		case_fail "fio moved no data? frontend reads +$reads, writes +$writes"
	# frontend
	tr_expect "xblkfront_queue op=read vs queue-N/reads" "$(gv t_q_read)" "$reads"
	tr_expect "xblkfront_queue op=write vs queue-N/writes" "$(gv t_q_write)" "$writes"
	tr_expect "xblkfront_queue op=flush/barrier vs queue-N/flushes" \
		"$(($(gv t_q_flush) + $(gv t_q_barrier)))" "$flushes"
	tr_expect "xblkfront_queue op=discard vs queue-N/discards" "$(gv t_q_discard)" "$discards"
	tr_expect "sum of xblkfront_push batch vs requests sent" "$(gv t_push_batch)" "$sent"
	tr_expect "xblkfront_push notify=1 vs queue-N/notify_out" "$(gv t_push_notify)" \
		"$(($(gv c1_notify_out) - $(gv c0_notify_out)))"
	tr_expect "xblkfront_response vs queue-N/responses" "$(gv t_resp)" \
		"$(($(gv c1_responses) - $(gv c0_responses)))"
	tr_expect "xblkfront_response status!=0 vs queue-N/errors" "$(gv t_resp_err)" \
		"$(($(gv c1_errors) - $(gv c0_errors)))"
	tr_expect "xblkfront_response vs requests sent (all answered)" "$(gv t_resp)" "$sent"
	# the hist trigger of Documentation/xblkstat.rst counts the same pushes
	if grep -q 'XLAB-HIST h_' "$G_OUT"; then
		tr_expect "hist trigger on xblkfront_push, notify=1 hits vs queue-N/notify_out" "$(gv h_notify)" \
			"$(($(gv c1_notify_out) - $(gv c0_notify_out)))"
		tr_expect "hist trigger on xblkfront_push, sum of batch vs requests sent" "$(gv h_batch)" "$sent"
	else
		case_note "no hist triggers in the guest kernel"
	fi
	# backend
	tr_expect "xblkback_consume vs statistics/passes" "${TB[consume]:-0}" "$((B1[passes] - B0[passes]))"
	tr_expect "xblkback_bio_submit op=read vs rd_req" "${TB[submit_read]:-0}" "$((B1[rd_req] - B0[rd_req]))"
	tr_expect "xblkback_bio_submit op=write vs wr_req" "${TB[submit_write]:-0}" "$((B1[wr_req] - B0[wr_req]))"
	tr_expect "xblkback_bio_submit flush=1 vs f_req" "${TB[submit_flush1]:-0}" "$((B1[f_req] - B0[f_req]))"
	tr_expect "xblkback_bio_submit op=discard vs ds_req" \
		"$((${TB[submit_discard]:-0} + ${TB[submit_secure_erase]:-0}))" "$((B1[ds_req] - B0[ds_req]))"
	tr_expect "xblkback_respond notify=1 vs notify_out" "${TB[respond_notify]:-0}" \
		"$((B1[notify_out] - B0[notify_out]))"
	# every request here fits one bio (at most 256 segments = BIO_MAX_VECS, no discard)
	tr_expect "xblkback_bio_end vs xblkback_bio_submit" "${TB[bio_end]:-0}" "${TB[submit]:-0}"
	tr_expect "xblkback_bio_end status!=0 vs io_err" "${TB[bio_err]:-0}" "$((B1[io_err] - B0[io_err]))"
	# across the ring
	tr_expect "sum of xblkback_consume batch vs requests the guest sent" "${TB[consume_batch]:-0}" "$sent"
	tr_expect "sum of xblkback_respond batch vs requests the guest sent" "${TB[respond_batch]:-0}" "$sent"
	case_note "guest: $sent requests, $(gv t_push) pushes ($(gv t_push_notify) notified), $(gv t_resp) responses;" \
		"dom0: ${TB[consume]:-0} passes, ${TB[submit]:-0} submits, ${TB[respond]:-0} pushes" \
		"(${TB[respond_notify]:-0} notified); hist trigger: $(gv h_notify) notified pushes of $(gv h_batch) requests:" \
		"every count equals its counter"
}

# xs_mean FILE TABLE ROW COLUMN: mean of COLUMN (by header name) over ROW's lines of xblkstat's
# TABLE (guest | dom0) in FILE; empty if there is none
xs_mean() {
	awk -v tbl="$2" -v row="$3" -v col="$4" '
		{ sub(/^XS /, "") }
		$1 == "guest" || $1 == "dom0" { cur = $1; if (cur == tbl) for (i = 1; i <= NF; i++) c[$i] = i; next }
		cur == tbl && $1 == row && (col in c) { s += $(c[col]); n++ }
		END { if (n) printf "%.2f\n", s / n }' "$1"
}
# xs_min FILE TABLE COLUMN: the smallest value of COLUMN in any row of xblkstat's TABLE
xs_min() {
	awk -v tbl="$2" -v col="$3" '
		{ sub(/^XS /, "") }
		$1 == "guest" || $1 == "dom0" { cur = $1; if (cur == tbl) for (i = 1; i <= NF; i++) c[$i] = i; next }
		cur == tbl && NF > 10 && (col in c) && (!n++ || $(c[col]) + 0 < m) { m = $(c[col]) + 0 }
		END { if (n) print m }' "$1"
}
# xs_near LABEL XBLKSTAT FIO: within 10% of fio's figure
xs_near() {
	if [ -z "$2" ] || [ -z "$3" ]; then
		case_fail "$1: no figure (xblkstat '${2}', fio '${3}')"
		return
	fi
	awk -v a="$2" -v b="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= b / 10) }' ||
		case_fail "$1: xblkstat says $2, fio $3 (more than 10% apart)"
}

# c_xblkstat (xblkfront + xblkback): scripts/xblkstat in the guest and in dom0 during a fio whose
# rate is fixed (4 KiB random reads at 100 IOPS and writes at 50 IOPS, 18 s; fio must hold it,
# within 10%): the mean of xblkstat's interval reports must be within 10% of fio's IOPS and
# MB/s, on both sides; --help exits 0, a bad argument exits 2 with a message that says what is
# wrong. fio runs 18 s: each of xblkstat's one-second reports also costs its own time under TCG,
# and with 12 s the last one ran past fio's end on a slow day (2026-12-07: 18-22 reads in it,
# 15% below fio's rate on both sides, with the drivers of before and after that day's change)
XS_RATE_R=100 XS_RATE_W=50
c_xblkstat() {
	local out=$LAB_TMP/xblkstat.dom0 rc msg fr fw fkr fkw row side xf bg
	be_use "$BACK" || return 1
	fe_use "$G" "$FRONT" || return 1
	disk_attach "$G" nullb0 xvdb || return 1
	# the command line
	g_ok "$G" "xblkstat --help > /dev/null; echo help_rc=\$?; xblkstat 0 2>&1; echo bad_rc=\$?
		xblkstat -q 2>&1; echo opt_rc=\$?; xblkstat 1 1 | head -1 | awk '{ print \"auto=\" \$1 }'" || return 1
	expect "guest: xblkstat --help exit status" "$(g_field help_rc)" 0
	expect "guest: xblkstat 0 exit status" "$(g_field bad_rc)" 2
	expect "guest: xblkstat -q exit status" "$(g_field opt_rc)" 2
	expect "guest: xblkstat without -g/-d shows" "$(g_field auto)" guest
	grep -q "invalid INTERVAL '0'" "$G_OUT" || case_fail "guest: xblkstat 0 does not say what is wrong: $(grep -v '^XLAB' "$G_OUT" | head -2 | tr '\n' '|')"
	xblkstat --help > /dev/null; rc=$?
	expect "dom0: xblkstat --help exit status" "$rc" 0
	msg=$(xblkstat 1 x 2>&1); rc=$?
	expect "dom0: xblkstat 1 x exit status" "$rc" 2
	[[ $msg == *"invalid COUNT 'x'"* ]] || case_fail "dom0: xblkstat 1 x says: $msg"
	msg=$(xblkstat 1 1 | head -1); expect "dom0: xblkstat without -g/-d shows" "${msg%% *}" dom0
	# the figures: dom0 samples from second ~4 of the 18 s fio, the guest from second ~3, five
	# reports each
	(sleep 4; xblkstat -d 1 5 > "$out" 2>&1) &
	bg=$!
	g_ok -t 150 "$G" "xfio rate --ioengine=libaio --direct=1 --filename=/dev/xvdb --time_based --runtime=18 \
			--name=r --rw=randread --bs=4k --iodepth=8 --rate_iops=$XS_RATE_R \
			--name=w --rw=randwrite --bs=4k --iodepth=8 --rate_iops=$XS_RATE_W --offset=512M --size=256M &
		sleep 3; xblkstat -g 1 5 > /tmp/xs.out 2>&1; wait \$!; r=\$?; sed 's/^/XS /' /tmp/xs.out; exit \$r"
	rc=$?
	wait "$bg"
	[ "$rc" = 0 ] || return 1
	log "xblkstat in the guest:"; grep '^XS ' "$G_OUT" | head -12
	log "xblkstat in dom0:"; head -8 "$out"
	fr=$(awk '/XLAB-FIO rate\/r /{ for (i = 1; i <= NF; i++) if ($i ~ /^read_iops=/) { sub(/.*=/, "", $i); print $i } }' "$G_OUT")
	fkr=$(awk '/XLAB-FIO rate\/r /{ for (i = 1; i <= NF; i++) if ($i ~ /^read_kibs=/) { sub(/.*=/, "", $i); printf "%.3f\n", $i / 1024 } }' "$G_OUT")
	fw=$(awk '/XLAB-FIO rate\/w /{ for (i = 1; i <= NF; i++) if ($i ~ /^write_iops=/) { sub(/.*=/, "", $i); print $i } }' "$G_OUT")
	fkw=$(awk '/XLAB-FIO rate\/w /{ for (i = 1; i <= NF; i++) if ($i ~ /^write_kibs=/) { sub(/.*=/, "", $i); printf "%.3f\n", $i / 1024 } }' "$G_OUT")
	# a rate fio could not hold varied during the run: its mean says nothing about the seconds
	# xblkstat sampled (a lab slowed down by other work on the machine got 67 of 200 IOPS)
	awk -v a="${fr:-0}" -v b="$XS_RATE_R" -v c="${fw:-0}" -v d="$XS_RATE_W" \
		'BEGIN { exit !(a >= b * 0.9 && c >= d * 0.9) }' ||
		case_fail "fio did not hold its rate (read ${fr:-?} of $XS_RATE_R IOPS, write ${fw:-?} of $XS_RATE_W): the lab is too slow now, the comparison needs a steady rate"
	for side in guest dom0; do
		if [ $side = guest ]; then row=xvdb xf=$G_OUT; else row=d${G_DOMID[$G]} xf=$out; fi
		xs_near "$side read IOPS (r/s)" "$(xs_mean "$xf" $side "$row" r/s)" "$fr"
		xs_near "$side write IOPS (w/s)" "$(xs_mean "$xf" $side "$row" w/s)" "$fw"
		xs_near "$side read MB/s" "$(xs_mean "$xf" $side "$row" rMB/s)" "$fkr"
		xs_near "$side write MB/s" "$(xs_mean "$xf" $side "$row" wMB/s)" "$fkw"
		# requests in flight: a level between 0 and the ring size
		[ "$(xs_min "$xf" $side infl)" -ge 0 ] 2>/dev/null ||
			case_fail "$side: xblkstat shows requests in flight below 0 ($(xs_min "$xf" $side infl))"
		# the coalescing timer's looks per request: a column of its own, never below 0
		[ "$(xs_min "$xf" $side tmr/rq | cut -d. -f1)" -ge 0 ] 2>/dev/null ||
			case_fail "$side: xblkstat has no tmr/rq figure ('$(xs_min "$xf" $side tmr/rq)')"
	done
	case_note "fio r=$fr IOPS ${fkr} MB/s, w=$fw IOPS ${fkw} MB/s;" \
		"xblkstat guest r/s=$(xs_mean "$G_OUT" guest xvdb r/s) w/s=$(xs_mean "$G_OUT" guest xvdb w/s)," \
		"dom0 r/s=$(xs_mean "$out" dom0 "d${G_DOMID[$G]}" r/s) w/s=$(xs_mean "$out" dom0 "d${G_DOMID[$G]}" w/s);" \
		"tmr/rq guest $(xs_mean "$G_OUT" guest xvdb tmr/rq), dom0 $(xs_mean "$out" dom0 "d${G_DOMID[$G]}" tmr/rq)"
}
