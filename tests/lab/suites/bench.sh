# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154
# Suite "bench": the in-tree pair (xen-blkfront + xen-blkback) against ours (xblkfront +
# xblkback) in one boot, and fio on the same null_blk straight from dom0 ("native"), in one of
# three regimes (XLAB_REGIME, XLAB_OPTS regime=; Documentation/bench.rst). Suites "bench-r1",
# "bench-r2" and "bench-r3" are this file with the regime set (scripts/bench.sh boots each
# once); "bench-wall" is its notification mode, booted on the wall clock. run.sh boots the
# others on QEMU's icount clock (single-threaded TCG, 1 instruction = 1 ns of virtual time, idle
# time skipped); XLAB_CLOCK=wall runs them on multi-threaded TCG and the host's time instead.
#
# The guest runs with tsc_mode="native" (its rdtsc unemulated, as on a host with an invariant
# TSC); XLAB_OPTS guest_tsc=default gives it Xen's default, which here emulates every rdtsc.
#
# Regimes (fio, O_DIRECT, libaio, group report, XLAB_RUNTIME seconds of the guest's clock per
# job, default 1; under icount that clock is virtual):
#   r1  CPU-bound: a memory-less 1 GiB null_blk "nbfast" (irqmode=1), set "r1":
#         seq-4k    sequential read 4 KiB, 8 jobs x iodepth 32 x iodepth_batch_submit 16
#         rand-4k   random read 4 KiB, 2 jobs x iodepth 32
#         qd1       random read 4 KiB, 1 job x iodepth 1
#       phases: core (those three, XLAB_ROUNDS rounds, default 2; qd1 on to XLAB_QD1_ROUNDS,
#       default 4: its rounds differ most), sweep (seq-512 ... seq-128k but seq-4k, as seq-4k
#       with --bs, XLAB_SWEEP_ROUNDS, default 2), dl (the core jobs with the guest's disks on
#       mq-deadline, pairs PAIR@dl, XLAB_DL_ROUNDS, default 2). Named in XLAB_WORK only:
#       write-4k (seq-4k with --rw=write), rand-4k-q1 (rand-4k on 1 queue), qd1-cpu0/qd1-cpu1
#       (fio held on guest CPU 0 / 1), slow-seq-4k, slow-rand-4k, slow-qd1, slow-qd2, slow-qd4
#       (on "nbslow", irqmode=2 completion_nsec=XLAB_SLOW_NSEC, default 1 ms)
#   r2  device-bound: null_blks with irqmode=2, one per XLAB_DEVS entry LAT-TAGS (default
#       10ms-256,10ms-64,2ms-256: completion_nsec LAT, hw_queue_depth TAGS), set "r2-LAT-TAGS",
#       attached to the guest one after the other; jobs: seq-4k, seq-64k, seq-128k (seq-4k
#       with --bs), write-4k, rand-4k, rand-4k-deep (8 jobs x iodepth 32 random 4 KiB), qd1,
#       qd4 (random 4 KiB, 1 job x iodepth 1 / 4, XLAB_QD_RUNTIME s, default 3), on the 64-tag
#       device only the five it limits, on the 2 ms one without the default in-tree pair
#       (r2_wants; XLAB_FULL=1: all); XLAB_ROUNDS rounds; default pairs intree, intree-tuned,
#       xblk
#   r3  per stage: Xen schedules every vCPU on pCPU 0 (the others leave its cpupool), so that
#       the CPU time it charges each domain is exactly the instructions run for it; seq-4k,
#       rand-4k and qd1 on nbfast through one queue (max_queues=1, one ring), set "r3"
# Every round runs the pairs in turn, their order alternating from one round to the next;
# native runs a phase's jobs in the first XLAB_NATIVE_ROUNDS rounds (default 1). Notification
# mode (XLAB_BENCH_MODE=notify, suite bench-wall, set "notify"): seq-4k, rand-4k, slow-seq-4k
# and slow-rand-4k once per pair, no native, XLAB_RUNTIME default 5.
# XLAB_PAIRS (default intree,xblk; r2: intree,intree-tuned,xblk): intree-tuned is xen-blkfront
# with max_ring_page_order=2 max_indirect_segments=256 (as an informed admin sets it); variants
# of ours: xblk-b<N> (frontend max_inflight=N), xblk-v0 (frontend inflight_control=0: the
# fixed bound), xblk-i<N> (irq_batch=N), xblk-u<N> (irq_wait_us=N), xblk-p<0|1> (backend
# poll_inflight), xblk-c<N> and xblk-w<N> (backend coalesce_reqs=N, coalesce_usecs=N), xblk-f0
# (frontend irq_affinity=0 and backend irq_follow=0), combined as in xblk-b0-i1-p0; a suffix
# @dl, @ky or @bfq runs that pair with the guest's disks on mq-deadline, kyber or bfq; a
# suffix ~emu runs it in a guest with Xen's default tsc_mode (its rdtsc emulated here),
# ~native with tsc_mode "native" (as intree~emu,xblk~emu: both TSC modes in one boot).
# XLAB_WORK=a,b limits the jobs. An option prefixed with a regime (XLAB_OPTS r1_pairs=...,
# r2_rounds=3) applies to that regime only.
#
# One line per job:  XLAB-BENCH round=R clock=C set=S pair=P work=W key=value...
# with fio's IOPS, KiB/s and latencies, the guest disk's, dom0's device's (dev_*) and the
# backend's counters, and the CPU time Xen charged dom0 and the guest during a window inside
# the job (cpu_*_ns, see cpu_window). scripts/bench.sh turns them into tables, a CSV and a plot;
# each case only fails when a job did not run (the report applies the targets).

