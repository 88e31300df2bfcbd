# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034,SC1091
# Suite "hostile-back" (not in the default set): xblkfront in the guest against
# xblkhostileback (tests/hostile-back/), a test-only dom0 backend that breaks the blkif
# protocol on request. The real backends are unloaded while it is loaded.
#
#   fault-<mode>   the disk is attached and served correctly (reads are zeros), then the
#                  backend's "fault" parameter is set and fio (randread, QD16) runs: the
#                  backend answers one request wrongly (unknown_id, dup, wrong_op,
#                  prod_ahead, bad_status) and goes silent. The guest must not crash (kcheck),
#                  fio must get EIO within its timeout, the guest log must name the disk and
#                  the violation, the frontend must leave Connected with the protocol error
#                  in xenstore, the dead disk must refuse further I/O, and fio must not have
#                  seen more good reads than the backend answered correctly. Then the disk is
#                  detached, xblkback loaded again and a normal disk must pass fio verify.
#   keys-<mode>    the backend writes one key malformed or out of range at probe: the frontend
#                  must close the device with a message naming the key, and no disk appears
#                  (keys-pss_small: physical-sector-size below sector-size means "unknown" and
#                  is accepted: the disk appears with physical block = logical block = 4096)
#   queue_rqs-broken  fio (io_uring, batches of 8, scheduler none: ->queue_rqs()) runs
#                  SCHED_FIFO on the guest's only vCPU; the backend answers a whole batch but
#                  its last request with an unknown id (batch_unknown_id). fio is woken by the
#                  good answers and submits its next batch before the error work (a CFS
#                  kworker) can mark the disk failed, so that batch meets the broken ring:
#                  each request must be ended once (no blk-mq WARNING for a request started
#                  twice), fio must get EIO, queue-0/ring_stopped must count them
#   timeout-report the backend stops answering (mute), io_timeout=3, timeout_policy=report:
#                  the guest log names the disk and the oldest request's age, xblk/timeouts
#                  grows, the I/O stays pending; then the driver is unbound (a removal while
#                  the backend still says Connected): it must return within the bounded wait
#                  (io_timeout), fio must get EIO, and no task may hang (hung-task detection
#                  at 10 s meanwhile)
#   timeout-fail   the same with timeout_policy=fail: fio gets EIO ~io_timeout after the
#                  backend went mute, the disk fails and closes with the reason in xenstore,
#                  new I/O fails at once, the detach works
#   connect-<fault>-<policy>  fault (mute, unknown_id) armed before xl block-attach, so that
#                  the disk's first request, its partition scan, meets it; io_timeout=3 and
#                  timeout_policy fail or report: a second vbd attaches, serves and detaches
#                  meanwhile (the guest's xenwatch is free), no hung task in 25 s, the broken
#                  disk's detach ends within 60 s; fail: the disk fails within 2 x io_timeout
#                  of its first request, closed with the reason; report: a mute disk stays
#                  waiting (xblk/timeouts grows; it appears once its backend answered its
#                  first read: no node yet), unknown_id fails it at once under either policy
#   connect-shutdown  xl shutdown -w of the guest with such a mute disk completes
#   connect-<fault>-intree  xen-blkfront on the same (long only): recorded
#   resize-flood-ours, resize-flood-intree  the backend announces 200 sizes 10 ms apart
#                  (resize_loop): the guest's size must end at the last one; the guest's log
#                  lines and uevents meanwhile are counted (kmsg sequence numbers,
#                  /sys/kernel/uevent_seqnum). xblkfront applies at most one size per second:
#                  its counts must stay within that bound; xen-blkfront's are recorded
#   connect-flood  a backend whose sector-size is bad says Connected 100 more times, 10 ms
#                  apart, with the bad key rewritten each time (connect_loop): xblkfront must
#                  have logged the bad key once, and nothing while the loop runs
#   recover        after all of that, xblkback and a normal disk: fio verify passes

# what run.sh needs to know about this suite (README.md "Suite metadata")
suite_meta() {
	SUITE_TIMEOUT=2400 SUITE_NEEDS="blkfront/xblkfront.ko blkback/xblkback.ko tests/hostile-back/xblkhostileback.ko"
}
. /lab/dom0.sh
G=g1 BACK=xblkback FRONT=xblkfront
HB=xblkhostileback
HBP=/sys/module/$HB/parameters

# hb_use [KEYS-MODE]: the hostile backend as the vbd backend, fault off, keys mode set
hb_use() {
	be_unload || return 1
	if ! grep -q "^$HB " /proc/modules; then
		insmod /extra/$HB.ko || { dmesg | tail -5; case_fail "insmod $HB.ko failed"; return 1; }
	fi
	if ! echo none > $HBP/fault || ! echo "${1:-none}" > $HBP/keys; then
		case_fail "cannot set $HB parameters"
		return 1
	fi
}
# hb_unload: no vbd may be attached; be_use can load a real backend afterwards
hb_unload() {
	grep -q "^$HB " /proc/modules || return 0
	rmmod $HB || { case_fail "rmmod $HB failed"; return 1; }
}
hb_attr() {   # VDEV ATTR: per-vbd file of the hostile backend
	cat "/sys/bus/xen-backend/devices/vbd-${G_DOMID[$G]}-$(vdev_devid "$1")/$2" 2>/dev/null
}
fe_state() { xs_front "$G" "$1" state; }

# hb_attach VDEV: xl block-attach served by the hostile backend (the target only satisfies
# the hotplug script; the backend never opens it). Does not wait for the guest's disk.
hb_attach() {
	local spec
	spec="format=raw,vdev=$1,access=rw,target=$(backing nullb2)"
	# the frontend reports fatal errors under the guest's error/ node: start clean (only this
	# vbd's subtree: the guest cannot re-create error/ itself, libxl made it writable for it)
	xenstore-rm "/local/domain/${G_DOMID[$G]}/error/device/vbd/$(vdev_devid "$1")" 2>/dev/null
	log "xl block-attach $G $spec (backend $HB)"
	if ! timeout 90 xl block-attach "$G" "$spec"; then
		xenstore-exists "/local/domain/0/backend/vbd/${G_DOMID[$G]}/$(vdev_devid "$1")" 2>/dev/null &&
			CASE_DISKS+=("$G:$1")
		case_fail "xl block-attach $G $spec failed"
		return 1
	fi
	CASE_DISKS+=("$G:$1")
}

