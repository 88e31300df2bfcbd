# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154
#
# Suite "many" (make test-long; icount clock): XLAB_MANY_GUESTS (16) small PV guests on one dom0,
# xblkfront + xblkback, one VBD each, all writing at once.
#   many-shared     the VBDs are dm-linear slices of one memory-backed null_blk (1 GiB)
#   many-separate   one configfs null_blk (64 MiB, memory-backed) per VBD
# Each case:
#   1. attach one VBD to every guest (xl block-attach, one after the other): the time for all;
#   2. dom0's memory with every VBD connected and idle, against before the attach; xblkback's
#      grants_mapped and pages_in_use;
#   3. every guest runs xlab-ackw (tests/lab/tools/: 2 writers, self-describing 4 KiB blocks,
#      O_DIRECT, every acknowledged write logged); over a window of XLAB_MANY_WINDOW (20) s of
#      the icount clock, the backend's wr_req of each VBD: each guest's write rate, the
#      aggregate, Jain's fairness index (n guests: (sum x)^2 / (n * sum x^2); 1 = equal shares,
#      1/n = one guest has all), which must be >= 0.9 (no QoS is configured); dom0's memory
#      under that load;
#   4. every VBD detached while its guest writes, then all attached again: each guest's
#      writers end with an error, nothing stays mapped (grants_mapped = pages_in_use = 0 with
#      every VBD gone); after the re-attach every block a guest got an acknowledgement for
#      holds exactly that write (xlab-ackw verify): 0 verify errors;
#   5. a plain detach of all, nothing mapped.
# The guests boot a small image (build-images.sh: the agent, both frontends and xlab-ackw, no
# fio) with 128 MiB each: 16 of them and dom0 fit in the lab's memory (run.sh gives QEMU 4 GiB
# for this suite).
. /lab/dom0.sh
. /lab/cases.sh
N=${XLAB_MANY_GUESTS:-16}
WINDOW=${XLAB_MANY_WINDOW:-20}
DRV=/sys/bus/xen-backend/drivers/xblkback
G=
GUESTS=()
declare -A TGT

# mem_kib: dom0's MemFree and Slab (KiB)
mem_kib() { awk '/^MemFree:/{f=$2} /^Slab:/{s=$2} END{print f, s}' /proc/meminfo; }