# what run.sh needs to know about this suite (README.md "Suite metadata")
suite_meta() {
	# under icount one TCG thread runs every vCPU: a 2 s (virtual) CPU-bound job takes 25-40 s
	# of wall time, the whole suite ~30 min
	SUITE_CLOCK=icount SUITE_TIMEOUT=2400
	[ "${XLAB_CLOCK:-$SUITE_CLOCK}" != icount ] || SUITE_TIMEOUT=3600
}
. /lab/dom0.sh
G=g1 FRONT=xen-blkfront BACK=xen-blkback POOL_CPUS=
CLOCK=${XLAB_CLOCK:-wall}
MODE=${XLAB_BENCH_MODE:-main}
REGIME=${XLAB_REGIME:-r1}
[ "$MODE" = notify ] && REGIME=notify
# XLAB_OPTS r1_rounds=3, r2_pairs=...: an option for one regime only (make bench boots all
# three with the same XLAB_OPTS)
for v in $(compgen -v "XLAB_${REGIME^^}_"); do printf -v "XLAB_${v#"XLAB_${REGIME^^}_"}" %s "${!v}"; done
# the guest's rdtsc runs natively (lib/dom0.sh _guest_create1 writes tsc_mode)
XLAB_GUEST_TSC=${XLAB_GUEST_TSC:-native}
TSC_DEFAULT=$XLAB_GUEST_TSC
case $REGIME in
r1 | r3) rt=1 pairs=intree,xblk ;;
r2) rt=1 pairs=intree,intree-tuned,xblk ;;
notify) rt=5 pairs=intree,xblk ;;
*) rt=1 pairs=intree,xblk ;;
esac
RT=${XLAB_RUNTIME:-$rt}
SLOW_NSEC=${XLAB_SLOW_NSEC:-1000000}
ROUNDS=${XLAB_ROUNDS:-2}
SWEEP_ROUNDS=${XLAB_SWEEP_ROUNDS:-2}
DL_ROUNDS=${XLAB_DL_ROUNDS:-2}
QD1_ROUNDS=${XLAB_QD1_ROUNDS:-4}
NATIVE_ROUNDS=${XLAB_NATIVE_ROUNDS:-1}
PAIRS=${XLAB_PAIRS:-$pairs}
DEVS=${XLAB_DEVS:-10ms-256,10ms-64,2ms-256}
CORE="seq-4k rand-4k qd1"
SWEEP="seq-512 seq-1k seq-2k seq-8k seq-16k seq-32k seq-64k seq-128k"
EXTRA="write-4k rand-4k-q1 qd1-cpu0 qd1-cpu1 slow-seq-4k slow-rand-4k slow-qd1 slow-qd2 slow-qd4"
R2JOBS="seq-4k seq-64k seq-128k write-4k rand-4k rand-4k-deep qd1 qd4"
R3JOBS="seq-4k rand-4k qd1"
NOTIFY="seq-4k rand-4k slow-seq-4k slow-rand-4k"
SEQ="--numjobs=8 --iodepth=32 --iodepth_batch_submit=16"
RAND="--numjobs=2 --iodepth=32 --rw=randread --bs=4k"
QD1="--numjobs=1 --iodepth=1 --rw=randread --bs=4k"
# (fio takes a time with a unit: fractions of a second as ms)
# the CPU-time window: from LEAD s after the job's first I/O, WIN s long (ends 0.3 s before
# fio, or halfway for runs under 1 s)
LEAD=0.2
WIN=$(awk -v r="$RT" 'BEGIN { w = r - 0.5; if (w < r / 2) w = r / 2; print w }')
WORK=,${XLAB_WORK:-},
WORK=${WORK//,slow-4k,/,slow-seq-4k,}

want_work() { [ "$WORK" = ,, ] || [[ $WORK == *,$1,* ]]; }
named_work() { [[ $WORK == *,$1,* ]]; }

# job_spec SET JOB: sets JOB_ARGS to the job's fio arguments (its device aside) and JOB_RT to its
# runtime: XLAB_RUNTIME, but for R2's queue depths 1 and 4 XLAB_QD_RUNTIME (3 s: at 100 I/Os a
# second, a 1 s job counts its I/Os to 1 %; device-bound, they cost little wall time)
job_spec() {
	JOB_RT=$RT
	[[ $1 == r2-* && $2 == qd[0-9]* ]] && JOB_RT=${XLAB_QD_RUNTIME:-3}
	JOB_ARGS=$(job_fio "$2") || return 1
	ms_of "$JOB_RT"
	JOB_ARGS="--runtime=${MS}ms --time_based $JOB_ARGS"
}

# ms_of SECONDS: sets MS to SECONDS (1, 0.5, 2.25) in milliseconds, without a fork
ms_of() {
	local i=${1%%.*} f=""
	[[ $1 == *.* ]] && f=${1#*.}
	f=${f}000
	MS=$((10#${i:-0} * 1000 + 10#${f:0:3}))
}

# job_fio NAME: the fio arguments of a job (its device and runtime aside)
job_fio() {
	case $1 in
	seq-* | slow-seq-4k) local bs=${1#*seq-}; echo "$SEQ --rw=read --bs=$bs" ;;
	write-4k) echo "$SEQ --rw=write --bs=4k" ;;
	rand-4k | rand-4k-q1 | slow-rand-4k) echo "$RAND" ;;
	rand-4k-deep) echo "--numjobs=8 --iodepth=32 --rw=randread --bs=4k" ;;
	qd1 | slow-qd1) echo "$QD1" ;;
	# where the guest runs fio: one cause of qd1's spread between rounds (bench.rst)
	qd1-cpu[01]) echo "$QD1 --cpus_allowed=${1#qd1-cpu}" ;;
	# a few requests in flight, each resubmitted on its completion (a closed loop)
	qd[0-9]* | slow-qd[0-9]*) echo "--numjobs=1 --iodepth=${1##*qd} --rw=randread --bs=4k" ;;
	*) return 1 ;;
	esac
}

# unit_dev SET/JOB: the dom0 device a job of a set runs on (UDEV: the same without a fork)
unit_dev() { udev "$1"; echo "$UDEV"; }
udev() {
	local set=${1%%/*} job=${1#*/}
	case $set in
	r2-*) set=${set#r2-}; UDEV=nb${set//-/} ;;
	*) [[ $job == slow-* ]] && UDEV=nbslow || UDEV=nbfast ;;
	esac
}

# dev_spec LAT-TAGS: "completion_nsec hw_queue_depth" (10ms-256 -> 10000000 256)
dev_spec() {
	local lat=${1%%-*} tags=${1#*-}
	case $lat in
	*ms) echo "$((${lat%ms} * 1000000)) $tags" ;;
	*us) echo "$((${lat%us} * 1000)) $tags" ;;
	*) return 1 ;;
	esac
}

