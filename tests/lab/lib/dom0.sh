# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# dom0-side library of the lab, sourced by /lab/suites/<suite>.sh (bash, in dom0). It sources
# lib/common.sh (want, wait_until) first and lib/cases.sh (the reusable cases) last.
#
#   results     case_begin/case_fail/case_note/case_end, run_case, case_skip
#   guests      guest_create NAME [VCPUS] [MEM_MB] [DISKSPEC...], guest_destroy, guest_ensure,
#               main_vcpus, guest_vcpus, vcpu_guest (4-vCPU guests)
#   in-guest    g_run [-t SECS] NAME CMD (sets G_RC, G_OUT), g_ok, g_out
#   disks       backing_setup, backing NAME, disk_attach, disk_detach, vdev_devid
#   backend     be_use MODULE [param=value...], be_stat, be_stats, xs_front, xs_back
#   frontend    fe_use NAME MODULE [param=value...]   (runs lib/guest.sh's fe_use in the guest)
#   suite       suite_require (the SKIP of a suite whose modules are not in the image),
#               skip_suite, setup_failed, domain_listed; want and wait_until: lib/common.sh
#
# A case prints exactly one line:  XLAB-CASE <suite>/<case>: PASS|FAIL|SKIP <detail>
# and the suite prints an XLAB-SUMMARY block of all of them at the end (suite_end).

LAB_SUITE=${XLAB_SUITE:?XLAB_SUITE not set}
# shellcheck source=tests/lab/lib/common.sh
. "${BASH_SOURCE[0]%/*}/common.sh"
LAB_TMP=/tmp/xlab
mkdir -p $LAB_TMP
: > $LAB_TMP/results.$LAB_SUITE
[ -f $LAB_TMP/seq ] || echo 0 > $LAB_TMP/seq
CMD_TIMEOUT=${XLAB_CMD_TIMEOUT:-120}     # default per guest command, seconds
CONSOLE_DIR=/var/log/xen/console
# xblkback's driver directory: grants_mapped and pages_in_use, what it holds over all its vbds
# shellcheck disable=SC2034 # (the suites and cases.sh read it)
DRV=/sys/bus/xen-backend/drivers/xblkback

declare -A G_DOMID G_WATCHFD G_WATCHPID G_TAILPID G_BAD G_ARGS G_LAST
declare -a CASE_DISKS

now() { local u; read -r u _ < /proc/uptime; echo "$u"; }

# Under TCG, dom0 user space sees rare spurious failures (a process aborting, an exec failing
# with ENOENT): liveness is judged on xenstore, and only after 3 failed looks in a row.
guest_alive() {   # NAME
	local i
	for i in 1 2 3; do
		xenstore-read "/local/domain/${G_DOMID[$1]}/name" >/dev/null 2>&1 && return 0
		sleep 1
	done
	return 1
}
# guest_gone NAME DOMID: a guest that vanished under a command: the case says so, with Xen's last
# line about the domain (e.g. "d3v3 Triple fault"), since the command's rc only says "no answer"
guest_gone() {
	local why
	why=$(xl dmesg 2>/dev/null | grep -E "[( ]d$2(v[0-9]+)?[ :]|Domain $2 " | tail -1 | sed "s/^(XEN) //" | cut -c1-100)
	log "guest $1 is gone${why:+ (Xen: $why)}"
	case_note "guest $1 (domain $2) died${why:+, Xen: $why}"
}
# proc_running PATTERN: some process has PATTERN in its command line (busybox has no pgrep)
proc_running() {
	local p
	for p in /proc/[0-9]*/cmdline; do
		tr '\0' ' ' < "$p" 2>/dev/null | grep -q -- "$1" && return 0
	done
	return 1
}
log() { local u; read -r u _ < /proc/uptime; echo "XLAB[dom0 $u] $*"; }

