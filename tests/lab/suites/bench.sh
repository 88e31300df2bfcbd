# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154
# Suite "bench": the in-tree pair (xen-blkfront + xen-blkback) against ours (xblkfront +
# xblkback) in one boot, and fio on the same null_blk straight from dom0 ("native").
#
# Workloads (fio, O_DIRECT, libaio, 8 jobs x iodepth 32, iodepth_batch_submit 16, XLAB_RUNTIME
# seconds each, default 10):
#   seq-<bs>     sequential read at 512 B ... 128 KiB on a memory-less null_blk ("nbfast")
#   slow-4k      sequential read 4 KiB on null_blk irqmode=2 completion_nsec=1000000 ("nbslow";
#                XLAB_SLOW_NSEC sets another completion time: under TCG 1 ms is not slow, the
#                guest's CPU is the bottleneck; 50-100 ms make the device the bottleneck again)
#   write-4k     sequential write 4 KiB on nbfast
#   rand-4k      random read 4 KiB on nbfast, with 2 queues, and "rand-4k-q1" with 1 queue
# XLAB_ROUNDS rounds (default 2); each round runs native, then the pairs, the order of the
# pairs alternating between rounds so that drift cancels. XLAB_PAIRS (default intree,xblk)
# may add variants of ours: xblk-b<N> (frontend max_inflight=N), xblk-i<N> (irq_batch=N),
# xblk-p0 (backend poll_inflight=0), combined as in xblk-b0-i1-p0; a suffix @dl, @ky or @bfq
# runs that pair with the guest's disks on mq-deadline, kyber or bfq (default: none).
# XLAB_WORK=a,b limits the workloads (names as above, seq-* by block size).
#
# One line per job:  XLAB-BENCH round=R pair=P work=W key=value...
# scripts/bench.sh turns them into a table, a CSV and a plot; each case only fails when a
# job did not run (a benchmark has no pass mark here: the report applies the targets).
. /lab/dom0.sh
. /lab/cases.sh
G=g1 FRONT=xen-blkfront BACK=xen-blkback
RT=${XLAB_RUNTIME:-10}
SLOW_NSEC=${XLAB_SLOW_NSEC:-1000000}
ROUNDS=${XLAB_ROUNDS:-2}
PAIRS=${XLAB_PAIRS:-intree,xblk}
SIZES="512 1k 2k 4k 8k 16k 32k 64k 128k"
FIO_COMMON="--numjobs=8 --iodepth=32 --iodepth_batch_submit=16 --runtime=$RT --time_based"

want_work() { [ -z "${XLAB_WORK:-}" ] || [[ ,$XLAB_WORK, == *,$1,* ]]; }

# the workloads of a pair with 2 queues: NAME DEVICE FIO-ARGS
workloads() {
	local bs
	for bs in $SIZES; do want_work "seq-$bs" && echo "seq-$bs nbfast --rw=read --bs=$bs"; done
	want_work slow-4k && echo "slow-4k nbslow --rw=read --bs=4k"
	want_work write-4k && echo "write-4k nbfast --rw=write --bs=4k"
	want_work rand-4k && echo "rand-4k nbfast --rw=randread --bs=4k"
}

# nullb_cfg NAME key=value...: a configfs null_blk /dev/NAME, 1 GiB, memory-less
nullb_cfg() {
	local d=/sys/kernel/config/nullb/$1 kv
	shift
	[ -b "/dev/${d##*/}" ] && return 0
	mkdir "$d" || return 1
	for kv in size=1024 memory_backed=0 blocksize=512 queue_mode=2 "$@"; do
		echo "${kv#*=}" > "$d/${kv%%=*}" || { log "nullb ${d##*/}: cannot set $kv"; return 1; }
	done
	echo 1 > "$d/power"
}

bench_setup() {
	modprobe null_blk nr_devices=0 || return 1
	modprobe configfs 2>/dev/null
	[ -d /sys/kernel/config/nullb ] || mount -t configfs configfs /sys/kernel/config
	nullb_cfg nbfast irqmode=1 && nullb_cfg nbslow irqmode=2 completion_nsec="$SLOW_NSEC" ||
		{ log "cannot create the null_blk devices"; return 1; }
	log "nbfast: $(cat /sys/block/nbfast/queue/max_sectors_kb) KiB max, nbslow completes after $SLOW_NSEC ns"
}