# the units (SET/JOB) of each phase, as selected by XLAB_WORK
core_units() {
	local w
	for w in $CORE; do want_work "$w" && echo "r1/$w"; done
	for w in $EXTRA; do named_work "$w" && echo "r1/$w"; done
}
sweep_units() {
	local w
	for w in $SWEEP; do want_work "$w" && echo "r1/$w"; done
}
r2_units() {
	local d w
	for d in ${DEVS//,/ }; do
		for w in $R2JOBS; do want_work "$w" && echo "r2-$d/$w"; done
	done
}
r3_units() {
	local w
	for w in $R3JOBS; do want_work "$w" && echo "r3/$w"; done
}
notify_units() {
	local w
	for w in $NOTIFY; do want_work "$w" && echo "notify/$w"; done
}

bench_setup() {
	local d ns tags
	modprobe null_blk nr_devices=0 || return 1
	modprobe configfs 2>/dev/null
	[ -d /sys/kernel/config/nullb ] || mount -t configfs configfs /sys/kernel/config
	# 1 GiB, memory-less
	nullb_make nbfast size=1024 memory_backed=0 irqmode=1 &&
		nullb_make nbslow size=1024 memory_backed=0 irqmode=2 completion_nsec="$SLOW_NSEC" ||
		{ log "cannot create the null_blk devices"; return 1; }
	if [ "$REGIME" = r2 ]; then
		for d in ${DEVS//,/ }; do
			read -r ns tags <<< "$(dev_spec "$d")" && [ -n "$tags" ] ||
				{ log "devs: '$d' is not LAT-TAGS (10ms-256)"; return 1; }
			nullb_make "$(unit_dev "r2-$d/x")" size=1024 memory_backed=0 irqmode=2 completion_nsec="$ns" hw_queue_depth="$tags" ||
				{ log "cannot create the null_blk for $d"; return 1; }
			log "$(unit_dev "r2-$d/x"): completion $ns ns, $(cat "/sys/block/$(unit_dev "r2-$d/x")/queue/nr_requests") tags," \
				"$(cat "/sys/block/$(unit_dev "r2-$d/x")/queue/max_sectors_kb") KiB max"
		done
	fi
	command -v xlab-cputime > /dev/null || { log "xlab-cputime is missing from the dom0 image"; return 1; }
	xlab-cputime 0 > /dev/null || { log "xlab-cputime 0 failed"; return 1; }
	# the same counters as xl's, which rounds them to 0.1 s
	log "dom0 CPU time: xlab-cputime $(xlab-cputime 0 | awk '{ sub(/.*0=/, ""); printf "%.2f s", $1 / 1e9 }')," \
		"xl vcpu-list $(xl vcpu-list 0 | awk 'NR > 1 { s += $6 } END { printf "%.1f s", s }')"
	rm -f $LAB_TMP/sleep.fifo
	mkfifo $LAB_TMP/sleep.fifo || return 1
	log "nbfast: $(cat /sys/block/nbfast/queue/max_sectors_kb) KiB max, nbslow completes after $SLOW_NSEC ns"
}

# stage_begin / stage_end (r3): around a case's jobs, Xen schedules every vCPU on pCPU 0: the
# other pCPUs leave its cpupool (and idle), then come back. Under icount a vCPU is then charged
# exactly the instructions run while it held pCPU 0, its own and Xen's on its behalf; with two
# pCPUs in turn on one instruction stream it is also charged the other pCPU's turns
# (Documentation/bench.rst, "CPU time per I/O"). The module loads, attaches and detaches run on
# both: on one, every IPI between a domain's vCPUs waits for the other's turn, and they take
# several times as long (of wall time: the figures are the jobs' alone)
stage_begin() {
	local n c
	[ "$REGIME" = r3 ] || return 0
	n=$(xl info | awk '$1 == "nr_cpus" { print $3 }')
	for ((c = 1; c < ${n:-1}; c++)); do
		xl cpupool-cpu-remove Pool-0 "$c" || { case_fail "r3: pCPU $c stays in Pool-0"; return 1; }
	done
	POOL_CPUS=$(xl cpupool-list | awk '$1 == "Pool-0" { print $2 }')
	case_note "Xen's pool: $POOL_CPUS pCPU"
}
stage_end() {
	local n c
	[ "$REGIME" = r3 ] || return 0
	n=$(xl info | awk '$1 == "nr_cpus" { print $3 }')
	for ((c = 1; c < ${n:-1}; c++)); do
		xl cpupool-cpu-add Pool-0 "$c" || log "r3: pCPU $c not back in Pool-0"
	done
	POOL_CPUS=
}

# bsleep SECONDS: sleep without a fork (the CPU-time window should hold as little of dom0's
# own bookkeeping as possible)
bsleep() { read -r -t "$1" <> $LAB_TMP/sleep.fifo; }

# irq_count REGEX (dom0): sets IRQ_N to the interrupts so far of the lines named REGEX; builtins
# only (every fork costs dom0 millions of instructions under TCG, and the bench forks between
# jobs add up to minutes of wall time)
irq_count() {
	local -a f
	local i
	IRQ_N=0
	while read -r -a f; do
		[ ${#f[@]} -gt 1 ] && [[ ${f[-1]} =~ $1 ]] || continue
		for ((i = 1; i < ${#f[@]}; i++)); do
			[[ ${f[i]} =~ ^[0-9]+$ ]] || break
			IRQ_N=$((IRQ_N + f[i]))
		done
	done < /proc/interrupts
}

# be_counters DIR: sets BEC to the backend's rd_req wr_req f_req ds_req err_req passes notify_in
# notify_out timer_polls of the vbd whose sysfs directory is DIR ("-" for what a backend does
# not count: the in-tree one has no err_req, passes, notify counters or timer); builtins only
be_counters() {
	local k v
	BEC=()
	for k in rd_req wr_req f_req ds_req err_req passes notify_in notify_out timer_polls; do
		v=-
		if [ -r "$1/statistics/$k" ]; then
			read -r v < "$1/statistics/$k"
		elif [ -r "$1/$k" ]; then
			read -r v < "$1/$k"
		fi
		BEC+=("${v:--}")
	done
}

# io_count SPEC: sets IO_N to the I/Os completed so far: SPEC blk:DISK (dom0's
# /sys/block/DISK/stat, reads + writes) or be:DIR (a backend's statistics/rd_req + wr_req).
# Builtins only (no fork).
io_count() {
	local -a s
	local a b
	case $1 in
	blk:*) read -r -a s < "/sys/block/${1#blk:}/stat"; IO_N=$((s[0] + s[4])) ;;
	be:*) read -r a < "${1#be:}/statistics/rd_req"; read -r b < "${1#be:}/statistics/wr_req"; IO_N=$((a + b)) ;;
	esac
}

# cpu_window SPEC BASE DONE DOMID...: the CPU time Xen charged each DOMID during a window inside
# the running job, printed as cpu_* keys. The job's first I/O is when io_count SPEC passes
# BASE (its value before the job); the window starts LEAD s later and lasts WIN s, so that it
# holds neither fio's start (job creation, file opening) nor its end. DONE tells whether the job
# has ended: "file:PATH" (exists) or "xs:KEY=VALUE" (the guest's xenstore mark KEY is VALUE,
# "TOKEN end" for its bench_fio -m TOKEN). A window the
# job did not span prints cpu_ok=0. Keys: cpu_win_ns (the window, dom0's clock), cpu_idle_ns
# (idle time of Xen's pCPUs), cpu_d0_ns (dom0) and cpu_g_ns (the first other DOMID: the
# guest), win_io (I/Os completed in the window, by SPEC's count), d0_vcpu (each dom0 vCPU's
# busy time in the window by dom0's own /proc/stat, 1/100 s: where dom0's work ran).
cpu_window() {
	local spec=$1 base=$2 done=$3 i=0 io0 io1 u0 u1 ub s0 s1 why="" out
	local -a a b
	shift 3
	# wake up on time even when dom0's own fio (native) keeps its vCPUs busy; XLAB_OPTS
	# samplerfifo=native: only then, 0: never, 1 (default): always (whether the real-time
	# sampler, taking a vCPU from a backend's ring thread, costs the PV pairs: not measurably,
	# bench-notebook.rst)
	local fifo=${XLAB_SAMPLERFIFO:-1}
	[ "$fifo" = native ] && [[ $spec == blk:* ]] && fifo=1
	if [ "$fifo" = 1 ]; then
		chrt -f -p 50 $BASHPID > /dev/null 2>&1 || renice -n -20 -p $BASHPID > /dev/null 2>&1
	fi
	read -r u0 _ < /proc/uptime
	io_count "$spec"
	while [ "$IO_N" -le "$base" ]; do
		bsleep 0.02
		i=$((i + 1))
		if [ $((i % 50)) = 0 ] && job_done "$done"; then why=no_io; break; fi
		[ $i -gt 15000 ] && { why=no_io; break; }
		io_count "$spec"
	done
	read -r u1 _ < /proc/uptime
	if [ -z "$why" ]; then
		bsleep $LEAD
		io_count "$spec"; io0=$IO_N
		# XLAB_OPTS=insnprof=1: the host's plugin dumps what ran before the window, then the
		# window itself (run.sh, tests/bench/xlab-insnprof.c)
		[ -n "${XLAB_INSNPROF:-}" ] && echo "XLAB-PROF-MARK pre.$PROF_TAG" >&2
		read -r -a a <<< "$(xlab-cputime "$@")"
		cpu_stat; s0=$CPU_S
		bsleep "$WIN"
		cpu_stat; s1=$CPU_S
		read -r -a b <<< "$(xlab-cputime "$@")"
		io_count "$spec"; io1=$IO_N
		[ -n "${XLAB_INSNPROF:-}" ] && echo "XLAB-PROF-MARK $PROF_TAG" >&2 &&
			echo "XLAB-PROF-IO $PROF_TAG io=$((io1 - io0))" >&2
		read -r ub _ < /proc/uptime
		# the job must still be doing I/O after the window (dom0's own fio, for native, can
		# delay the samples)
		bsleep 0.05
		io_count "$spec"
		if job_done "$done" || [ "$IO_N" -le "$io1" ]; then
			why=job_ended
		elif [ ${#a[@]} -lt 3 ] || [ ${#a[@]} != ${#b[@]} ]; then
			why="xlab-cputime:${a[*]}|${b[*]}"
		fi
	fi
	# (dom0's clock: waited for the first I/O from u0 to u1, window ended at ub; on stderr, the
	# console: stdout is the caller's)
	secs "$u0" "$u1"; out=$SECS
	secs "$u1" "${ub:-$u1}"
	log "cpu window: first I/O after $out s, window ended $SECS s after it${why:+: no figures ($why)}" >&2
	if [ -n "$why" ]; then
		echo "cpu_ok=0"
		return
	fi
	# t=N idle=N 0=N [domid=N], integers (ns)
	for i in "${!a[@]}"; do a[i]=${a[i]#*=} b[i]=${b[i]#*=}; done
	out="cpu_ok=1 cpu_win_ns=$((b[0] - a[0])) cpu_idle_ns="
	if [ "${a[1]}" = - ] || [ "${b[1]}" = - ]; then out+=-; else out+=$((b[1] - a[1])); fi
	out+=" cpu_d0_ns=$((b[2] - a[2])) cpu_g_ns="
	if [ ${#a[@]} -ge 4 ]; then out+=$((b[3] - a[3])); else out+=-; fi
	cpu_busy "$s0" "$s1"
	echo "$out win_io=$((io1 - io0)) d0_vcpu=$BUSY"
}
# secs A B: sets SECS to B - A of two /proc/uptime readings (s, two decimals), without a fork
secs() {
	local d=$((10#${2/./} - 10#${1/./}))
	printf -v SECS '%d.%02d' $((d / 100)) $((d % 100))
}
# cpu_stat: sets CPU_S to the busy time of each of dom0's vCPUs so far (user + nice + system +
# irq + softirq from /proc/stat, 1/100 s), space separated; builtins only
cpu_stat() {
	local n u ni sy id io irq sirq rest
	CPU_S=""
	while read -r n u ni sy id io irq sirq rest; do
		[[ $n == cpu[0-9]* ]] && CPU_S="$CPU_S $((u + ni + sy + irq + sirq))"
	done < /proc/stat
}
# cpu_busy "A" "B": sets BUSY to the per-vCPU differences of two CPU_S, as 12/180
cpu_busy() {
	local -a a b
	local i out=""
	read -r -a a <<< "$1"
	read -r -a b <<< "$2"
	for i in "${!a[@]}"; do out="$out/$((b[i] - a[i]))"; done
	BUSY=${out#/}
}

job_done() {
	case $1 in
	file:*) [ -e "${1#file:}" ] ;;
	xs:*) local k=${1#xs:}; [ "$(xenstore-read "${k%%=*}" 2>/dev/null)" = "${1#*=}" ] ;;
	esac
}

# fio_line: the key=value summary of dom0's /tmp/fio.out (as the guest's bench_fio prints it)
fio_line() {
	awk -F';' '/^3;/{ o = ($49 > $8) ? 41 : 0
		printf "iops=%.0f kibs=%.0f clat_mean=%.1f lat_mean=%.1f", $8 + $49, $7 + $48, $(16 + o), $(40 + o)
		split($(18 + o), a, "="); split($(19 + o), b, "="); split($(20 + o), c, "=")
		printf " clat_p50=%s clat_p99=%s clat_p999=%s", a[2], b[2], c[2] }' /tmp/fio.out
}

# dev_delta A B: sets DEVD to dom0's device counters between two reads of /sys/block/DEV/stat,
# as dev_* keys (where the requests arrive: dev_rd_sect / dev_rd is the average request there)
dev_delta() {
	local -a a b
	read -r -a a <<< "$1"
	read -r -a b <<< "$2"
	DEVD="dev_rd=$((b[0] - a[0])) dev_rd_merged=$((b[1] - a[1])) dev_rd_sect=$((b[2] - a[2]))"
	DEVD="$DEVD dev_wr=$((b[4] - a[4])) dev_wr_merged=$((b[5] - a[5])) dev_wr_sect=$((b[6] - a[6]))"
}

# c_native ROUND UNIT...: the jobs (SET/JOB) with fio in dom0 on the null_blk itself
c_native() {
	local round=$1 unit set name dev args line s0 s1 rc cw n=0
	shift
	stage_begin || return 1
	for unit in "$@"; do
		set=${unit%%/*} name=${unit#*/}
		[ "$name" = rand-4k-q1 ] && continue
		udev "$unit"; dev=$UDEV
		r2_wants native "$unit" || continue
		job_spec "$set" "$name" || { case_fail "$name: no such job"; continue; }
		args=$JOB_ARGS
		PROF_TAG=r$round.native.$name
		read -r -a s0 < "/sys/block/$dev/stat"
		rm -f $LAB_TMP/native.rc
		# shellcheck disable=SC2086
		(fio --output-format=terse --terse-version=3 --name=b --filename=/dev/$dev --ioengine=libaio \
			--direct=1 --group_reporting --percentile_list=50:99:99.9 $args \
			> /tmp/fio.out 2> /tmp/fio.err
			echo $? > $LAB_TMP/native.rc) &
		cw=$(cpu_window "blk:$dev" $((s0[0] + s0[4])) "file:$LAB_TMP/native.rc" 0 "${G_DOMID[$G]}")
		wait $!
		rc=$(cat $LAB_TMP/native.rc 2>/dev/null || echo 255)
		read -r -a s1 < "/sys/block/$dev/stat"
		dev_delta "${s0[*]}" "${s1[*]}"
		line=$(fio_line)
		[ "$rc" = 0 ] && [ -n "$line" ] || { case_fail "$name: fio rc=$rc $(tail -2 /tmp/fio.err)"; continue; }
		echo "XLAB-BENCH round=$round clock=$CLOCK set=$set pair=native work=$name runtime=$JOB_RT dev=$dev $line rd=$((s1[0] - s0[0]))" \
			"rd_merged=$((s1[1] - s0[1])) rd_sect=$((s1[2] - s0[2])) wr=$((s1[4] - s0[4]))" \
			"wr_merged=$((s1[5] - s0[5])) wr_sect=$((s1[6] - s0[6])) $DEVD" \
			"${POOL_CPUS:+pool_cpus=$POOL_CPUS }$cw"
		n=$((n + 1))
	done
	stage_end
	case_note "$n jobs"
}

# guest_tsc MODE: the guest with tsc_mode MODE (native, default), created again if it has another
guest_tsc() {
	[ "$1" = "$XLAB_GUEST_TSC" ] && return 0
	log "guest $G: tsc_mode $XLAB_GUEST_TSC -> $1"
	guest_destroy "$G"
	XLAB_GUEST_TSC=$1
	guest_create "$G" 2 512 || { case_fail "guest $G with tsc_mode $1 not created"; return 1; }
	log "guest: $(xl list -l "$G" 2>/dev/null | grep -m1 '"tsc_mode"' | tr -d ' ,')"
}

# pair_use PAIR QUEUES: load PAIR's modules (no disk attached); sets FE_IRQ/BE_IRQ (names of
# their interrupt lines in /proc/interrupts) and SCHED (the guest's I/O scheduler: PAIR@dl =
# mq-deadline, @ky = kyber, @bfq = bfq, default none); PAIR~emu runs it in a guest whose rdtsc
# Xen emulates (tsc_mode "default": the lab's TCG CPU has no invariant TSC), PAIR~native in one
# with tsc_mode "native" (the default of the bench)
pair_use() {
	local pair=${1%@*} q=$2 fe=() v be tsc=$TSC_DEFAULT
	SCHED=none
	case $1 in
	*@dl) SCHED=mq-deadline ;;
	*@ky) SCHED=kyber ;;
	*@bfq) SCHED=bfq ;;
	*@*) case_fail "unknown scheduler in $1"; return 1 ;;
	esac
	case $pair in
	*~emu) tsc=default ;;
	*~native) tsc=native ;;
	*~*) case_fail "unknown guest TSC in $1 (~emu, ~native)"; return 1 ;;
	esac
	pair=${pair%~*}
	guest_tsc "$tsc" || return 1
	case $pair in
	intree | intree-tuned)
		be_use xen-blkback || return 1
		fe=(xen-blkfront)
		[ "$q" = 1 ] && fe+=(max_queues=1)
		# what an informed admin sets: 4-page rings (128 slots each) and 1 MiB requests;
		# xen-blkback offers both by default (max_ring_page_order 4, 256 indirect segments)
		[ "$pair" = intree-tuned ] && fe+=(max_ring_page_order=2 max_indirect_segments=256)
		FE_IRQ='^blkif$' BE_IRQ='^blkif-backend$'
		;;
	xblk | xblk-*)
		# variants: xblk-b<N> max_inflight=N, -v0 inflight_control off (the fixed bound),
		# -i<N> irq_batch=N, -u<N> irq_wait_us=N (frontend), -p<0|1> the backend's
		# poll_inflight, -f0 both sides' event affinity off, -c<N> the backend's
		# coalesce_reqs=N, -w<N> its coalesce_usecs=N; e.g. xblk-b0-i1-p0-c1 batches nothing
		local -a vs
		be=(xblkback)
		fe=(xblkfront)
		[ "$q" = 1 ] && fe+=(max_queues=1)
		IFS=- read -r -a vs <<< "${pair#xblk}"
		for v in "${vs[@]}"; do
			case $v in
			"") ;;
			b[0-9]*) fe+=(max_inflight="${v#b}") ;;
			v[01]) fe+=(inflight_control="${v#v}") ;;
			i[0-9]*) fe+=(irq_batch="${v#i}") ;;
			u[0-9]*) fe+=(irq_wait_us="${v#u}") ;;
			p[01]) be+=(poll_inflight="${v#p}") ;;
			c[0-9]*) be+=(coalesce_reqs="${v#c}") ;;
			w[0-9]*) be+=(coalesce_usecs="${v#w}") ;;
			f[01]) fe+=(irq_affinity="${v#f}") be+=(irq_follow="${v#f}") ;;
			*) case_fail "unknown variant $v in $pair"; return 1 ;;
			esac
		done
		be_use "${be[@]}" || return 1
		FE_IRQ='^xvd[a-z]+-q[0-9]+$' BE_IRQ='^xblkback$'
		;;
	*) case_fail "unknown pair $pair"; return 1 ;;
	esac
	fe_use "$G" "${fe[@]}"
}

