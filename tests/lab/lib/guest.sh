# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Guest-side helpers, sourced (by bash) before every command the dom0 suites run in a domU
# through the agent (init/domU-init.sh). Everything prints to the console, which dom0 reads.
# Real binaries are called through bash's $PATH lookup (busybox sh would prefer its own
# applets: blkdiscard, blockdev, modprobe... exist in both).

# shellcheck source=tests/lab/lib/common.sh
. "${BASH_SOURCE[0]%/*}/common.sh"

# waitdev DEV SECONDS: wait for a block device node to appear
waitdev() {
	wait_until "$2" 0.1 test -b "$1" || { echo "waitdev: $1 did not appear in $2 s"; ls /sys/block; return 1; }
}

# waitgone DEV SECONDS: wait for a block device node to disappear
waitgone() {
	wait_until "$2" 0.1 ! test -b "$1" || { echo "waitgone: $1 still present after $2 s"; return 1; }
}

# size_is DISK SECTORS: /sys/block/DISK/size reads SECTORS (a condition for wait_until)
size_is() { [ "$(cat "/sys/block/$1/size" 2>/dev/null)" = "$2" ]; }

# bg_end TAG SECS: wait up to SECS for the end of a job started in the background with its
# status to /tmp/TAG.rc and its output to /tmp/TAG.log; print the output, return the status
# (99: the job did not end)
bg_end() {
	wait_until "$2" 0.1 test -f "/tmp/$1.rc"
	cat "/tmp/$1.log"
	return "$(cat "/tmp/$1.rc" 2>/dev/null || echo 99)"
}

# klog_has FIRST PATTERN: the kernel log from its line FIRST on has a line matching PATTERN (grep's
# basic regex; a condition for wait_until)
klog_has() { dmesg | tail -n +"$1" | grep -q -- "$2"; }

# devinfo DEV: one line of queue facts, as KEY=VALUE words dom0 can parse
devinfo() {
	local d=${1#/dev/} q n=0 x c
	q=/sys/block/$d/queue
	for x in /sys/block/"$d"/mq/*; do [ -e "$x" ] && n=$((n + 1)); done
	read -r c < /sys/devices/system/cpu/online
	echo "XLAB-DEVINFO $d sectors=$(cat /sys/block/"$d"/size) hw_queues=$n cpus=$c" \
		"max_segments=$(cat $q/max_segments) max_sectors_kb=$(cat $q/max_sectors_kb)" \
		"max_hw_sectors_kb=$(cat $q/max_hw_sectors_kb) nr_requests=$(cat $q/nr_requests)" \
		"discard_max_bytes=$(cat $q/discard_max_bytes) write_cache=$(cat $q/write_cache | tr ' ' _)" \
		"fua=$(cat $q/fua 2>/dev/null) lbs=$(cat $q/logical_block_size)" \
		"pbs=$(cat $q/physical_block_size) io_min=$(cat $q/minimum_io_size)" \
		"io_opt=$(cat $q/optimal_io_size)"
	feinfo "$1"
}

# feinfo DEV: the frontend's own view, when it exports one (xblkfront: device/xblk/* =
# negotiated configuration, device/queue-N/* = per-queue counters, summed here as q_<name>)
feinfo() {
	local d=/sys/block/${1#/dev/}/device x k v sum out=""
	[ -d "$d/xblk" ] || return 0
	for x in "$d"/xblk/*; do [ -f "$x" ] && read -r v < "$x" && out="$out ${x##*/}=$v"; done
	for k in reads writes flushes discards read_sectors write_sectors indirect ring_full \
		notify_out notify_in spurious errors; do
		sum=0
		for x in "$d"/queue-*/$k; do
			[ -f "$x" ] || continue
			read -r v < "$x"    # (a builtin: no fork per counter)
			sum=$((sum + ${v:-0}))
		done
		out="$out q_$k=$sum"
	done
	echo "XLAB-FEINFO$out"
}

