#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Userspace test of the lab's acknowledged-writes checker (xlab-ackw.c), no Xen: a short
# write run on a file, then what a detach can leave behind.
#   - untouched: every acknowledged block as written, bad=0;
#   - the write in flight cut after 255 sectors (a 256 KiB write split at a 255-sector request
#     limit, only the first request on the disk): 31 blocks new, 1 block mixed by sector, the
#     rest old, bad=0;
#   - one byte changed in that mixed block's old sector: neither version, bad=1;
#   - one byte changed in a block no unacknowledged write covered: bad=1.
# Prints "ackw: N passed, N failed".
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1: $2"; fail=$((fail + 1)); }
field() { sed -n "s/.* $1=\([0-9-]*\).*/\1/p" <<<"$2"; }
# flip DEV BYTE_OFFSET: invert one byte in place
flip() {
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	printf '%b' "$(printf '\\%03o' $((255 - b)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

gcc -O2 -Wall -Wextra -Werror -o "$T/ackw" "$HERE/xlab-ackw.c" || { echo "ackw: 0 passed, 1 failed"; exit 1; }
D=$T/disk L=$T/log
mkdir "$L"
truncate -s 32M "$D"
# 8 jobs of 4 MiB: job 7 (256 KiB writes) wraps its region every 16 writes
args=(-d "$D" -r 11 -c 1 -l "$L" -j 8 -m 4)
if ! "$T/ackw" write "${args[@]}" -t 1 > "$T/w.out" 2>&1; then
	# O_DIRECT is not available on every file system
	truncate -s 32M /dev/shm/ackw.$$ 2>/dev/null && D=/dev/shm/ackw.$$ && args[1]=$D
	"$T/ackw" write "${args[@]}" -t 1 > "$T/w.out" 2>&1 || { cat "$T/w.out"; ko write "exit status $?"; }
fi
acked7=$(sed -n 's/.*job=7 .*acked_writes=\([0-9]*\).*/\1/p' "$T/w.out")
[ "${acked7:-0}" -ge 17 ] || ko write "job 7 acknowledged ${acked7:-no} writes, need 17 (one wrap)"

out=$("$T/ackw" verify "${args[@]}"); rc=$?
if [ $rc = 0 ] && [ "$(field bad "$out")" = 0 ] && [ "$(field mixed "$out")" = 0 ]; then
	ok "untouched: $out"
else
	ko untouched "rc=$rc $out"
fi

t=$("$T/ackw" tear "${args[@]}" -J 7 -s 255) || ko tear "exit status $?"
blk=$(field blk "$t")
out=$("$T/ackw" verify "${args[@]}"); rc=$?
if [ $rc = 0 ] && [ "$(field bad "$out")" = 0 ] && [ "$(field mixed "$out")" = 1 ] &&
   [ "$(field ok_newer "$out")" = 31 ]; then
	ok "torn in-flight write: $t; $out"
else
	ko torn "rc=$rc $t; $out"
fi

# the last sector of the mixed block is still the acknowledged write: spoil it
flip "$D" $(((blk + 31) * 4096 + 7 * 512 + 100))
out=$("$T/ackw" verify "${args[@]}"); rc=$?
if [ $rc = 1 ] && [ "$(field bad "$out")" = 1 ] && grep -q "^XLAB-ACKV-BAD job=7 blk=$((blk + 31)) " <<<"$out"; then
	ok "spoilt mixed block reported: $(grep '^XLAB-ACKV-BAD' <<<"$out")"
else
	ko spoilt-mixed "rc=$rc $out"
fi
flip "$D" $(((blk + 31) * 4096 + 7 * 512 + 100))

# job 0's first block, far from any write in flight
flip "$D" 2000
out=$("$T/ackw" verify "${args[@]}"); rc=$?
if [ $rc = 1 ] && [ "$(field bad "$out")" = 1 ] && grep -q "^XLAB-ACKV-BAD job=0 blk=0 " <<<"$out"; then
	ok "spoilt acknowledged block reported: $(grep '^XLAB-ACKV-BAD' <<<"$out")"
else
	ko spoilt-acked "rc=$rc $out"
fi
rm -f /dev/shm/ackw.$$
echo "ackw: $pass passed, $fail failed"
[ $fail = 0 ]