# delta A B: sets D to B - A, or "-" when either is not a number
delta() { if [[ $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ ]]; then D=$(($2 - $1)); else D=-; fi; }

# kprof_reset / kprof_dump TAGS: with XLAB_OPTS=kprof=1 (the kernels booted with profile=2),
# clear the tick profiles of dom0 and the guest before a job and print their busiest kernel
# functions after it, "XLAB-KPROF TAGS side=dom0|guest ticks=N pct=P sym=S" (under icount a
# tick is 4 ms of one vCPU's instructions; user mode is not sampled)
kprof_reset() {
	echo 0 > /proc/sys/kernel/kptr_restrict
	xlab-kprof reset
	g_run "$G" "echo 0 > /proc/sys/kernel/kptr_restrict; xlab-kprof reset" ||
		log "kprof: guest reset failed (rc=$G_RC)"
}
kprof_dump() {
	local o=$G_OUT rc=$G_RC
	xlab-kprof top 40 | awk -v t="$1" '{ print "XLAB-KPROF " t " side=dom0 ticks=" $1 " pct=" $2 " sym=" $3 }'
	g_run "$G" "xlab-kprof top 40" &&
		awk -v t="$1" '/^[0-9]/ || /^total/ { print "XLAB-KPROF " t " side=guest ticks=" $1 " pct=" $2 " sym=" $3 }' "$G_OUT"
	G_OUT=$o G_RC=$rc
}

