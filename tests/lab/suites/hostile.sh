# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
# Suite "hostile": a hostile frontend attacks xblkback (not in the default suite list).
#
# The guest runs tests/hostile/xblkhostile.ko instead of a block frontend: it binds the vbd,
# sets up a one-page ring like a real frontend, and on "echo CASE > /sys/kernel/debug/
# xblkhostile/run" writes raw, mostly broken requests on the ring and checks every response
# (id, operation, status); the result line ("PASS|FAIL|SKIP CASE: ...") is read back. Each
# attack is followed by a good request, which must still be served. dom0 checks its side:
#   - the backend's counters: err_req (refused by validation) and io_err (accepted, failed:
#     grant map failures) grow by exactly the number of refusals the guest saw
#   - a rate-limited xblkback line naming the domain and device says why
#   - no BUG/WARNING/Oops (run_case), and after detach grants_mapped = pages_in_use = 0
# Cases:
#   setup        load xblkhostile, attach nullb0, connect; status as advertised
#   good         reads at both ends of the disk
#   nsegs        READ/WRITE with 0, 12, 255 segments; indirect with 0 and max+1 segments
#   indirect     bad inner op (FLUSH, INDIRECT, 99), more segments than 8 pages hold, 0xffff,
#                an ungranted indirect page; inside the page: first > last, last > 7, bad gref
#   segs         first_sect > last_sect, last_sect 8, 255/255
#   range        sector = capacity, capacity-4 (+8), past the end, 2^64-4, 2^63
#   badop        operations 99, 255, WRITE_BARRIER (and DISCARD when not offered): EOPNOTSUPP
#   grefs        invalid gref, an allocated but never granted ref, a page granted to another
#                domain (read and write), and a request whose third segment is foreign
#   dupid        two requests in flight with one id (and a bad third with it): all answered
#   dfetch       double fetch: 300 requests each rewritten (good <-> bad) until answered
#   flood        2000 refused requests: the log stays rate limited, and the next line after
#                the window says how many were suppressed, naming the device
#   storm        15 s of event-channel notifications: dom0 stays responsive (sleep latency
#                measured meanwhile), the ring serves afterwards
#   noisy-neighbour  a second guest (in-tree xen-blkfront) on the same xblkback runs fio
#                verify in a loop while dfetch/grefs/indirect/flood/storm hit the first
#                again: every verify run passes
#   prod-ahead   req_prod 1000 ahead: the ring stops, dom0 says so, a good request is ignored
#   detach       detach the attacked disk: everything unmapped and freed
#   persistent   grefs, indirect, dupid again with persistent grants; detach frees everything
#   readonly     access=ro disk: WRITE, indirect WRITE, FLUSH, DISCARD refused; reads served
#   unaligned    4 KiB null_blk with a virtual boundary: I/O not aligned to 4 KiB refused, and
#                so is every segment that is not whole 4 KiB blocks (two 2 KiB segments at
#                sector 0 made 6.1's bio_split() BUG in the ring thread), also in 300-segment
#                indirect requests where a bio is cut; whole-block requests served; the
#                neighbour (g2, xen-blkfront, nullb1) passes fio verify meanwhile.
#                unaligned-intree: the same against xen-blkback (which refuses them too)
#   keys-MODE    attacks through xenstore (KEYS below): the guest attaches with one key
#                missing, malformed or out of range (ring-page-order, multi-queue-num-queues,
#                queue-N/, ring-ref(N), event-channel, protocol, feature-persistent; trailing
#                garbage, overlong values). The backend must refuse: a dom0 line naming the
#                domain, device and key, the same in xenstore's error node, never Connected,
#                nothing mapped (before and after the detach). "keys" selects all of them
#   keys-good    then the same guest attaches with correct keys: connected, reads served
#   state-unknown  the frontend writes its own state as 0 (XenbusStateUnknown, what a dying
#                frontend leaves), once connected and idle, once with 8 slow reads in flight
#                just after Closing: each time the backend gets to Closed (after the reads are
#                answered), nothing stays mapped, xl block-detach removes the vbd, dom0 logs
#                no kernel problem; then the guest attaches again and is served
#   stormfull    the page budget used up by slow reads, then 4 s of notifications: the blocked
#                ring must throttle them (spurious late EOIs): about one interrupt per jiffy,
#                at most 500 a second (before the fix: 72,000 a second); the neighbour
#                passes fio verify meanwhile
#   bigfrag      dom0's memory fragmented (tests/probe/xlabprobe.ko): a 1024-segment indirect
#                read, whose 40 KiB segment array cannot be contiguous, is served
#   discards     two hostile guests push 511 whole-device discards each on a slow disk: no work
#                item on dom0's system_unbound_wq waits 0.5 s, at most 64 in flight per ring
#   slowclose    16 slow reads in flight, then Closing: a second guest's xl block-attach takes
#                about its idle time meanwhile (no wait on the xenwatch thread); the slow
#                vbd gets to Closed once they are answered; slowclose-intree: xen-blkback
#   ringstart    a connect that fails half-way (fault point fail_ring_start: ring 1 of 2 does
#                not start) after a rebind, with 8 s of reads waiting on ring 0 of a slow disk:
#                a third guest's xl block-attach ends well before them (the thread that
#                started is stopped by the teardown work, not on xenwatch); the vbd
#                closes, detaches, nothing stays mapped

# what run.sh needs to know about this suite (README.md "Suite metadata")
suite_meta() {
	SUITE_TIMEOUT=1800 SUITE_NEEDS="blkback/xblkback.ko tests/hostile/xblkhostile.ko"
}
# shellcheck source=/dev/null
. /lab/dom0.sh
# shellcheck disable=SC2034  # FRONT: logged by suite_begin (cases.sh)
G=g1 BACK=xblkback FRONT=xblkhostile
HD=/sys/kernel/debug/xblkhostile
VDEV=xvdb
# no_leak (cases.sh) notes each time that nothing was held
NO_LEAK_NOTE=1

# the backend's xenbus device name of $VDEV in $G, as its messages start
vbd_tag() { echo "vbd-${G_DOMID[$G]}-$(vdev_devid "$VDEV")"; }
# klines: number of xblkback kernel lines about the vbd so far
klines() { dmesg | grep -c "xblkback $(vbd_tag):"; }
# klog_since N: those lines after the first N
klog_since() { dmesg | grep "xblkback $(vbd_tag):" | tail -n +$(($1 + 1)); }
# klog_match N REGEX: one of those lines after the first N matches REGEX (grep -E)
klog_match() { klog_since "$1" | grep -qE "$2"; }

# h_load: xblkhostile instead of a block frontend in $G, debugfs mounted
h_load() {
	g_ok "$G" "fe_unload && { grep -q '^xblkhostile ' /proc/modules || insmod /extra/xblkhostile.ko; } &&
		{ [ -d $HD ] || mount -t debugfs none /sys/kernel/debug; } && cat $HD/status"
}