# slices_shared: N dm-linear slices of nullb0 (memory-backed, 1 GiB: backing_setup), by their
# /dev/dm-N nodes (no udev here: nothing makes /dev/mapper/NAME)
slices_shared() {
	local i sz n d
	sz=$(($(blockdev --getsz /dev/nullb0) / N))
	for i in $(seq 1 "$N"); do
		n=many$i
		dmsetup info "$n" > /dev/null 2>&1 ||
			dmsetup create --noudevsync "$n" --table "0 $sz linear /dev/nullb0 $(((i - 1) * sz))" ||
			return 1
		for d in /sys/block/dm-*; do
			[ "$(cat "$d/dm/name" 2>/dev/null)" = "$n" ] && TGT[m$i]=/dev/${d##*/}
		done
		[ -b "${TGT[m$i]:-/nonexistent}" ] || { log "no block device for dm $n"; return 1; }
	done
}

# slices_separate: one 64 MiB configfs null_blk per guest
slices_separate() {
	local i
	for i in $(seq 1 "$N"); do
		nullb_make "nbm$i" size=64 memory_backed=1 || return 1
		TGT[m$i]=/dev/nbm$i
	done
}

# attach_all: one VBD (xvdb) per guest; sets ATT_T (seconds for all)
attach_all() {
	local g t0
	t0=$(now)
	for g in "${GUESTS[@]}"; do
		disk_attach "$g" "${TGT[$g]}" xvdb || return 1
	done
	ATT_T=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
}

# wr_all: every VBD's backend wr_req, space separated, in GUESTS order
wr_all() {
	local g out=""
	for g in "${GUESTS[@]}"; do out="$out $(be_stat "$g" xvdb wr_req)"; done
	echo "${out# }"
}

# no_mapping LABEL: xblkback holds no grant and no page (waits up to 20 s)
no_mapping() {
	local i=0 gm pg
	while [ $i -lt 100 ]; do
		gm=$(cat $DRV/grants_mapped) pg=$(cat $DRV/pages_in_use)
		[ "$gm" = 0 ] && [ "$pg" = 0 ] && return 0
		sleep 0.2; i=$((i + 1))
	done
	case_fail "$1: xblkback grants_mapped=$gm pages_in_use=$pg 20 s after the last detach"
}

# c_many KIND (shared | separate)
c_many() {
	local kind=$1 g i runid m0 m1 m2 w0 w1 r agg jain rates="" t0 dt bad=0 acked=0 ends=0
	be_use xblkback || return 1
	"slices_$kind" || { case_fail "cannot make the $kind backing devices"; return 1; }
	for g in "${GUESTS[@]}"; do fe_use "$g" xblkfront || return 1; done
	no_mapping "before" || return 1
	m0=$(mem_kib)
	attach_all || return 1
	sleep 2
	m1=$(mem_kib)
	case_note "attach of $N VBDs: ${ATT_T} s"
	case_note "idle, all connected: grants_mapped=$(cat $DRV/grants_mapped) pages_in_use=$(cat $DRV/pages_in_use), dom0 MemFree -$(((${m0% *} - ${m1% *}) / N)) KiB and Slab +$(((${m1#* } - ${m0#* }) / N)) KiB per VBD"
	# the writers: 2 per guest, 8 MiB regions, for longer than the window and the detach
	runid=$(((RANDOM << 30 | RANDOM << 15 | RANDOM) + 1))
	for g in "${GUESTS[@]}"; do
		g_ok -t 60 "$g" "rm -rf /tmp/ackw /tmp/ackw.out /tmp/ackw.rc; mkdir -p /tmp/ackw; (xlab-ackw write -d /dev/xvdb -r $runid -c 1 -l /tmp/ackw -j 2 -m 8 -t 900 > /tmp/ackw.out 2>&1; echo \$? > /tmp/ackw.rc) &" ||
			{ case_fail "$g: cannot start the writers"; return 1; }
	done
	sleep 5
	read -r -a w0 <<< "$(wr_all)"
	t0=$(now)
	sleep "$WINDOW"
	read -r -a w1 <<< "$(wr_all)"
	dt=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
	m2=$(mem_kib)
	for i in "${!GUESTS[@]}"; do
		r=$(awk -v a="${w0[$i]:-0}" -v b="${w1[$i]:-0}" -v t="$dt" 'BEGIN { printf "%.1f", (b - a) / t }')
		rates="$rates $r"
	done
	read -r agg jain < <(echo "$rates" | awk '{ for (i = 1; i <= NF; i++) { s += $i; q += $i * $i }
		printf "%.1f %.3f\n", s, (q > 0 ? s * s / (NF * q) : 0) }')
	case_note "load over ${dt} s: aggregate $agg write requests/s, per guest:$rates; Jain's index $jain"
	case_note "under load: grants_mapped=$(cat $DRV/grants_mapped) pages_in_use=$(cat $DRV/pages_in_use), dom0 MemFree -$(((${m0% *} - ${m2% *}) / N)) KiB and Slab +$(((${m2#* } - ${m0#* }) / N)) KiB per VBD"
	awk -v j="$jain" 'BEGIN { exit !(j >= 0.9) }' || case_fail "Jain's fairness index $jain < 0.9 (rates:$rates)"
	awk -v a="$agg" 'BEGIN { exit !(a > 0) }' || { case_fail "no write reached the backend"; return 1; }
	# detach every VBD under load, then the guests: writers ended by an error, disk gone
	t0=$(now)
	for g in "${GUESTS[@]}"; do
		timeout 60 xl block-detach "$g" xvdb || { case_fail "$g: xl block-detach under load failed"; return 1; }
	done
	CASE_DISKS=()
	case_note "detach of $N VBDs under load: $(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }') s"
	for g in "${GUESTS[@]}"; do
		g_run -t 120 "$g" "ackw_end 60 xvdb && kcheck" ||
			{ case_fail "$g after the detach: rc=$G_RC $(grep -E '^(ackw_end|kcheck|waitgone)|BUG|WARNING' "$G_OUT" | head -3 | tr '\n' '|' | cut -c1-300)"; return 1; }
		grep -q 'ended_by_error=0 ' "$G_OUT" || ends=$((ends + 1))
	done
	no_mapping "after detaching all under load" || return 1
	attach_all || return 1
	case_note "re-attach of $N VBDs: ${ATT_T} s; guests whose writers met the detach with I/O in flight: $ends of $N"
	for g in "${GUESTS[@]}"; do
		g_run -t 300 "$g" "xlab-ackw verify -d /dev/xvdb -r $runid -c 1 -l /tmp/ackw"
		grep -q '^XLAB-ACKV cycle' "$G_OUT" ||
			{ case_fail "$g: verify did not run (rc=$G_RC)"; return 1; }
		acked=$((acked + $(g_field acked_blocks)))
		if [ "$G_RC" != 0 ] || [ "$(g_field bad)" != 0 ]; then
			bad=$((bad + $(g_field bad)))
			case_fail "$g: $(g_field bad) acknowledged blocks not as written: $(grep '^XLAB-ACKV-BAD' "$G_OUT" | head -1 | cut -c1-200)"
		fi
	done
	[ "$acked" -gt 0 ] || case_fail "no write was acknowledged (the check proves nothing)"
	case_note "after re-attach: $acked acknowledged blocks checked in $N guests, $bad verify errors"
	for g in "${GUESTS[@]}"; do disk_detach "$g" xvdb || return 1; done
	CASE_DISKS=()
	no_mapping "after the last detach" && case_note "after the last detach: grants_mapped=0 pages_in_use=0"
	for g in "${GUESTS[@]}"; do
		g_run -t 60 "$g" kcheck || case_fail "$g: guest kernel log: $(grep -v '^XLAB-' "$G_OUT" | head -2 | tr '\n' '|')"
	done
}

if [ ! -f /extra/xblkback.ko ] || [ ! -f /extra/xblkfront.ko ]; then
	case_skip all "xblkfront.ko or xblkback.ko not in the image"
	suite_end
	exit
fi
[ -f /guest/domU-small.cpio ] || { case_skip all "no small guest image (/guest/domU-small.cpio)"; suite_end; exit; }
export XLAB_GUEST_RAMDISK=/guest/domU-small.cpio
log "suite $LAB_SUITE: $N guests; build: $(tr '\n' ' ' < /lab/build-info 2>/dev/null)"
ok=1
backing_setup && modprobe dm-mod || ok=
modprobe configfs 2>/dev/null
[ -d /sys/kernel/config/nullb ] || mount -t configfs configfs /sys/kernel/config 2>/dev/null
if [ -n "$ok" ]; then
	t0=$(now)
	for i in $(seq 1 "$N"); do
		guest_create "m$i" 1 128 || { ok=; break; }
		GUESTS+=("m$i")
	done
	log "$N guests up in $(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }') s; dom0: $(free -m | awk '/^Mem/{print $3 " MiB used, " $4 " MiB free"}'); Xen: $(xl info | grep -E '^free_memory' | tr -s ' ')"
fi
if [ -n "$ok" ]; then
	want() { [ -z "${XLAB_CASES:-}" ] || [[ ,$XLAB_CASES, == *,$1,* ]]; }
	want many-shared && run_case many-shared c_many shared
	want many-separate && run_case many-separate c_many separate
else
	case_begin setup; case_fail "creating $N guests failed (${#GUESTS[@]} up)"; case_end
fi
suite_end
