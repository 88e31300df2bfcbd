# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154
#
# Suite "many" (make test-long; icount clock): XLAB_MANY_GUESTS (16) small PV guests on one dom0,
# xblkfront + xblkback, one VBD each, all writing at once. The guests are created once and serve
# both cases:
#   many-shared     the VBDs are dm-linear slices of one memory-backed configfs null_blk (1 GiB)
#   many-separate   one configfs null_blk (64 MiB, memory-backed) per VBD
# A case removes the previous case's devices first (dom0's free memory is limited, and memory-backed
# null_blk keeps what was written), and writes zeros over the writers' regions before it
# measures anything: dom0's memory figures are then the VBDs', not null_blk's storage.
# Each case:
#   1. attach one VBD to every guest (xl block-attach, one after the other), until every guest
#      has its /dev/xvdb: the time for all;
#   2. dom0's memory with every VBD connected and idle, against before the attach; xblkback's
#      grants_mapped and pages_in_use, and the bound its parameters put on them (per ring:
#      max_inflight_pages + max_persistent_grants pages);
#   3. every guest starts xlab-ackw at the same time (tests/lab/tools/: XLAB_MANY_JOBS writers,
#      self-describing 4 KiB blocks, O_DIRECT, every acknowledged write logged); after
#      XLAB_MANY_SETTLE s, the backend's wr_req of each VBD over a window of XLAB_MANY_WINDOW s of
#      the icount clock, prolonged a second at a time (up to XLAB_MANY_WINDOW_MAX s) until every
#      guest has XLAB_MANY_MIN_REQS requests in it (fewer at the end fails the case: the shares
#      would be noise): each guest's write rate and share, the aggregate, Jain's fairness index
#      (n guests: (sum x)^2 / (n * sum x^2); 1 = equal shares, 1/n = one guest has all), which
#      must be >= 0.9 (no QoS is configured); dom0's memory under that load;
#   4. every VBD detached at once while its guest writes (an xl block-detach per guest, all in
#      parallel; libxl's forced remove fails the case), then all attached again: every guest's
#      writers end with an error, nothing stays mapped (grants_mapped = pages_in_use = 0 with
#      every VBD gone); after the re-attach every block a guest got an acknowledgement for
#      holds exactly that write (xlab-ackw verify): 0 verify errors;
#   5. a plain detach of all (in parallel), nothing mapped.
# Commands that every guest runs go to all guests at once (g_each). Wall time: with 16 busy
# guests on one TCG thread a virtual second costs about 15-20 s, so the writers run for a few
# virtual seconds only (from their start to the end of the detach).
# Options (XLAB_OPTS="many_window=5 ..." in run.sh's environment sets XLAB_MANY_WINDOW, etc.):
#   XLAB_MANY_GUESTS (16)      guests
#   XLAB_MANY_JOBS (2)         xlab-ackw writers per guest (4 KiB writes)
#   XLAB_MANY_REGION (4)       MiB each writer writes in, wrapping around
#   XLAB_MANY_SETTLE (1)       seconds between the writers' start and the window
#   XLAB_MANY_WINDOW (3)       measuring window, seconds (icount)
#   XLAB_MANY_WINDOW_MAX (12)  longest window when a guest has fewer than ...
#   XLAB_MANY_MIN_REQS (200)   ... write requests in it
# The guests boot a small image (build-images.sh: the agent, both frontends and xlab-ackw, no
# fio) with 128 MiB each: 16 of them and dom0 fit in the lab's memory (run.sh gives QEMU 4.5 GiB
# for this suite). dom0 gets 1.5 GiB: this suite's dom0 initramfs carries both guest images
# (317 MB on 2026-12-06), which 1 GiB could no longer unpack ("Initramfs unpacking failed:
# write error", no modprobe).

# what run.sh needs to know about this suite (README.md "Suite metadata")
suite_meta() {
	# 16 guests at once: the small guest image, 1.5 GiB for dom0 and 4.5 GiB for QEMU
	SUITE_CLOCK=icount SUITE_TIMEOUT=3600 SUITE_IMAGE=small-guest SUITE_QEMU_MEM=4608
	SUITE_DOM0_MEM=1536
	SUITE_NEEDS="blkfront/xblkfront.ko blkback/xblkback.ko"
}
. /lab/dom0.sh
N=${XLAB_MANY_GUESTS:-16}
JOBS=${XLAB_MANY_JOBS:-2}
REGION=${XLAB_MANY_REGION:-4}
SETTLE=${XLAB_MANY_SETTLE:-1}
WINDOW=${XLAB_MANY_WINDOW:-3}
WINDOW_MAX=${XLAB_MANY_WINDOW_MAX:-12}
MIN_REQS=${XLAB_MANY_MIN_REQS:-200}
DEVID=$(vdev_devid xvdb)
G=
GUESTS=()
declare -A TGT
WR=()