# h_attach BACKING [DISKSPEC-OPTIONS]: xl block-attach, wait until xblkhostile is connected;
# the disk is NOT registered for run_case's detach (it lives across cases)
h_attach() {
	local spec
	spec="format=raw,vdev=$VDEV,access=rw${2:+,$2},target=$(backing "$1")"
	log "xl block-attach $G $spec"
	timeout 90 xl block-attach "$G" "$spec" || { case_fail "xl block-attach $G $spec failed"; return 1; }
	g_ok "$G" "wait_until 30 0.1 grep -q 'connected=1' $HD/status
		cat $HD/status; grep -q 'connected=1' $HD/status" || return 1
	H_STATUS=$(grep -o 'device=.*' "$G_OUT" | head -1)
}

# h_run CASE [ARG] [TIMEOUT]: run one attack in the guest; H_LINE = its result line,
# H_RES = PASS|FAIL|SKIP; returns 0 for PASS
h_run() {
	H_LINE="" H_RES=""
	g_run -t "${3:-120}" "$G" "echo '$1 ${2:-}' > $HD/run; cat $HD/run" ||
		{ case_fail "guest command for '$1' rc=$G_RC: $(tail -3 "$G_OUT" | tr '\n' '|')"; return 1; }
	H_LINE=$(grep -E '^(PASS|FAIL|SKIP) ' "$G_OUT" | tail -1)
	H_RES=${H_LINE%% *}
	[ -n "$H_LINE" ] || { case_fail "no result line from the guest for '$1'"; return 1; }
	[ "$H_RES" = PASS ]
}

# guest's "key=value" from the result line (first match)
h_field() { grep -o "\b$1=[^ ;]*" <<< "$H_LINE" | head -1 | cut -d= -f2-; }

# c_attack CASE ARG COUNTER LOG-REGEX: run an attack; the guest must PASS, the backend's
# COUNTER (err_req: validation only, io_err must not move; any: err_req + io_err) must grow by
# the guest's refusals, and a new xblkback line about this vbd must match LOG-REGEX
c_attack() {
	local c=$1 arg=$2 ctr=$3 re=$4 e0 i0 k0 e1 i1 ref new
	# xbb_warn_rl allows 10 lines per 5 s per device: start each case in a fresh window
	sleep 5.5
	e0=$(be_stat "$G" $VDEV err_req) i0=$(be_stat "$G" $VDEV io_err) k0=$(klines)
	[ -n "$e0" ] || { case_fail "no backend counters for $(vbd_tag) (not connected?)"; return 1; }
	h_run "$c" "$arg" || { [ -n "$H_LINE" ] && case_fail "guest: $H_LINE"; }
	e1=$(be_stat "$G" $VDEV err_req) i1=$(be_stat "$G" $VDEV io_err)
	ref=$(h_field refused)
	new=$(klog_since "$k0")
	case $ctr in
	err_req)
		expect "err_req growth" $((e1 - e0)) "$ref"
		expect "io_err growth" $((i1 - i0)) 0 ;;
	io_err)
		expect "io_err growth" $((i1 - i0)) "$ref"
		expect "err_req growth" $((e1 - e0)) 0 ;;
	any) expect "err_req + io_err growth" $((e1 - e0 + i1 - i0)) "$ref" ;;
	esac
	if [ -n "$re" ] && ! grep -qE "$re" <<< "$new"; then
		case_fail "no new xblkback line for $(vbd_tag) matching '$re' (got: $(head -2 <<< "$new" | tr '\n' '|' | cut -c1-200))"
	fi
	case_note "guest: ${H_LINE#* }"
	case_note "dom0: err_req +$((e1 - e0)) io_err +$((i1 - i0)), $(wc -l <<< "$new") new lines, e.g. '$(head -1 <<< "$new" | sed 's/^\[[^]]*\] //' | cut -c1-150)'"
}

c_setup() {
	be_use "$BACK" || return 1
	h_load || return 1
	h_attach nullb0 || return 1
	case_note "$H_STATUS"
}

c_good() {
	h_run good || case_fail "guest: $H_LINE"
	case_note "guest: ${H_LINE#* }"
	case_note "dom0: rd_req=$(be_stat "$G" $VDEV rd_req)"
}

# flood: 2000 refusals; the log lines about the vbd must stay within the rate limit
c_flood() {
	local k0 k1 t0 t1 n allow e0 e1 all lines sup last
	sleep 5.5
	k0=$(klines) t0=$(now) e0=$(be_stat "$G" $VDEV err_req)
	h_run flood 2000 || case_fail "guest: $H_LINE"
	t1=$(now) e1=$(be_stat "$G" $VDEV err_req)
	n=$(klog_since "$k0" | grep -vc 'messages suppressed')
	# 10 lines per started 5 s window (+1 window: the check itself lags)
	allow=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%d", (int((b - a) / 5) + 2) * 10}')
	expect "err_req growth" $((e1 - e0)) "$(h_field refused)"
	[ "$n" -le "$allow" ] || case_fail "$n xblkback lines for $(vbd_tag) in $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.0f", b-a}') s (allowed $allow)"
	case_note "guest: ${H_LINE#* }"
	case_note "dom0: err_req +$((e1 - e0)), $n lines logged in $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.0f", b-a}') s (limit $allow)"
	# the next message after the window says, naming the device, how many were dropped:
	# every refusal (2000 + the 3 of "segs") is either a line or counted as suppressed
	k1=$(klines)
	sleep 5.5
	h_run segs || case_fail "guest: $H_LINE"
	all=$(klog_since "$k0")
	# a count printed with the flood's first line belongs to earlier cases
	[[ $(head -1 <<< "$all") == *"messages suppressed"* ]] && all=$(tail -n +2 <<< "$all")
	lines=$(grep -vc 'messages suppressed' <<< "$all")
	sup=$(grep -oE '[0-9]+ messages suppressed' <<< "$all" | awk '{ s += $1 } END { print s + 0 }')
	expect "lines + suppressed for 2003 refusals" $((lines + sup)) 2003
	last=$(klog_since "$k1" | grep -m1 -E "d${G_DOMID[$G]}/$VDEV: [0-9]+ messages suppressed")
	[ -n "$last" ] || case_fail "no 'd${G_DOMID[$G]}/$VDEV: N messages suppressed' line after the flood"
	case_note "then '${last#*] }' ($lines lines + $sup suppressed)"
}

# storm SECS: the guest notifies in a tight loop; meanwhile dom0 measures how late a 0.2 s
# sleep wakes up. dom0 must stay responsive, the backend must take far fewer interrupts
# than notifications were sent (late EOI), and serve a good request afterwards.
c_storm() {
	local secs=${1:-15} n0 n1 pid t0 t a b max=0 sent
	n0=$(be_stat "$G" $VDEV notify_in)
	rm -f "$LAB_TMP"/storm.rc "$LAB_TMP"/storm.out
	(
		h_run storm "$secs" $((secs + 90))
		echo "$G_RC" > "$LAB_TMP"/storm.rc
		echo "$H_LINE" > "$LAB_TMP"/storm.out
	) &
	pid=$!
	t0=$SECONDS
	while [ ! -f "$LAB_TMP"/storm.rc ] && [ $((SECONDS - t0)) -lt $((secs + 100)) ]; do
		a=$(now)
		sleep 0.2
		cat "/sys/bus/xen-backend/devices/$(vbd_tag)/statistics/notify_in" > /dev/null 2>&1
		b=$(now)
		t=$(awk -v a="$a" -v b="$b" 'BEGIN{printf "%d", (b - a) * 1000}')
		[ "$t" -gt "$max" ] && max=$t
	done
	wait $pid
	H_LINE=$(cat "$LAB_TMP"/storm.out 2>/dev/null)
	n1=$(be_stat "$G" $VDEV notify_in)
	sent=$(h_field notifications)
	[ "${H_LINE%% *}" = PASS ] || case_fail "guest: ${H_LINE:-no result (rc=$(cat "$LAB_TMP"/storm.rc 2>/dev/null))}"
	[ "$max" -lt 2000 ] || case_fail "dom0 stalled: a 0.2 s sleep took $max ms during the storm"
	if [ -n "$sent" ] && [ $((n1 - n0)) -ge "$sent" ]; then
		case_fail "backend took $((n1 - n0)) interrupts for $sent notifications"
	fi
	case_note "guest: ${H_LINE#* }"
	case_note "dom0: notify_in +$((n1 - n0)) for ${sent:-?} notifications in ${secs}s, worst 0.2 s sleep ${max} ms"
}