# ------------------------------------------------------------------ results
case_begin() {
	CASE=$1 CASE_ERR="" CASE_NOTE="" CASE_T0=$(now)
	CASE_DISKS=() FE_UNCHECKED=""
	log "---- case $LAB_SUITE/$CASE"
}
case_fail() {
	CASE_ERR="${CASE_ERR:+$CASE_ERR; }$*"
	log "case $CASE: FAIL: $*"
	return 1
}
case_note() { CASE_NOTE="${CASE_NOTE:+$CASE_NOTE, }$*"; }
case_ok() { [ -z "$CASE_ERR" ]; }
_case_line() {   # STATUS DETAIL
	local line="XLAB-CASE $LAB_SUITE/$CASE: $1${2:+ $2}"
	line=${line//$'\n'/ }
	echo "$line" >> $LAB_TMP/results.$LAB_SUITE
	echo "$line"
}
case_end() {
	local dt
	dt=$(awk -v a="$CASE_T0" -v b="$(now)" 'BEGIN{printf "%.0f", b-a}')
	# fe_has (cases.sh): what the in-tree frontend has no file for
	[ -n "$FE_UNCHECKED" ] && case_note "not checked with xen-blkfront (no such counters):$FE_UNCHECKED"
	if case_ok; then
		_case_line PASS "${CASE_NOTE:+$CASE_NOTE }(${dt}s)"
	else
		_case_line FAIL "$CASE_ERR${CASE_NOTE:+ [$CASE_NOTE]} (${dt}s)"
	fi
}
case_skip() {   # NAME REASON
	CASE=$1
	_case_line SKIP "$2"
}

# suite_require [KO...]: the modules this suite needs (default: XLAB_NEEDS, which run.sh makes
# from the suite's SUITE_NEEDS) must be in the image's /extra; else the suite reports
# "all: SKIP ... not in the image" and ends here. (run.sh checks the build before the boot:
# this catches a dom0 booted by hand, XLAB_SHELL, with other modules.)
suite_require() {
	local m miss=() n=${XLAB_NEEDS:-}
	# shellcheck disable=SC2086 # (a list)
	[ $# -gt 0 ] || set -- ${n//,/ }
	for m in "$@"; do [ -f "/extra/$m" ] || miss+=("$m"); done
	[ ${#miss[@]} = 0 ] && return 0
	skip_suite "${miss[*]} not in the image"
}

# skip_suite REASON: the whole suite is skipped ("all: SKIP REASON"); ends it here
skip_suite() {
	case_skip all "$1"
	suite_end
	exit
}

# setup_failed [REASON]: the suite's common setup (suite_begin...) failed: one FAIL line, case
# "setup", so that a suite that ran no case still fails
setup_failed() {
	case_begin setup
	case_fail "${1:-suite setup failed}"
	case_end
}

# long_only NAME: true if case NAME is to run. A case that only make test-long runs (an in-tree
# driver's behaviour recorded beside ours, a further variant of a setting that CI covers once)
# is reported SKIP under XLAB_TIER=ci (make test, CI: its time budget), unless XLAB_CASES names
# the cases to run.
long_only() {
	ci_cut || return 0
	case_skip "$1" "make test-long only (CI's time budget)"
	return 1
}

# ci_cut: true where long_only skips (XLAB_TIER=ci, no XLAB_CASES); for a part of a running
# case, which notes what it left out rather than reporting a case of its own
ci_cut() { [ "${XLAB_TIER:-}" = ci ] && [ -z "${XLAB_CASES:-}" ]; }

# run_case NAME FUNC [ARGS...]: one case; FUNC may stop early by returning non-zero (it must
# have called case_fail then, or a generic failure is recorded). Disks the case attached are
# detached afterwards, a guest whose agent hung is destroyed (guest_ensure recreates it).
run_case() {
	local name=$1 fn=$2 d g
	shift 2
	case_begin "$name"
	# the boot has a hard timeout: rather than being killed mid-case, report what is left
	if [ -n "${XLAB_BUDGET:-}" ] && [ "$(cut -d. -f1 /proc/uptime)" -gt "$XLAB_BUDGET" ]; then
		case_fail "not run: the boot's time budget (${XLAB_BUDGET}s) is used up"
		case_end
		return
	fi
	if [ -n "${G:-}" ] && [ -n "${G_ARGS[$G]}" ] && ! guest_ensure "$G"; then
		case_fail "guest $G could not be (re)created"
	elif ! "$fn" "$@"; then
		case_ok && case_fail "$fn returned failure"
	fi
	for d in "${CASE_DISKS[@]}"; do
		g=${d%%:*}
		[ -n "${G_BAD[$g]}" ] && continue
		# a disk that does not go away leaves the guest unusable for the next cases: it is
		# destroyed below and re-created by the next case
		disk_detach "$g" "${d#*:}" || { log "guest $g: ${d#*:} did not detach cleanly"; G_BAD[$g]=1; }
	done
	# kernel warnings/oopses in the guest (also from the detach) and in dom0 fail the case; a
	# kcheck that was the guest's last command (disk_detach's) has seen everything already
	if [ -n "${G:-}" ] && [ -n "${G_DOMID[$G]}" ] && [ -z "${G_BAD[$G]}" ] &&
		[ "${G_LAST[$G]:-}" != "kcheck 0" ]; then
		g_kcheck
	fi
	dom0_kcheck || true
	for g in "${!G_BAD[@]}"; do
		[ -n "${G_BAD[$g]}" ] && [ -n "${G_DOMID[$g]}" ] && { log "destroying hung guest $g"; guest_destroy "$g"; }
	done
	# a steadily shrinking figure here points at a leak in dom0 (e.g. the backend)
	log "dom0 memory after $CASE: $(free -m | awk '/^Mem/{print $3 " MiB used, " $4 " MiB free"}')"
	if ! case_ok; then
		log "diagnostics for $CASE: dom0 dmesg tail"
		dmesg | tail -15 | sed 's/^/    /'
	fi
	case_end
}

# g_kcheck: kernel problems in guest $G since its last kcheck fail the case (lib/guest.sh); a
# user-space crash is noted
g_kcheck() {
	local rc=0
	g_run -t 60 "$G" kcheck ||
		{ case_fail "guest kernel log: $(grep -v '^XLAB-' "$G_OUT" | head -3 | tr '\n' '|' | cut -c1-300)"; rc=1; }
	grep -q '^kcheck: user-space crash' "$G_OUT" &&
		case_note "guest $(grep -m1 '^kcheck: user-space crash' "$G_OUT" | cut -c9-150)"
	return $rc
}

# dom0 kernel problems (BUG/WARNING/Oops/kernel GPF/hung task) since the last check fail the
# current case. User-space crashes are only noted: under TCG, dom0 processes rarely die
# spuriously (see README); a case they break fails on its own.
KPROBLEM='BUG:|WARNING:|Oops|general protection fault,|Call Trace:|blocked for more than'
UCRASH='segfault at|traps:'
dom0_kcheck() {
	local n old u uold
	n=$(dmesg | grep -cE "$KPROBLEM")
	u=$(dmesg | grep -cE "$UCRASH")
	read -r old uold < $LAB_TMP/kcheck.n 2>/dev/null || { old=0 uold=0; }
	echo "$n $u" > $LAB_TMP/kcheck.n
	if [ "$u" -gt "${uold:-0}" ]; then
		case_note "dom0 user-space crash (TCG flake?): $(dmesg | grep -E "$UCRASH" | tail -1 | cut -c1-120)"
	fi
	if [ "$n" -gt "${old:-0}" ]; then
		dmesg | grep -E -A12 "$KPROBLEM" | tail -40
		case_fail "dom0 kernel log has new BUG/WARNING/Oops lines: $(dmesg | grep -E "$KPROBLEM" | tail -1 | cut -c1-150)"
	fi
}

# suite_end: destroy the guests, print the summary block, return non-zero if anything failed
suite_end() {
	local g
	for g in "${!G_DOMID[@]}"; do [ -n "${G_DOMID[$g]}" ] && guest_destroy "$g"; done
	dmesg -n 1   # keep kernel messages from interleaving with the summary
	echo "XLAB-SUMMARY-BEGIN $LAB_SUITE"
	sed 's/^XLAB-CASE /XLAB-SUMMARY /' $LAB_TMP/results.$LAB_SUITE
	echo "XLAB-SUMMARY-END $LAB_SUITE"
	! grep -q ': FAIL' $LAB_TMP/results.$LAB_SUITE
}

# ------------------------------------------------------------------ guests
# guest_create NAME [VCPUS] [MEM_MB] [DISKSPEC...]: create a PV guest running the agent, wait
# until the agent answers. Its console is streamed to ours prefixed with "[NAME] ".
guest_create() {
	_guest_create1 "$@" && return 0
	# one more try: under TCG a spurious user-space crash (xl, hotplug script) can break a create
	log "guest $1: creation failed, destroying and trying once more"
	guest_destroy "$1"
	_guest_create1 "$@"
}
_guest_create1() {
	local name=$1 vcpus=${2:-2} mem=${3:-512} kernel domid fd pid i r disks="" d
	G_ARGS[$name]="$*"
	shift 3 2>/dev/null || shift $#
	for d in "$@"; do disks="$disks'$d', "; done
	# (XLAB_GUEST_KERNEL_FILE: another kernel, e.g. the rootdisk suite's guest's own; not
	# XLAB_GUEST_KERNEL, which dom0-init.sh sets from XLAB_OPTS' guest_kernel=6.12)
	kernel=${XLAB_GUEST_KERNEL_FILE:-$(ls /guest/vmlinux /guest/vmlinuz 2>/dev/null | head -1)}
	# XLAB_GUEST_TSC (XLAB_OPTS guest_tsc=): the guest's tsc_mode. native: its rdtsc runs
	# natively, as it does with Xen's default tsc_mode on a host whose TSC is invariant; QEMU's
	# TCG CPU has no invariant TSC, so with Xen's default Xen emulates every rdtsc of a PV
	# guest. The bench suites make native their default (Documentation/bench.rst)
	local tsc=""
	[ -n "${XLAB_GUEST_TSC:-}" ] && tsc="tsc_mode = \"$XLAB_GUEST_TSC\""
	# (XLAB_GUEST_RAMDISK=none: no ramdisk, e.g. a boot loader as the kernel)
	local ramdisk="ramdisk = \"${XLAB_GUEST_RAMDISK:-/guest/domU.cpio}\""
	[ "${XLAB_GUEST_RAMDISK:-}" = none ] && ramdisk=""
	cat > $LAB_TMP/$name.cfg <<-EOF
	name = "$name"
	type = "${GUEST_TYPE:-pv}"
	kernel = "$kernel"
	$ramdisk
	extra = "console=hvc0 loglevel=6 ${XLAB_GUEST_EXTRA:-}${XLAB_KPROF:+ profile=2}"
	memory = $mem
	vcpus = $vcpus
	$tsc
	disk = [ ${disks%, } ]
	on_poweroff = "destroy"
	on_reboot = "destroy"
	on_crash = "destroy"
	EOF
	rm -f "$CONSOLE_DIR/guest-$name.log"
	log "xl create $name (${GUEST_TYPE:-pv}, vcpus=$vcpus mem=${mem}M disks: ${disks:-none})"
	if ! timeout 120 xl create $LAB_TMP/$name.cfg; then
		log "xl create $name failed"; tail -20 /var/log/xen/xl-"$name".log 2>/dev/null
		xl destroy "$name" 2>/dev/null
		return 1
	fi
	domid=$(xl domid "$name" 2>/dev/null || { sleep 1; xl domid "$name"; }) || return 1
	G_DOMID[$name]=$domid
	G_BAD[$name]=""
	# console: xenconsoled --log=guest writes it to a file; stream it to ours
	(
		wait_until 60 0.2 test -e "$CONSOLE_DIR/guest-$name.log"
		exec tail -n +1 -F "$CONSOLE_DIR/guest-$name.log" 2>/dev/null
	) | while IFS= read -r l; do echo "[$name] ${l%$'\r'}"; done &
	G_TAILPID[$name]=$!
	# rc watch: the agent writes data/xlab/rc; we block on the watch instead of polling
	exec {fd}< <(exec xenstore-watch "/local/domain/$domid/data/xlab/rc")
	pid=$!
	G_WATCHFD[$name]=$fd G_WATCHPID[$name]=$pid
	i=$SECONDS
	while :; do
		r=$(xenstore-read "/local/domain/$domid/data/xlab/rc" 2>/dev/null) && break
		read -r -t 5 -u "$fd" _ || sleep 1   # (EOF if the watcher died: do not spin)
		[ $((SECONDS - i)) -ge "${XLAB_GUEST_BOOT_WAIT:-180}" ] &&
			{ log "guest $name: agent did not start in ${XLAB_GUEST_BOOT_WAIT:-180} s"; G_BAD[$name]=1; return 1; }
		guest_alive "$name" || { log "guest $name died during boot"; G_BAD[$name]=1; return 1; }
	done
	log "guest $name (domid $domid) agent ready"
}

# main_vcpus: the vCPUs of a suite's main guest where the suite asks for 4 (front, back,
# lifecycle, restore, pvh): 4, so that xblkfront's default of 4 queues is used (Xen runs them on
# the lab's 2 pCPUs), unless XLAB_OPTS guest_vcpus=N says otherwise
main_vcpus() { echo "${XLAB_GUEST_VCPUS:-4}"; }

# guest_vcpus NAME: the vCPUs guest NAME was created with
guest_vcpus() {
	local a
	read -r _ a _ <<< "${G_ARGS[$1]:-}"
	echo "${a:-2}"
}

# vcpu_guest N: into VG, a guest with at least N vCPUs: $G if it has them, else guest "gN"
# (N vCPUs, 512 MiB), created unless it runs already
vcpu_guest() {
	VG=$G
	[ "$(guest_vcpus "$G")" -ge "$1" ] && return 0
	VG=g$1
	[ -n "${G_DOMID[$VG]:-}" ] && [ -z "${G_BAD[$VG]}" ] && guest_alive "$VG" && return 0
	[ -n "${G_DOMID[$VG]:-}" ] && guest_destroy "$VG"
	guest_create "$VG" "$1" 512 || { case_fail "could not create a $1-vCPU guest $VG"; return 1; }
}

guest_destroy() {
	local name=$1
	xl destroy "$name" 2>/dev/null || { sleep 1; xl destroy "$name" 2>/dev/null; }
	[ -z "${G_DOMID[$name]}" ] ||
		wait_until 10 0.2 ! xenstore-exists "/local/domain/${G_DOMID[$name]}" 2>/dev/null
	[ -n "${G_WATCHPID[$name]}" ] && kill "${G_WATCHPID[$name]}" 2>/dev/null
	local wfd=${G_WATCHFD[$name]}
	[ -n "$wfd" ] && exec {wfd}<&-
	sleep 0.5   # let the console tail print the last lines
	[ -n "${G_TAILPID[$name]}" ] && kill "${G_TAILPID[$name]}" 2>/dev/null
	pkill_tail "$name"
	unset "G_DOMID[$name]" "G_WATCHFD[$name]" "G_WATCHPID[$name]" "G_TAILPID[$name]"
	G_BAD[$name]=""
}
# the tail process of a guest's console stream (a pipeline member, so not $!)
pkill_tail() {
	local p
	for p in /proc/[0-9]*; do
		grep -q "guest-$1.log" "$p/cmdline" 2>/dev/null && kill "${p#/proc/}" 2>/dev/null
	done
}

# guest_ensure NAME: (re)create the guest (same arguments as last time) if it is gone or hung
guest_ensure() {
	local name=$1 args
	if [ -n "${G_DOMID[$name]}" ] && [ -z "${G_BAD[$name]}" ] && guest_alive "$name"; then
		return 0
	fi
	args=${G_ARGS[$name]}
	[ -n "${G_DOMID[$name]}" ] && guest_destroy "$name"
	log "re-creating guest $name"
	# shellcheck disable=SC2086
	guest_create $args
}

# ------------------------------------------------------------------ commands in a guest
# g_run [-t SECS] NAME CMD...: run CMD (a bash command line; lib/guest.sh functions available)
# in the guest. Sets G_RC (124 = timeout, the guest is then marked bad) and G_OUT (file with the
# output). Returns G_RC. Must not be called in a $(...) subshell (G_RC/G_OUT would be lost).
# It is g_send then g_wait; g_each runs one command in many guests at once.
g_run() {
	local t=$CMD_TIMEOUT d=()
	while :; do
		case $1 in
		-t) t=$2; shift 2 ;;
		-d) d=(-d); shift ;;   # the diagnostics agent (works while cmd hangs)
		*) break ;;
		esac
	done
	g_send "${d[@]}" "$@" || return "$G_RC"
	g_wait -t "$t" "${d[@]}" "$1"
}

# g_send [-d] NAME CMD...: hand CMD to guest NAME's agent (-d: the diagnostics agent) and
# return at once; g_wait collects the answer. Returns 125 (G_RC) if the guest is not running.
declare -A G_SEQ G_CMD
g_send() {
	local ck=cmd name seq domid
	[ "$1" = -d ] && { ck=dcmd; shift; }
	name=$1
	shift
	domid=${G_DOMID[$name]}
	G_SEQ[$name]=""
	G_OUT=$LAB_TMP/out.none
	: > "$G_OUT"
	if [ -z "$domid" ] || { [ -n "${G_BAD[$name]}" ] && [ $ck = cmd ]; }; then
		G_RC=125
		log "g_run $name: guest not running"
		return $G_RC
	fi
	# one global, increasing sequence number (the console log of a guest name is reused)
	read -r seq < $LAB_TMP/seq
	seq=$((seq + 1))
	echo $seq > $LAB_TMP/seq
	G_SEQ[$name]=$seq G_CMD[$name]="$*"
	log "[$name #$seq] $*"
	# -R (raw) here and in the agent: by default xenstore-write interprets backslash escapes
	# and xenstore-read escapes newlines/tabs, which mangles multi-line commands
	xenstore-write -R "/local/domain/$domid/data/xlab/$ck" "$seq $*" ||
		xenstore-write -R "/local/domain/$domid/data/xlab/$ck" "$seq $*"
}

# g_wait [-t SECS] [-d] NAME: wait for the answer to the last g_send to NAME (SECS from now);
# sets G_RC and G_OUT as g_run does
g_wait() {
	local t=$CMD_TIMEOUT name seq cmd domid fd r t0 i rk=rc diag='' first
	while :; do
		case $1 in
		-t) t=$2; shift 2 ;;
		-d) diag=1 rk=drc; shift ;;
		*) break ;;
		esac
	done
	name=$1
	seq=${G_SEQ[$name]:-} cmd=${G_CMD[$name]:-}
	G_OUT=$LAB_TMP/out.none
	[ -n "$seq" ] || { G_RC=125; return $G_RC; }   # (g_send said why)
	domid=${G_DOMID[$name]}
	fd=${G_WATCHFD[$name]}
	G_OUT=$LAB_TMP/out.$seq
	t0=$SECONDS
	G_RC=124
	# (each xenstore-read costs about 0.1 s under TCG: the first one waits for the watch)
	first=1
	[ -z "$diag" ] || first=0   # (the diagnostics agent is polled)
	while [ $((SECONDS - t0)) -lt "$t" ]; do
		if [ "$first" != 1 ]; then
			r=$(xenstore-read "/local/domain/$domid/data/xlab/$rk" 2>/dev/null)
			if [ "${r%% *}" = "$seq" ]; then G_RC=${r#* }; break; fi
		fi
		first=0
		if [ -n "$diag" ]; then
			sleep 0.5
		elif ! read -r -t 10 -u "$fd" _; then
			guest_alive "$name" || { guest_gone "$name" "$domid"; G_RC=125; break; }
		fi
	done
	if [ -z "$diag" ] && { [ "$G_RC" = 124 ] || [ "$G_RC" = 125 ]; }; then
		log "[$name #$seq] no answer (rc=$G_RC after $((SECONDS - t0)) s): marking guest bad"
		[ "$G_RC" = 124 ] && guest_diag "$name"
		G_OUT=$LAB_TMP/out.$seq G_RC=124
		G_BAD[$name]=1
	fi
	# the output: between the agent's markers in the console log (may lag the rc a little; the
	# output of a command that did not end is what there is)
	i=10
	[ "$G_RC" = 124 ] || [ "$G_RC" = 125 ] && i=0
	wait_until $i 0.2 _g_output "$name" "$seq"
	G_LAST[$name]="$cmd $G_RC"
	return "$G_RC"
}