# devstats DEV: whatever counters the frontend driver exports under /sys/block/DEV/device/
# (regular, small, readable files only)
devstats() {
	local f
	for f in /sys/block/"${1#/dev/}"/device/* /sys/block/"${1#/dev/}"/device/*/*; do
		[ -f "$f" ] && [ -r "$f" ] || continue
		case ${f##*/} in uevent|modalias|driver_override|nodename|devtype) continue ;; esac
		printf '%s=%s\n' "${f#/sys/block/*/device/}" "$(head -c 200 "$f" 2>/dev/null | tr '\n' ' ')"
	done
}

# fe_use MODULE [param=value ...]: make MODULE the vbd frontend, with the given parameters
# and the module defaults for the others. MODULE is xblkfront (ours: parameters written at
# runtime in sysfs, sampled by the driver when a disk connects) or xen-blkfront (in-tree: most
# parameters are read-only, so it is reloaded). Both bind xenbus "vbd": only one may be loaded.
fe_use() {
	local mod=$1 kv p
	shift
	case $mod in
	xblkfront)
		if grep -q '^xen_blkfront ' /proc/modules; then rmmod xen_blkfront || return 1; fi
		if ! grep -q '^xblkfront ' /proc/modules; then
			# without /extra/xblkfront.ko (XLAB_MODULES=dkms): the module tree's
			if [ -f /extra/xblkfront.ko ]; then
				insmod /extra/xblkfront.ko
			else
				modprobe xblkfront
			fi || { dmesg | tail -20; return 1; }
			# remember the defaults, to reset parameters between cases
			for p in /sys/module/xblkfront/parameters/*; do
				echo "${p##*/}=$(cat "$p")"
			done > /tmp/xblkfront.defaults
		fi
		while IFS= read -r kv; do
			echo "${kv#*=}" > "/sys/module/xblkfront/parameters/${kv%%=*}" 2>/dev/null
		done < /tmp/xblkfront.defaults
		for kv in "$@"; do
			echo "${kv#*=}" > "/sys/module/xblkfront/parameters/${kv%%=*}" ||
				{ echo "fe_use: cannot set ${kv%%=*}"; return 1; }
		done
		;;
	xen-blkfront)
		if grep -q '^xblkfront ' /proc/modules; then rmmod xblkfront || return 1; fi
		if grep -q '^xen_blkfront ' /proc/modules; then rmmod xen_blkfront || return 1; fi
		modprobe xen-blkfront "$@" || return 1
		;;
	*) echo "fe_use: unknown frontend $mod"; return 1 ;;
	esac
	p=/sys/module/${mod//-/_}/parameters
	echo "XLAB-FEPARAMS $mod $(for kv in "$p"/*; do printf '%s=%s ' "${kv##*/}" "$(cat "$kv")"; done)"
}

# fe_unload: remove whichever frontend is loaded (no disk may be attached)
fe_unload() {
	local m
	for m in xblkfront xen_blkfront; do
		if grep -q "^$m " /proc/modules; then rmmod $m || return 1; fi
	done
}

# xfio TAG fio-args...: run fio, print a one-line XLAB-FIO summary (+ full output on error)
xfio() {
	local tag=$1 rc
	shift
	fio --output-format=terse --terse-version=3 "$@" > /tmp/fio.out 2> /tmp/fio.err
	rc=$?
	# terse v3: 3 jobname, 5 error, 7 read KiB/s, 8 read IOPS, 48 write KiB/s, 49 write IOPS
	awk -F';' -v t="$tag" -v rc=$rc '/^3;/{printf "XLAB-FIO %s/%s rc=%d err=%s read_iops=%s read_kibs=%s write_iops=%s write_kibs=%s\n", t, $3, rc, $5, $8, $7, $49, $48}' /tmp/fio.out
	if [ $rc != 0 ] || [ -s /tmp/fio.err ]; then
		grep -v '^3;' /tmp/fio.out | tail -20
		tail -20 /tmp/fio.err
	fi
	return $rc
}

# fio_verify DEV [SIZE4K] [SIZE1M] [OFFSET]: the lab's standard data check, write then verify
# (crc32c) with one 4 KiB random job and one 1 MiB sequential job, O_DIRECT
fio_verify() {
	local dev=$1 s4=${2:-8M} s1=${3:-16M} off=${4:-0}
	xfio verify --ioengine=libaio --direct=1 --filename="$dev" --offset="$off" \
		--verify=crc32c --do_verify=1 --verify_fatal=1 --randrepeat=0 \
		--name=rand4k --rw=randwrite --bs=4k --size="$s4" --iodepth=16 \
		--name=seq1m --stonewall --rw=write --bs=1M --size="$s1" --iodepth=4
}

# ext4_check DEV: mkfs, write files, umount, fsck -n clean, mount again, read back
ext4_check() {
	local dev=$1 rc=0
	modprobe ext4 || return 1
	mkfs.ext4 -q -F -E nodiscard "$dev" || { echo "mkfs failed"; return 1; }
	mkdir -p /mnt/t && mount -t ext4 "$dev" /mnt/t || { echo "mount failed"; return 1; }
	dd if=/dev/urandom of=/mnt/t/big bs=1M count=8 2>/dev/null
	mkdir /mnt/t/d
	for i in $(seq 1 40); do head -c $((i * 997)) /dev/urandom > /mnt/t/d/f$i; done
	(cd /mnt/t && md5sum big d/* > /tmp/ext4.md5)
	sync
	umount /mnt/t || { echo "umount failed"; return 1; }
	e2fsck -fn "$dev" || { echo "fsck -n found problems"; rc=1; }
	echo 3 > /proc/sys/vm/drop_caches
	mount -t ext4 -o ro "$dev" /mnt/t || { echo "remount failed"; return 1; }
	(cd /mnt/t && md5sum -c /tmp/ext4.md5 >/tmp/ext4.chk 2>&1) || { echo "read-back mismatch"; grep -v OK /tmp/ext4.chk | head; rc=1; }
	echo "ext4: $(grep -c ': OK' /tmp/ext4.chk) files verified"
	umount /mnt/t
	return $rc
}

# kcheck: fail if the guest kernel log has new warnings/oopses; report new user-space crashes
# (rare spurious ones happen under TCG) without failing
kcheck() {
	local n u old uold k='BUG:|WARNING:|Oops|general protection fault,|Call Trace:|blocked for more than'
	n=$(dmesg | grep -cE "$k")
	u=$(dmesg | grep -cE 'segfault at|traps:')
	read -r old uold < /tmp/kcheck.n 2>/dev/null || { old=0 uold=0; }
	echo "$n $u" > /tmp/kcheck.n
	[ "$u" -gt "${uold:-0}" ] && echo "kcheck: user-space crash: $(dmesg | grep -E 'segfault at|traps:' | tail -1)"
	if [ "$n" -gt "${old:-0}" ]; then
		echo "kcheck: new kernel problems in the guest:"
		dmesg | grep -E -A12 "$k" | tail -40
		return 1
	fi
	return 0
}

# diag_dump: what dom0 asks (through the second agent) when a command hangs
diag_dump() {
	local d h
	echo "--- diag: tasks"
	ps | grep -vE ' (\[.*\]|ps|grep)$' | head -20
	for d in /sys/block/xvd*; do
		[ -e "$d" ] || continue
		echo "--- diag: ${d##*/} inflight=$(cat "$d/inflight" | tr -s ' ')"
		feinfo "/dev/${d##*/}"
		for h in "$d"/device/xblk/* "$d"/device/queue-*/*; do
			[ -f "$h" ] && printf '%s=%s ' "${h#"$d"/device/}" "$(cat "$h")"
		done
		echo
		blk_queue_dump "${d##*/}"
	done
	echo w > /proc/sysrq-trigger
	echo "--- diag: kernel log"
	dmesg | tail -80
}

# blk_queue_dump DISK: where DISK's requests are in blk-mq (debugfs): requeue list, each
# hardware queue's state, dispatch list, software queues and tags in use
blk_queue_dump() {
	local q=/sys/kernel/debug/block/$1 h c
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	[ -d "$q" ] || return 0
	echo "--- diag: $1 scheduler=$(cat "/sys/block/$1/queue/scheduler" 2>/dev/null)" \
		"requeue_list:$(wc -l < "$q/requeue_list" 2>/dev/null) state:$(cat "$q/state" 2>/dev/null)"
	for h in "$q"/hctx*; do
		[ -d "$h" ] || continue
		echo "--- diag: ${h##*/} busy:$(wc -l < "$h/busy") dispatch:$(wc -l < "$h/dispatch")" \
			"state:$(cat "$h/state" 2>/dev/null) dispatch_busy:$(cat "$h/dispatch_busy" 2>/dev/null)" \
			"tags:$(grep -E '^busy' "$h/tags" 2>/dev/null)" \
			"sched_tags:$(grep -E '^busy' "$h/sched_tags" 2>/dev/null)"
		for c in "$h"/cpu*; do
			[ -d "$c" ] && echo "    ${c##*/}: $(cat "$c"/*_rq_list 2>/dev/null | wc -l) queued"
		done
		head -3 "$h/dispatch" "$h/busy" 2>/dev/null
	done
}

# task_dump PROG: the state, wait channel and kernel stack of each of PROG's tasks
task_dump() {
	local p t
	for p in $(pidof "$1"); do
		for t in /proc/$p/task/*; do
			echo "--- diag: $1 ${t##*/}: $(grep -E '^State' "$t/status" | tr -s '\t ' ' ')" \
				"wchan=$(cat "$t/wchan" 2>/dev/null)"
			sed -n '1,8s/^/    stack: /p' "$t/stack" 2>/dev/null
		done
	done
}

