# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
# Suite "qos": xblkback's per-guest QoS (Documentation/blkback.rst, "QoS"): each VBD's bios are
# charged to the cgroup v2 its sysfs attribute "cgroup" or its backend key "xblk-cgroup" names.
# Two guests (ga, gb; xblkfront, one vCPU each) share one dom0 disk: two dm-linear halves of one
# null_blk, as two LVs of one disk would. dom0 runs cgroup2 with +io down to /xen/{ga,gb}.
# Booted on the icount clock (run.sh's suite_clock): rates are per virtual second, repeatable.
# Rates are measured in dom0 from the backend's counters (rd_req, wr_sect) over a window in
# which both guests' fio run (started before, ending after it); fio's own figures are noted.
#
#   qos-max      nbq (1 ms completions, deep queue, memory backed): ga's VBD joins /xen/ga by
#                the backend key xblk-cgroup (written before the frontend connects), gb's
#                /xen/gb through sysfs. io.max on ga's dm device "riops=300": gb's 4 KiB random
#                reads alone, then both at once: ga within 10% of 300 IOPS, gb not below 90% of
#                its rate alone. The same with "wbps=2 MiB/s" and 64 KiB sequential writes.
#   qos-weight   nbw (1 ms completions, hw_queue_depth 2: the bottleneck) under bfq
#                (low_latency 0, 128 requests, 25 ms slices): io.bfq.weight 100 for ga, 400
#                for gb, both guests read 4 KiB at random with more in flight than the device
#                takes; a 5 s window: gb/ga within 3.2..4.8;
#                if bfq does not give that, io.cost (io.weight 100:400) is tried too and the
#                note says which one did
#   qos-bad      a nonexistent path: ENOENT, the attribute unchanged; a cgroup whose parent
#                lacks +io: EINVAL, unchanged; "xen/ga" without the slash, "" and "/" work;
#                the backend key with a nonexistent path: the disk is refused (never served
#                without the limits asked for): dom0's log and the error node name the key,
#                the value and why, the guest gets no disk; with the key fixed it connects in
#                that cgroup and verifies
#   qos-runtime  ga's VBD moved ga -> gb -> ga through sysfs while fio write+verify and 4 KiB
#                random reads run: no error, the verify passes, the read rate follows the
#                limit (about 300 IOPS in ga, several times that in gb)

# what run.sh needs to know about this suite (README.md "Suite metadata")
suite_meta() {
	# rates per virtual second: repeatable
	SUITE_CLOCK=icount SUITE_NEEDS="blkfront/xblkfront.ko blkback/xblkback.ko"
}
. /lab/dom0.sh
# shellcheck disable=SC2034  # (G: run_case's guest)
G=ga
CG=/sys/fs/cgroup
NB_NSEC=1000000            # both null_blks complete after 1 ms (virtual)
RIOPS=${XLAB_QOS_RIOPS:-300}
WBPS=$((2 * 1024 * 1024))
WIN=${XLAB_QOS_WIN:-3}      # measuring window, seconds
WWIN=${XLAB_QOS_WWIN:-5}    # ... of qos-weight (bfq serves in slices: more of them)
LEAD=1.5                    # both fio run this long before the window opens

# the VBD attribute of guest NAME's xvdb
qos_attr() { echo "/sys/bus/xen-backend/devices/vbd-${G_DOMID[$1]}-$(vdev_devid xvdb)/cgroup"; }

# qos_write NAME VALUE: write the attribute; prints the error message (empty if it worked)
qos_write() { { printf '%s\n' "$2" > "$(qos_attr "$1")"; } 2>&1 | sed 's/.*: //'; }

# nullb_q NAME key=value...: a configfs null_blk (512 MiB, 512 B blocks, blk-mq, 1 ms
# timer completions unless given); nothing if it exists
nullb_q() { nullb_make "$1" size=512 irqmode=2 completion_nsec="$NB_NSEC" "${@:2}"; }