# hb_detach VDEV: xl block-detach must work after the frontend gave up on its backend (libxl
# waits 10 s for the backend to reach Closed, which it does once the frontend is Closed). If it
# fails, the case fails and the vbd is removed by force (-f) so that the guest can go on; the
# vbd must then be gone from both ends
hb_detach() {
	local vdev=$1 devid t0 rc keep=() d fst bst
	devid=$(vdev_devid "$vdev")
	t0=$SECONDS
	log "xl block-detach $G $vdev"
	timeout 90 xl block-detach "$G" "$vdev"
	rc=$?
	if [ "$rc" != 0 ]; then
		fst=$(fe_state "$vdev") bst=$(xs_back "$G" "$vdev" state)
		case_fail "xl block-detach $vdev failed (rc=$rc after $((SECONDS - t0))s; frontend state ${fst:-gone}, backend state ${bst:-gone})"
		log "xl block-detach -f $G $vdev"
		timeout 90 xl block-detach -f "$G" "$vdev"
		rc="$rc, -f: $?"
	fi
	wait_until 30 0.2 ! xenstore-exists "/local/domain/0/backend/vbd/${G_DOMID[$G]}/$devid" 2>/dev/null ||
		{ case_fail "backend of $vdev still in xenstore 30 s after xl block-detach (rc=$rc)"; return 1; }
	g_ok -t 60 "$G" "waitgone /dev/$vdev 30" || return 1
	for d in "${CASE_DISKS[@]}"; do [ "$d" = "$G:$vdev" ] || keep+=("$d"); done
	CASE_DISKS=("${keep[@]}")
	if [ "$rc" = 0 ]; then
		case_note "detached in $((SECONDS - t0))s"
	else
		case_note "xl block-detach rc=$rc, vbd gone after $((SECONDS - t0))s"
	fi
	return 0
}

# wait_fe_closed VDEV SECS: the frontend leaves Connected for Closing (5) or Closed (6)
wait_fe_closed() {
	local st
	wait_until "$2" 0.2 _fe_closed "$1" && return 0
	case_fail "frontend state is '$st' $2 s later (want 5 Closing or 6 Closed)"
	return 1
}

# _fe_closed VDEV: the frontend's state, into st, is Closing or Closed
_fe_closed() {
	st=$(fe_state "$1")
	[ "$st" = 5 ] || [ "$st" = 6 ]
}

# _responses_reach N: the hostile backend's responses on xvdb, into rm0, are N or more
_responses_reach() {
	rm0=$(hb_attr xvdb responses)
	[ "$rm0" -ge "$1" ] 2>/dev/null
}

# fe_error VDEV: what the frontend wrote with xenbus_dev_fatal()
fe_error() {
	xenstore-read "/local/domain/${G_DOMID[$G]}/error/device/vbd/$(vdev_devid "$1")/error" 2>/dev/null
}

# g_log_mark / g_log_since: the guest's kernel log of this case only (not cleared: kcheck
# counts lines)
g_log_mark() {
	# (the console, and so $G_OUT, also carries kernel messages: parse a tagged line)
	g_ok "$G" "echo dmesg_lines=\$(dmesg | wc -l)" || return 1
	LOG_MARK=$(g_field dmesg_lines)
	[[ $LOG_MARK =~ ^[0-9]+$ ]] || { case_fail "cannot count the guest's log lines"; return 1; }
}
g_log_since() {   # PATTERN: the case's guest log lines matching PATTERN, into $G_OUT
	g_run "$G" "dmesg | tail -n +$((LOG_MARK + 1)) | grep -E '$1' | tail -12"
}

# recover VDEV: xblkback again, a normal disk, fio write+verify
recover() {
	hb_unload || return 1
	be_use "$BACK" || return 1
	fe_use "$G" "$FRONT" || return 1
	disk_attach "$G" nullb0 "$1" || return 1
	fio_case "$G" "$1" "${2:-4M}" "${3:-8M}"
}