# _g_output NAME SEQ: the output of command SEQ from guest NAME's console log into $G_OUT;
# non-zero while its end marker is not there yet
_g_output() {
	awk -v s="$2" '{ sub(/\r$/, "") }
		index($0, "XLAB-G-END " s " ") { sub(/XLAB-G-END .*/, ""); if (on && $0 != "") print; end = 1; exit }
		on { print }
		$0 == "XLAB-G-BEGIN " s { on = 1 }
		END { exit !end }' "$CONSOLE_DIR/guest-$1.log" > "$G_OUT" 2>/dev/null
}

# g_each [-t SECS] CMD NAME...: CMD in every guest NAME at once: sent to all, then each answer
# awaited in turn (SECS each). Sets GE_RC[NAME] and GE_OUT[NAME] (G_RC and G_OUT of each);
# returns 0 iff every rc is 0.
declare -A GE_RC GE_OUT
g_each() {
	local t=$CMD_TIMEOUT cmd n rc=0
	[ "$1" = -t ] && { t=$2; shift 2; }
	cmd=$1
	shift
	for n in "$@"; do g_send "$n" "$cmd"; done
	for n in "$@"; do
		g_wait -t "$t" "$n"
		# shellcheck disable=SC2034 # (read by the suites)
		GE_RC[$n]=$G_RC GE_OUT[$n]=$G_OUT
		[ "$G_RC" = 0 ] || rc=1
	done
	return $rc
}