# dm_half NAME DISK HALF(0|1): a dm-linear device over one half of DISK; prints dm-N
dm_half() {
	local sz d n=
	sz=$(($(blockdev --getsz "/dev/$2") / 2))
	dmsetup info "$1" > /dev/null 2>&1 ||
		dmsetup create --noudevsync "$1" --table "0 $sz linear /dev/$2 $(($3 * sz))" || return 1
	for d in /sys/block/dm-*; do
		[ "$(cat "$d/dm/name" 2>/dev/null)" = "$1" ] && n=${d##*/}
	done
	[ -n "$n" ] && [ -b "/dev/$n" ] && echo "$n"
}

declare -A DM
qos_setup() {
	local n d h
	modprobe configfs 2>/dev/null
	[ -d /sys/kernel/config/nullb ] || mount -t configfs configfs /sys/kernel/config 2>/dev/null
	modprobe null_blk nr_devices=0 && modprobe dm-mod && modprobe bfq ||
		{ log "modprobe null_blk/dm-mod/bfq failed"; return 1; }
	# nbq: deep enough never to be the bottleneck; memory backed (qos-runtime verifies data)
	nullb_q nbq hw_queue_depth=64 memory_backed=1 &&
		nullb_q nbw hw_queue_depth=2 submit_queues=1 memory_backed=0 ||
		{ log "cannot create the null_blks"; return 1; }
	for n in qa:nbq:0 qb:nbq:1 wa:nbw:0 wb:nbw:1; do
		IFS=: read -r n d h <<< "$n"
		DM[$n]=$(dm_half "x$n" "$d" "$h") || { log "dm-linear $n failed"; return 1; }
	done
	# bfq on nbw. Its requests: with a scheduler blk-mq allocates 2 x the device's depth (4
	# here), and a submitter waits for one in submit_bio: the guests' requests would queue in
	# front of bfq, not in it, and bfq could not choose. 25 ms slices instead of 125: a few
	# seconds hold enough of them for a ratio (a guest's share is whole slices).
	echo bfq > /sys/block/nbw/queue/scheduler && echo 128 > /sys/block/nbw/queue/nr_requests &&
		echo 0 > /sys/block/nbw/queue/iosched/low_latency &&
		echo 25 > /sys/block/nbw/queue/iosched/timeout_sync ||
		{ log "nbw: cannot select and set up bfq"; return 1; }
	# cgroup2 with the io controller down to /xen/ga and /xen/gb; /xen/ga/noio has none
	grep -q " $CG cgroup2 " /proc/mounts || mount -t cgroup2 none $CG || { log "cannot mount cgroup2"; return 1; }
	mkdir -p $CG/xen/ga/noio $CG/xen/gb &&
		echo +io > $CG/cgroup.subtree_control && echo +io > $CG/xen/cgroup.subtree_control ||
		{ log "cannot enable +io on $CG/xen"; return 1; }
	log "qos: dm ${DM[*]}; $CG/xen: $(cat $CG/xen/cgroup.subtree_control); ga's io files: $(cd $CG/xen/ga && echo io.*)"
	be_use xblkback || return 1
	guest_create ga 1 384 && guest_create gb 1 384 || return 1
	fe_use ga xblkfront && fe_use gb xblkfront
}

# attach NAME DMKEY [key|nowait [PATH]]: xvdb of guest NAME on DM[DMKEY]; with "key", the
# backend key xblk-cgroup=PATH (default /xen/NAME) is written before the frontend connects (the
# toolstack's way); "nowait" the same without waiting for the guest's disk
attach() {
	local dir
	if [ "${3:-}" = key ] || [ "${3:-}" = nowait ]; then
		g_ok "$1" fe_unload || return 1
		log "xl block-attach $1 (frontend unloaded) + xblk-cgroup"
		timeout 90 xl block-attach "$1" "format=raw,vdev=xvdb,access=rw,target=/dev/${DM[$2]}" ||
			{ case_fail "xl block-attach $1 failed"; return 1; }
		CASE_DISKS+=("$1:xvdb")
		dir=/local/domain/0/backend/vbd/${G_DOMID[$1]}/$(vdev_devid xvdb)
		xenstore-write "$dir/xblk-cgroup" "${4:-/xen/$1}" || { case_fail "cannot write $dir/xblk-cgroup"; return 1; }
		fe_use "$1" xblkfront || return 1
		[ "$3" = nowait ] || g_ok "$1" "waitdev /dev/xvdb 45"
	else
		disk_attach "$1" "/dev/${DM[$2]}" xvdb
	fi
}

# bg NAME TAG FIO-ARGS...: fio (xfio) in the background in guest NAME; bg_wait NAME TAG: its
# output (in G_OUT) and status
bg() {
	local n=$1 t=$2
	shift 2
	g_ok "$n" "rm -f /tmp/$t.rc; (xfio $t --ioengine=libaio --direct=1 --filename=/dev/xvdb --randrepeat=0 $* > /tmp/$t.log 2>&1; echo \$? > /tmp/$t.rc) &"
}
bg_wait() {
	g_run -t 150 "$1" "bg_end $2 120" && return 0
	case_fail "[$1] fio $2 rc=$G_RC: $(grep -v '^XLAB-' "$G_OUT" | tail -3 | tr '\n' '|' | cut -c1-300)"
}
# fio_fig FIELD: FIELD (read_iops, write_kibs...) of the last bg_wait's first XLAB-FIO line
fio_fig() { grep -o "XLAB-FIO.*" "$G_OUT" | head -1 | grep -o "\b$1=[^ ]*" | cut -d= -f2; }

# snap: "uptime ga.rd_req ga.wr_sect gb.rd_req gb.wr_sect" (absent guests/disks count 0)
snap() {
	local u g
	read -r u _ < /proc/uptime
	printf '%s' "$u"
	for g in ga gb; do printf ' %s %s' "$(be_stat $g xvdb rd_req || echo 0)" "$(be_stat $g xvdb wr_sect || echo 0)"; done
	echo
}
# window: the counters over WIN seconds after LEAD; sets R_ga R_gb (read IOPS) W_ga W_gb
# (written KiB/s)
window() {
	local s0 s1 k e0=() e1=()
	sleep $LEAD
	s0=$(snap)
	for k in notify_in timer_polls passes wr_req; do e0+=("$(be_stat ga xvdb $k || echo 0)"); done
	sleep "$WIN"
	s1=$(snap)
	for k in notify_in timer_polls passes wr_req; do e1+=("$(be_stat ga xvdb $k || echo 0)"); done
	log "window: ga's backend: $((e1[0] - e0[0])) events, $((e1[1] - e0[1])) timer looks," \
		"$((e1[2] - e0[2])) passes, $((e1[3] - e0[3])) writes"
	read -r R_ga W_ga R_gb W_gb <<< "$(awk -v a="$s0" -v b="$s1" 'BEGIN {
		split(a, x); split(b, y); t = y[1] - x[1]
		printf "%.1f %.1f %.1f %.1f\n", (y[2] - x[2]) / t, (y[3] - x[3]) / 2 / t, (y[4] - x[4]) / t, (y[5] - x[5]) / 2 / t }')"
	log "window ${WIN}s: ga $R_ga IOPS read, $W_ga KiB/s written; gb $R_gb IOPS read, $W_gb KiB/s written"
}
# near LABEL VALUE WANT PCT: VALUE within PCT% of WANT
near() {
	awk -v v="$2" -v w="$3" -v p="$4" 'BEGIN { d = v - w; if (d < 0) d = -d; exit !(d <= w * p / 100) }' ||
		case_fail "$1: $2, expected $3 +-$4%"
}
# atleast LABEL VALUE BASE PCT: VALUE >= PCT% of BASE
atleast() {
	awk -v v="$2" -v b="$3" -v p="$4" 'BEGIN { exit !(b > 0 && v >= b * p / 100) }' ||
		case_fail "$1: $2, below $4% of $3"
}
dm_devt() { cat "/sys/block/${DM[$1]}/dev"; }