# c_fault MODE WHY SCHED: WHY is xblkfront's word for the violation (include/xblk/wire.h),
# SCHED the guest disk's I/O scheduler (none: plugged batches go through ->queue_rqs())
c_fault() {
	local mode=$1 why=$2 sched=$3 r0 rm0 r1 f fid rc okio legit err st
	hb_use || return 1
	fe_use "$G" "$FRONT" || return 1
	g_log_mark || return 1
	hb_attach xvdb || return 1
	g_ok "$G" "waitdev /dev/xvdb 45" || return 1
	# served correctly first: 4 MiB of reads, all zeros
	g_ok "$G" "dd if=/dev/xvdb bs=64k count=64 iflag=direct 2>/dev/null | cmp -n 4194304 - /dev/zero && echo zeros-ok" ||
		{ case_fail "the hostile backend did not serve correctly before the fault (it took $(hb_attr xvdb requests) requests, answered $(hb_attr xvdb responses))"; return 1; }
	expect "frontend state before the fault" "$(fe_state xvdb)" 4 || return 1
	g_ok "$G" "echo $sched > /sys/block/xvdb/queue/scheduler && cat /sys/block/xvdb/queue/scheduler" || return 1
	grep -q "\[$sched\]" "$G_OUT" || { case_fail "scheduler $sched not selected: $(g_out | head -1)"; return 1; }
	# I/O first, then the fault while it runs: EIO must end it, not the timeout. Two jobs of
	# QD64 keep more requests waiting for a tag than the ring (32 slots) holds, so some are
	# dispatched after the ring broke
	r0=$(hb_attr xvdb responses)
	g_ok "$G" "rm -f /tmp/hf.*; (timeout 90 fio --name=hostile --filename=/dev/xvdb --ioengine=libaio \
		--direct=1 --rw=randread --bs=4k --iodepth=64 --numjobs=2 --group_reporting --size=64M \
		--runtime=60 --time_based \
		--output-format=terse --terse-version=3 > /tmp/hf.out 2> /tmp/hf.err; echo \$? > /tmp/hf.rc) \
		> /dev/null 2>&1 &" || return 1
	# the fault goes on once fio's reads flow (at least 100 answered), at most 30 s later
	rm0=$r0
	wait_until 30 0.2 _responses_reach $((r0 + 100))
	[ "$rm0" -gt "$r0" ] || case_fail "no I/O reached the backend in 30 s ($r0 -> $rm0 responses)"
	echo "$mode" > $HBP/fault || { case_fail "cannot set fault=$mode"; return 1; }
	g_run -t 150 "$G" "wait_until 110 0.1 test -f /tmp/hf.rc
		echo fio_rc=\$(cat /tmp/hf.rc 2>/dev/null || echo none)
		awk -F';' '/^3;/{print \"fio_err=\" \$5 \" fio_kib=\" \$6}' /tmp/hf.out; grep -m2 -i error /tmp/hf.err; true"
	rc=$(g_field fio_rc) err=$(g_field fio_err) okio=$(g_field fio_kib)
	echo none > $HBP/fault
	f=$(hb_attr xvdb fault) fid=$(hb_attr xvdb fault_id) r1=$(hb_attr xvdb responses)
	expect "fault injected by the backend" "$f" "$mode"
	case $rc in
	0) case_fail "fio succeeded despite fault $mode" ;;
	124|none|'') case_fail "fio did not end within 90 s (rc=${rc:-?}, g_run rc=$G_RC): hang"; return 1 ;;
	esac
	[ "$err" = 5 ] || case_fail "fio error is '$err', expected 5 (EIO): $(grep -v '^XLAB-' "$G_OUT" | tail -2 | tr '\n' '|')"
	# no request completed twice or without a valid response: fio cannot have more good
	# reads than the backend answered correctly (the faulty response is not one of them;
	# dup's first answer is, its second is not)
	legit=$((r1 - r0))
	case $mode in unknown_id|wrong_op|bad_status|dup) legit=$((legit - 1)) ;; esac
	if [ -z "$okio" ]; then
		case_fail "no fio result"
	elif [ $((okio / 4)) -gt "$legit" ]; then
		case_fail "fio completed $((okio / 4)) good reads, the backend answered only $legit correctly"
	fi
	# the frontend's verdict: log, state, xenstore error node
	g_log_since 'vbd-51728|xvdb'
	grep -qE "xvdb: queue 0: bad response \($why, (id|by) [0-9]+\)" "$G_OUT" ||
		case_fail "no 'xvdb: queue 0: bad response ($why, ...)' in the guest log: $(grep -v '^XLAB-' "$G_OUT" | tail -3 | tr '\n' '|' | cut -c1-300)"
	grep -q "backend broke the blkif protocol; disk failed" "$G_OUT" ||
		case_fail "no 'disk failed' line in the guest log"
	case_note "guest: $(grep -o "xvdb: queue 0: bad response.*" "$G_OUT" | head -1)"
	wait_fe_closed xvdb 20
	st=$(fe_state xvdb)
	[[ $(fe_error xvdb) == *"backend broke the blkif protocol"* ]] ||
		case_fail "frontend error node: '$(fe_error xvdb)'"
	dead_read || return 1
	case_note "scheduler $sched, fault on id $fid after $((rm0 - r0))+ responses, $((r1 - r0)) in all, fio rc=$rc err=$err after $((okio / 4)) good reads, frontend state $st; then $DEAD_READ"
	hb_detach xvdb || return 1
	recover xvdb
}

# guest-side: the sequence number of the guest's last kernel log record (each printk is one;
# unlike a line count it survives the log buffer wrapping)
# shellcheck disable=SC2016 # expanded in the guest
KSEQ='$(timeout 1 cat /dev/kmsg 2>/dev/null | grep -v "^ " | tail -1 | cut -d, -f2)'
DEVID=51728   # xvdb
FE_SYS=/sys/bus/xen/devices/vbd-$DEVID

# c_queue_rqs_broken: a ring breaks in the middle of ->queue_rqs() batches; every request
# must be ended exactly once
c_queue_rqs_broken() {
	local r0 rm0 rc err stopped warn okio
	hb_use || return 1
	fe_use "$G" "$FRONT" || return 1
	g_log_mark || return 1
	hb_attach xvdb || return 1
	g_ok "$G" "waitdev /dev/xvdb 45 && command -v chrt && echo none > /sys/block/xvdb/queue/scheduler" ||
		return 1
	r0=$(hb_attr xvdb responses)
	# fio reaps every completion there is (by default one at a time, and then submits one at a
	# time: no plug, no ->queue_rqs()) and submits in batches of up to 8.
	# FIFO: woken by a completion, fio runs before any CFS task, the error work included. Under
	# TCG fio is CPU-bound, and RT throttling would hand the CPU to CFS tasks 50 ms a second:
	# off while fio runs (at most its 10 s runtime; the agent, a CFS task, waits meanwhile),
	# from 1 s after the agent answered this command
	g_ok "$G" "rm -f /tmp/qr.*; rt=\$(cat /proc/sys/kernel/sched_rt_runtime_us)
		(sleep 1; echo -1 > /proc/sys/kernel/sched_rt_runtime_us
		timeout 60 chrt -f 10 fio --name=qrs --filename=/dev/xvdb \
			--ioengine=io_uring --direct=1 --rw=randread --bs=4k --iodepth=32 \
			--iodepth_batch_submit=8 --iodepth_batch_complete_max=32 --size=64M --runtime=10 \
			--time_based --output-format=terse --terse-version=3 > /tmp/qr.out 2> /tmp/qr.err
		echo \$? > /tmp/qr.rc1; echo \$rt > /proc/sys/kernel/sched_rt_runtime_us
		mv /tmp/qr.rc1 /tmp/qr.rc) > /dev/null 2>&1 &" || return 1
	rm0=$r0
	wait_until 8 0.2 _responses_reach $((r0 + 200))
	[ "$rm0" -gt "$r0" ] || { case_fail "no I/O reached the backend in 8 s"; return 1; }
	echo batch_unknown_id > $HBP/fault || { case_fail "cannot set fault=batch_unknown_id"; return 1; }
	g_run -t 90 "$G" "wait_until 60 0.1 test -f /tmp/qr.rc
		echo fio_rc=\$(cat /tmp/qr.rc 2>/dev/null || echo none) rt=\$(cat /proc/sys/kernel/sched_rt_runtime_us) \
			stopped=\$(cat $FE_SYS/queue-0/ring_stopped 2>/dev/null || echo none) \
			warn=\$(dmesg | tail -n +$((LOG_MARK + 1)) | grep -c 'WARNING:')
		awk -F';' '/^3;/{print \"fio_err=\" \$5 \" fio_kib=\" \$6}' /tmp/qr.out; true"
	echo none > $HBP/fault
	rc=$(g_field fio_rc) err=$(g_field fio_err) stopped=$(g_field stopped) warn=$(g_field warn)
	okio=$(g_field fio_kib)
	[ "$(g_field rt)" != -1 ] || case_fail "RT throttling was not switched back on after fio"
	expect "fault injected by the backend" "$(hb_attr xvdb fault)" batch_unknown_id
	case $rc in
	0) case_fail "fio succeeded despite the broken ring" ;;
	124|none|'') case_fail "fio did not end (rc=${rc:-?}): hang" ;;
	esac
	[ "$err" = 5 ] || case_fail "fio error is '$err', expected 5 (EIO)"
	if [ "${warn:-0}" != 0 ]; then
		g_run "$G" "dmesg | tail -n +$((LOG_MARK + 1)) | grep -A6 'WARNING:' | head -8"
		case_fail "the guest warned ($warn): $(grep -v '^XLAB-' "$G_OUT" | head -4 | tr '\n' '|' | cut -c1-300)"
	fi
	# proof that the case tested something: requests met the broken ring
	if ! [[ $stopped =~ ^[0-9]+$ ]] || [ "$stopped" = 0 ]; then
		case_fail "queue-0/ring_stopped is '$stopped': no request was dispatched into the broken ring"
	fi
	case_note "fault on id $(hb_attr xvdb fault_id) after $((rm0 - r0))+ responses; fio rc=$rc err=$err after $((${okio:-0} / 4)) reads; $stopped requests failed at dispatch on the stopped ring, ${warn:-?} warnings"
	hb_detach xvdb
}