# guest_diag NAME: state dump of a guest whose command hangs, for the driver authors: both
# ends' xenstore state, backend counters, and (through the diagnostics agent) the guest's
# frontend state, blk-mq debugfs, blocked tasks (sysrq w) and kernel log
guest_diag() {
	local name=$1 domid=${G_DOMID[$1]} d
	log "==== diagnostics: guest $name (domid $domid) does not answer"
	xenstore-ls -f "/local/domain/$domid/device/vbd" 2>/dev/null | grep -vE 'ring-ref|event-channel' | sed 's/^/    /' | head -40
	xenstore-ls -f "/local/domain/0/backend/vbd/$domid" 2>/dev/null | grep -E '/state|feature|max|sectors' | sed 's/^/    /' | head -40
	for d in /sys/bus/xen-backend/devices/vbd-"$domid"-*; do
		[ -d "$d" ] && log "backend ${d##*/}: $(cd "$d" && for f in statistics/* nr_rings ring_page_order persistent; do [ -f "$f" ] && printf '%s=%s ' "${f#statistics/}" "$(cat "$f")"; done)"
	done
	g_run -d -t 60 "$name" diag_dump || log "diagnostics agent of $name did not answer either (rc=$G_RC)"
	log "==== end of diagnostics"
}

# g_ok NAME CMD...: g_run, fail the case (with the output's tail) unless rc is 0
g_ok() {
	local t=()
	[ "$1" = -t ] && { t=(-t "$2"); shift 2; }
	g_run "${t[@]}" "$@" && return 0
	case_fail "[$1] '${*:2}' rc=$G_RC: $(grep -v '^XLAB-' "$G_OUT" | tail -3 | tr '\n' '|' | cut -c1-300)"
}

# g_out: the output of the last g_run
g_out() { cat "$G_OUT"; }

# g_field KEY: value of KEY=value in the last g_run output (first match)
g_field() { grep -o "\b$1=[^ ]*" "$G_OUT" | head -1 | cut -d= -f2-; }

# ------------------------------------------------------------------ backing storage
# null_blk: 3 memory-backed 1 GiB devices (memory is only used for what is written).
# loop: two 256 MiB sparse files on dom0's tmpfs (loop gives flush and discard support:
# tmpfs has fsync and punch-hole, so blkback advertises feature-flush-cache and
# feature-discard).
backing_setup() {
	local i
	if [ ! -b /dev/nullb0 ]; then
		modprobe null_blk nr_devices=3 gb=1 memory_backed=1 bs=512 queue_mode=2 ||
			{ log "null_blk failed"; return 1; }
	fi
	modprobe loop
	for i in 0 1; do
		[ -f $LAB_TMP/disk$i.img ] && continue
		truncate -s 256M $LAB_TMP/disk$i.img
		/usr/sbin/losetup /dev/loop$i $LAB_TMP/disk$i.img || { log "losetup $i failed"; return 1; }
	done
}
# backing NAME -> device path (nullb0..2, loop0..1)
backing() {
	case $1 in
	nullb*) echo /dev/$1 ;;
	loop*) echo /dev/$1 ;;
	*) echo "$1" ;;
	esac
}

