#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Userspace test of the lab's expectation helpers (tests/lab/lib/cases.sh), no Xen: a counter
# or attribute that one of our drivers must export fails the case when it is missing; only the
# in-tree drivers, which have none of them, skip the check, and the case note says so.
# Prints "expect: N passed, N failed".
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1: $2"; fail=$((fail + 1)); }

# What lib/dom0.sh gives the cases, reduced to what the helpers use.
CASE_ERR="" CASE_NOTE="" FE_UNCHECKED=""
case_fail() { CASE_ERR="${CASE_ERR:+$CASE_ERR; }$*"; return 1; }
case_note() { CASE_NOTE="${CASE_NOTE:+$CASE_NOTE, }$*"; }
expect() { [ "$2" = "$3" ] || case_fail "$1 is '$2', expected '$3'"; }
declare -A G_DOMID=([g1]=1)
vdev_devid() { echo 51728; }
BE_ATTRS=""	# be_attr's answer (the backend's sysfs file), empty for none
# shellcheck source=/dev/null
. "$HERE/../lib/cases.sh"
be_attr() { echo "$BE_ATTRS"; }

# run NAME CMD...: the helper in a fresh case; sets ERR and UNCHECKED
run() {
	CASE_ERR="" FE_UNCHECKED=""
	"$@"
	ERR=$CASE_ERR UNCHECKED=$FE_UNCHECKED
}

FRONT=xblkfront
unset FI_bounce
run fe_expect "bounce pages" bounce 1
[[ $ERR == *"exports no bounce"* ]] && ok "xblkfront without the counter fails" ||
	ko "xblkfront without the counter fails" "error '$ERR'"
FI_bounce=1
run fe_expect "bounce pages" bounce 1
[ -z "$ERR" ] && ok "xblkfront with the right value passes" || ko "xblkfront, right value" "$ERR"
FI_bounce=0
run fe_expect "bounce pages" bounce 1
[ -n "$ERR" ] && ok "xblkfront with a wrong value fails" || ko "xblkfront, wrong value" "passed"
unset FI_q_reads
run fe_more reads q_reads 1
[[ $ERR == *"exports no q_reads"* ]] && ok "fe_more: missing counter fails" || ko "fe_more, missing" "'$ERR'"

FRONT=xen-blkfront
unset FI_bounce FI_q_reads
both() { fe_expect "bounce pages" bounce 1; fe_more reads q_reads 1; fe_more reads q_reads 1; }
run both
[ -z "$ERR" ] && [ "$UNCHECKED" = " bounce q_reads " ] &&
	ok "xen-blkfront: skipped and named ($UNCHECKED)" ||
	ko "xen-blkfront skip" "error '$ERR', unchecked '$UNCHECKED'"

BE_CUR="xblkback max_queues=2" BE_ATTRS=""
run be_expect g1 xvdb nr_rings 2
[[ $ERR == *"xblkback has no nr_rings"* ]] && ok "xblkback without the attribute fails" ||
	ko "xblkback without the attribute" "'$ERR'"
BE_ATTRS=2
run be_expect g1 xvdb nr_rings 2
[ -z "$ERR" ] && ok "xblkback with the attribute passes" || ko "xblkback, attribute" "$ERR"
BE_CUR=xen-blkback BE_ATTRS=""
run be_expect g1 xvdb nr_rings 2
[ -z "$ERR" ] && ok "xen-blkback: not checked" || ko "xen-blkback skip" "$ERR"

echo "expect: $pass passed, $fail failed"
[ "$fail" = 0 ]