# hb_mute POLICY: xblkfront with io_timeout=3 and timeout_policy=POLICY on a disk of the hostile
# backend, which then stops answering
hb_mute() {
	hb_use || return 1
	fe_use "$G" "$FRONT" io_timeout=3 timeout_policy="$1" || return 1
	g_log_mark || return 1
	hb_attach xvdb || return 1
	g_ok "$G" "waitdev /dev/xvdb 45" || return 1
	echo mute > $HBP/fault || { case_fail "cannot set fault=mute"; return 1; }
}

# c_timeout_report: the backend stops answering; timeout_policy=report waits, then a removal
# (driver unbind, the backend still Connected) ends in bounded time
c_timeout_report() {
	local n1 n2 inflight age ubrc ubs rc err
	hb_mute report || return 1
	g_ok "$G" "rm -f /tmp/ht.*; (timeout 100 fio --name=mute --filename=/dev/xvdb --ioengine=libaio \
		--direct=1 --rw=randread --bs=4k --iodepth=8 --size=64M --runtime=90 --time_based \
		--output-format=terse --terse-version=3 > /tmp/ht.out 2> /tmp/ht.err
		echo \$? > /tmp/ht.rc) > /dev/null 2>&1 &" || return 1
	# the report: the first request times out after 3-4 s (blk-mq rounds up to the second)
	g_ok -t 60 "$G" "wait_until 15 0.1 klog_has $((LOG_MARK + 1)) 'xvdb: no answer from the backend'
		dmesg | tail -n +$((LOG_MARK + 1)) | grep -m1 'xvdb: no answer from the backend'
		echo n1=\$(cat $FE_SYS/xblk/timeouts); sleep 4
		echo n2=\$(cat $FE_SYS/xblk/timeouts) inflight=\$(awk '{print \$1 + \$2}' /sys/block/xvdb/inflight) \
			fio_done=\$([ -f /tmp/ht.rc ] && echo yes || echo no)" || return 1
	n1=$(g_field n1) n2=$(g_field n2) inflight=$(g_field inflight)
	age=$(grep -o 'xvdb: no answer from the backend for [0-9.]* s ([^)]*); waiting (timeout_policy=report)' "$G_OUT" | head -1)
	[ -n "$age" ] || case_fail "no 'xvdb: no answer from the backend for N s (...); waiting' in the guest log within 15 s: $(grep -v '^XLAB-' "$G_OUT" | head -2 | tr '\n' '|' | cut -c1-200)"
	if ! [[ $n1 =~ ^[0-9]+$ && $n2 =~ ^[0-9]+$ ]] || [ "$n1" = 0 ] || [ "$n2" -le "$n1" ]; then
		case_fail "xblk/timeouts did not grow: '$n1' then '$n2' 4 s later"
	fi
	if ! [[ $inflight =~ ^[0-9]+$ ]] || [ "$inflight" = 0 ]; then
		case_fail "no I/O pending ('$inflight') after the timeouts"
	fi
	expect "fio still waiting after the timeouts" "$(g_field fio_done)" no
	expect "frontend state while waiting" "$(fe_state xvdb)" 4
	# remove while the backend says Connected: bounded wait (io_timeout), then the requests fail;
	# a removal hanging in del_gendisk would be a hung task within 10-20 s
	g_ok -t 60 "$G" "echo 10 > /proc/sys/kernel/hung_task_timeout_secs; rm -f /tmp/ub.rc
		t0=\$(cut -d' ' -f1 /proc/uptime)
		(echo vbd-$DEVID > /sys/bus/xen/drivers/xblkfront/unbind; echo \$? > /tmp/ub.rc) &
		wait_until 25 0.1 test -f /tmp/ub.rc
		t1=\$(cut -d' ' -f1 /proc/uptime)
		echo unbind_rc=\$(cat /tmp/ub.rc 2>/dev/null || echo none) unbind_s=\$(awk \"BEGIN{print \$t1 - \$t0}\")
		wait_until 15 0.1 test -f /tmp/ht.rc
		echo fio_rc=\$(cat /tmp/ht.rc 2>/dev/null || echo none)
		awk -F';' '/^3;/{print \"fio_err=\" \$5}' /tmp/ht.out
		echo 120 > /proc/sys/kernel/hung_task_timeout_secs" || return 1
	ubrc=$(g_field unbind_rc) ubs=$(g_field unbind_s) rc=$(g_field fio_rc) err=$(g_field fio_err)
	case $ubrc in
	0) awk -v s="$ubs" 'BEGIN{exit !(s <= 10)}' || case_fail "the removal took ${ubs} s (io_timeout 3 s)" ;;
	none) case_fail "the removal (unbind) did not return in 25 s: it hangs on the mute backend"; return 1 ;;
	*) case_fail "unbind failed (rc=$ubrc)" ;;
	esac
	[ "$err" = 5 ] || case_fail "fio after the removal: rc=$rc error '$err', expected 5 (EIO)"
	case_note "guest: ${age#xvdb: }; xblk/timeouts $n1 -> $n2 in 4 s, $inflight requests pending; unbind returned in ${ubs} s, then fio rc=$rc err=$err"
	hb_detach xvdb
}