# limit_pair LIMIT TAG JOB-GA JOB-GB FIELD R|W: io.max LIMIT on ga's dm device; then gb's job
# alone and both jobs at once, each measured in the window (fio files /tmp/TAGalone,
# /tmp/TAGboth). Sets ALONE (gb's R_gb or W_gb alone), A_FIO and B_FIO (fio's FIELD in ga and
# in gb while both ran)
limit_pair() {
	local v=${6}_gb
	ALONE="" A_FIO="" B_FIO=""
	echo "$(dm_devt qa) $1" > $CG/xen/ga/io.max || { case_fail "cannot set io.max $1"; return 1; }
	log "ga io.max: $(cat $CG/xen/ga/io.max)"
	# shellcheck disable=SC2086 # (the jobs' fio options, split into words)
	bg gb "${2}alone" $4 && window && bg_wait gb "${2}alone" || return 1
	ALONE=${!v}
	# shellcheck disable=SC2086
	bg ga "${2}both" $3 && bg gb "${2}both" $4 && window || return 1
	bg_wait ga "${2}both" && A_FIO=$(fio_fig "$5")
	bg_wait gb "${2}both" && B_FIO=$(fio_fig "$5")
	return 0
}

# gb alone, then ga and gb at once, measured in the window
RUN=$(awk -v l=$LEAD -v w="$WIN" 'BEGIN { printf "%d", l + w + 1.5 }')
c_max() {
	local rd="--name=rr --rw=randread --bs=4k --iodepth=2 --time_based --runtime=$RUN --size=128M"
	local rda="--name=rr --rw=randread --bs=4k --iodepth=4 --time_based --runtime=$RUN --size=128M"
	local wra="--name=sw --rw=write --bs=64k --iodepth=2 --time_based --runtime=$RUN --size=32M"
	local wr="--name=sw --rw=write --bs=64k --iodepth=1 --time_based --runtime=$RUN --size=32M"
	guest_ensure gb || { case_fail "guest gb is gone"; return 1; }
	attach ga qa key && attach gb qb || return 1
	expect "ga's cgroup (backend key xblk-cgroup)" "$(cat "$(qos_attr ga)")" /xen/ga
	[ -z "$(qos_write gb /xen/gb)" ] || { case_fail "cannot assign gb's VBD to /xen/gb"; return 1; }
	expect "gb's cgroup (sysfs)" "$(cat "$(qos_attr gb)")" /xen/gb
	dmesg | grep -q "xblk.*I/O charged to cgroup /xen/ga" || case_note "no 'charged to cgroup' line in dom0's log"
	# riops
	limit_pair "riops=$RIOPS" r "$rda" "$rd" read_iops R || return 1
	near "ga's read IOPS under riops=$RIOPS" "$R_ga" "$RIOPS" 10
	# gb's reads at queue depth 2 are a closed loop: its rate is its round trip, so any wait
	# in xblkback shows here (82-88 % while a batch of 2 could be met by completions only,
	# 98 % since 23898f4; Documentation/bench.rst, "Closed loops")
	atleast "gb's read IOPS beside ga" "$R_gb" "$ALONE" 90
	case_note "riops=$RIOPS: ga $R_ga IOPS (fio $A_FIO), gb $R_gb IOPS (fio $B_FIO) beside ga, $ALONE alone"
	# wbps
	limit_pair "riops=max wbps=$WBPS" w "$wra" "$wr" write_kibs W || return 1
	near "ga's write KiB/s under wbps=$WBPS" "$W_ga" $((WBPS / 1024)) 10
	atleast "gb's write KiB/s beside ga" "$W_gb" "$ALONE" 90
	case_note "wbps=2MiB/s: ga $W_ga KiB/s (fio $A_FIO), gb $W_gb KiB/s (fio $B_FIO) beside ga, $ALONE alone"
	echo "$(dm_devt qa) wbps=max" > $CG/xen/ga/io.max
	G=gb g_kcheck
}