# blocked_dump: every task in uninterruptible sleep, with its kernel stack
blocked_dump() {
	local t
	for t in /proc/[0-9]*/task/[0-9]*; do
		grep -q '^State:.D' "$t/status" 2>/dev/null || continue
		echo "--- diag: blocked ${t##*/} $(cat "$t/comm" 2>/dev/null)"
		sed -n '1,10s/^/    stack: /p' "$t/stack" 2>/dev/null
	done
}

# io_stuck_dump DISK PROG: why PROG's I/O on DISK does not finish: PROG's tasks and their
# kernel stacks, the disk's queues, whether PROG goes on once its waits are interrupted
# (SIGSTOP/SIGCONT, as the freezer does), the tasks in D state, then whether a new read still
# completes
io_stuck_dump() {
	local st0 st1
	task_dump "$2"
	echo "--- diag: $1 inflight=$(tr -s ' ' < "/sys/block/$1/inflight")" \
		"budget_held=$(cat "/sys/block/$1/device/xblk/budget_held" 2>/dev/null)"
	echo "--- diag: $1 stat=$(tr -s ' ' < "/sys/block/$1/stat")"
	feinfo "/dev/$1"
	blk_queue_dump "$1"
	st0=$(cat "/sys/block/$1/stat")
	# shellcheck disable=SC2046 # one word per pid
	kill -STOP $(pidof "$2"); sleep 1
	# shellcheck disable=SC2046
	kill -CONT $(pidof "$2"); sleep 20
	st1=$(cat "/sys/block/$1/stat")
	if [ "$st0" = "$st1" ]; then
		echo "STOP-CONT no I/O on $1 in 20 s after interrupting $2's waits"
	else
		echo "STOP-CONT $2 went on after its waits were interrupted: $(echo "$st1" | tr -s ' ')"
	fi
	task_dump "$2"
	blocked_dump
	if timeout 30 dd if="/dev/$1" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null; then
		echo "IO-PROBE ok: a new read on $1 completes"
	else
		echo "IO-PROBE stuck: a new read on $1 did not complete in 30 s"
	fi
}