# nullb_make NAME key=value...: a null_blk /dev/NAME made through configfs with these attributes
# (blocksize=512 size=256 queue_mode=2 unless given); nothing if it exists
nullb_make() {
	local d=/sys/kernel/config/nullb/$1 kv
	shift
	[ -b "/dev/${d##*/}" ] && return 0
	modprobe configfs 2>/dev/null
	[ -d /sys/kernel/config/nullb ] || mount -t configfs configfs /sys/kernel/config 2>/dev/null
	mkdir "$d" || { log "nullb ${d##*/}: cannot create $d"; return 1; }
	for kv in blocksize=512 size=256 queue_mode=2 "$@"; do
		echo "${kv#*=}" > "$d/${kv%%=*}" || { log "nullb ${d##*/}: cannot set $kv"; return 1; }
	done
	echo 1 > "$d/power" && [ -b "/dev/${d##*/}" ]
}

# vdev_devid xvdb -> 51728 (xvd major 202, 16 minors per disk)
vdev_devid() {
	local l=${1#xvd}
	printf '%d' $((202 * 256 + ($(printf '%d' "'$l") - 97) * 16))
}

# domain_listed DOMID: xl list still shows the domain (a page dom0 still maps keeps a destroyed
# domain as a zombie)
domain_listed() {
	xl list 2>/dev/null | awk -v d="$1" '$2 == d {f = 1} END {exit !f}'
}

# be_state_in NAME VDEV STATE...: the backend state of NAME's VDEV (into BE_STATE, for the
# caller's message) is one of STATEs; a condition for wait_until
be_state_in() {
	local s
	BE_STATE=$(xs_back "$1" "$2" state)
	for s in "${@:3}"; do [ "$BE_STATE" = "$s" ] && return 0; done
	return 1
}

# be_in_xenstore DOMID DEVID: a vbd or qdisk backend of that device is (still) in xenstore
be_in_xenstore() {
	xenstore-exists "/local/domain/0/backend/vbd/$1/$2" 2>/dev/null ||
		xenstore-exists "/local/domain/0/backend/qdisk/$1/$2" 2>/dev/null
}

# xs_front NAME VDEV KEY / xs_back NAME VDEV KEY [TYPE]: xenstore nodes of a vbd
xs_front() { xenstore-read "/local/domain/${G_DOMID[$1]}/device/vbd/$(vdev_devid "$2")/$3" 2>/dev/null; }
xs_back() { xenstore-read "/local/domain/0/backend/${4:-vbd}/${G_DOMID[$1]}/$(vdev_devid "$2")/$3" 2>/dev/null; }
xs_front_dump() { xenstore-ls -f "/local/domain/${G_DOMID[$1]}/device/vbd/$(vdev_devid "$2")" 2>/dev/null; }

# hotplug_script: which disk hotplug script xl runs for a vbd: Xen's /etc/xen/scripts/block
# (with its lock and its sharing check: a suite's SUITE_HOTPLUG=stock, or XLAB_OPTS
# hotplug=stock) or the lab's shortcut (init/hotplug-block, dom0-init.sh installs it)
hotplug_script() {
	if grep -q check_device_sharing /etc/xen/scripts/block 2>/dev/null; then
		echo "Xen's /etc/xen/scripts/block"
	else
		echo "the lab's shortcut (init/hotplug-block)"
	fi
}
# hotplug_runs [DOMID [DEVID]]: how many times Xen's block script wrote a vbd's
# physical-device so far (the lines it logs through syslog; the lab's shortcut logs none)
hotplug_runs() {
	grep -c "scripts/block: Writing backend/vbd/${1:-[0-9]*}/${2:-[0-9]*}/physical-device " \
		/var/log/messages 2>/dev/null
}

# disk_attach NAME BACKING VDEV [DISKSPEC-OPTIONS]: hot-plug a disk (xl block-attach), wait for
# the guest to see /dev/VDEV. It is detached at the end of the case by run_case.
disk_attach() {
	disk_attach_xl "$@" || return 1
	devinfo "$1" "$3" "waitdev /dev/$3 45 &&"
}
# disk_attach_xl NAME BACKING VDEV [DISKSPEC-OPTIONS]: disk_attach's xl block-attach only (the
# caller waits for the guest's /dev/VDEV)
disk_attach_xl() {
	local name=$1 target vdev=$3 opts=${4:-} spec
	target=$(backing "$2")
	spec="format=raw,vdev=$vdev,access=rw${opts:+,$opts},target=$target"
	log "xl block-attach $name $spec"
	if ! timeout 90 xl block-attach "$name" "$spec"; then
		if xenstore-exists "/local/domain/0/backend/vbd/${G_DOMID[$name]}/$(vdev_devid "$vdev")" 2>/dev/null; then
			case_fail "xl block-attach $name $spec failed"
			CASE_DISKS+=("$name:$vdev")
			return 1
		fi
		log "xl block-attach failed without creating the vbd: trying once more"
		timeout 90 xl block-attach "$name" "$spec" || { case_fail "xl block-attach $name $spec failed twice"; return 1; }
		case_note "xl block-attach needed a retry"
	fi
	CASE_DISKS+=("$name:$vdev")
}

# disk_detach NAME VDEV: xl block-detach, wait for the node to vanish in the guest and the
# backend to leave xenstore
disk_detach() {
	local name=$1 vdev=$2 devid rc=0 d
	devid=$(vdev_devid "$vdev")
	log "xl block-detach $name $vdev"
	timeout 90 xl block-detach "$name" "$vdev" || { case_fail "xl block-detach $name $vdev failed"; rc=1; }
	g_ok -t 60 "$name" "waitgone /dev/$vdev 30" || rc=1
	wait_until 20 0.2 ! be_in_xenstore "${G_DOMID[$name]}" "$devid" ||
		{ case_fail "backend of $vdev still in xenstore"; rc=1; }
	local keep=()
	if [ -n "${G:-}" ] && [ -n "${G_DOMID[$G]}" ] && [ -z "${G_BAD[$G]}" ]; then
		g_kcheck || true   # (a kernel problem fails the case, not the detach)
	fi
	for d in "${CASE_DISKS[@]}"; do [ "$d" = "$name:$vdev" ] || keep+=("$d"); done
	CASE_DISKS=("${keep[@]}")
	return $rc
}

# ------------------------------------------------------------------ backend module
# be_use MODULE [param=value ...]: make MODULE (xen-blkback | xblkback) the vbd backend with
# these load-time parameters (defaults for the others). Reloads only if something changed;
# there must be no vbd at that moment (run_case detaches everything after each case).
BE_CUR=""
be_use() {
	local want="$*"
	[ "$want" = "$BE_CUR" ] && return 0
	be_unload || return 1
	case $1 in
	xen-blkback) modprobe xen-blkback "${@:2}" || { case_fail "modprobe xen-blkback ${*:2} failed"; return 1; } ;;
	xblkback)
		# without /extra/xblkback.ko (XLAB_MODULES=dkms): the module tree's, by name
		if [ -f /extra/xblkback.ko ]; then
			insmod /extra/xblkback.ko "${@:2}"
		else
			modprobe xblkback "${@:2}"
		fi || { dmesg | tail -20; case_fail "loading xblkback ${*:2} failed"; return 1; } ;;
	*) case_fail "be_use: unknown backend $1"; return 1 ;;
	esac
	BE_CUR=$want
	log "backend: $want"
}
# be_unload: neither vbd backend (xen-blkback, xblkback) loaded; no vbd may be connected
be_unload() {
	local m
	for m in xen_blkback xblkback; do
		if grep -q "^$m " /proc/modules; then
			rmmod $m || { case_fail "rmmod $m failed"; return 1; }
		fi
	done
	BE_CUR=""
}
# be_param NAME: current value of a backend module parameter
be_param() {
	local m=${BE_CUR%% *}
	cat "/sys/module/${m//-/_}/parameters/$1" 2>/dev/null
}