c_prod() {
	local k0 new
	sleep 5.5
	k0=$(klines)
	h_run prod 1000 || case_fail "guest: $H_LINE"
	new=$(klog_since "$k0")
	grep -qE 'ring 0 stopped: req_prod [0-9]+ runs ahead' <<< "$new" ||
		case_fail "no 'ring 0 stopped' line for $(vbd_tag) (got: $(head -2 <<< "$new" | tr '\n' '|' | cut -c1-200))"
	case_note "guest: ${H_LINE#* }"
	case_note "dom0: '$(grep -m1 'stopped' <<< "$new" | sed 's/^\[[^]]*\] //' | cut -c1-160)'"
}

c_detach() {
	disk_detach "$G" $VDEV || return 1
	no_leak "after detach"
}

# nn_start: the well-behaved neighbour: guest g2 (xen-blkfront) gets nullb1 on the backend
# loaded now (as xvdb; created if it does not exist yet) and runs fio write + verify on it in
# a loop until nn_stop. nn_stop: end the loop, check that every run passed and at least one
# ran, detach the disk (g2 stays for later cases).
NN=g2
nn_start() {
	if [ -z "${G_DOMID[$NN]}" ]; then
		guest_create "$NN" 2 384 || { case_fail "could not create guest $NN"; return 1; }
	fi
	fe_use "$NN" xen-blkfront || return 1
	timeout 60 xl block-attach "$NN" "format=raw,vdev=xvdb,access=rw,target=$(backing nullb1)" ||
		{ case_fail "xl block-attach $NN failed"; return 1; }
	CASE_DISKS+=("$NN:xvdb")
	g_ok "$NN" "waitdev /dev/xvdb 45 && rm -f /tmp/nn.out /tmp/nn.stop && (end=\$((SECONDS + 400)); n=0
		while [ ! -f /tmp/nn.stop ] && [ \$SECONDS -lt \$end ]; do
			fio_verify /dev/xvdb 4M 8M > /tmp/nn.fio 2>&1 || { echo NN-FAIL; cat /tmp/nn.fio; break; }
			n=\$((n + 1)); echo NN-PASS \$n
		done > /tmp/nn.out 2>&1; echo NN-DONE >> /tmp/nn.out) > /dev/null 2>&1 &
		sleep 3"
}

nn_stop() {
	local fails passes
	g_ok "$NN" "touch /tmp/nn.stop" || return 1
	g_ok -t 240 "$NN" "wait_until 240 1 grep -q NN-DONE /tmp/nn.out; cat /tmp/nn.out; kcheck" || return 1
	fails=$(grep -c NN-FAIL "$G_OUT") passes=$(grep -c NN-PASS "$G_OUT")
	[ "$fails" = 0 ] || case_fail "the neighbour's fio verify failed: $(grep -v '^XLAB-' "$G_OUT" | grep -iE 'err|verify' | head -3 | tr '\n' '|' | cut -c1-300)"
	[ "$passes" -ge 1 ] || case_fail "the neighbour completed no fio verify run"
	case_note "neighbour $NN: $passes fio write+verify runs passed, $fails failed"
	disk_detach "$NN" xvdb
}

# noisy-neighbour: the neighbour verifies data in a loop while $G attacks
c_noisy() {
	local t0
	nn_start || return 1
	t0=$SECONDS
	c_attack dfetch 300 err_req "" || true
	c_attack grefs "" io_err 'mapping grant [0-9]+ failed' || true
	c_attack indirect "" any 'bad indirect operation' || true
	c_flood || true
	c_storm 15 || true
	case_note "attacks took $((SECONDS - t0)) s"
	nn_stop
}

# persistent: the grant and indirect attacks again with persistent grants negotiated (the
# backend keeps grants mapped; a failed persistent map must not stay in its tree)
c_persistent_attacks() {
	g_ok "$G" "echo 1 > /sys/module/xblkhostile/parameters/persistent" || return 1
	h_attach nullb0 || return 1
	expect "backend persistent" "$(cat "/sys/bus/xen-backend/devices/$(vbd_tag)/persistent" 2>/dev/null)" 1
	c_attack grefs "" io_err 'mapping grant [0-9]+ failed'
	c_attack indirect "" any 'bad indirect operation'
	c_attack dupid "" err_req 'bad segment count'
	h_run good || case_fail "guest: $H_LINE"
	case_note "dom0: pgnt_hit=$(be_stat "$G" $VDEV pgnt_hit) persistent_grants=$(be_stat "$G" $VDEV persistent_grants)"
	g_ok "$G" "echo 0 > /sys/module/xblkhostile/parameters/persistent" || return 1
	disk_detach "$G" $VDEV || return 1
	no_leak "after detach"
}

c_readonly() {
	be_use "$BACK" || return 1
	h_attach nullb2 access=ro || return 1
	c_attack readonly "" err_req 'write to read-only device'
	disk_detach "$G" $VDEV || return 1
	no_leak "after detach"
}

# unaligned: a 4 KiB-logical null_blk with a virtual boundary (as NVMe 4Kn has), and
# indirect requests of up to 512 segments (more than a bio holds)
c_unaligned() {
	local d=/sys/kernel/config/nullb/nb4k
	modprobe configfs 2>/dev/null
	[ -d /sys/kernel/config/nullb ] || mount -t configfs configfs /sys/kernel/config 2>/dev/null
	if [ ! -d $d ] && ! { mkdir $d && echo 4096 > $d/blocksize && echo 256 > $d/size &&
		echo 1 > $d/memory_backed && echo 1 > $d/virt_boundary && echo 1 > $d/power; }; then
		case_fail "cannot create a 4 KiB null_blk with a virtual boundary"
		return 1
	fi
	expect "nb4k virt_boundary" "$(cat $d/virt_boundary)" 1
	be_use "$BACK" max_indirect_segments=512 || return 1
	nn_start || return 1
	h_attach /dev/nb4k || return 1
	c_attack unaligned "" err_req 'not aligned to the logical block'
	grep -q '300-segment indirect requests' <<< "$H_LINE" ||
		case_fail "the 300-segment indirect requests did not run: $H_LINE"
	nn_stop
	disk_detach "$G" $VDEV || return 1
	no_leak "after detach"
}