# irqcpu REGEX: per line whose name matches REGEX, "NAME:N/N..." (interrupts so far on each
# CPU), comma separated
irqcpu() {
	awk -v re="$1" '$NF ~ re { o = $NF ":"; s = ""
		for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) { o = o s $i; s = "/" }
		printf "%s%s", c, o; c = "," }' /proc/interrupts
}

# irqcpu_delta A B: irqcpu's B less its A, line by line and CPU by CPU (same lines, same order)
irqcpu_delta() {
	awk -v a="$1" -v b="$2" 'BEGIN { n = split(a, x, ","); split(b, y, ",")
		for (i = 1; i <= n; i++) { split(x[i], p, ":"); split(y[i], q, ":")
			m = split(p[2], u, "/"); split(q[2], v, "/"); o = ""
			for (j = 1; j <= m; j++) o = o (j > 1 ? "/" : "") v[j] - u[j]
			printf "%s%s:%s", (i > 1 ? "," : ""), p[1], o } }'
}

# irqaff REGEX: per line whose name matches REGEX, "NAME:CPUS" (where its events go now: the
# effective affinity), comma separated
irqaff() {
	local n name sep=""
	awk -v re="$1" '$NF ~ re { sub(":", "", $1); print $1, $NF }' /proc/interrupts |
		while read -r n name; do
			printf '%s%s:%s' "$sep" "$name" "$(cat "/proc/irq/$n/effective_affinity_list" 2>/dev/null || echo -)"
			sep=,
		done
}

