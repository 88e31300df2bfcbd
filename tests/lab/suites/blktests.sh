# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154
#
# Suite "blktests" (make test-long): the block layer maintainers' test suite, blktests
# (run.sh builds it from ../shared/third-party/ or upstream; build-images.sh puts it and the
# tools it runs in the guest image), in a guest against an xvd disk:
#   ours-*     xblkfront + xblkback
#   intree-*   xen-blkfront + xen-blkback, for reference
# Each pair runs the tests that take a test device (TEST_DEVS=/dev/xvdb on a loop device over
# a sparse file on dom0's tmpfs: it has discard and flush). One case per test and pair: PASS,
# FAIL (with blktests' reason) or SKIP (with blktests' "not run" reason). Then:
#   compare    every test the in-tree pair passes passes with ours too
#   ours-run / intree-run   the whole blktests run: attach, check's exit status, detach, no
#              kernel problem in the guest or dom0

# what run.sh needs to know about this suite (README.md "Suite metadata")
suite_meta() {
	# blktests and what it runs ride in the guest image (extras/blktests.sh), which dom0's
	# initramfs carries and unpacks
	SUITE_TIMEOUT=2400 SUITE_IMAGE=blktests SUITE_DOM0_MEM=1536
	SUITE_NEEDS="blkfront/xblkfront.ko blkback/xblkback.ko"
}
. /lab/dom0.sh
G=g1
BT_TESTS="block/003 block/004 block/005 block/007 block/008 block/012 block/036 dm/001 dm/002"

# c_blktests PREFIX: run BT_TESTS with $FRONT/$BACK; their results to $LAB_TMP/bt.PREFIX as
# "TEST STATUS DETAIL" lines
c_blktests() {
	local pfx=$1 t st line n=0
	be_use "$BACK" || return 1
	fe_use "$G" "$FRONT" || return 1
	disk_attach "$G" loop0 xvdb || return 1
	g_run -t 1500 "$G" "BT_TIMEOUT=${XLAB_BT_TIMEOUT:-10} bt_run /dev/xvdb $BT_TESTS"
	[ "$G_RC" = 124 ] || [ "$G_RC" = 125 ] && { case_fail "blktests did not finish (rc $G_RC)"; return 1; }
	grep -q '^XLAB-BT-END' "$G_OUT" || { case_fail "no blktests report: $(tail -5 "$G_OUT" | tr '\n' '|')"; return 1; }
	# check's report: "block/003 => xvdb (...)   [passed]", details indented below
	awk '
		/^XLAB-BT-BEGIN/ { on = 1; next }
		/^XLAB-BT-END/ { on = 0 }
		!on { next }
		match($0, /^(block|dm)\/[0-9]+/) && match($0, /\[(passed|failed|not run)\]$/) {
			if (t != "") print t, st, det
			split($0, w, " "); t = w[1]
			st = substr($0, RSTART + 1, RLENGTH - 2); gsub(/ /, "-", st); det = ""
			next
		}
		t != "" && /^    / {
			l = $0; sub(/^ +/, "", l)
			if (l ~ /^runtime/ && st == "passed") next
			if (length(det) < 300) det = det (det == "" ? "" : " | ") l
		}
		END { if (t != "") print t, st, det }' "$G_OUT" > "$LAB_TMP/bt.$pfx"
	for t in $BT_TESTS; do
		grep -q "^$t " "$LAB_TMP/bt.$pfx" || case_fail "$t: not in blktests' report"
	done
	grep -o 'XLAB-BT-KERNEL.*' "$G_OUT" > "$LAB_TMP/bt.kernel"
	n=$(wc -l < "$LAB_TMP/bt.$pfx")
	case_note "check exit $(sed -n 's/^XLAB-BT-END rc=//p' "$G_OUT"), $n tests reported"
	# a failed test is its own case below; a wrong exit status alone is not a failure of ours
}

# bt_why TEST: why the guest lacks what TEST needs (a feature of the device or of the kernel
# build, never a tool missing from the image), from the guest's XLAB-BT-KERNEL line
bt_why() {
	local k=$LAB_TMP/bt.kernel
	case $1 in
	block/007) echo "xvd disks have no poll queues (blkif has no polled completion)" ;;
	block/036) echo "needs fault injection: $(grep -o 'kernel=[^ ]*' "$k") has CONFIG_$(grep -o 'FAIL_MAKE_REQUEST=[^ ]*' "$k"), so no /sys/kernel/debug/fail_make_request" ;;
	dm/001) echo "blktests runs it from kernel 6.2 on; $(grep -o 'kernel=[^ ]*' "$k")" ;;
	dm/002) echo "$(grep -o 'kernel=[^ ]*' "$k") has CONFIG_$(grep -o 'DM_DUST=[^ ]*' "$k")" ;;
	esac
}

# bt_cases PREFIX: one case line per blktests test of that pair
bt_cases() {
	local pfx=$1 t st det why
	for t in $BT_TESTS; do
		read -r _ st det < <(grep "^$t " "$LAB_TMP/bt.$pfx" 2>/dev/null)
		CASE="$pfx${t/\//-}"
		why=$(bt_why "$t")
		case ${st:-} in
		passed) _case_line PASS "blktests $t${det:+ ($det)}" ;;
		not-run) _case_line SKIP "blktests $t not run: ${det:-no reason given}${why:+ (why: $why)}" ;;
		failed) _case_line FAIL "blktests $t failed: ${det:-no detail}" ;;
		*) _case_line FAIL "blktests $t: no result" ;;
		esac
	done
}

# c_compare: every test the in-tree pair passes passes with ours
c_compare() {
	local t st ours missing=""
	[ -s "$LAB_TMP/bt.intree-" ] || { case_fail "no in-tree results"; return 1; }
	for t in $BT_TESTS; do
		st=$(awk -v t="$t" '$1 == t { print $2 }' "$LAB_TMP/bt.intree-")
		ours=$(awk -v t="$t" '$1 == t { print $2 }' "$LAB_TMP/bt.ours-")
		[ "$st" = passed ] && [ "$ours" != passed ] && missing="$missing $t(${ours:-none})"
	done
	[ -z "$missing" ] || case_fail "passed with the in-tree pair, not with ours:$missing"
	case_note "in-tree passes: $(awk '$2 == "passed" { printf "%s ", $1 }' "$LAB_TMP/bt.intree-")"
	case_note "ours passes: $(awk '$2 == "passed" { printf "%s ", $1 }' "$LAB_TMP/bt.ours-")"
}

suite_require
FRONT=xblkfront BACK=xblkback
if suite_begin 2; then
	run_case ours-run c_blktests ours-
	bt_cases ours-
	FRONT=xen-blkfront BACK=xen-blkback
	run_case intree-run c_blktests intree-
	bt_cases intree-
	run_case compare c_compare
else
	setup_failed
fi
suite_end