# be_stat NAME VDEV COUNTER: a per-vbd backend statistics counter (blkback:
# /sys/bus/xen-backend/devices/vbd-<domid>-<devid>/statistics/<counter>); empty if absent
be_stat() {
	local d
	d=/sys/bus/xen-backend/devices/vbd-${G_DOMID[$1]}-$(vdev_devid "$2")
	cat "$d/statistics/$3" 2>/dev/null || cat "$d/$3" 2>/dev/null
}
be_stats() {
	local d f out=""
	d=/sys/bus/xen-backend/devices/vbd-${G_DOMID[$1]}-$(vdev_devid "$2")
	for f in "$d"/statistics/*; do [ -f "$f" ] && out="$out ${f##*/}=$(cat "$f")"; done
	echo "${out# }"
}

# ------------------------------------------------------------------ frontend module
# fe_use NAME MODULE [param=value ...]: in guest NAME, make MODULE (xblkfront | xen-blkfront)
# the vbd frontend with these parameters (defaults for the others)
fe_use() {
	local name=$1
	shift
	g_ok "$name" "fe_use $*" || return 1
}

# fio_case NAME VDEV [SIZE4K] [SIZE1M]: the standard write+verify data check; notes IOPS. The
# default sizes are 8 MiB of 4 KiB random writes and 16 MiB of 1 MiB ones; half that under
# XLAB_TIER=ci (CI's time: 1024 random and 8 sequential 1 MiB writes still cross every path)
fio_case() {
	local name=$1 vdev=$2 w4 w1 s4=8M s1=16M
	[ "${XLAB_TIER:-}" != ci ] || s4=4M s1=8M
	g_ok -t 150 "$name" "fio_verify /dev/$vdev ${3:-$s4} ${4:-$s1}" || return 1
	w4=$(awk '/XLAB-FIO verify\/rand4k/{for(i=1;i<=NF;i++) if ($i ~ /^write_iops=/) {sub(/.*=/, "", $i); print $i}}' "$G_OUT")
	w1=$(awk '/XLAB-FIO verify\/seq1m/{for(i=1;i<=NF;i++) if ($i ~ /^write_kibs=/) {sub(/.*=/, "", $i); printf "%d", $i/1024}}' "$G_OUT")
	case_note "4k randwrite ${w4:-?} IOPS, 1M write ${w1:-?} MiB/s"
}