# unaligned-intree: the same requests against Linux's xen-blkback, for the record (it has
# no err_req counter: the guest's checks of every response are the case)
c_unaligned_intree() {
	be_use xen-blkback || return 1
	h_attach /dev/nb4k || return 1
	h_run unaligned || case_fail "guest: $H_LINE"
	case_note "xen-blkback, guest: ${H_LINE#* }"
	case_note "dom0: '$(dmesg | grep -m1 -i 'misaligned' | sed 's/^\[[^]]*\] //' | cut -c1-120)'"
	disk_detach "$G" $VDEV
	be_use "$BACK"
}

# ------------------------------------------------------------------ dom0 stalls
PROBE=/sys/module/xlabprobe/parameters

# slow_disk: /dev/nbslow serves one request at a time, each after 2 s (null_blk fails a request
# after 5 s in the driver: requests queued behind others are slow without that)
slow_disk() {
	nullb_make nbslow size=64 irqmode=2 completion_nsec=2000000000 hw_queue_depth=1 ||
		{ case_fail "no slow null_blk"; return 1; }
}

# timed_attach NAME: xl block-attach of nullb1 as NAME's xvdb (run_case detaches it), how long
# it took in ATT_T; non-zero if it failed. A reference taken on an idle dom0 first tells what a
# second one may take while the backend is busy (the lab's speed varies from day to day)
timed_attach() {
	local t0 rc
	t0=$(now)
	timeout 60 xl block-attach "$1" "format=raw,vdev=xvdb,access=rw,target=/dev/nullb1"
	rc=$?
	ATT_T=$(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.1f", b - a}')
	CASE_DISKS+=("$1:xvdb")
	return $rc
}

# h_attach_reg BACKING [OPTS]: h_attach, and let run_case detach it at the end
h_attach_reg() {
	h_attach "$@" || return 1
	CASE_DISKS+=("$G:$VDEV")
}

# slowclose [BACKEND]: the hostile frontend pushes 8 reads on the slow disk (16 s for all) and
# writes Closing at once. The backend must not wait for them on the xenwatch thread: a second
# guest's xl block-attach meanwhile must take about as long as it does on an idle dom0 (measured
# first, in the same boot: the lab's speed varies), not the 16 s. The slow vbd gets to Closed
# once its reads are answered (xblkback), and nothing stays mapped.
c_slowclose() {
	local be=${1:-$BACK} q=g2 t0 ta tb tc st
	slow_disk || return 1
	be_use "$be" || return 1
	if [ -z "${G_DOMID[$q]}" ]; then
		guest_create "$q" 2 384 || { case_fail "could not create guest $q"; return 1; }
	fi
	fe_use "$q" xen-blkfront || return 1
	timed_attach "$q" || { case_fail "xl block-attach $q failed on an idle dom0"; return 1; }
	tb=$ATT_T
	disk_detach "$q" xvdb || return 1
	h_attach_reg /dev/nbslow || return 1
	h_run slowclose 8 || { case_fail "guest: $H_LINE"; return 1; }
	t0=$(now)
	log "xl block-attach $q while d${G_DOMID[$G]}/$VDEV closes with 8 slow reads in flight"
	timed_attach "$q" || case_fail "xl block-attach $q failed"
	ta=$ATT_T
	st=$(xs_back "$G" $VDEV state)
	# the bound is ours; xen-blkback's time is recorded. Waiting on xenwatch for the reads made
	# it 10.7 s (ac3e560, Xen's hotplug script).
	[ "$be" != xblkback ] || awk -v t="$ta" -v b="$tb" 'BEGIN{exit !(t < 2 * b + 1.5)}' ||
		case_fail "a second guest's xl block-attach took $ta s while the slow vbd closed, $tb s on an idle dom0"
	g_ok "$q" "waitdev /dev/xvdb 45 && dd if=/dev/xvdb of=/dev/null bs=64k count=16 iflag=direct 2>&1 | tail -1" ||
		case_fail "the second guest's disk does not work"
	# the slow vbd: Closed once its reads are answered (16 s after they were pushed)
	wait_until 60 0.2 be_state_in "$G" $VDEV 6
	st=$BE_STATE
	tc=$(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.1f", b - a}')
	if [ "$be" = xblkback ]; then
		expect "slow vbd state" "$st" 6
		awk -v t="$tc" 'BEGIN{exit !(t > 8)}' ||
			case_fail "the slow vbd was Closed after $tc s: its reads were not slow, the case shows nothing"
	fi
	case_note "second guest's xl block-attach took $ta s ($tb s idle); slow vbd Closed (state ${st:-gone}) after $tc s"
	disk_detach "$q" xvdb || return 1
	disk_detach "$G" $VDEV || return 1
	[ "$be" = xblkback ] && no_leak "after both detaches"
	be_use "$BACK"
}

# ringstart: a connect that fails half-way (the fail_ring_start fault point: ring 1's thread
# cannot start) must not stop the threads already started on the xenwatch thread. Guest g2
# (xen-blkfront, 2 queues) reads from the slow disk; xblkback is unbound from its vbd (the
# frontend stays Connected and queues more reads on both rings, which nobody takes) and bound
# again with the fault armed: ring 0's thread starts and submits the 4 reads that wait on its
# ring (2 s each, one at a time: 8 s), ring 1's fails. A third guest's xl block-attach
# meanwhile must not wait for them: it may take longer than on an idle dom0 (measured first;
# the failed connect's teardown runs beside it, 4.0 s against 1.1 s once on CI), but not the
# 8 s; dom0 says which ring failed, the vbd closes, detaches, and nothing stays mapped.
RING_FAULT=/sys/kernel/debug/xblkback/fail_ring_start
# xbb_threads DOMID: xblkback still has ring threads (xbb.DOMID.*) of that domain
xbb_threads() { grep -qs "^xbb\.$1\." /proc/[0-9]*/comm; }
c_ringstart() {
	local v=g2 q=g3 dev tb ta tbind tgone st
	[ -f $RING_FAULT ] || { case_fail "no $RING_FAULT"; return 1; }
	slow_disk || return 1
	be_use "$BACK" || return 1
	[ -n "${G_DOMID[$v]}" ] || guest_create "$v" 2 384 || { case_fail "could not create guest $v"; return 1; }
	[ -n "${G_DOMID[$q]}" ] || guest_create "$q" 1 384 || { case_fail "could not create guest $q"; return 1; }
	fe_use "$v" xen-blkfront && fe_use "$q" xen-blkfront || return 1
	timed_attach "$q" || { case_fail "xl block-attach $q failed on an idle dom0"; return 1; }
	tb=$ATT_T
	disk_detach "$q" xvdb || return 1
	timeout 60 xl block-attach "$v" "format=raw,vdev=xvdb,access=rw,target=/dev/nbslow" ||
		{ case_fail "xl block-attach $v failed"; return 1; }
	CASE_DISKS+=("$v:xvdb")
	dev=vbd-${G_DOMID[$v]}-$(vdev_devid xvdb)
	g_ok -t 90 "$v" "waitdev /dev/xvdb 60 && echo queues=\$(ls -d /sys/block/xvdb/mq/* | wc -l)" || return 1
	expect "queues of $v's disk" "$(g_field queues)" 2 || return 1
	# reads on both rings (a job on each vCPU: 4 on ring 0, 1 on ring 1), ended by the disk's
	# failure later
	g_ok "$v" "(timeout 120 fio --filename=/dev/xvdb --ioengine=libaio --direct=1 \
		--rw=randread --bs=4k --runtime=100 --time_based \
		--name=r0 --cpus_allowed=0 --iodepth=4 --name=r1 --cpus_allowed=1 --iodepth=1 \
		> /dev/null 2>&1 &) ; sleep 2" || return 1
	log "unbind xblkback from $dev (the frontend stays Connected)"
	echo "$dev" > /sys/bus/xen-backend/drivers/xblkback/unbind || { case_fail "unbind failed"; return 1; }
	# the old rings' threads answer what they had taken (2 s a read), then go
	wait_until 40 0.2 ! xbb_threads "${G_DOMID[$v]}"
	sleep 2   # more reads queue on the rings meanwhile
	echo 2 > $RING_FAULT || { case_fail "cannot arm $RING_FAULT"; return 1; }
	log "bind xblkback to $dev with ring 1's start failing"
	echo "$dev" > /sys/bus/xen-backend/drivers/xblkback/bind || case_fail "bind failed"
	tbind=$(now)
	timed_attach "$q" || case_fail "xl block-attach $q failed while $dev's connect failed"
	ta=$ATT_T
	echo 0 > $RING_FAULT
	# ring 0's thread ends once its reads are answered
	wait_until 30 0.2 ! xbb_threads "${G_DOMID[$v]}"
	tgone=$(awk -v a="$tbind" -v b="$(now)" 'BEGIN{printf "%.1f", b - a}')
	# the bound is ours, under the 8 s that stopping ring 0 on xenwatch would add
	awk -v t="$ta" -v b="$tb" 'BEGIN{exit !(t < 2 * b + 3)}' ||
		case_fail "a third guest's xl block-attach took $ta s while $dev's connect failed, $tb s on an idle dom0; ring 0's thread ended $tgone s after the bind"
	dmesg | grep -q "$dev.*starting the thread of ring 1 (of 2)" ||
		case_fail "dom0's log does not say ring 1's thread did not start: $(dmesg | grep "$dev" | tail -1 | cut -c1-150)"
	wait_until 30 0.2 be_state_in "$v" xvdb 5 6
	st=$BE_STATE
	[ "$st" = 5 ] || [ "$st" = 6 ] || case_fail "the vbd's backend state is '$st', not Closing/Closed"
	case_note "third guest's xl block-attach took $ta s ($tb s idle) while ring 1's start failed, ring 0's thread ended after $tgone s; backend state $st"
	disk_detach "$q" xvdb
	disk_detach "$v" xvdb || return 1
	no_leak "after the failed connect and the detach"
}

# stormfull: the budget (max_inflight_pages=64; max_indirect_segments=16, or the budget is raised
# to one largest request) used up by four 16-segment reads on a disk that takes all four at once
# and answers them after 4.5 s, a read waiting for them, and 4 s of notifications meanwhile: the
# blocked ring must throttle the storm (spurious late EOIs) instead of taking an interrupt per
# round. (The device must not be what blocks the ring thread: then no round runs at all.)
c_stormfull() {
	local n0 n1 o0 o1 irqs sent
	nullb_make nbstorm size=64 irqmode=2 completion_nsec=4500000000 ||
		{ case_fail "no slow null_blk"; return 1; }
	be_use "$BACK" max_inflight_pages=64 max_indirect_segments=16 || return 1
	nn_start || return 1
	h_attach_reg /dev/nbstorm || return 1
	n0=$(be_stat "$G" $VDEV notify_in) o0=$(be_stat "$G" $VDEV oo_req)
	h_run stormfull 4 200 || case_fail "guest: $H_LINE"
	n1=$(be_stat "$G" $VDEV notify_in) o1=$(be_stat "$G" $VDEV oo_req)
	nn_stop
	irqs=$((n1 - n0)) sent=$(h_field notifications)
	[ "$((o1 - o0))" -ge 1 ] || case_fail "the ring never ran out of budget (oo_req $o0 -> $o1): the case shows nothing"
	# Linux delays a spurious late EOI by a jiffy at most once the next EOI is not spurious,
	# and its delayed EOI is not (drivers/xen/events): about one interrupt per jiffy, HZ 250
	[ "$irqs" -le 2000 ] || case_fail "the blocked ring took $irqs interrupts for ${sent:-?} notifications in 4 s (more than 500 a second)"
	case_note "guest: ${H_LINE#* }"
	case_note "dom0: notify_in +$irqs for ${sent:-?} notifications while blocked, oo_req +$((o1 - o0))"
	disk_detach "$G" $VDEV || return 1
	no_leak "after detach"
	be_use "$BACK"
}

# discards: two hostile guests (16-page rings) each push 511 whole-device discards on a
# discard-capable disk that completes after 2 s. dom0's shared workqueue must stay free (a work
# item queued on system_unbound_wq every 50 ms by tests/probe/xlabprobe.ko waits < 0.5 s), and
# a ring keeps at most 64 discards in flight (XBB_DISCARD_PAGES against the 4096-page budget)
c_discards() {
	local q=g3 qhd=/sys/kernel/debug/xblkhostile max_us fl1 fl2 d0 d1 rc1 rc2 p1 p2
	# hw_queue_depth 1024: the device must not be what bounds the discards in flight
	nullb_make nbdisc size=64 memory_backed=1 discard=1 irqmode=2 completion_nsec=2000000000 \
		hw_queue_depth=1024 &&
		nullb_make nbdisc2 size=64 memory_backed=1 discard=1 irqmode=2 \
			completion_nsec=2000000000 hw_queue_depth=1024 ||
		{ case_fail "no discard-capable null_blk"; return 1; }
	be_use "$BACK" || return 1
	g_ok "$G" "echo 4 > /sys/module/xblkhostile/parameters/ring_order" || return 1
	h_attach_reg /dev/nbdisc || return 1
	if [ -z "${G_DOMID[$q]}" ]; then
		guest_create "$q" 2 384 || { case_fail "could not create guest $q"; return 1; }
	fi
	g_ok "$q" "fe_unload; insmod /extra/xblkhostile.ko ring_order=4 && mount -t debugfs none /sys/kernel/debug" || return 1
	timeout 90 xl block-attach "$q" "format=raw,vdev=$VDEV,access=rw,target=/dev/nbdisc2" ||
		{ case_fail "xl block-attach $q failed"; return 1; }
	CASE_DISKS+=("$q:$VDEV")
	g_ok "$q" "wait_until 30 0.1 grep -q 'connected=1' $qhd/status
		grep -q 'discard=1' $qhd/status" || { case_fail "guest $q: no connected discard-capable disk"; return 1; }
	insmod /extra/xlabprobe.ko || { case_fail "insmod xlabprobe.ko failed"; return 1; }
	sleep 1
	echo 0 > $PROBE/unbound_max_us
	d0=$(be_stat "$G" $VDEV ds_req)
	rm -f "$LAB_TMP"/disc.*
	( g_run -t 300 "$G" "echo discards > $HD/run; cat $HD/run"; echo "$G_RC" > "$LAB_TMP"/disc.rc1
	  cp "$G_OUT" "$LAB_TMP"/disc.out1 ) &
	p1=$!
	sleep 1		# g_run numbers its commands from one file: not at the same instant
	( g_run -t 300 "$q" "echo discards > $qhd/run; cat $qhd/run"; echo "$G_RC" > "$LAB_TMP"/disc.rc2
	  cp "$G_OUT" "$LAB_TMP"/disc.out2 ) &
	p2=$!
	fl1=0 fl2=0
	wait_until 300 0.2 _discards_done
	# (not a bare wait: the guests' console streams are background jobs too)
	wait $p1 $p2
	max_us=$(cat $PROBE/unbound_max_us)
	d1=$(be_stat "$G" $VDEV ds_req)
	rmmod xlabprobe
	rc1=$(grep -E '^(PASS|FAIL) ' "$LAB_TMP"/disc.out1 2>/dev/null | tail -1)
	rc2=$(grep -E '^(PASS|FAIL) ' "$LAB_TMP"/disc.out2 2>/dev/null | tail -1)
	[ "${rc1%% *}" = PASS ] || case_fail "guest $G: ${rc1:-no result}"
	[ "${rc2%% *}" = PASS ] || case_fail "guest $q: ${rc2:-no result}"
	expect "ds_req growth" $((d1 - d0)) 511
	[ "$max_us" -lt 500000 ] ||
		case_fail "a work item on system_unbound_wq waited $((max_us / 1000)) ms during the discard flood"
	[ "$fl1" -le 64 ] && [ "$fl2" -le 64 ] ||
		case_fail "discards in flight per device reached $fl1 / $fl2 (bound 64)"
	[ "$fl1" -ge 2 ] || case_fail "at most $fl1 discard in flight: the flood did not happen"
	case_note "1022 whole-device discards from two guests: worst wait on system_unbound_wq $((max_us / 1000)) ms, at most $fl1 / $fl2 in flight per device"
	g_ok "$G" "echo 0 > /sys/module/xblkhostile/parameters/ring_order"
	disk_detach "$q" $VDEV
	guest_destroy "$q"
	disk_detach "$G" $VDEV || return 1
	no_leak "after detach"
}

# _discards_done: both guests' discard runs ended; else the most discards in flight on each
# device so far, sampled into c_discards' fl1 and fl2
_discards_done() {
	local a b
	[ -f "$LAB_TMP"/disc.rc1 ] && [ -f "$LAB_TMP"/disc.rc2 ] && return 0
	read -r _ a < /sys/block/nbdisc/inflight; read -r _ b < /sys/block/nbdisc2/inflight
	[ "$a" -gt "$fl1" ] && fl1=$a
	[ "$b" -gt "$fl2" ] && fl2=$b
	return 1
}

# bigfrag: dom0's memory fragmented (tests/probe/xlabprobe.ko: nothing free above 16 KiB,
# compaction off through vm.extfrag_threshold=1000): a 1024-segment indirect read, whose
# segment array is 40 KiB, must still be served (the array need not be contiguous). (Not more:
# its segments reuse xblkhostile's 16 data pages, and Xen maps one grant at most 128 times)
c_bigfrag() {
	local thr big r0 r1 rc=0
	be_use "$BACK" max_indirect_segments=1024 || return 1
	h_attach_reg nullb0 || return 1
	insmod /extra/xlabprobe.ko || { case_fail "insmod xlabprobe.ko failed"; return 1; }
	thr=$(cat /proc/sys/vm/extfrag_threshold)
	echo 1000 > /proc/sys/vm/extfrag_threshold
	echo 3 > /proc/sys/vm/drop_caches
	r0=$(be_stat "$G" $VDEV map_retry)
	if echo 64 > $PROBE/fragment; then
		# free blocks of order 4 (64 KiB, what a 40 KiB kmalloc takes) and above; dom0 frees
		# pages meanwhile (a process exits): fragment again, up to 3 times
		for _ in 1 2 3; do
			big=$(awk '/zone/ { for (i = 9; i <= NF; i++) s += $i } END { print s + 0 }' /proc/buddyinfo)
			[ "$big" = 0 ] && break
			echo 64 > $PROBE/fragment
		done
		[ "$big" = 0 ] || { case_fail "dom0 still has $big free blocks of 64 KiB or more: not fragmented"; rc=1; }
		log "buddyinfo: $(tr -s ' ' < /proc/buddyinfo | tr '\n' '|')"
		[ $rc = 0 ] && { h_run bigind 1024 90 || case_fail "guest: $H_LINE"; }
		r1=$(be_stat "$G" $VDEV map_retry)
		echo 0 > $PROBE/fragment
	else
		case_fail "xlabprobe could not fragment dom0's memory"
	fi
	echo "$thr" > /proc/sys/vm/extfrag_threshold
	rmmod xlabprobe
	case_note "guest: ${H_LINE#* }; map_retry $r0 -> ${r1:-?}"
	disk_detach "$G" $VDEV || return 1
	no_leak "after detach"
	be_use "$BACK"
}

# ------------------------------------------------------------------ keys
# KEYS: MODE|SPEC|REGEX. SPEC is xblkhostile's key spec (or raw:KEY=VALUE, see keys_try) (tests/hostile/xblkhostile.c: KEY=VALUE
# or -KEY, ';'-separated; %r ring grant, %e event channel, %u a ref allocated but never
# granted, %d a granted data page; printf %b escapes, written in one write(2): bash's printf
# splits at newlines); @MAXO1@/@MAXQ1@ are the backend's
# max-ring-page-order/multi-queue-max-queues + 1. REGEX must match both the new xblkback line
# about the vbd and the error node.
# (xenstored refuses values above 2048 bytes: ENOSPC)
printf -v LONG1 '%1000s' ''
LONG1=${LONG1// /1}
Z40=0000000000000000000000000000000000000000
KEYS=(
	"order-above|ring-page-order=@MAXO1@|/ring-page-order = \"[0-9]+\" \(1 bytes\) is out of range: want 0\.\."
	"order-99|ring-page-order=99|/ring-page-order = \"99\" .* is out of range"
	"order-neg|ring-page-order=-1|/ring-page-order = \"-1\" .* is malformed"
	"order-abc|ring-page-order=abc|/ring-page-order = \"abc\" .* is malformed"
	"queues-0|multi-queue-num-queues=0|/multi-queue-num-queues = \"0\" .* is out of range: want 1\.\."
	"queues-above|multi-queue-num-queues=@MAXQ1@|/multi-queue-num-queues = \"[0-9]+\" .* is out of range"
	"queues-huge|multi-queue-num-queues=99999999999999999999999|/multi-queue-num-queues = \"9+\" \(23 bytes\) is out of range"
	"queues-nodir|multi-queue-num-queues=2|/queue-0/event-channel is missing"
	"queues-q1-unmapped|multi-queue-num-queues=2;-ring-ref;-event-channel;queue-0/ring-ref=%r;queue-0/event-channel=%e;queue-1/ring-ref=%u;queue-1/event-channel=%e|ring 1: frontend key [^ ]*/queue-1/ring-ref = [0-9]+: not a page granted to us"
	"queues-q1-evtchn|multi-queue-num-queues=2;-ring-ref;-event-channel;queue-0/ring-ref=%r;queue-0/event-channel=%e;queue-1/ring-ref=%d;queue-1/event-channel=%e|ring 1: frontend key [^ ]*/queue-1/event-channel = [0-9]+: cannot bind"
	"ringref-missing|-ring-ref|/ring-ref is missing"
	"ringref-0|ring-ref=0|/ring-ref = \"0\" .* is out of range: want a grant reference >= 2"
	"ringref-1|ring-ref=1|/ring-ref = \"1\" .* is out of range"
	"ringref-2|ring-ref=2|ring 0: frontend key [^ ]*/ring-ref = 2: not a page granted to us"
	"ringref-unused|ring-ref=%u|ring 0: frontend key [^ ]*/ring-ref = [0-9]+: not a page granted to us"
	"ringref-beyond|ring-ref=268435200|ring 0: frontend key [^ ]*/ring-ref = 268435200: not a page granted to us"
	"ringref-short|ring-page-order=2;-ring-ref;ring-ref0=%r;ring-ref1=%d|/ring-ref2 is missing"
	"ringref-short-bare|ring-page-order=1|/ring-ref0 is missing"
	"ringref-order1-unused|ring-page-order=1;-ring-ref;ring-ref0=%r;ring-ref1=%u|ring 0: frontend key [^ ]*/ring-ref0 = [0-9]+ \(or one of the next ring-refN\): not a page granted"
	"evtchn-missing|-event-channel|/event-channel is missing"
	"evtchn-0|event-channel=0|/event-channel = \"0\" .* is out of range"
	"evtchn-99999|event-channel=99999|ring 0: frontend key [^ ]*/event-channel = 99999: cannot bind the event channel"
	"evtchn-huge|event-channel=4294967296|/event-channel = \"4294967296\" .* is out of range"
	"proto-x86_16|protocol=x86_16_abi|/protocol = \"x86_16_abi\" \(10 bytes\) is unsupported: want x86_32-abi or x86_64-abi"
	"proto-empty|protocol=|/protocol = \"\" \(0 bytes\) is unsupported"
	"proto-escape|protocol=x86_64-abi\\n<0>xblk-FAKE-LINE\\e[2J|/protocol = \"x86_64-abi\\\\n<0>xblk-FAKE-LINE\\\\e\[2J\" \([0-9]+ bytes\) is unsupported"
	"proto-long|protocol=x86_64-abi$LONG1|/protocol = \"x86_64-abi1{22}\"\.\.\. \([0-9]+ bytes\) is unsupported"
	"proto-nul|raw:protocol=x86_64-abi\\x00x|/protocol = \"x86_64-abi\\\\0x\" \(12 bytes\) is malformed"
	"ringref-nul|raw:ring-ref=@ring-ref@\\x00junk|/ring-ref = \"[0-9]+\\\\0junk\" \([0-9]+ bytes\) is malformed"
	"evtchn-nul|raw:event-channel=@event-channel@\\x00|/event-channel = \"[0-9]+\\\\0\" \([0-9]+ bytes\) is malformed"
	"persistent-abc|feature-persistent=abc|/feature-persistent = \"abc\" .* is malformed: want 0 or 1"
	"persistent-1abc|feature-persistent=1abc|/feature-persistent = \"1abc\" .* is malformed"
	"persistent-2|feature-persistent=2|/feature-persistent = \"2\" .* is out of range: want 0 or 1"
	"trail-ringref|ring-ref=%rabc|/ring-ref = \"[0-9]+abc\" .* is malformed"
	"trail-evtchn|event-channel=%e |/event-channel = \"[0-9]+ \" .* is malformed"
	"trail-queues|multi-queue-num-queues=1\\t|/multi-queue-num-queues = \"1\\\\t\" .* is malformed"
	"long-ringref|ring-ref=$Z40%r|/ring-ref = \"0{32}\"\.\.\. \([0-9]+ bytes\) is malformed"
	"long-queues|multi-queue-num-queues=$LONG1|/multi-queue-num-queues = \"1{32}\"\.\.\. \(1000 bytes\) is malformed"
)

# The keys cases make test (CI) runs with XLAB_OPTS="keys=ci" (scripts/test-faults.sh): each
# key once, and every distinct way of refusing one (grant, event channel, second queue, NUL,
# escapes, overlong); the other variants of a key go through the same reader and its unit
# tests (tests/unit test_xenstore, fuzz_xenstore). make test-long runs them all, and so does
# XLAB_CASES naming one.
KEYS_CI="order-abc queues-above queues-q1-evtchn ringref-missing ringref-unused evtchn-99999
	proto-escape proto-nul persistent-2 long-queues"
keys_selected() {
	[ "${XLAB_KEYS:-all}" = ci ] && [ -z "${XLAB_CASES:-}" ] || return 0
	[[ " $(echo $KEYS_CI) " == *" $1 "* ]]
}

# be_path/err_node: the vbd's backend directory and xenbus' error node for it
be_path() { echo "/local/domain/0/backend/vbd/${G_DOMID[$G]}/$(vdev_devid "$VDEV")"; }
err_node() { echo "/local/domain/0/error/backend/vbd/${G_DOMID[$G]}/$(vdev_devid "$VDEV")/error"; }

# c_keys SPEC REGEX: attach with the key spec; the backend must refuse as described above
c_keys() {
	local rc=0
	keys_try "$@" || rc=1
	# later attaches must not be held
	g_run "$G" "echo clear > $HD/keys"
	return $rc
}

keys_try() {
	local spec=$1 re=$2 be k0 new st maxo maxq err
	be=$(be_path)
	xenstore-rm "$(dirname "$(err_node)")" 2>/dev/null
	k0=$(klines)
	# any spec holds the next device in Initialising until "go"
	g_ok "$G" "echo 'set -none' > $HD/keys" || return 1
	log "xl block-attach $G (keys held)"
	timeout 90 xl block-attach "$G" "format=raw,vdev=$VDEV,access=rw,target=$(backing nullb0)" ||
		{ case_fail "xl block-attach failed"; return 1; }
	CASE_DISKS+=("$G:$VDEV")
	# the backend has the disk open: accepted keys would connect at once
	wait_until 20 0.2 klog_match "$k0" ': device [0-9]+:[0-9]+ '
	maxo=$(xenstore-read "$be/max-ring-page-order") maxq=$(xenstore-read "$be/multi-queue-max-queues")
	if [ -z "$maxo" ] || [ -z "$maxq" ]; then case_fail "backend maxima not in xenstore"; return 1; fi
	spec=${spec//@MAXO1@/$((maxo + 1))}
	spec=${spec//@MAXQ1@/$((maxq + 1))}
	if [[ $spec == raw:* ]]; then
		# raw:KEY=VALUE: the usual keys, then KEY rewritten by xenstore-write, whose \xNN
		# escapes can put a NUL inside (no spec can); @K@ in VALUE is key K's value
		local kv=${spec#raw:} dir=device/vbd/$(vdev_devid "$VDEV")
		g_ok "$G" "wait_until 10 0.1 grep -q held=1 $HD/keys
			grep -q held=1 $HD/keys && echo write > $HD/keys && v='${kv#*=}' &&
			for k in ring-ref event-channel; do v=\${v//@\$k@/\$(xenstore-read $dir/\$k)}; done &&
			xenstore-write $dir/${kv%%=*} \"\$v\" && echo go > $HD/keys && cat $HD/status" || return 1
	else
		g_ok "$G" "wait_until 10 0.1 grep -q held=1 $HD/keys
			grep -q held=1 $HD/keys && printf 'set %b' '$spec' > /tmp/keys.spec &&
			dd if=/tmp/keys.spec of=$HD/keys bs=8k 2>/dev/null && echo go > $HD/keys && cat $HD/status" || return 1
	fi
	# refused: Closing (5) or, once we followed, Closed (6)
	wait_until 20 0.2 be_state_in "$G" $VDEV 5 6
	sleep 1
	st=$(xenstore-read "$be/state" 2>/dev/null)
	[ "$st" = 5 ] || [ "$st" = 6 ] || case_fail "backend state $st, not Closing/Closed"
	new=$(klog_since "$k0")
	grep -q ': connected: ' <<< "$new" && case_fail "the backend connected: $(grep -m1 ': connected: ' <<< "$new" | cut -c1-150)"
	g_run "$G" "cat $HD/status"
	grep -q 'connected=0' "$G_OUT" || case_fail "guest: $(head -1 "$G_OUT" | cut -c1-200)"
	grep -qE "d${G_DOMID[$G]}/$VDEV: .*$re" <<< "$new" ||
		case_fail "no xblkback line for $(vbd_tag) naming d${G_DOMID[$G]}/$VDEV and matching '$re' (got: $(grep -v ': device [0-9]' <<< "$new" | head -3 | tr '\n' '|' | cut -c1-300))"
	err=$(xenstore-read -R "$(err_node)" 2>/dev/null)
	grep -qE "$re" <<< "$err" || case_fail "error node '$err' does not match '$re'"
	grep -q 'xblk-FAKE-LINE' <<< "$(dmesg | grep -v 'xblkback ')" && case_fail "a guest-chosen line reached dom0's log unescaped"
	no_leak "refused" || true
	disk_detach "$G" $VDEV || return 1
	no_leak "after detach"
	case_note "dom0: '$(grep -m1 -E "$re" <<< "$new" | sed 's/^\[[^]]*\] //' | cut -c1-220)'"
}

# keys-good: after every bad attach, the same guest attaches with good keys and is served
c_keys_good() {
	g_ok "$G" "echo clear > $HD/keys" || return 1
	h_attach nullb0 || return 1
	CASE_DISKS+=("$G:$VDEV")
	h_run good || case_fail "guest: $H_LINE"
	case_note "guest: ${H_LINE#* }"
	disk_detach "$G" $VDEV || return 1
	no_leak "after detach"
}

# state-unknown: see the list at the top. xblkback, like xen-blkback, takes Unknown for a
# frontend that is gone: it disconnects, says Closed and lets its xenbus device go (or, with
# requests in flight, closes the backing device once its teardown has waited for them).
state0_write() {
	g_ok "$G" "xenstore-write device/vbd/$(vdev_devid "$VDEV")/state 0" ||
		{ case_fail "the guest could not write its state"; return 1; }
}
c_state_unknown() {
	local t0 t1
	h_attach_reg nullb0 || return 1
	h_run good || { case_fail "guest before: $H_LINE"; return 1; }
	state0_write || return 1
	wait_until 20 0.2 be_state_in "$G" $VDEV 6
	expect "backend state after Unknown (connected, idle)" "$BE_STATE" 6
	no_leak "after Unknown (idle)" || true
	disk_detach "$G" $VDEV || return 1
	no_leak "after detach (idle)" || return 1
	slow_disk || return 1
	h_attach_reg /dev/nbslow || return 1
	h_run slowclose 8 || { case_fail "guest: $H_LINE"; return 1; }
	t0=$(now)
	state0_write || return 1
	wait_until 60 0.2 be_state_in "$G" $VDEV 6
	t1=$(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.1f", b - a}')
	expect "backend state after Unknown (8 slow reads in flight)" "$BE_STATE" 6
	no_leak "after Unknown (reads answered)" || true
	disk_detach "$G" $VDEV || return 1
	no_leak "after detach (reads in flight)" || return 1
	case_note "Unknown when idle and with 8 slow reads in flight (Closed after $t1 s): nothing mapped, detached"
	c_keys_good
}

# the attack cases on the main disk, with their counter and expected log line
attack() {   # NAME CASE ARG COUNTER REGEX
	want "$1" && run_case "$1" c_attack "${@:2}"
}
# again_in_noisy NAME: true if case NAME runs alone. noisy-neighbour runs the attacks dfetch,
# grefs, indirect, flood and storm again with the same checks, beside a guest whose I/O must
# go on: under tier=ci (CI's time) only there, unless noisy-neighbour is left out.
again_in_noisy() {
	want noisy-neighbour || return 0
	long_only "$1"
}

suite_require
if suite_begin; then
	run_case setup c_setup
	want good && run_case good c_good
	attack nsegs nsegs "" err_req 'refused request id [0-9]+ \(op [01], [0-9]+ segments\): bad segment count'
	again_in_noisy indirect && attack indirect indirect "" any 'bad indirect operation'
	attack segs segs "" err_req ': bad segment$'
	attack range range "" err_req 'beyond the end of the device'
	attack badop badop "" err_req 'unknown operation'
	again_in_noisy grefs && attack grefs grefs "" io_err 'mapping grant [0-9]+ failed'
	attack dupid dupid "" err_req 'bad segment count'
	again_in_noisy dfetch && attack dfetch dfetch 300 err_req ""
	want flood && again_in_noisy flood && run_case flood c_flood
	want storm && again_in_noisy storm && run_case storm c_storm 15
	want noisy-neighbour && run_case noisy-neighbour c_noisy
	want good && run_case good-after c_good
	want prod-ahead && run_case prod-ahead c_prod
	run_case detach c_detach
	for k in "${KEYS[@]}"; do
		IFS='|' read -r m kspec kre <<< "$k"
		keys_selected "$m" || continue
		want keys "keys-$m" && run_case "keys-$m" c_keys "$kspec" "$kre"
	done
	want keys keys-good && run_case keys-good c_keys_good
	want state-unknown && run_case state-unknown c_state_unknown
	want persistent && run_case persistent c_persistent_attacks
	want readonly && run_case readonly c_readonly
	want unaligned && run_case unaligned c_unaligned
	want unaligned && long_only unaligned-intree && run_case unaligned-intree c_unaligned_intree
	want stormfull && run_case stormfull c_stormfull
	want bigfrag && run_case bigfrag c_bigfrag
	want discards && run_case discards c_discards
	want slowclose && run_case slowclose c_slowclose
	want ringstart && run_case ringstart c_ringstart
	want slowclose && long_only slowclose-intree && run_case slowclose-intree c_slowclose xen-blkback
else
	setup_failed
fi
suite_end