# vcpu_pin DOMID: with XLAB_OPTS=vcpupin=1, vCPU N of dom0 and of the guest on pCPU N (modulo
# the pCPUs), so that Xen's scheduler does not move them between jobs or within one
vcpu_pin() {
	local d v n
	n=$(xl info | awk '$1 == "nr_cpus" { print $3 }')
	for d in 0 "$1"; do
		for v in $(xl vcpu-list "$d" | awk 'NR > 1 { print $3 }'); do
			xl vcpu-pin "$d" "$v" $((v % ${n:-1})) || log "vcpupin: domain $d vCPU $v not pinned"
		done
	done
}

# wtrace_report TAGS: with XLAB_OPTS=wtrace=1, the guest's wake-ups and interrupts during the
# job (guest.sh's wtrace_dump), "XLAB-WTRACE TAGS n=COUNT what=..." and "XLAB-WTRACE TAGS
# overrun=N" (events lost; tracing costs instructions: not for a job whose IOPS count)
wtrace_report() {
	local o=$G_OUT rc=$G_RC
	g_run "$G" wtrace_dump &&
		awk -v t="$1" '$1 ~ /^[0-9]+$/ { print "XLAB-WTRACE " t " n=" $1 " what=" $2 ":" $3 }
			/^overrun=/ { print "XLAB-WTRACE " t " " $1 }' "$G_OUT" >&2
	G_OUT=$o G_RC=$rc
}