# c_timeout_fail: the backend stops answering; timeout_policy=fail fails the disk after ~3 s
c_timeout_fail() {
	local secs rc err n
	hb_mute fail || return 1
	g_run -t 90 "$G" "t0=\$(cut -d' ' -f1 /proc/uptime)
		timeout 60 fio --name=mute --filename=/dev/xvdb --ioengine=libaio --direct=1 --rw=randread \
			--bs=4k --iodepth=8 --size=64M --runtime=50 --time_based \
			--output-format=terse --terse-version=3 > /tmp/tf.out 2> /tmp/tf.err
		rc=\$?; t1=\$(cut -d' ' -f1 /proc/uptime)
		echo fio_rc=\$rc fio_s=\$(awk \"BEGIN{print \$t1 - \$t0}\")
		awk -F';' '/^3;/{print \"fio_err=\" \$5}' /tmp/tf.out; true"
	[ "$G_RC" = 0 ] || { case_fail "fio did not end within 90 s (rc=$G_RC): its I/O hangs"; return 1; }
	rc=$(g_field fio_rc) secs=$(g_field fio_s) err=$(g_field fio_err)
	case $rc in
	0) case_fail "fio succeeded against a mute backend" ;;
	124|'') case_fail "fio did not end within 60 s (rc=${rc:-?}): no timeout"; return 1 ;;
	esac
	[ "$err" = 5 ] || case_fail "fio error is '$err', expected 5 (EIO)"
	awk -v s="$secs" 'BEGIN{exit !(s >= 2.5 && s <= 15)}' ||
		case_fail "fio ended after ${secs} s, expected about io_timeout (3 s, at most 15)"
	g_log_since 'vbd-51728|xvdb'
	grep -q "xvdb: no answer from the backend for [0-9.]* s (.*); failing the disk (timeout_policy=fail)" "$G_OUT" ||
		case_fail "no 'xvdb: no answer ...; failing the disk' in the guest log: $(grep -v '^XLAB-' "$G_OUT" | tail -3 | tr '\n' '|' | cut -c1-300)"
	grep -q "backend did not answer for [0-9]* s; disk failed" "$G_OUT" ||
		case_fail "no 'backend did not answer for N s; disk failed' in the guest log"
	case_note "guest: $(grep -o 'xvdb: no answer from the backend.*' "$G_OUT" | head -1 | cut -c7-)"
	wait_fe_closed xvdb 20
	[[ $(fe_error xvdb) == *"did not answer"* ]] || case_fail "frontend error node: '$(fe_error xvdb)'"
	g_ok -t 60 "$G" "echo timeouts=\$(cat $FE_SYS/xblk/timeouts)" || return 1
	n=$(g_field timeouts)
	if ! [[ $n =~ ^[0-9]+$ ]] || [ "$n" = 0 ]; then
		case_fail "xblk/timeouts is '$n'"
	fi
	dead_read || return 1
	case_note "fio rc=$rc err=$err after ${secs} s, xblk/timeouts $n, then $DEAD_READ"
	hb_detach xvdb
}

# hb_attach2 VDEV BACKING: hb_attach on another backing device (a second vbd)
hb_attach2() {
	local spec
	spec="format=raw,vdev=$1,access=rw,target=$(backing "$2")"
	log "xl block-attach $G $spec (backend $HB)"
	timeout 90 xl block-attach "$G" "$spec" || { case_fail "xl block-attach $G $spec failed"; return 1; }
	CASE_DISKS+=("$G:$1")
}

# second_vbd: while the first disk's backend is broken, a second vbd (served correctly) must
# attach, serve and detach: the guest's xenwatch thread, which probes and removes every xenbus
# device, is free. Sets SECOND to what happened; with $1 = record, only records it.
second_vbd() {
	local t0 ta rc=0
	t0=$(now)
	hb_attach2 xvdc nullb1 || return 1
	if g_run -t 60 "$G" "waitdev /dev/xvdc 30 && dd if=/dev/xvdc bs=64k count=16 iflag=direct 2>/dev/null |
			cmp -n 1048576 - /dev/zero && echo zeros-ok"; then
		ta=$(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.1f", b - a}')
		SECOND="second vbd attached and read in $ta s"
	else
		SECOND="second vbd did not appear in the guest within 30 s"
		[ "${1:-}" = record ] || case_fail "$SECOND: the guest's xenwatch is blocked"
		rc=1
	fi
	t0=$(now)
	if timeout 60 xl block-detach "$G" xvdc; then
		SECOND="$SECOND, detached in $(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.1f", b - a}') s"
	else
		SECOND="$SECOND, xl block-detach failed after $(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.0f", b - a}') s"
		[ "${1:-}" = record ] || case_fail "xl block-detach of the second vbd failed: the guest's xenwatch is blocked"
		timeout 60 xl block-detach -f "$G" xvdc
		rc=1
	fi
	local keep=() d
	for d in "${CASE_DISKS[@]}"; do [ "$d" = "$G:xvdc" ] || keep+=("$d"); done
	CASE_DISKS=("${keep[@]}")
	return $rc
}

# _requests_seen: the hostile backend took a request on xvdb (the count into arm_first's r)
_requests_seen() {
	r=$(hb_attr xvdb requests)
	[ "${r:-0}" -ge 1 ]
}