# weight_run LABEL: ga and gb read at once on wa/wb; sets RATIO (gb/ga) and notes the figures
weight_run() {
	local WIN=$WWIN
	local rd="--name=rr --rw=randread --bs=4k --iodepth=16 --time_based --size=128M"
	local a_fio b_fio
	rd="$rd --runtime=$(awk -v l=$LEAD -v w="$WIN" 'BEGIN { printf "%d", l + w + 1.5 }')"
	bg ga wboth $rd && bg gb wboth $rd && window || return 1
	bg_wait ga wboth && a_fio=$(fio_fig read_iops)
	bg_wait gb wboth && b_fio=$(fio_fig read_iops)
	RATIO=$(awk -v a="$R_ga" -v b="$R_gb" 'BEGIN { if (a > 0) printf "%.2f", b / a; else print "inf" }')
	case_note "$1: ga $R_ga IOPS (fio $a_fio), gb $R_gb IOPS (fio $b_fio), gb/ga $RATIO"
}
in_weight_range() { awk -v r="$1" 'BEGIN { exit !(r >= 3.2 && r <= 4.8) }'; }

# qos-weight: bfq weights 100:400 on nbw; if bfq does not give 3.2..4.8, io.cost (io.weight
# 100:400, a fixed linear model of 1800 random reads a second, below what nbw does) is tried
# too, and the case passes with whichever does (the note says which, with both figures)
c_weight() {
	local devt bfq
	guest_ensure gb || { case_fail "guest gb is gone"; return 1; }
	attach ga wa && attach gb wb || return 1
	[ -z "$(qos_write ga /xen/ga)" ] && [ -z "$(qos_write gb /xen/gb)" ] ||
		{ case_fail "cannot assign the VBDs to /xen/ga, /xen/gb"; return 1; }
	[ -f $CG/xen/ga/io.bfq.weight ] || { case_fail "no io.bfq.weight in $CG/xen/ga"; return 1; }
	echo 100 > $CG/xen/ga/io.bfq.weight && echo 400 > $CG/xen/gb/io.bfq.weight ||
		{ case_fail "cannot set io.bfq.weight"; return 1; }
	log "nbw scheduler: $(cat /sys/block/nbw/queue/scheduler); bfq weights ga $(tr '\n' ' ' < $CG/xen/ga/io.bfq.weight) gb $(tr '\n' ' ' < $CG/xen/gb/io.bfq.weight)"
	weight_run "bfq io.bfq.weight 100:400" || return 1
	bfq=$RATIO
	if in_weight_range "$bfq"; then
		case_note "bfq gives the weights"
		G=gb g_kcheck
		return 0
	fi
	devt=$(cat /sys/block/nbw/dev)
	if [ ! -f $CG/io.cost.qos ]; then
		case_fail "bfq: gb/ga $bfq, expected 3.2..4.8; no io.cost in this kernel to try"
		return 1
	fi
	echo none > /sys/block/nbw/queue/scheduler &&
		echo "$devt ctrl=user model=linear rbps=1000000000 rseqiops=1800 rrandiops=1800 wbps=1000000000 wseqiops=1800 wrandiops=1800" > $CG/io.cost.model &&
		echo "$devt enable=1 ctrl=user rpct=0 rlat=0 wpct=0 wlat=0 min=100 max=100" > $CG/io.cost.qos &&
		echo 100 > $CG/xen/ga/io.weight && echo 400 > $CG/xen/gb/io.weight ||
		{ case_fail "bfq: gb/ga $bfq; cannot set up io.cost"; return 1; }
	log "io.cost: $(cat $CG/io.cost.qos); $(cat $CG/io.cost.model)"
	weight_run "io.cost io.weight 100:400" || return 1
	echo "$devt enable=0" > $CG/io.cost.qos
	echo bfq > /sys/block/nbw/queue/scheduler && echo 128 > /sys/block/nbw/queue/nr_requests
	if in_weight_range "$RATIO"; then
		case_note "bfq did not give the weights here, io.cost did"
	else
		case_fail "gb/ga throughput ratio: bfq $bfq, io.cost $RATIO; expected 3.2..4.8 (weights 100:400)"
	fi
	G=gb g_kcheck
}