# wtrace_start / wtrace_dump: who wakes whom, and where interrupts land, while a bench job runs
# (bench's XLAB_OPTS=wtrace=1): the sched_waking and irq_handler_entry events, summed by dump as
# "COUNT wake WAKER@CPU>WAKEE@CPU" (the waker's task and CPU, the wakee's name and target CPU)
# and "COUNT irq NAME@CPU", busiest first, after tracefs_end's overrun=N
WTRACE_EVENTS="sched/sched_waking irq/irq_handler_entry"
wtrace_start() { tracefs_begin "$WTRACE_EVENTS" 4096; }
wtrace_dump() {
	local t=/sys/kernel/tracing
	tracefs_end "$WTRACE_EVENTS"
	awk '/^#/ { next }
		{ task = $1; sub(/-[0-9]+$/, "", task); cpu = $2; gsub(/[^0-9]/, "", cpu); cpu += 0 }
		/ sched_waking: / { c = ""; tc = ""
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^comm=/) c = substr($i, 6)
				if ($i ~ /^target_cpu=/) tc = substr($i, 12) + 0
			}
			sub(/[:\/].*/, "", c); n["wake " task "@" cpu ">" c "@" tc]++ }
		/ irq_handler_entry: / { for (i = 1; i <= NF; i++) if ($i ~ /^name=/) n["irq " substr($i, 6) "@" cpu]++ }
		END { for (k in n) print n[k], k }' $t/trace | sort -rn | head -25
	echo > $t/trace
}

# fe_counters DISK: xblkfront's summed queue counters: notify_out notify_in spurious reads writes
# timer_polls ring_full
# (zeros for a frontend without them)
fe_counters() {
	local k x v sum out=""
	# (fe_queue_sum's sum inline: a subshell per counter is a fork, millions of a PV guest's
	# instructions under TCG, twice per bench job)
	for k in notify_out notify_in spurious reads writes timer_polls ring_full; do
		sum=0
		for x in /sys/block/"$1"/device/queue-*/"$k"; do
			[ -f "$x" ] && read -r v < "$x" && sum=$((sum + v))
		done
		out="$out $sum"
	done
	echo "$out"
}

# fe_queue_sum DISK COUNTER: xblkfront's queue-N/COUNTER summed over the queues (0 without)
fe_queue_sum() {
	local x v sum=0
	for x in /sys/block/"$1"/device/queue-*/"$2"; do
		[ -f "$x" ] && read -r v < "$x" && sum=$((sum + v))
	done
	echo "$sum"
}