# irqsum REGEX (dom0): interrupts so far of the lines named REGEX
irqsum() {
	awk -v re="$1" '$NF ~ re { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i } END { print s + 0 }' \
		/proc/interrupts
}

# be_counters VDEV: the backend's rd_req wr_req notify_in notify_out for G's VDEV (the in-tree
# backend has no notify counters: empty)
be_counters() {
	local k out=""
	for k in rd_req wr_req notify_in notify_out; do out="$out $(be_stat "$G" "$1" $k || echo -)"; done
	echo "$out"
}

# c_native ROUND: every workload with fio in dom0 on the null_blk itself
c_native() {
	local round=$1 name dev args line s0 s1 rc
	while read -r name dev args; do
		read -r -a s0 < "/sys/block/$dev/stat"
		# shellcheck disable=SC2086
		fio --output-format=terse --terse-version=3 --name=b --filename=/dev/$dev --ioengine=libaio \
			--direct=1 --group_reporting $FIO_COMMON $args > /tmp/fio.out 2> /tmp/fio.err
		rc=$?
		read -r -a s1 < "/sys/block/$dev/stat"
		line=$(awk -F';' '/^3;/{printf "iops=%d kibs=%d", $8 + $49, $7 + $48}' /tmp/fio.out)
		[ $rc = 0 ] && [ -n "$line" ] || { case_fail "$name: fio rc=$rc $(tail -2 /tmp/fio.err)"; continue; }
		echo "XLAB-BENCH round=$round pair=native work=$name $line rd=$((s1[0] - s0[0]))" \
			"rd_merged=$((s1[1] - s0[1])) rd_sect=$((s1[2] - s0[2])) wr=$((s1[4] - s0[4]))" \
			"wr_merged=$((s1[5] - s0[5])) wr_sect=$((s1[6] - s0[6]))"
	done < <(workloads; want_work rand-4k-q1 && echo "rand-4k-q1 nbfast --rw=randread --bs=4k")
	case_note "$(grep -c . < <(workloads)) workloads"
}

# pair_use PAIR QUEUES: load PAIR's modules (no disk attached); sets FE_IRQ/BE_IRQ (names of
# their interrupt lines in /proc/interrupts) and SCHED (the guest's I/O scheduler: PAIR@dl =
# mq-deadline, @ky = kyber, @bfq = bfq, default none)
pair_use() {
	local pair=${1%@*} q=$2 fe=() budget
	SCHED=none
	case $1 in
	*@dl) SCHED=mq-deadline ;;
	*@ky) SCHED=kyber ;;
	*@bfq) SCHED=bfq ;;
	*@*) case_fail "unknown scheduler in $1"; return 1 ;;
	esac
	case $pair in
	intree)
		be_use xen-blkback || return 1
		fe=(xen-blkfront)
		[ "$q" = 1 ] && fe+=(max_queues=1)
		FE_IRQ='^blkif$' BE_IRQ='^blkif-backend$'
		;;
	xblk | xblk-*)
		# variants: xblk-b<N> max_inflight=N, -i<N> irq_batch=N (frontend), -p0 the
		# backend's poll_inflight off; e.g. xblk-b0-i1-p0 batches nothing
		local v be=(xblkback)
		fe=(xblkfront)
		[ "$q" = 1 ] && fe+=(max_queues=1)
		IFS=- read -r -a v <<< "${pair#xblk}"
		for budget in "${v[@]}"; do
			case $budget in
			"") ;;
			b[0-9]*) fe+=(max_inflight="${budget#b}") ;;
			i[0-9]*) fe+=(irq_batch="${budget#i}") ;;
			p[01]) be+=(poll_inflight="${budget#p}") ;;
			*) case_fail "unknown variant $budget in $pair"; return 1 ;;
			esac
		done
		be_use "${be[@]}" || return 1
		FE_IRQ='^xvd[a-z]+-q[0-9]+$' BE_IRQ='^xblkback$'
		;;
	*) case_fail "unknown pair $pair"; return 1 ;;
	esac
	fe_use "$G" "${fe[@]}"
}