# pinbe_apply DOMID: with XLAB_OPTS=pinbe=1, xblkback's ring threads of the guest DOMID held on one
# dom0 CPU each (ring N on CPU N mod CPUs), so that the bios a thread submits end on its CPU
# (an experiment on the return path, bench-notebook "Random reads on the slow device")
pinbe_apply() {
	local c n r
	n=$(nproc)
	for c in /proc/[0-9]*/comm; do
		read -r r < "$c" 2>/dev/null || continue
		[[ $r == xbb.$1.* ]] || continue
		r=${r##*.}
		c=${c#/proc/}
		taskset -p "$(printf %x $((1 << (r % n))))" "${c%/comm}" > /dev/null ||
			log "pinbe: taskset of ${c%/comm} failed"
	done
}

# btrace_begin / btrace_report TAGS: with XLAB_OPTS=btrace=1 and xblkback serving, how long each
# finished bio waited in dom0 for its response to be pushed: xblkback_bio_end to the next
# xblkback_respond of its ring (matched in order, as many as the push carried), in us of the
# mono clock: "XLAB-BTRACE TAGS n=N mean=US le25=N le100=N le250=N le1000=N max=US
# other_cpu=N other_cpu_mean=US thread_on=N thread_on_mean=US wakeups=N wake_mean=US wake_gt100=N
# wake_max=US overrun=N" (other_cpu: the bio ended on another CPU than the push; thread_on: while
# its ring's thread was on a CPU; wake: a ring thread's sched_wakeup to its sched_switch in).
# Tracing costs instructions: not for a job whose IOPS count.
BTRACE=/sys/kernel/tracing
btrace_begin() {
	[ -d $BTRACE/events ] || mount -t tracefs nodev $BTRACE || { log "btrace: no tracefs"; return 0; }
	[ -d $BTRACE/events/xblkback ] || return 0
	echo 0 > $BTRACE/tracing_on && echo mono > $BTRACE/trace_clock &&
		echo 8192 > $BTRACE/buffer_size_kb && echo > $BTRACE/trace &&
		echo 1 > $BTRACE/events/xblkback/xblkback_bio_end/enable &&
		echo 1 > $BTRACE/events/xblkback/xblkback_respond/enable &&
		echo 'comm ~ "xbb.*"' > $BTRACE/events/sched/sched_wakeup/filter &&
		echo 'next_comm ~ "xbb.*" || prev_comm ~ "xbb.*"' > $BTRACE/events/sched/sched_switch/filter &&
		echo 1 > $BTRACE/events/sched/sched_wakeup/enable &&
		echo 1 > $BTRACE/events/sched/sched_switch/enable &&
		echo 1 > $BTRACE/tracing_on || log "btrace: not started"
}
btrace_report() {
	local ov
	[ -d $BTRACE/events/xblkback ] || return 0
	echo 0 > $BTRACE/tracing_on
	echo 0 > $BTRACE/events/xblkback/enable
	echo 0 > $BTRACE/events/sched/sched_wakeup/enable
	echo 0 > $BTRACE/events/sched/sched_switch/enable
	ov=$(cat $BTRACE/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s + 0 }')
	awk -v t="$1" -v ov="$ov" '
	function field(k,   v) { v = $0; sub(".*" k "=", "", v); sub(/[^0-9].*/, "", v); return v + 0 }
	/ (xblkback_(bio_end|respond)|sched_(wakeup|switch)):/ {
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^\[[0-9]+\]$/) cpu = $i
			if ($i ~ /^[0-9]+\.[0-9]+:$/) { ts = substr($i, 1, length($i) - 1) * 1e6; break }
		}
	}
	/ sched_wakeup:/ { wk[field("pid")] = ts; next }
	/ sched_switch:/ {
		np = field("next_pid")
		if (np in wk) {
			d = ts - wk[np]; delete wk[np]
			wn++; wsum += d; if (d > wmax) wmax = d; if (d > 100) w100++
		}
		if ($0 ~ /prev_comm=xbb/) { v = $0; sub(/ prev_pid=.*/, "", v); sub(/.*\./, "", v); on[v] = 0 }
		if ($0 ~ /next_comm=xbb/) { v = $0; sub(/ next_pid=.*/, "", v); sub(/.*\./, "", v); on[v] = 1 }
		next
	}
	/xblkback_(bio_end|respond):/ { r = field("ring") }
	/xblkback_bio_end:/ { k = tl[r] + 0; q[r, k] = ts; qc[r, k] = cpu; qr[r, k] = on[r] + 0; tl[r] = k + 1; next }
	/xblkback_respond:/ {
		for (b = field("batch"); b > 0 && hd[r] + 0 < tl[r] + 0; b--) {
			k = hd[r] + 0; d = ts - q[r, k]; hd[r] = k + 1
			if (qc[r, k] != cpu) { nx++; sx += d }
			if (qr[r, k]) { nr++; sr += d }
			delete q[r, k]; delete qc[r, k]; delete qr[r, k]
			n++; sum += d; if (d > max) max = d
			if (d <= 25) c25++; if (d <= 100) c100++; if (d <= 250) c250++; if (d <= 1000) c1000++
		}
	}
	END { printf "XLAB-BTRACE %s n=%d mean=%.1f le25=%d le100=%d le250=%d le1000=%d max=%.1f other_cpu=%d other_cpu_mean=%.1f thread_on=%d thread_on_mean=%.1f wakeups=%d wake_mean=%.1f wake_gt100=%d wake_max=%.1f overrun=%d\n",
		t, n, n ? sum / n : 0, c25, c100, c250, c1000, max, nx, nx ? sx / nx : 0,
		nr, nr ? sr / nr : 0, wn, wn ? wsum / wn : 0, w100, wmax, ov }' $BTRACE/trace >&2
}