# devinfo NAME VDEV [PREFIX-CMD]: queue facts of the guest's disk; sets DI_<key> (block
# queue) and FI_<key> (frontend's own negotiated state and summed counters, if it has them)
devinfo() {
	g_ok -t 60 "$1" "${3:-} devinfo /dev/$2" || return 1
	_parse_info
}
# feinfo NAME VDEV: refresh the FI_<key> variables (e.g. counters after I/O)
feinfo() {
	g_ok -t 60 "$1" "feinfo /dev/$2" || return 1
	_parse_info
}
_parse_info() {
	local kv v
	if grep -q 'XLAB-DEVINFO' "$G_OUT"; then
		for v in "${!DI_@}"; do unset "$v"; done
		for kv in $(grep -o 'XLAB-DEVINFO.*' "$G_OUT" | head -1 | cut -d' ' -f3-); do
			[[ ${kv%%=*} =~ ^[a-z_0-9]+$ ]] && printf -v "DI_${kv%%=*}" '%s' "${kv#*=}"
		done
	fi
	for v in "${!FI_@}"; do unset "$v"; done
	for kv in $(grep -o 'XLAB-FEINFO.*' "$G_OUT" | head -1 | cut -d' ' -f2-); do
		[[ ${kv%%=*} =~ ^[a-z_0-9]+$ ]] && printf -v "FI_${kv%%=*}" '%s' "${kv#*=}"
	done
}

# expect LABEL ACTUAL WANTED: fail the case unless equal
expect() {
	[ "$2" = "$3" ] && return 0
	case_fail "$1 is '$2', expected '$3'"
}

# the reusable cases and their checks, which every suite uses
# shellcheck source=tests/lab/lib/cases.sh
. "${BASH_SOURCE[0]%/*}/cases.sh"