# bench_fio [-m TOKEN] DEV IRQ-REGEX FIO-ARGS...: one benchmark job (fio, O_DIRECT libaio,
# group report); prints "XLAB-BENCHG key=value..." with fio's IOPS, KiB/s and latencies (us:
# mean completion and total latency, completion p50/p99/p99.9 of the direction that moved)
# and what moved meanwhile: the disk's stat (requests, merges, sectors), the frontend's
# interrupts (lines named IRQ-REGEX; fe_irq_cpu=LINE:A/B,... those on each vCPU, fe_irq_aff=
# LINE:CPUS,... their effective affinity after the job), xblkfront's own counters and each
# vCPU's busy time while fio ran (g_vcpu=A/B, /proc/stat's user + nice + system + irq +
# softirq, 1/100 s). With -m, xenstore's data/xlab/bench is "TOKEN start" from just before fio
# starts to "TOKEN end" once it ended (dom0 times its CPU-time window on it).
bench_fio() {
	local tok="" dev re d rc i0 i1 c0 c1
	local -a s0 s1 f0 f1
	[ "$1" = -m ] && { tok=$2; shift 2; }
	dev=$1 re=$2 d=${1#/dev/}
	shift 2
	read -r -a s0 < "/sys/block/$d/stat"
	i0=$(irqsum "$re")
	c0=$(irqcpu "$re")
	read -r -a f0 <<< "$(fe_counters "$d")"
	grep '^cpu[0-9]' /proc/stat > /tmp/stat.0
	[ -n "$tok" ] && xenstore-write data/xlab/bench "$tok start"
	fio --output-format=terse --terse-version=3 --name=b --filename="$dev" --ioengine=libaio \
		--direct=1 --group_reporting --percentile_list=50:99:99.9 "$@" > /tmp/fio.out 2> /tmp/fio.err
	rc=$?
	[ -n "$tok" ] && xenstore-write data/xlab/bench "$tok end"
	grep '^cpu[0-9]' /proc/stat > /tmp/stat.1
	read -r -a s1 < "/sys/block/$d/stat"
	i1=$(irqsum "$re")
	c1=$(irqcpu "$re")
	read -r -a f1 <<< "$(fe_counters "$d")"
	# terse v3: 7 read KiB/s, 8 read IOPS, 16 clat mean, 18-20 clat percentiles (as asked:
	# p50, p99, p99.9, "50.000000%=N"), 40 lat mean; the write side is 41 fields on (us)
	awk -F';' -v rc=$rc '/^3;/{ o = ($49 > $8) ? 41 : 0
		printf "XLAB-BENCHG rc=%d iops=%.0f kibs=%.0f clat_mean=%.1f lat_mean=%.1f", rc, $8 + $49, $7 + $48, $(16 + o), $(40 + o)
		split($(18 + o), a, "="); split($(19 + o), b, "="); split($(20 + o), c, "=")
		printf " clat_p50=%s clat_p99=%s clat_p999=%s ", a[2], b[2], c[2] }' /tmp/fio.out
	echo "rd=$((s1[0] - s0[0])) rd_merged=$((s1[1] - s0[1])) rd_sect=$((s1[2] - s0[2]))" \
		"wr=$((s1[4] - s0[4])) wr_merged=$((s1[5] - s0[5])) wr_sect=$((s1[6] - s0[6]))" \
		"fe_irq=$((i1 - i0)) fe_notify_out=$((f1[0] - f0[0])) fe_notify_in=$((f1[1] - f0[1]))" \
		"fe_spurious=$((f1[2] - f0[2])) fe_req=$((f1[3] + f1[4] - f0[3] - f0[4]))" \
		"fe_timer_polls=$((f1[5] - f0[5])) fe_ring_full=$((f1[6] - f0[6]))" \
		"fe_grants=$(fe_queue_sum "$d" data_grants)" \
		"fe_window=$(cat "/sys/block/$d/device/xblk/budget_bound" 2>/dev/null || echo -)" \
		"fe_denied=$(cat "/sys/block/$d/device/xblk/budget_denied" 2>/dev/null || echo -)" \
		"fe_idle_irqs=$(fe_queue_sum "$d" idle_irqs)" \
		"fe_irq_cpu=$(irqcpu_delta "$c0" "$c1")" \
		"fe_irq_aff=$(irqaff "$re")" \
		"g_vcpu=$(awk 'NR == FNR { b[$1] = $2 + $3 + $4 + $7 + $8; next }
			{ printf "%s%d", sep, $2 + $3 + $4 + $7 + $8 - b[$1]; sep = "/" }' /tmp/stat.0 /tmp/stat.1)"
	if [ $rc != 0 ] || ! grep -q '^3;' /tmp/fio.out; then
		tail -5 /tmp/fio.out
		tail -5 /tmp/fio.err
		return 1
	fi
}

# ackw_start DEV RUNID CYCLE [JOBS [REGION_MIB [SECS]]]: start xlab-ackw's writers (suites
# lifecycle, many) in the background, logging every acknowledged write to /tmp/ackw; returns
# once the first writes were acknowledged. JOBS and REGION_MIB: xlab-ackw's defaults (8, 16)
# unless given; SECS: 300
ackw_start() {
	local a=()
	rm -rf /tmp/ackw /tmp/ackw.out /tmp/ackw.rc
	mkdir -p /tmp/ackw
	[ -n "${4:-}" ] && a+=(-j "$4")
	[ -n "${5:-}" ] && a+=(-m "$5")
	(xlab-ackw write -d "$1" -r "$2" -c "$3" -l /tmp/ackw "${a[@]}" -t "${6:-300}" > /tmp/ackw.out 2>&1
		echo $? > /tmp/ackw.rc) &
	# the disk's writes in flight, every 0.2 s until the disk is gone
	(while read -r _ w < "/sys/block/${1#/dev/}/inflight"; do echo "$w"; sleep 0.2; done \
		> /tmp/ackw.inflight 2>/dev/null) &
	wait_until 10 0.1 _ackw_started
	grep -qs '^A ' /tmp/ackw/job0.log || { echo "ackw_start: no write acknowledged in 10 s"; cat /tmp/ackw.out; return 1; }
}

# _ackw_started: the first write was acknowledged, or the writers already ended
_ackw_started() { grep -qs '^A ' /tmp/ackw/job0.log || [ -f /tmp/ackw.rc ]; }

