#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hostile peers, device faults and lifecycle events, in the lab (real Xen
# under QEMU): every suite of issue 5 in one command, one lab boot per suite.
#
#   scripts/test-faults.sh          (make test-faults)       part of make test
#   scripts/test-faults.sh --long   (make test-faults-long)  the long variants
#
#   hostile       a hostile frontend attacks xblkback (bad requests, grants,
#                 xenstore keys, double fetch, event storm, noisy neighbour)
#   hostile-back  a hostile backend attacks xblkfront (bad responses, keys)
#   back-extra    device errors (dm-error), grant-map failures, memory
#                 pressure, xl destroy with I/O in flight, leak cycles,
#                 read-only, resize, rmmod while attached
#   lifecycle     xl block-detach while fio writes; every acknowledged
#                 write is verified after re-attach
#   restore       xl save / xl restore with fio verify running, onto
#                 backends with other queue counts and ring sizes
#   qos           (--long only) per-guest QoS: io.max and bfq weights on two
#                 guests sharing one disk, bad paths, moves under I/O
#   migrate       (--long only) xl migrate to this host with fio verify
#                 running, 10 cycles, xblkfront on xblkback and on xen-blkback;
#                 boots a Xen built with shadow paging (scripts/xen-shadow.sh,
#                 built into /var/cache/xblk on first use, about 3 minutes)
#
# Cycle counts (short / --long): attach-detach leak cycles 3 / 20, xl
# destroy with I/O 2 / 8, detach under writes 4 / 50, save/restore 2 / 10;
# the hostile suite's xenstore key cases 10 / all 37 (suites/hostile.sh, KEYS_CI). The short
# variant sets tier=ci: cases that record an in-tree driver's behaviour beside ours, and further
# variants of what CI covers once, run in --long only (long_only in tests/lab/lib/dom0.sh).
# The detach cycles with the in-tree xen-blkfront run in the long variant only:
# 6.1's xen-blkfront can hang in del_gendisk there (suites/lifecycle.sh).
# Prints one line per case and "N passed, N failed" last; exit 0 iff
# nothing failed.  Extra XLAB_* settings (XLAB_CASES...) pass through.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

opts="leak_cycles=3 destroy_cycles=2 detach_cycles=3 restore_cycles=2 keys=ci tier=ci"
suites="hostile hostile-back back-extra lifecycle restore"
if [ "${1:-}" = --long ]; then
	opts="leak_cycles=20 destroy_cycles=8 detach_cycles=50 restore_cycles=10 detach_intree=1"
	# per-guest QoS: two guests on one disk, io.max and bfq weights (about 7 minutes on
	# the icount clock, beyond CI's budget)
	suites="$suites qos"
	# live migration to this host with I/O in flight, 10 cycles per pair (tests/lab
	# suites/restore.sh)
	suites="$suites migrate"
	shift
fi
[ $# = 0 ] || { echo "usage: $0 [--long]" >&2; exit 2; }
export XLAB_OPTS="${XLAB_OPTS:+$XLAB_OPTS }$opts"
# shellcheck disable=SC2086
exec tests/lab/run.sh $suites
