# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The data-path case list shared by the frontend/backend suites (a library, not a suite: it is
# /lab/data-cases.sh in dom0). Source it after lib/cases.sh with G, FRONT and BACK set, then call
#     data_cases [PREFIX] [-CASE...]
# PREFIX is put before every case name (e.g. "intree-"); -CASE leaves a case out; ~CASE runs it
# in make test-long only (long_only).
# xlab.cases=a,b on the dom0 command line (XLAB_CASES; run.sh passes $XLAB_CASES) runs only
# those cases (with or without the prefix).
#
# To add a case: write c_<name>() in lib/cases.sh (or in the suite), add a line here.
data_cases() {
	local pfx=${1:-} skip=" ${*:2} "
	# dc_want CASE: not left out, named by XLAB_CASES (short or prefixed name), and not a
	# long-only case under tier=ci
	dc_want() {
		[[ $skip != *" -$1 "* ]] && want "$1" "$pfx$1" || return 1
		[[ $skip != *" ~$1 "* ]] || long_only "$pfx$1"
	}
	dc_want nullb-q1         && run_case "${pfx}nullb-q1" c_queues nullb0 1
	dc_want nullb-q2         && run_case "${pfx}nullb-q2" c_queues nullb0 2
	dc_want nullb-q4         && run_case "${pfx}nullb-q4" c_queues nullb0 4 4
	dc_want loop-q2          && run_case "${pfx}loop-q2" c_queues loop0 2
	dc_want indirect-off     && run_case "${pfx}indirect-off" c_indirect 0
	dc_want indirect-on      && run_case "${pfx}indirect-on" c_indirect 64
	dc_want persistent-off   && run_case "${pfx}persistent-off" c_persistent 0 1
	dc_want persistent-on    && run_case "${pfx}persistent-on" c_persistent 1 1
	dc_want persistent-beoff && run_case "${pfx}persistent-beoff" c_persistent 1 0
	dc_want ring-order0      && run_case "${pfx}ring-order0" c_ring 0 4
	dc_want ring-order2      && run_case "${pfx}ring-order2" c_ring 2 4
	dc_want ring-order3      && run_case "${pfx}ring-order3" c_ring 4 3
	dc_want ring-order-fe1   && run_case "${pfx}ring-order-fe1" c_ring 4 1
	dc_want discard          && run_case "${pfx}discard" c_discard
	dc_want flush            && run_case "${pfx}flush" c_flush
	dc_want ext4             && run_case "${pfx}ext4" c_ext4 loop1
	dc_want hotplug          && run_case "${pfx}hotplug" c_hotplug
	dc_want sched            && run_case "${pfx}sched" c_sched
	dc_want bounce           && [ "$FRONT" = xblkfront ] && run_case "${pfx}bounce" c_bounce
	dc_want untrusted        && [ "$FRONT" = xblkfront ] && run_case "${pfx}untrusted" c_untrusted
	dc_want qdisk            && run_case "${pfx}qdisk" c_qdisk
	# our tracepoints and scripts/xblkstat need our drivers on both ends
	if [ "$FRONT" = xblkfront ] && [ "$BACK" = xblkback ]; then
		dc_want trace    && run_case "${pfx}trace" c_trace
		dc_want xblkstat && run_case "${pfx}xblkstat" c_xblkstat
	fi
	return 0
}