# _vbd_present VDEV DEVID: the disk is still in /sys/block or on the xenbus bus
_vbd_present() { [ -e "/sys/block/$1" ] || [ -e "/sys/bus/xen/devices/vbd-$2" ]; }

# ackw_end SECS VDEV: after the detach: the writers must end within SECS (with errors), the
# disk must leave /dev, /sys/block and the xenbus bus; prints the writers' lines and the time
ackw_end() {
	local p devid t0=${EPOCHREALTIME/./} d
	wait_until "$1" 0.1 test -f /tmp/ackw.rc
	d=$(((${EPOCHREALTIME/./} - t0) / 100000))
	cat /tmp/ackw.out
	if [ ! -f /tmp/ackw.rc ]; then
		echo "ackw_end: the writers did not end $1 s after the detach"
		for p in /proc/[0-9]*; do
			grep -qs xlab-ackw "$p/cmdline" || continue
			echo "ackw_end: pid ${p#/proc/} $(grep '^State' "$p/status") wchan=$(cat "$p/wchan" 2>/dev/null)"
			cat "$p/stack" 2>/dev/null | head -12
		done
		# where xenbus's thread is: a frontend's remove() waiting on the disk shows here
		for p in /proc/[0-9]*; do
			[ "$(cat "$p/comm" 2>/dev/null)" = xenwatch ] || continue
			echo "ackw_end: xenwatch $(grep '^State' "$p/status" | tr '\t' ' ') stack:" \
				"$(awk '{ sub(/\+.*/, "", $2); print $2 }' "$p/stack" 2>/dev/null | tr '\n' ' ')"
		done
		cat /sys/block/"$2"/inflight 2>/dev/null
		return 3
	fi
	echo "XLAB-ACKW-EXIT rc=$(cat /tmp/ackw.rc) after=$((d / 10)).$((d % 10))" \
		"inflight_max_last3s=$(tail -15 /tmp/ackw.inflight | sort -n | tail -1)"
	waitgone "/dev/$2" 30 || return 4
	devid=$((202 * 256 + ($(printf '%d' "'${2#xvd}") - 97) * 16))
	wait_until 10 0.1 ! _vbd_present "$2" "$devid"
	echo "XLAB-SYSBLOCK $(ls /sys/block | tr '\n' ' ')"
	[ ! -e "/sys/block/$2" ] || { echo "ackw_end: stale /sys/block/$2"; return 4; }
	[ ! -e "/sys/bus/xen/devices/vbd-$devid" ] || { echo "ackw_end: stale xenbus device vbd-$devid"; return 4; }
}

# tracefs_begin EVENTS KB: mount tracefs if it is not, empty the trace buffer (KB per CPU),
# enable EVENTS (space separated: a system, or system/event) and start tracing (case trace,
# bench's wtrace)
tracefs_begin() {
	local t=/sys/kernel/tracing e
	[ -d $t/events ] || mount -t tracefs nodev $t || { echo "cannot mount tracefs"; return 1; }
	for e in $1; do
		[ -d "$t/events/$e" ] || { echo "no events/$e in tracefs"; return 1; }
	done
	echo 0 > $t/tracing_on && echo "$2" > $t/buffer_size_kb && echo > $t/trace || return 1
	for e in $1; do
		echo 1 > "$t/events/$e/enable" || return 1
	done
	echo 1 > $t/tracing_on
}
# tracefs_end EVENTS: stop tracing, disable EVENTS; prints overrun=<events lost>
tracefs_end() {
	local t=/sys/kernel/tracing e
	echo 0 > $t/tracing_on
	for e in $1; do
		echo 0 > "$t/events/$e/enable"
	done
	echo "overrun=$(cat $t/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s + 0 }')"
}

# fe_sums TAG DISK: xblkfront's queue counters summed over the queues, as TAG_<counter>=N
fe_sums() {
	local k out=""
	for k in reads writes flushes discards notify_out responses errors; do
		out="$out $1_$k=$(fe_queue_sum "$2" "$k")"
	done
	echo "XLAB-FESUMS$out"
}