# mem_kib: dom0's MemFree and Slab (KiB)
mem_kib() { awk '/^MemFree:/{f=$2} /^Slab:/{s=$2} END{print f, s}' /proc/meminfo; }

# levels: xblkback's grants_mapped and pages_in_use
levels() {
	local a b
	read -r a < "$DRV/grants_mapped"
	read -r b < "$DRV/pages_in_use"
	echo "$a $b"
}

# dt A B: B - A, one decimal
dt() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# slices_shared: N dm-linear slices of one 1 GiB memory-backed null_blk, by their /dev/dm-N
# nodes (no udev here: nothing makes /dev/mapper/NAME)
slices_shared() {
	local i sz n d
	nullb_make nbshared size=1024 memory_backed=1 || return 1
	sz=$(($(blockdev --getsz /dev/nbshared) / N))
	for i in $(seq 1 "$N"); do
		n=many$i
		dmsetup info "$n" > /dev/null 2>&1 ||
			dmsetup create --noudevsync "$n" --table "0 $sz linear /dev/nbshared $(((i - 1) * sz))" ||
			return 1
		TGT[m$i]=""
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

# slices_free: remove the dm slices and configfs null_blks of a previous case (with their
# memory), unless a vbd backend is left (then they stay: logged)
slices_free() {
	local d n left="" dom
	for dom in $(xenstore-list /local/domain/0/backend/vbd 2>/dev/null); do
		[ -n "$(xenstore-list "/local/domain/0/backend/vbd/$dom" 2>/dev/null)" ] && left="$left $dom"
	done
	[ -z "$left" ] || { log "vbd backends left (domains$left): the previous case's devices stay"; return 0; }
	for d in /sys/block/dm-*; do
		n=$(cat "$d/dm/name" 2>/dev/null)
		[[ $n == many* ]] || continue
		dmsetup remove --noudevsync "$n" || { log "cannot remove dm $n: the null_blks stay"; return 0; }
	done
	for d in /sys/kernel/config/nullb/nbshared /sys/kernel/config/nullb/nbm*; do
		[ -d "$d" ] || continue
		echo 0 > "$d/power"
		rmdir "$d" || log "cannot remove null_blk ${d##*/}"
	done
}

# prefill: zeros over every VBD's writer regions (null_blk allocates its memory now)
prefill() {
	local g
	for g in "${GUESTS[@]}"; do
		dd if=/dev/zero of="${TGT[$g]}" bs=1M count=$((JOBS * REGION)) oflag=direct 2>/dev/null ||
			{ case_fail "cannot write zeros to ${TGT[$g]}"; return 1; }
	done
}

# each_fail WHAT: case_fail for every guest whose last g_each command failed (rc and the first
# lines of its output that say why)
each_fail() {
	local g
	for g in "${GUESTS[@]}"; do
		[ "${GE_RC[$g]}" = 0 ] && continue
		case_fail "$g: $1: rc=${GE_RC[$g]} $(grep -v '^XLAB-G' "${GE_OUT[$g]}" | grep -E 'ackw_end|kcheck|waitgone|waitdev|BUG|WARNING|Oops|error|rc=|^[a-z_]+:' | head -3 | tr '\n' '|' | cut -c1-300)"
	done
}

# attach_all: one VBD (xvdb) per guest, then until every guest sees it; sets ATT_T (seconds)
attach_all() {
	local g t0
	t0=$(now)
	for g in "${GUESTS[@]}"; do
		disk_attach_xl "$g" "${TGT[$g]}" xvdb || return 1
	done
	g_each -t 90 "waitdev /dev/xvdb 45" "${GUESTS[@]}" || { each_fail "no /dev/xvdb after the attach"; return 1; }
	ATT_T=$(dt "$t0" "$(now)")
}

# detach_all LABEL: xl block-detach of every guest's xvdb, all at once; sets DET_T (seconds to
# the last one's end). A detach that fails, times out or took libxl's forced remove (the
# backend did not reach Closed within its 10 s: the frontend never closed) fails the case.
detach_all() {
	local g i rc t0 pids=() out
	t0=$(now)
	for g in "${GUESTS[@]}"; do
		timeout 60 xl -vvv block-detach "$g" xvdb > "$LAB_TMP/detach.$g" 2>&1 &
		pids+=($!)
	done
	for i in "${!GUESTS[@]}"; do
		g=${GUESTS[$i]} out=$LAB_TMP/detach.${GUESTS[$i]}
		wait "${pids[$i]}"
		rc=$?
		if grep -qi 'initiating forced remove' "$out"; then
			case_fail "$1: $g: xl block-detach took libxl's forced remove (the backend did not reach Closed)"
		elif [ $rc != 0 ]; then
			case_fail "$1: $g: xl block-detach rc=$rc: $(grep -v DEBUG "$out" | tail -2 | tr '\n' '|' | cut -c1-200); used -f"
			timeout 60 xl block-detach -f "$g" xvdb || case_fail "$1: $g: xl block-detach -f failed too"
		fi
	done
	DET_T=$(dt "$t0" "$(now)")
	CASE_DISKS=()
}

# _none_left: no guest's vbd backend is in xenstore; else backends_gone's left names them
_none_left() {
	local g
	left=""
	for g in "${GUESTS[@]}"; do
		xenstore-exists "/local/domain/0/backend/vbd/${G_DOMID[$g]}/$DEVID" 2>/dev/null && left="$left $g"
	done
	[ -z "$left" ]
}

# backends_gone LABEL: no vbd backend of any guest left in xenstore (waits up to 20 s)
backends_gone() {
	local left
	wait_until 20 0.2 _none_left && return 0
	case_fail "$1: backend still in xenstore for$left"
}

# _unmapped: xblkback's levels, into no_mapping's gm and pg, are 0
_unmapped() {
	read -r gm pg <<< "$(levels)"
	[ "$gm" = 0 ] && [ "$pg" = 0 ]
}

# no_mapping LABEL: xblkback holds no grant and no page (waits up to 20 s)
no_mapping() {
	local gm pg
	wait_until 20 0.2 _unmapped && return 0
	case_fail "$1: xblkback grants_mapped=$gm pages_in_use=$pg 20 s after the last detach"
}

# wr_all: every VBD's backend wr_req into WR (GUESTS order; bash builtins only, so that the 16
# reads take no time); fails if one cannot be read
wr_all() {
	local g v
	WR=()
	for g in "${GUESTS[@]}"; do
		v=""
		read -r v < "/sys/bus/xen-backend/devices/vbd-${G_DOMID[$g]}-$DEVID/statistics/wr_req" 2>/dev/null
		[[ $v =~ ^[0-9]+$ ]] || { case_fail "$g: cannot read the backend's wr_req"; return 1; }
		WR+=("$v")
	done
}

# mem_note LABEL M0 M1 GM PG: dom0's memory and xblkback's levels, per VBD
mem_note() {
	case_note "$1: dom0 MemFree -$(((${2% *} - ${3% *}) / N)) KiB and Slab +$(((${3#* } - ${2#* }) / N)) KiB per VBD, xblkback grants_mapped=$4 pages_in_use=$5 ($(($4 / N)) and $(($5 / N)) per VBD)"
}

# bound_check GM PG: the levels within what xblkback's parameters allow: per ring
# max_inflight_pages pages for requests in flight + max_persistent_grants persistent ones
bound_check() {
	local p=/sys/module/xblkback/parameters mip mpg rings=0 g r bound
	read -r mip < $p/max_inflight_pages
	read -r mpg < $p/max_persistent_grants
	for g in "${GUESTS[@]}"; do
		r=""
		read -r r < "/sys/bus/xen-backend/devices/vbd-${G_DOMID[$g]}-$DEVID/nr_rings" 2>/dev/null
		rings=$((rings + ${r:-1}))
	done
	bound=$((rings * (mip + mpg)))
	BOUND_NOTE="bound of grants_mapped and pages_in_use: $rings rings x (max_inflight_pages=$mip + max_persistent_grants=$mpg) = $bound pages ($((bound * 4 / N)) KiB per VBD; the rings' caches of free pages at most as much again)"
	if [ "$1" -gt "$bound" ] || [ "$2" -gt "$bound" ]; then
		case_fail "xblkback grants_mapped=$1 pages_in_use=$2 above the $BOUND_NOTE"
	fi
}

# measure: the window (see the header); sets AGG (requests/s), JAIN, SHARES (per guest), WIN
measure() {
	local w0 t0 t1 i min d deltas
	sleep "$SETTLE"
	wr_all || return 1
	w0=("${WR[@]}")
	t0=$(now)
	sleep "$WINDOW"
	while :; do
		wr_all || return 1
		t1=$(now)
		min="" deltas=""
		for i in "${!GUESTS[@]}"; do
			d=$((WR[i] - w0[i]))
			deltas="$deltas ${GUESTS[$i]}=$d"
			{ [ -z "$min" ] || [ "$d" -lt "$min" ]; } && min=$d
		done
		[ "$min" -ge "$MIN_REQS" ] && break
		awk -v a="$t0" -v b="$t1" -v m="$WINDOW_MAX" 'BEGIN { exit !(b - a >= m) }' && break
		sleep 1
	done
	WIN=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	log "window ${WIN} s, write requests:$deltas"
	read -r AGG JAIN SHARES < <(echo "$deltas" | awk -v t="$WIN" '{
		for (i = 1; i <= NF; i++) { split($i, a, "="); g[i] = a[1]; x[i] = a[2] / t; s += x[i]; q += x[i] * x[i] }
		printf "%.0f %.3f", s, (q > 0 ? s * s / (NF * q) : 0)
		for (i = 1; i <= NF; i++) printf " %s:%.0f/%.1f%%", g[i], x[i], (s > 0 ? 100 * x[i] / s : 0)
		print "" }')
	[ "$min" -ge "$MIN_REQS" ] ||
		case_fail "a guest had only $min write requests in the ${WIN} s window (< $MIN_REQS: too few for its share to mean anything)"
}

# writers_end: after the detach under load: every guest's writers ended by an error (so they
# were writing when their disk went), the disk is gone, the kernel log is clean; sets INFL (guests
# with writes in flight in the last 3 s before the detach)
writers_end() {
	local g f
	INFL=0
	g_each -t 120 "ackw_end 60 xvdb && kcheck" "${GUESTS[@]}" || each_fail "after the detach under load"
	for g in "${GUESTS[@]}"; do
		f=${GE_OUT[$g]}
		# (no ^: a kernel message on the guest's console may precede a line of ours)
		grep -q "XLAB-ACKW-END jobs=$JOBS ended_by_error=$JOBS ended_by_timeout=0 broken=0" "$f" ||
			case_fail "$g: writers did not all end by the detach's error: $(grep -o 'XLAB-ACKW-END.*' "$f" | head -1)"
		[ "$(grep -o 'inflight_max_last3s=[0-9]*' "$f" | cut -d= -f2)" -gt 0 ] 2>/dev/null && INFL=$((INFL + 1))
	done
}

# verify_all RUNID: xlab-ackw verify in every guest; sets ACKED (acknowledged writes), CHECKED
# (distinct blocks whose last acknowledged write was compared) and BAD (sums)
verify_all() {
	local g f b a c
	ACKED=0 CHECKED=0 BAD=0
	g_each -t 300 "xlab-ackw verify -d /dev/xvdb -r $1 -c 1 -l /tmp/ackw -j $JOBS" "${GUESTS[@]}"
	for g in "${GUESTS[@]}"; do
		f=${GE_OUT[$g]}
		if ! grep -q 'XLAB-ACKV cycle' "$f"; then
			case_fail "$g: verify did not run (rc=${GE_RC[$g]}): $(grep 'XLAB-ACKV' "$f" | head -1 | cut -c1-200)"
			continue
		fi
		a=$(grep -o '\backed_blocks=[0-9]*' "$f" | head -1 | cut -d= -f2)
		b=$(grep -o '\bbad=[0-9]*' "$f" | head -1 | cut -d= -f2)
		c=$(grep -o '\bchecked_blocks=[0-9]*' "$f" | head -1 | cut -d= -f2)
		ACKED=$((ACKED + ${a:-0})) CHECKED=$((CHECKED + ${c:-0})) BAD=$((BAD + ${b:-0}))
		if [ "${GE_RC[$g]}" != 0 ] || [ "${b:-x}" != 0 ]; then
			case_fail "$g: ${b:-?} acknowledged blocks not as written (rc=${GE_RC[$g]}): $(grep -o 'XLAB-ACKV-BAD.*' "$f" | head -1 | cut -c1-200)"
		fi
		[ "${a:-0}" -gt 0 ] || case_fail "$g: no write was acknowledged (its check proves nothing)"
	done
}

# c_many KIND (shared | separate)
c_many() {
	local kind=$1 g runid m0 m1 m2 gm pg
	be_use xblkback || return 1
	slices_free
	"slices_$kind" || { case_fail "cannot make the $kind backing devices"; return 1; }
	prefill || return 1
	for g in "${GUESTS[@]}"; do guest_ensure "$g" || { case_fail "guest $g could not be (re)created"; return 1; }; done
	# (writers a failed case may have left behind, then the frontend with its defaults)
	g_each "for p in \$(pidof xlab-ackw); do kill \$p; done; fe_use xblkfront" "${GUESTS[@]}" ||
		{ each_fail "fe_use"; return 1; }
	no_mapping "before" || return 1
	m0=$(mem_kib)
	attach_all || return 1
	case_note "attach of $N VBDs: ${ATT_T} s"
	sleep 2
	m1=$(mem_kib)
	read -r gm pg <<< "$(levels)"
	mem_note "idle, all connected" "$m0" "$m1" "$gm" "$pg"
	bound_check "$gm" "$pg"
	# the writers, in all guests at once, for longer than the window and the detach
	runid=$(((RANDOM << 30 | RANDOM << 15 | RANDOM) + 1))
	log "starting $JOBS writers in each of $N guests"
	g_each -t 60 "ackw_start /dev/xvdb $runid 1 $JOBS $REGION 600" "${GUESTS[@]}" ||
		{ each_fail "cannot start the writers"; return 1; }
	measure || return 1
	m2=$(mem_kib)
	read -r gm pg <<< "$(levels)"
	case_note "load over ${WIN} s (icount): aggregate $AGG write IOPS, per guest IOPS/share: $SHARES; Jain's index $JAIN"
	mem_note "under load" "$m0" "$m2" "$gm" "$pg"
	bound_check "$gm" "$pg"
	case_note "$BOUND_NOTE"
	awk -v j="$JAIN" 'BEGIN { exit !(j >= 0.9) }' || case_fail "Jain's fairness index $JAIN < 0.9"
	awk -v a="$AGG" 'BEGIN { exit !(a > 0) }' || { case_fail "no write reached the backend"; return 1; }
	# every VBD detached at once under load; the writers end by an error, the disks go
	log "detaching all $N VBDs under load"
	detach_all "detach under load"
	case_note "detach of $N VBDs under load (in parallel): ${DET_T} s"
	writers_end
	backends_gone "after detaching all under load"
	no_mapping "after detaching all under load" || return 1
	case_note "guests with writes in flight in the last 3 s before the detach: $INFL of $N; then grants_mapped=0 pages_in_use=0"
	attach_all || return 1
	case_note "re-attach of $N VBDs: ${ATT_T} s"
	verify_all "$runid"
	case_note "after re-attach: $ACKED acknowledged block writes, the last one of each of $CHECKED blocks compared in $N guests, $BAD verify errors"
	[ "$ACKED" -gt 0 ] || case_fail "no write was acknowledged (the check proves nothing)"
	detach_all "last detach"
	g_each -t 60 "waitgone /dev/xvdb 30 && kcheck" "${GUESTS[@]}" || each_fail "after the last detach"
	backends_gone "after the last detach"
	no_mapping "after the last detach" && case_note "after the last detach (${DET_T} s): grants_mapped=0 pages_in_use=0"
}

suite_require
[ -f /guest/domU-small.cpio ] || skip_suite "no small guest image (/guest/domU-small.cpio)"
export XLAB_GUEST_RAMDISK=/guest/domU-small.cpio
log "suite $LAB_SUITE: $N guests, $JOBS writers each (${REGION} MiB), window ${WINDOW}-${WINDOW_MAX} s for >= $MIN_REQS requests per guest; build: $(tr '\n' ' ' < /lab/build-info 2>/dev/null)"
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
	log "$N guests up in $(dt "$t0" "$(now)") s; dom0: $(free -m | awk '/^Mem/{print $3 " MiB used, " $4 " MiB free"}'); Xen: $(xl info | grep -E '^free_memory' | tr -s ' ')"
fi
if [ -n "$ok" ]; then
	want many-shared && run_case many-shared c_many shared
	want many-separate && run_case many-separate c_many separate
else
	setup_failed "creating $N guests failed (${#GUESTS[@]} up)"
fi
suite_end