c_bad() {
	local a v e dir
	attach ga qa || return 1
	a=$(qos_attr ga)
	expect "attribute before any assignment" "$(cat "$a")" ""
	e=$(qos_write ga xen/ga)
	expect "'xen/ga' (no leading slash): error" "$e" ""
	expect "after 'xen/ga'" "$(cat "$a")" /xen/ga
	e=$(qos_write ga /xen/nonexistent)
	[[ $e == *"No such file"* ]] || case_fail "nonexistent path: '$e', expected ENOENT"
	expect "after the nonexistent path" "$(cat "$a")" /xen/ga
	e=$(qos_write ga /xen/ga/noio)
	[[ $e == *"Invalid argument"* ]] || case_fail "cgroup without +io: '$e', expected EINVAL"
	expect "after the cgroup without +io" "$(cat "$a")" /xen/ga
	dmesg | tail -5 | grep -q 'cgroup.*/xen/ga/noio.*refused' ||
		case_fail "dom0's log does not say why /xen/ga/noio was refused: $(dmesg | tail -1)"
	e=$(qos_write ga /)
	expect "'/': error" "$e" ""
	expect "after '/'" "$(cat "$a")" ""
	qos_write ga /xen/gb > /dev/null
	e=$(qos_write ga "")
	expect "'': error" "$e" ""
	expect "after ''" "$(cat "$a")" ""
	case_note "ENOENT and EINVAL refused with the attribute unchanged; 'xen/ga', '/' and '' work"
	g_ok -t 150 ga "fio_verify /dev/xvdb 2M 4M" || return 1
	disk_detach ga xvdb || return 1
	# the backend key with a path that does not exist: the limits asked for cannot be applied,
	# so the disk is refused (never served unlimited), with the key, value and reason in dom0's
	# log and the backend's error node; fixed, it connects on the next attach
	attach ga qa nowait /xen/nonexistent || return 1
	dir=/local/domain/0/backend/vbd/${G_DOMID[ga]}/$(vdev_devid xvdb)
	wait_be_closing ga xvdb 30 || return 1
	v=$(dmesg | grep 'xblk-cgroup = ' | tail -1)
	[[ $v == *'xblk-cgroup = "/xen/nonexistent" refused'*'not connected'* ]] ||
		case_fail "dom0's log does not name the bad key and value: '${v:-nothing}'"
	e=$(xenstore-read "/local/domain/0/error/backend/vbd/${G_DOMID[ga]}/$(vdev_devid xvdb)/error" 2>/dev/null)
	[[ $e == *xblk-cgroup*'no such cgroup'* ]] ||
		case_fail "the backend's error node does not say why: '${e:-nothing}'"
	g_run ga "test -b /dev/xvdb && echo present || echo absent"
	grep -q '^absent' "$G_OUT" || case_fail "the guest got a disk from a refused vbd"
	disk_detach ga xvdb || return 1
	attach ga qa key /xen/ga || return 1
	expect "attribute after the fixed key" "$(cat "$(qos_attr ga)")" /xen/ga
	g_ok -t 150 ga "fio_verify /dev/xvdb 2M 4M" || return 1
	case_note "bad key refused: ${v#*] }; the fixed key connects"
	xenstore-rm "$dir/xblk-cgroup" 2>/dev/null
	return 0
}