# run_job ROUND PAIR QUEUES NAME VDEV FIO-ARGS...: one job in the guest, one XLAB-BENCH line
run_job() {
	local round=$1 pair=$2 q=$3 name=$4 vdev=$5 b0 b1 bi0 bi1 gl
	shift 5
	read -r -a b0 <<< "$(be_counters "$vdev")"
	bi0=$(irqsum "$BE_IRQ")
	g_run -t $((RT + 150)) "$G" "bench_fio /dev/$vdev '$FE_IRQ' $FIO_COMMON $*"
	read -r -a b1 <<< "$(be_counters "$vdev")"
	bi1=$(irqsum "$BE_IRQ")
	gl=$(grep -o 'XLAB-BENCHG .*' "$G_OUT" | head -1)
	if [ "$G_RC" != 0 ] || [[ $gl != *iops=* ]]; then
		case_fail "$name: fio in the guest failed: $(grep -v '^XLAB-' "$G_OUT" | tail -3 | tr '\n' '|')"
		return 1
	fi
	local bn_in=- bn_out=-
	[ "${b0[2]}" != - ] && bn_in=$((b1[2] - b0[2])) bn_out=$((b1[3] - b0[3]))
	echo "XLAB-BENCH round=$round pair=$pair work=$name queues=$q ${gl#XLAB-BENCHG } ring_req=$((b1[0] + b1[1] - b0[0] - b0[1]))" \
		"be_irq=$((bi1 - bi0)) be_notify_in=$bn_in be_notify_out=$bn_out"
}

# set_sched VDEV...: the pair's I/O scheduler on the guest's disks
set_sched() {
	local d cmd="modprobe -a mq-deadline kyber-iosched bfq 2>/dev/null;"
	for d in "$@"; do cmd="$cmd echo $SCHED > /sys/block/$d/queue/scheduler &&"; done
	g_ok "$G" "$cmd cat /sys/block/$1/queue/scheduler" || return 1
}

# c_pair ROUND PAIR: attach nbfast (xvdb) and nbslow (xvdc), every 2-queue workload, then the
# 1-queue random read on a fresh attach
c_pair() {
	local round=$1 pair=$2 name dev args n=0
	pair_use "$pair" 2 || return 1
	disk_attach "$G" /dev/nbfast xvdb || return 1
	disk_attach "$G" /dev/nbslow xvdc || return 1
	set_sched xvdb xvdc || return 1
	case_note "queues=$DI_hw_queues max_sectors_kb=$DI_max_sectors_kb nr_requests=$DI_nr_requests sched=$SCHED"
	while read -r name dev args; do
		[ "$dev" = nbslow ] && dev=xvdc || dev=xvdb
		# shellcheck disable=SC2086
		run_job "$round" "$pair" 2 "$name" "$dev" $args && n=$((n + 1))
	done < <(workloads)
	if want_work rand-4k-q1; then
		disk_detach "$G" xvdc && disk_detach "$G" xvdb || return 1
		pair_use "$pair" 1 || return 1
		disk_attach "$G" /dev/nbfast xvdb || return 1
		set_sched xvdb || return 1
		run_job "$round" "$pair" 1 rand-4k-q1 xvdb --rw=randread --bs=4k && n=$((n + 1))
	fi
	case_note "$n jobs"
}

if suite_begin && bench_setup; then
	log "bench: runtime ${RT}s, rounds $ROUNDS, pairs $PAIRS"
	IFS=, read -r -a P <<< "$PAIRS"
	for r in $(seq 1 "$ROUNDS"); do
		run_case "r$r-native" c_native "$r"
		# alternate the order of the pairs from one round to the next
		if [ $((r % 2)) = 0 ]; then
			for ((i = ${#P[@]} - 1; i >= 0; i--)); do run_case "r$r-${P[i]}" c_pair "$r" "${P[i]}"; done
		else
			for p in "${P[@]}"; do run_case "r$r-$p" c_pair "$r" "$p"; done
		fi
	done
else
	case_begin setup; case_fail "suite setup failed"; case_end
fi
suite_end