# arm_first FAULT: the hostile backend breaks (FAULT) from its very first request: armed before
# xl block-attach, so that the disk's first request, the partition scan of its addition, meets
# it; returns once that request reached the backend (T_FIRST: when), with the fault then off
# for vbds that have not injected one yet
arm_first() {
	local r
	echo "$1" > $HBP/fault || { case_fail "cannot set fault=$1"; return 1; }
	hb_attach xvdb || return 1
	wait_until 30 0.2 _requests_seen
	T_FIRST=$(now)
	echo none > $HBP/fault
	[ "${r:-0}" -ge 1 ] || { case_fail "the disk sent no request in 30 s"; return 1; }
	expect "fault injected by the backend" "$(hb_attr xvdb fault)" "$1"
}

# hung_since: the guest's hung-task reports since g_log_mark (HUNG: their count), once the
# detector (10 s) had 25 s after the first request to see a task blocked since then
hung_since() {
	local left
	left=$(awk -v a="$T_FIRST" -v b="$(now)" 'BEGIN{printf "%d", 25 - (b - a)}')
	[ "$left" -gt 0 ] && sleep "$left"
	g_ok "$G" "echo hung=\$(dmesg | tail -n +$((LOG_MARK + 1)) | grep -c 'blocked for more than')" || return 1
	HUNG=$(g_field hung)
}

# c_connect_fault FAULT POLICY: the backend breaks from its first request (arm_first): mute (no
# answer) or unknown_id (an answer naming an id never sent). The guest's xenwatch must stay free
# meanwhile (second_vbd), no task may hang (hung_since), and xl block-detach of the broken disk
# must end within 60 s. POLICY fail (io_timeout=3): the disk fails within 2 x io_timeout of its
# first request (the guest logs the oldest request's age), its frontend closes with the reason
# in xenstore. report: a mute disk stays, its read pending (xblk/timeouts grows, the frontend
# does not close); unknown_id is a protocol violation, which fails the disk under either policy.
c_connect_fault() {
	local fault=$1 policy=$2 age n st t0 td
	hb_use || return 1
	fe_use "$G" "$FRONT" io_timeout=3 timeout_policy="$policy" || return 1
	g_log_mark || return 1
	g_ok "$G" "echo 10 > /proc/sys/kernel/hung_task_timeout_secs" || return 1
	arm_first "$fault" || return 1
	second_vbd
	hung_since || return 1
	[ "$HUNG" = 0 ] || case_fail "the guest reported $HUNG hung task(s)"
	g_log_since 'vbd-51728'
	if [ "$fault" = unknown_id ]; then
		grep -qE "xvdb: queue 0: bad response \(id out of range, id [0-9]+\)" "$G_OUT" ||
			case_fail "no 'xvdb: queue 0: bad response (id out of range, ...)' in the guest log"
		grep -q "backend broke the blkif protocol; disk failed" "$G_OUT" ||
			case_fail "no 'disk failed' line in the guest log"
		wait_fe_closed xvdb 20
		[[ $(fe_error xvdb) == *"backend broke the blkif protocol"* ]] ||
			case_fail "frontend error node: '$(fe_error xvdb)'"
		age="protocol violation at once"
	elif [ "$policy" = fail ]; then
		age=$(grep -o 'xvdb: no answer from the backend for [0-9.]* s' "$G_OUT" | head -1 | grep -o '[0-9.]* s')
		grep -q "xvdb: no answer from the backend for [0-9.]* s (.*); failing the disk (timeout_policy=fail)" "$G_OUT" ||
			case_fail "no 'xvdb: no answer ...; failing the disk' in the guest log: $(grep -v '^XLAB-' "$G_OUT" | tail -3 | tr '\n' '|' | cut -c1-300)"
		awk -v a="${age% s}" 'BEGIN{exit !(a != "" && a <= 6)}' ||
			case_fail "the disk failed with its oldest request ${age:-?} old, more than 2 x io_timeout (6 s)"
		wait_fe_closed xvdb 20
		[[ $(fe_error xvdb) == *"did not answer"* ]] || case_fail "frontend error node: '$(fe_error xvdb)'"
		age="failed at ${age:-?}"
	else
		grep -q "xvdb: no answer from the backend for [0-9.]* s (.*); waiting (timeout_policy=report)" "$G_OUT" ||
			case_fail "no 'xvdb: no answer ...; waiting' in the guest log"
		g_ok "$G" "echo timeouts=\$(cat $FE_SYS/xblk/timeouts) present=\$(test -b /dev/xvdb && echo yes || echo no)" || return 1
		n=$(g_field timeouts)
		[[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] || case_fail "xblk/timeouts is '$n'"
		# a disk appears once its backend answered its first read: none yet
		expect "the mute disk's node" "$(g_field present)" no
		st=$(fe_state xvdb)
		[ "$st" = 3 ] || case_fail "frontend state '$st': the disk did not stay waiting (3)"
		age="stays waiting (state $st, xblk/timeouts $n, no node)"
	fi
	t0=$(now)
	hb_detach xvdb || return 1
	td=$(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.0f", b - a}')
	[ "$td" -le 60 ] || case_fail "xl block-detach of the broken disk took $td s"
	case_note "disk $age; $SECOND; $HUNG hung tasks"
}

# c_connect_shutdown: xl shutdown of a guest whose disk's backend is mute from its first
# request (timeout_policy=report: the disk stays) completes: the shutdown request is a xenstore
# watch, run on the xenwatch thread; then the guest is re-created for the next case
c_connect_shutdown() {
	local t0 rc dt
	hb_use || return 1
	fe_use "$G" "$FRONT" io_timeout=3 timeout_policy=report || return 1
	arm_first mute || return 1
	sleep 5
	t0=$(now)
	log "xl shutdown -w $G"
	timeout 90 xl shutdown -w "$G"
	rc=$?
	dt=$(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.0f", b - a}')
	[ "$rc" = 0 ] || case_fail "xl shutdown -w $G rc=$rc after $dt s"
	CASE_DISKS=()
	G_BAD[$G]=1   # gone (or stuck): run_case destroys, the next case re-creates
	case_note "xl shutdown -w took $dt s with the mute disk attached"
}

# c_connect_fault_intree FAULT: the same against xen-blkfront, recorded (it has no timeout and
# adds the disk on the xenwatch thread): whether a second vbd attaches meanwhile, what the
# guest's log shows, whether the detach ends. The guest is destroyed afterwards.
c_connect_fault_intree() {
	local fault=$1 t0 rc
	hb_use || return 1
	fe_use "$G" xen-blkfront || return 1
	g_log_mark || return 1
	g_ok "$G" "echo 10 > /proc/sys/kernel/hung_task_timeout_secs" || return 1
	arm_first "$fault" || return 1
	second_vbd record
	hung_since
	t0=$(now)
	timeout 60 xl block-detach "$G" xvdb
	rc=$?
	case_note "xen-blkfront: $SECOND; ${HUNG:-?} hung-task reports in 25 s; xl block-detach of the broken disk rc=$rc after $(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.0f", b - a}') s"
	timeout 60 xl block-detach -f "$G" xvdb > /dev/null 2>&1
	CASE_DISKS=()
	G_BAD[$G]=1
}

# dead_read: the guest's xvdb was failed: a new read must not hang and must return no data.
# It fails (open or read: 6.1), or, on kernels whose blk_mark_disk_dead() sets a dead disk's
# capacity to 0 (6.12), it finds the end of the device: rc 0, "0+0 records in", size 0.
# Sets DEAD_READ to what happened.
dead_read() {
	local rc in sz
	g_ok -t 60 "$G" "timeout 30 dd if=/dev/xvdb of=/dev/null bs=4k count=1 iflag=direct > /tmp/dd.out 2>&1
		echo dd_rc=\$? dd_in=\$(sed -n 's/^\([0-9]*+[0-9]*\) records in.*/\1/p' /tmp/dd.out | head -1) \
			dd_size=\$(cat /sys/block/xvdb/size 2>/dev/null || echo none); head -1 /tmp/dd.out" || return 1
	rc=$(g_field dd_rc) in=$(g_field dd_in) sz=$(g_field dd_size)
	DEAD_READ="dd rc=$rc, records in ${in:-none}, disk size $sz: $(grep -v '^XLAB-' "$G_OUT" | grep -v dd_rc | head -1 | cut -c1-80)"
	case $rc in
	124) case_fail "a read after the failure hung (30 s)" ;;
	0) [ "$in" = 0+0 ] && [ "$sz" = 0 ] ||
		case_fail "a read after the failure succeeded ($DEAD_READ)" ;;
	esac
	return 0
}

