#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Userspace test of the lab's shared helpers (tests/lab/lib/common.sh), no Xen: the case filter
# want and the poll helper wait_until, which every suite and guest command relies on.
# Prints "lib: N passed, N failed".
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1: $2"; fail=$((fail + 1)); }
# is NAME ACTUAL EXPECTED: a value
is() { if [ "$2" = "$3" ]; then ok "$1"; else ko "$1" "'$2', expected '$3'"; fi; }
# check NAME EXPECTED-STATUS CMD...: CMD's exit status is EXPECTED-STATUS
check() {
	local name=$1 want=$2 rc
	shift 2
	"$@"
	rc=$?
	if [ "$rc" = "$want" ]; then ok "$name"; else ko "$name" "status $rc, expected $want"; fi
}
# shellcheck source=tests/lab/lib/common.sh
. "$HERE/../lib/common.sh"

# want: everything without XLAB_CASES; with it, exactly the names it lists
unset XLAB_CASES
check "want: no XLAB_CASES runs every case" 0 want nullb-q2
export XLAB_CASES=nullb-q2,flush
check "want: a listed case" 0 want flush
check "want: an unlisted case" 1 want nullb-q1
check "want: no prefix or substring match" 1 want nullb
check "want: no match of a longer name" 1 want flush-x
check "want: any of several names (short and prefixed)" 0 want ours-flush flush
check "want: none of several names" 1 want ours-discard discard
XLAB_CASES='ring-order*'
check "want: a case name is not a pattern" 1 want ring-order0
unset XLAB_CASES

# wait_until: the status, how often CMD runs, and that it stops as soon as CMD succeeds. count
# uses n and i, names a poll helper's own counters might have: CMD must see the caller's
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0
# shellcheck disable=SC2034 # (i: only set, as a clash would)
count() { n=$((n + 1)); i=$n; [ "$n" -ge "$1" ]; }
n=0; check "wait_until: true at once" 0 wait_until 1 0.1 count 1
is "wait_until: CMD ran once when true at once" "$n" 1
n=0; check "wait_until: true on the 3rd try" 0 wait_until 1 0.1 count 3
is "wait_until: stopped at the 3rd try" "$n" 3
n=0; check "wait_until: timeout is status 1" 1 wait_until 0.5 0.1 count 100
is "wait_until: 0.5 s in steps of 0.1: 6 tries, 5 sleeps" "$n" 6
n=0; check "wait_until: SECS 0 tries once" 1 wait_until 0 0.2 count 2
is "wait_until: SECS 0 ran CMD once" "$n" 1
t0=${EPOCHREALTIME/./}
wait_until 0.6 0.2 false
dt=$(((${EPOCHREALTIME/./} - t0) / 1000))
if [ "$dt" -ge 550 ] && [ "$dt" -lt 3000 ]; then
	ok "wait_until: a 0.6 s timeout took ${dt} ms"
else
	ko "wait_until: a 0.6 s timeout" "took ${dt} ms"
fi
check "wait_until: ! waits for CMD to fail (it does at once)" 0 wait_until 1 0.1 ! test -e "$T/none"
touch "$T/f"
check "wait_until: ! times out while CMD succeeds" 1 wait_until 0.2 0.1 ! test -e "$T/f"
(sleep 0.3; rm -f "$T/f") &
check "wait_until: ! sees the file go" 0 wait_until 5 0.1 ! test -e "$T/f"
wait
# CMD runs in this shell: what it saw is there for the caller's message
last=""
seen() { last=$1; false; }
wait_until 0.1 0.1 seen 42
is "wait_until: CMD's variables reach the caller" "$last" 42
check "wait_until: bad SECS" 2 wait_until x 0.1 true 2>/dev/null
check "wait_until: bad STEP" 2 wait_until 1 0 true 2>/dev/null
check "wait_until: arguments with spaces" 0 wait_until 1 0.1 test "a b" = "a b"

# xlab_opt / xlab_str: run.sh's and the suites' metadata read XLAB_OPTS with them
export XLAB_OPTS="detach_cycles=50 front=xen-blkfront tier=ci front=xblkfront bad=x1"
is "xlab_opt: a number" "$(xlab_opt detach_cycles 10)" 50
is "xlab_opt: not a number gives the default" "$(xlab_opt bad 7)" 7
is "xlab_str: the last value" "$(xlab_str front x)" xblkfront
is "xlab_str: the default" "$(xlab_str none dflt)" dflt

echo "lib: $pass passed, $fail failed"
[ "$fail" = 0 ]