# prof_mods PAIR: where each module's text is in dom0 and in the guest, for the instruction
# profile's report: "XLAB-PROF-MOD pair=P side=dom0|guest mod=M text=ADDR"
prof_mods() {
	local f
	for f in /sys/module/*/sections/.text; do
		[ -r "$f" ] || continue
		f=${f#/sys/module/}
		echo "XLAB-PROF-MOD pair=$1 side=dom0 mod=${f%/sections/.text} text=$(cat "/sys/module/$f")" >&2
	done
	g_run "$G" 'for f in /sys/module/*/sections/.text; do echo "M ${f#/sys/module/} $(cat $f)"; done' &&
		awk -v p="$1" '$1 == "M" { sub(/\/sections\/.text$/, "", $2)
			print "XLAB-PROF-MOD pair=" p " side=guest mod=" $2 " text=" $3 }' "$G_OUT" >&2
}

# run_job ROUND PAIR QUEUES SET NAME VDEV DEV FIO-ARGS...: one job in the guest on VDEV (dom0's
# DEV), JOB_RT seconds (job_spec), one XLAB-BENCH line. The guest command runs in the background while cpu_window samples
# Xen's CPU times.
run_job() {
	local round=$1 pair=$2 q=$3 set=$4 name=$5 vdev=$6 dev=$7 b0 b1 bi0 bi1 gl="" cw tok domid=${G_DOMID[$G]} jp
	local bedir i be_req passes ring d0 d1 l kv=""
	shift 7
	printf -v i %d "'${vdev#xvd}"
	bedir=/sys/bus/xen-backend/devices/vbd-$domid-$((202 * 256 + (i - 97) * 16))
	tok=$name.$round.$RANDOM
	PROF_TAG=r$round.$pair.$name
	be_counters "$bedir"; b0=("${BEC[@]}")
	irq_count "$BE_IRQ"; bi0=$IRQ_N
	[ -n "${XLAB_VCPUPIN:-}" ] && vcpu_pin "$domid"
	[ -n "${XLAB_KPROF:-}" ] && kprof_reset
	[ -n "${XLAB_WTRACE:-}" ] && { g_run "$G" wtrace_start || log "wtrace: not started in the guest (rc=$G_RC)"; }
	[ -n "${XLAB_BTRACE:-}" ] && btrace_begin
	[ -n "${XLAB_PINBE:-}" ] && pinbe_apply "$domid"
	rm -f $LAB_TMP/job.rc
	read -r d0 < "/sys/block/$dev/stat"
	(g_run -t $((${JOB_RT%.*} + 150)) "$G" "bench_fio -m $tok /dev/$vdev '$FE_IRQ' $*"
		echo "$G_RC $G_OUT" > $LAB_TMP/job.rc) &
	jp=$!
	cw=$(cpu_window "be:$bedir" $((b0[0] + b0[1])) "xs:/local/domain/$domid/data/xlab/bench=$tok end" 0 "$domid")
	wait $jp
	read -r d1 < "/sys/block/$dev/stat"
	read -r G_RC G_OUT < $LAB_TMP/job.rc 2>/dev/null || { G_RC=125 G_OUT=/dev/null; }
	# (the background g_run could not mark the guest bad for the next cases: do it here)
	{ [ "$G_RC" = 124 ] || [ "$G_RC" = 125 ]; } && G_BAD[$G]=1
	be_counters "$bedir"; b1=("${BEC[@]}")
	irq_count "$BE_IRQ"; bi1=$IRQ_N
	while IFS= read -r l; do
		[[ $l == *XLAB-BENCHG\ * ]] && { gl=XLAB-BENCHG\ ${l#*XLAB-BENCHG }; break; }
	done < "$G_OUT"
	[ -n "${XLAB_KPROF:-}" ] && kprof_dump "round=$round pair=$pair work=$name"
	[ -n "${XLAB_WTRACE:-}" ] && wtrace_report "round=$round pair=$pair work=$name"
	[ -n "${XLAB_BTRACE:-}" ] && btrace_report "round=$round pair=$pair work=$name"
	if [ "$G_RC" != 0 ] || [[ $gl != *iops=* ]]; then
		case_fail "$name: fio in the guest failed (rc=$G_RC): $(grep -v '^XLAB-' "$G_OUT" | tail -3 | tr '\n' '|')"
		return 1
	fi
	# requests the backend took: every kind it counts
	be_req=0
	for i in 0 1 2 3 4; do
		delta "${b0[i]}" "${b1[i]}"
		[ "$D" != - ] && be_req=$((be_req + D))
	done
	delta "${b0[5]}" "${b1[5]}"; passes=$D
	ring=$((b1[0] + b1[1] - b0[0] - b0[1]))
	for i in 6 7 8; do
		delta "${b0[i]}" "${b1[i]}"
		case $i in 6) kv="be_notify_in=$D" ;; 7) kv="$kv be_notify_out=$D" ;; 8) kv="$kv be_timer_polls=$D" ;; esac
	done
	dev_delta "$d0" "$d1"
	echo "XLAB-BENCH round=$round clock=$CLOCK set=$set pair=$pair work=$name runtime=$JOB_RT queues=$q dev=$dev ${gl#XLAB-BENCHG }" \
		"ring_req=$ring be_req=$be_req passes=$passes be_irq=$((bi1 - bi0)) $kv $DEVD ${POOL_CPUS:+pool_cpus=$POOL_CPUS }$cw"
}

# set_sched VDEV...: the pair's I/O scheduler on the guest's disks
set_sched() {
	local d cmd="modprobe -a mq-deadline kyber-iosched bfq 2>/dev/null;"
	for d in "$@"; do cmd="$cmd echo $SCHED > /sys/block/$d/queue/scheduler &&"; done
	g_ok "$G" "$cmd cat /sys/block/$1/queue/scheduler" || return 1
}

# ring_note VDEV: what the pair negotiated on VDEV, for the case's note: the backend's offer
# (max-ring-page-order, feature-max-indirect-segments), the frontend's ring-page-order and the
# guest queue's limits
ring_note() {
	local bo bi fo
	bo=$(xs_back "$G" "$1" max-ring-page-order) bi=$(xs_back "$G" "$1" feature-max-indirect-segments)
	fo=$(xs_front "$G" "$1" ring-page-order)
	echo "$1: backend offers ring order ${bo:-0}, ${bi:-no} indirect segments; frontend ring order ${fo:-0}," \
		"queues=$DI_hw_queues max_sectors_kb=$DI_max_sectors_kb nr_requests=$DI_nr_requests"
}