# c_resize_flood FRONTEND: 200 sizes announced 10 ms apart; the guest's log and uevents counted
c_resize_flood() {
	local fe=$1 n=200 ms=10 t0 dt want lines uev size sec bound s0 u0 f0 folds=
	hb_use || return 1
	fe_use "$G" "$fe" || return 1
	hb_attach xvdb || return 1
	g_ok "$G" "waitdev /dev/xvdb 45 && sleep 1 && echo s0=$KSEQ u0=\$(cat /sys/kernel/uevent_seqnum) f0=\$(dmesg | grep -c 'folded in')" || return 1
	s0=$(g_field s0) u0=$(g_field u0) f0=$(g_field f0)
	t0=$(now)
	echo "$n $ms" > "/sys/bus/xen-backend/devices/vbd-${G_DOMID[$G]}-$DEVID/resize_loop" ||
		{ case_fail "resize_loop refused"; return 1; }
	dt=$(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.1f", b - a}')
	want=$(hb_attr xvdb sectors)
	# the last size must land (xblkfront: a second later at worst); then 2 s for stragglers
	g_ok -t 60 "$G" "wait_until 15 0.1 size_is xvdb $want
		sleep 2; echo size=\$(cat /sys/block/xvdb/size) s1=$KSEQ u1=\$(cat /sys/kernel/uevent_seqnum) \
			f1=\$(dmesg | grep -c 'folded in')
		dmesg | grep -E 'capacity' | tail -2" || return 1
	size=$(g_field size)
	[[ $s0$u0$f0$(g_field s1)$(g_field u1)$(g_field f1) =~ ^[0-9]+$ ]] ||
		{ case_fail "cannot read the guest's log sequence or uevent_seqnum"; return 1; }
	lines=$(($(g_field s1) - s0)) uev=$(($(g_field u1) - u0))
	expect "guest size after the loop (sectors)" "$size" "$want"
	if [ "$fe" = xblkfront ]; then
		# one change a second, the first at once and the last a second after the loop at worst
		# (+1 for the guest lagging behind dom0): its line, the block layer's line and a uevent
		sec=$(awk -v d="$dt" 'BEGIN{printf "%d", d + 0.999}')
		bound=$((sec + 3))
		if [ "$uev" -lt 1 ] || [ "$uev" -gt "$bound" ]; then
			case_fail "$uev uevents for $n sizes in ${dt} s, expected 1-$bound (one per second)"
		fi
		[ "$lines" -le $((2 * bound)) ] ||
			case_fail "$lines guest log lines for $n sizes in ${dt} s, expected at most $((2 * bound))"
		# 200 sizes in a few applied changes: some change must say it folded others in (not
		# necessarily the last one: a lone size announced after a quiet second lands unfolded)
		folds=$(($(g_field f1) - f0))
		[ "$folds" -ge 1 ] || case_fail "no capacity line says 'N earlier changes folded in'"
	fi
	case_note "$fe: $n sizes announced in ${dt} s: guest log +$lines lines, +$uev uevents${folds:+, $folds lines with folded-in changes}, size $size = last announced"
	hb_detach xvdb
}

# c_connect_flood: a bad key rewritten with Connected 100 times: logged once, not 100 times
c_connect_flood() {
	local s0 s1 fatal
	hb_use ss3 || return 1
	fe_use "$G" "$FRONT" || return 1
	g_log_mark || return 1
	hb_attach xvdb || return 1
	wait_fe_closed xvdb 30 || return 1
	g_ok "$G" "sleep 1; echo s0=$KSEQ" || return 1
	s0=$(g_field s0)
	echo "100 10" > "/sys/bus/xen-backend/devices/vbd-${G_DOMID[$G]}-$DEVID/connect_loop" ||
		{ case_fail "connect_loop refused"; return 1; }
	g_ok "$G" "sleep 2; echo s1=$KSEQ fatal=\$(dmesg | tail -n +$((LOG_MARK + 1)) | grep -c 'backend key [^ ]*/sector-size is')" ||
		return 1
	s1=$(g_field s1) fatal=$(g_field fatal)
	[[ $s0$s1 =~ ^[0-9]+$ ]] || { case_fail "cannot read the guest's log sequence"; return 1; }
	expect "guest log lines naming sector-size" "$fatal" 1
	[ $((s1 - s0)) -le 2 ] || case_fail "the guest logged $((s1 - s0)) lines while the backend said Connected 100 times"
	case_note "bad sector-size logged $fatal time(s); +$((s1 - s0)) guest log lines during 100 x Connected"
	hb_detach xvdb
}

# c_keys MODE KEY: the device closes naming KEY, no disk appears
c_keys() {
	local mode=$1 key=$2
	hb_use "$mode" || return 1
	fe_use "$G" "$FRONT" || return 1
	g_log_mark || return 1
	hb_attach xvdb || return 1
	wait_fe_closed xvdb 30
	g_log_since 'vbd-51728|xvdb'
	grep -q "backend key [^ ]*/$key is" "$G_OUT" ||
		case_fail "no 'backend key .../$key is ...' in the guest log: $(grep -v '^XLAB-' "$G_OUT" | tail -3 | tr '\n' '|' | cut -c1-300)"
	case_note "guest: $(grep -o "backend key .*" "$G_OUT" | head -1 | sed 's,/local/domain/0/backend/vbd/[0-9]*/[0-9]*/,,')"
	[[ $(fe_error xvdb) == *"/$key is"* ]] || case_fail "frontend error node: '$(fe_error xvdb)'"
	if g_run "$G" "sleep 2; [ -e /sys/block/xvdb ] || [ -b /dev/xvdb ]"; then
		case_fail "disk xvdb appeared despite $key"
	fi
	hb_detach xvdb
}

# c_pss_small: physical-sector-size 512 < sector-size 4096 is accepted as "unknown"
c_pss_small() {
	hb_use pss_small || return 1
	fe_use "$G" "$FRONT" || return 1
	hb_attach xvdb || return 1
	devinfo "$G" xvdb "waitdev /dev/xvdb 45 &&" || return 1
	expect "guest logical_block_size" "$DI_lbs" 4096
	g_ok "$G" "echo pbs=\$(cat /sys/block/xvdb/queue/physical_block_size)" || return 1
	expect "guest physical_block_size" "$(g_field pbs)" 4096
	g_ok "$G" "dd if=/dev/xvdb bs=64k count=16 iflag=direct 2>/dev/null | cmp -n 1048576 - /dev/zero" ||
		case_fail "reads from the pss_small disk failed"
	expect "frontend state" "$(fe_state xvdb)" 4
	case_note "sector-size 4096 / physical-sector-size 512 accepted as 4096/4096"
	hb_detach xvdb
}

suite_require
# one vCPU: the frontend then uses one queue whatever the backend offers
if suite_begin 1; then
	want fault-unknown_id && run_case fault-unknown_id c_fault unknown_id "id out of range" mq-deadline
	want fault-dup && run_case fault-dup c_fault dup "id not in flight" none
	want fault-wrong_op && run_case fault-wrong_op c_fault wrong_op "operation mismatch" mq-deadline
	want fault-prod_ahead && run_case fault-prod_ahead c_fault prod_ahead "response producer ahead of requests" none
	want fault-bad_status && run_case fault-bad_status c_fault bad_status "unknown status" none
	want queue_rqs-broken && run_case queue_rqs-broken c_queue_rqs_broken
	want timeout-report && run_case timeout-report c_timeout_report
	want timeout-fail && run_case timeout-fail c_timeout_fail
	want connect-mute-fail && run_case connect-mute-fail c_connect_fault mute fail
	want connect-mute-report && long_only connect-mute-report &&
		run_case connect-mute-report c_connect_fault mute report
	want connect-unknown_id-fail && run_case connect-unknown_id-fail c_connect_fault unknown_id fail
	want connect-unknown_id-report && long_only connect-unknown_id-report &&
		run_case connect-unknown_id-report c_connect_fault unknown_id report
	want connect-shutdown && run_case connect-shutdown c_connect_shutdown
	want connect-mute-intree && long_only connect-mute-intree &&
		run_case connect-mute-intree c_connect_fault_intree mute
	want connect-unknown_id-intree && long_only connect-unknown_id-intree &&
		run_case connect-unknown_id-intree c_connect_fault_intree unknown_id
	want resize-flood-ours && run_case resize-flood-ours c_resize_flood xblkfront
	want resize-flood-intree && long_only resize-flood-intree && run_case resize-flood-intree c_resize_flood xen-blkfront
	want connect-flood && run_case connect-flood c_connect_flood
	want keys-sectors_nonnum && long_only keys-sectors_nonnum && run_case keys-sectors_nonnum c_keys sectors_nonnum sectors
	want keys-sectors_huge && run_case keys-sectors_huge c_keys sectors_huge sectors
	want keys-ss0 && long_only keys-ss0 && run_case keys-ss0 c_keys ss0 sector-size
	want keys-ss3 && run_case keys-ss3 c_keys ss3 sector-size
	want keys-ss2g && long_only keys-ss2g && run_case keys-ss2g c_keys ss2g sector-size
	want keys-pss_bad && run_case keys-pss_bad c_keys pss_bad physical-sector-size
	want keys-mq_huge && run_case keys-mq_huge c_keys mq_huge multi-queue-max-queues
	want keys-indirect_garbage && run_case keys-indirect_garbage c_keys indirect_garbage feature-max-indirect-segments
	want keys-ring_order_neg && long_only keys-ring_order_neg && run_case keys-ring_order_neg c_keys ring_order_neg max-ring-page-order
	want keys-flush_2 && long_only keys-flush_2 && run_case keys-flush_2 c_keys flush_2 feature-flush-cache
	want keys-pss_small && long_only keys-pss_small && run_case keys-pss_small c_pss_small
	want recover && run_case recover recover xvdb 8M 16M
	hb_unload
else
	setup_failed
fi
suite_end