# fe_trace_count DISK: the xblkfront events of DISK in the trace buffer, counted as t_<what>=N
fe_trace_count() {
	awk -v dk="$1" '
	/ xblkfront_(queue|push|response): / {
		for (i = 1; i <= NF; i++) if ($i ~ /^xblkfront_/) break
		ev = $i; sub(/:$/, "", ev); sub(/^xblkfront_/, "", ev)
		if ($(i + 1) != dk) next
		split("", kv)
		for (j = i + 2; j <= NF; j++) { split($j, p, "="); kv[p[1]] = p[2] }
		if (ev == "queue") { n["queue"]++; n["q_" kv["op"]]++ }
		else if (ev == "push") { n["push"]++; n["push_batch"] += kv["batch"]; if (kv["notify"] == 1) n["push_notify"]++ }
		else { n["resp"]++; if (kv["status"] != 0) n["resp_err"]++ }
	}
	END { printf "XLAB-FETRACE"; for (k in n) printf " t_%s=%d", k, n[k]; print "" }' /sys/kernel/tracing/trace
}

# push_hist_begin / push_hist_end: the hist trigger Documentation/xblkstat.rst shows, on
# xblkfront_push (pushes by notify, with the requests they carried); end prints
# XLAB-HIST h_notify=<pushes that notified> h_batch=<requests pushed>, or nothing when the
# kernel has no hist triggers
push_hist_begin() {
	rm -f /tmp/hist.on
	echo 'hist:keys=notify:vals=batch' > /sys/kernel/tracing/events/xblkfront/xblkfront_push/trigger \
		2>/dev/null && : > /tmp/hist.on
	return 0
}
push_hist_end() {
	local e=/sys/kernel/tracing/events/xblkfront/xblkfront_push
	[ -f /tmp/hist.on ] || { echo "XLAB-HIST none"; return 0; }
	awk '/^\{ notify: *1 \}/ { for (i = 1; i < NF; i++) if ($i == "hitcount:") n += $(i + 1) }
		/^\{ notify:/ { for (i = 1; i < NF; i++) if ($i == "batch:") b += $(i + 1) }
		END { printf "XLAB-HIST h_notify=%d h_batch=%d\n", n, b }' $e/hist
	echo '!hist:keys=notify:vals=batch' > $e/trigger
}

# bt_run DEV TEST...: blktests (suite "blktests"; the image carries it in /blktests when built
# for that suite) on DEV, these tests only. Kernel messages stay off the console meanwhile, so
# that check's report comes out whole; then it is printed between XLAB-BT markers.
bt_run() {
	local dev=$1 rc
	shift
	[ -x /blktests/check ] || { echo "bt_run: this image has no /blktests"; return 2; }
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
	modprobe -q kyber-iosched; modprobe -q bfq; modprobe -q dm-mod
	cd /blktests || return 2
	rm -rf results
	# TIMEOUT: the timed tests' fio runtime (TCG is ~50x slower than hardware)
	printf 'TEST_DEVS=(%s)\nTIMEOUT=%s\n' "$dev" "${BT_TIMEOUT:-10}" > config
	# blktests' _have_kver reads the third number of "uname -r" as an integer, which fails on
	# a backports release such as 6.12.95+deb12-amd64 ("value too great for base"), and the
	# test (dm/001) then leaves no result at all. Its "uname -r" is given the release without
	# the "+deb12" part, with /boot and /lib/modules names to match.
	local rel path=$PATH k
	rel=$(uname -r)
	if [[ $rel == *+*-* ]]; then
		k=${rel%%+*}-${rel#*-}
		mkdir -p /tmp/bt-uname
		printf '#!/bin/sh
[ "$*" = -r ] && { echo %s; exit 0; }
exec %s "$@"
' "$k" "$(command -v uname)" \
			> /tmp/bt-uname/uname
		chmod +x /tmp/bt-uname/uname
		ln -sfn "/lib/modules/$rel" "/lib/modules/$k"
		[ ! -e "/boot/config-$rel" ] || ln -sf "config-$rel" "/boot/config-$k"
		path=/tmp/bt-uname:$PATH
		echo "bt_run: blktests sees the kernel release as $k (is $rel)"
	fi
	dmesg -n 1
	PATH=$path ./check "$@" > /tmp/bt.out 2>&1
	rc=$?
	dmesg -n 6
	echo "XLAB-BT-BEGIN"
	cat /tmp/bt.out
	echo "XLAB-BT-END rc=$rc"
	# what the skips depend on, from this kernel's own config
	echo "XLAB-BT-KERNEL kernel=$(uname -r) $(for o in FAIL_MAKE_REQUEST DM_DUST; do
		printf '%s=%s ' $o "$(sed -n "s/^CONFIG_$o=//p" /boot/config-"$(uname -r)" 2>/dev/null | grep . || echo n)"
	done)"
}