# c_pair ROUND PAIR QUEUES UNIT...: the units (SET/JOB) on QUEUES queues, one device at a time
# in order of first use, each attached as xvdb for its jobs and detached after them (three
# disks of the tuned in-tree pair at once, with 128 slots of 256 persistent segments per ring,
# exhaust a 512 MiB guest); then rand-4k-q1 on a fresh 1-queue attach
c_pair() {
	local round=$1 pair=$2 q=$3 unit dev d n=0 q1=0
	local -a devs=()
	shift 3
	for unit in "$@"; do
		[ "${unit#*/}" = rand-4k-q1 ] && { q1=1; continue; }
		udev "$unit"
		r2_wants "$pair" "$unit" || continue
		[[ " ${devs[*]} " == *" $UDEV "* ]] || devs+=("$UDEV")
	done
	pair_use "$pair" "$q" || return 1
	[ -n "${XLAB_INSNPROF:-}" ] && prof_mods "$pair"
	for d in "${devs[@]}"; do
		disk_attach "$G" "/dev/$d" xvdb || return 1
		[ "$d" = "${devs[0]}" ] && case_note "$(ring_note xvdb), sched=$SCHED"
		set_sched xvdb || return 1
		stage_begin || return 1
		for unit in "$@"; do
			[ "${unit#*/}" = rand-4k-q1 ] && continue
			udev "$unit"
			[ "$UDEV" = "$d" ] && r2_wants "$pair" "$unit" || continue
			job_spec "${unit%%/*}" "${unit#*/}" || { case_fail "${unit#*/}: no such job"; continue; }
			# shellcheck disable=SC2086
			run_job "$round" "$pair" "$q" "${unit%%/*}" "${unit#*/}" xvdb "$d" $JOB_ARGS && n=$((n + 1))
		done
		stage_end
		disk_detach "$G" xvdb || return 1
	done
	if [ $q1 = 1 ]; then
		pair_use "$pair" 1 || return 1
		disk_attach "$G" /dev/nbfast xvdb || return 1
		set_sched xvdb || return 1
		job_spec r1 rand-4k-q1
		# shellcheck disable=SC2086
		run_job "$round" "$pair" 1 r1 rand-4k-q1 xvdb nbfast $JOB_ARGS && n=$((n + 1))
	fi
	case_note "$n jobs"
}

# phase NAME FIRST LAST NATIVE PAIRS QUEUES UNITS: rounds FIRST to LAST of UNITS (SET/JOB,
# space separated) through every pair of PAIRS (comma separated) on QUEUES queues, in
# alternating order; native first in rounds up to NATIVE
phase() {
	local name=$1 first=$2 rounds=$3 native=$4 q=$6 r i
	local -a p units
	IFS=, read -r -a p <<< "$5"
	read -r -a units <<< "$7"
	[ ${#units[@]} = 0 ] && return 0
	for ((r = first; r <= rounds; r++)); do
		[ "$r" -le "$native" ] && run_case "$name$r-native" c_native "$r" "${units[@]}"
		if [ $((r % 2)) = 0 ]; then
			for ((i = ${#p[@]} - 1; i >= 0; i--)); do run_case "$name$r-${p[i]}" c_pair "$r" "${p[i]}" "$q" "${units[@]}"; done
		else
			for ((i = 0; i < ${#p[@]}; i++)); do run_case "$name$r-${p[i]}" c_pair "$r" "${p[i]}" "$q" "${units[@]}"; done
		fi
	done
}

# dl_pairs: every pair of PAIRS on mq-deadline (PAIR@dl), each once
dl_pairs() {
	local p out=,
	for p in ${PAIRS//,/ }; do
		[[ $p == *~* ]] && continue
		[[ $out == *,${p%@*}@dl,* ]] || out="$out${p%@*}@dl,"
	done
	out=${out#,}
	echo "${out%,}"
}

# plain_pairs: PAIRS without the ~ (guest TSC) variants, which only run the core jobs
plain_pairs() {
	local p out=""
	for p in ${PAIRS//,/ }; do [[ $p == *~* ]] || out="$out,$p"; done
	echo "${out#,}"
}

# r2_wants PAIR SET/JOB: whether PAIR runs JOB of SET. R2 runs every job on the 10 ms/256-tag
# device; on the 64-tag one only those it limits (rand-4k-deep, qd1 and qd4 are the 256-tag
# device's figures again: 64 requests or fewer in flight either way); the 2 ms device is a
# check against the tuned in-tree pair, without the default one. XLAB_OPTS r2_full=1: every
# job on every device for every pair.
r2_wants() {
	local set=${2%%/*} job=${2#*/}
	[ -n "${XLAB_FULL:-}" ] && return 0
	case $set in
	r2-10ms-64) [[ " seq-4k seq-64k seq-128k write-4k rand-4k " == *" $job "* ]] ;;
	r2-2ms-256) [ "$1" != intree ] ;;
	*) return 0 ;;
	esac
}

# units of a phase on one line
ul() { "$@" | tr '\n' ' '; }

bench_regime() {
	case $REGIME in
	r1)
		phase r1-core 1 "$ROUNDS" "$NATIVE_ROUNDS" "$PAIRS" 2 "$(ul core_units)"
		phase r1-core $((ROUNDS + 1)) "$QD1_ROUNDS" "$NATIVE_ROUNDS" "$PAIRS" 2 \
			"$(core_units | grep -x -e r1/qd1 -e r1/slow-qd1 | tr '\n' ' ')"
		phase r1-sweep 1 "$SWEEP_ROUNDS" "$NATIVE_ROUNDS" "$(plain_pairs)" 2 "$(ul sweep_units)"
		phase r1-dl 1 "$DL_ROUNDS" 0 "$(dl_pairs)" 2 "$(core_units | grep -v -x -e r1/rand-4k-q1 | tr '\n' ' ')"
		;;
	r2) phase r2- 1 "$ROUNDS" "$NATIVE_ROUNDS" "$PAIRS" 2 "$(ul r2_units)" ;;
	r3) phase r3- 1 "$ROUNDS" "$NATIVE_ROUNDS" "$PAIRS" 1 "$(ul r3_units)" ;;
	notify) phase n 1 1 0 "$PAIRS" 2 "$(ul notify_units)" ;;
	esac
}

case $REGIME in
r1 | r2 | r3 | notify) ok=1 ;;
*) ok=; log "regime '$REGIME': r1, r2 or r3" ;;
esac
if [ -n "$ok" ] && suite_begin && bench_setup; then
	log "bench: clock $CLOCK, regime $REGIME, runtime ${RT}s, CPU window ${LEAD}s + ${WIN}s, pairs $PAIRS," \
		"guest tsc_mode $XLAB_GUEST_TSC, rounds $ROUNDS (r1: qd1 $QD1_ROUNDS, sweep $SWEEP_ROUNDS, dl $DL_ROUNDS)," \
		"native $NATIVE_ROUNDS${XLAB_DEVS:+, devices $DEVS}"
	log "guest: $(xl list -l "$G" 2>/dev/null | grep -m1 '"tsc_mode"' | tr -d ' ,')"
	echo "XLAB-BENCH-INFO clock=$CLOCK set=$REGIME runtime=$RT slow_nsec=$SLOW_NSEC guest_tsc=$XLAB_GUEST_TSC" \
		"$(tr '\n' ' ' < /lab/build-info 2>/dev/null)"
	bench_regime
else
	setup_failed
fi
suite_end