# wait_be_closing NAME VDEV SECS: the backend leaves InitWait/Connected for Closing or Closed
wait_be_closing() {
	wait_until "$3" 0.2 be_state_in "$1" "$2" 5 6 && return 0
	case_fail "backend state is '$BE_STATE' $3 s later (want 5 Closing or 6 Closed)"
	return 1
}

c_runtime() {
	local a r_ga r_gb r_ga2 e
	attach ga qa || return 1
	a=$(qos_attr ga)
	echo "$(dm_devt qa) riops=$RIOPS wbps=max" > $CG/xen/ga/io.max || { case_fail "cannot set io.max"; return 1; }
	[ -z "$(qos_write ga /xen/ga)" ] || { case_fail "cannot assign /xen/ga"; return 1; }
	# one fio: write+verify of 2 MiB (4 KiB random, QD4, 50 writes a second so that it spans
	# the moves) beside 4 KiB random reads elsewhere on the disk
	bg ga mv --name=vfy --rw=randwrite --bs=4k --iodepth=4 --size=2M --verify=crc32c --do_verify=1 \
		--verify_fatal=1 --rate_iops=,50 \
		--name=rr --rw=randread --bs=4k --iodepth=2 --offset=64M --size=128M --time_based \
		--runtime="$(awk -v l=$LEAD -v w="$WIN" 'BEGIN { printf "%d", 3 * (l + w) + 2 }')" || return 1
	window; r_ga=$R_ga
	e=$(qos_write ga /xen/gb); [ -z "$e" ] || case_fail "move to /xen/gb: $e"
	window; r_gb=$R_ga
	e=$(qos_write ga /xen/ga); [ -z "$e" ] || case_fail "move back to /xen/ga: $e"
	window; r_ga2=$R_ga
	bg_wait ga mv || return 1
	grep -q 'XLAB-FIO mv/vfy rc=0 err=0' "$G_OUT" || case_fail "fio verify: $(grep -o 'XLAB-FIO mv/vfy.*' "$G_OUT")"
	# the frontend's side of the events, for the log (after the check: g_ok replaces G_OUT)
	g_ok ga "cd /sys/block/xvdb/device/queue-0 && echo XLAB-QOS-FE \$(for k in responses notify_in timer_polls; do echo \$k=\$(cat \$k); done)"
	log "ga's frontend: $(grep -o 'XLAB-QOS-FE.*' "$G_OUT" | tail -1)"
	# rd_req counts reads only: the random reads, then the verify's (all under the same limit)
	near "read IOPS in /xen/ga (riops=$RIOPS)" "$r_ga" "$RIOPS" 10
	near "read IOPS back in /xen/ga" "$r_ga2" "$RIOPS" 10
	atleast "read IOPS in /xen/gb (no limit)" "$r_gb" "$RIOPS" 200
	case_note "read IOPS: $r_ga in ga, $r_gb in gb, $r_ga2 back in ga; fio verify passed"
	echo "$(dm_devt qa) riops=max" > $CG/xen/ga/io.max
	[ -z "$(qos_write ga "")" ] || case_fail "cannot clear the cgroup"
}

suite_require
case_begin setup
if qos_setup; then
	case_note "dm ${DM[*]}, cgroup2 +io down to /xen/{ga,gb}"
	case_end
	want qos-max && run_case qos-max c_max
	want qos-weight && run_case qos-weight c_weight
	want qos-bad && run_case qos-bad c_bad
	want qos-runtime && run_case qos-runtime c_runtime
else
	case_fail "suite setup failed"
	case_end
fi
suite_end
