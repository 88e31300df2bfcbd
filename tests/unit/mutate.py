#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Mutation check of tests/unit: each mutant is a copy of include/xblk with
one deliberate bug (an off-by-one, a dropped check, a wrapping sum...).
The unit tests and the corpus replay are built against it and must fail.
A mutant that survives means a rule the tests do not really pin down.

    ./mutate.py [-k SUBSTRING] [-v]
"""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '..', '..'))
OUT = os.path.join(HERE, 'out', 'mutants')

# (header, exact text, replacement, what the bug is); the text must occur,
# only its first occurrence is replaced.
MUTANTS = [
    ('wire.h', '<= (RING_IDX)(req_prod - rsp_cons)', '<= (RING_IDX)(req_prod - rsp_cons + 1)',
     'rsp_prod may run one past the requests issued'),
    ('wire.h', '(RING_IDX)(req_prod - rsp_prod) <= ring_size', '(RING_IDX)(req_prod - rsp_prod) <= ring_size + 1',
     'req_prod may overflow the ring by one'),
    ('wire.h', '(RING_IDX)(req_cons - rsp_prod) <= (RING_IDX)(req_prod - rsp_prod)', '1',
     'req_prod may move behind our consumer'),
    ('wire.h', 'if (rsp->id >= nr_ids)', 'if (rsp->id > nr_ids)',
     'response id == nr_ids accepted'),
    ('wire.h', 'if (rsp->id >= nr_ids)', 'if ((u32)rsp->id >= nr_ids)',
     'response id truncated to 32 bits'),
    ('wire.h', 'if (!inflight)', 'if (0)',
     'duplicate/stray response ids accepted'),
    ('wire.h', 'if (rsp->operation != op)', 'if (0)',
     'response operation not compared'),
    ('wire.h', 'rsp->status != BLKIF_RSP_EOPNOTSUPP)', '0)',
     'any status accepted'),
    ('wire.h', 'len > XEN_PAGE_SIZE - offset', 'offset + len > XEN_PAGE_SIZE',
     'segment offset + len wraps 32 bits'),
    ('wire.h', '*last = (offset + len - 1) >> XBLK_SECTOR_SHIFT;', '*last = (offset + len) >> XBLK_SECTOR_SHIFT;',
     'last sector one too far'),
    ('xenstore.h', 'if (v > (~(u64)0 - d) / 10)', 'if (v > ~(u64)0 / 10)',
     'overflow of the last digit not detected'),
    ('xenstore.h', 'if (d > 9)', 'if (d > 10)',
     "':' taken for a digit"),
    ('xenstore.h', 'if (!*s)\n\t\treturn -EINVAL;', '',
     'empty value parsed as 0'),
    ('xenstore.h', 'if (err == -E2BIG)\n\t\treturn -EINVAL;', 'if (err == -E2BIG)\n\t\treturn 0;',
     'overlong value ignored'),
    ('xenstore.h', '~(u64)0 >> 10, &v, bad_key);', '~(u64)0 >> 9, &v, bad_key);',
     'capacity whose byte size overflows accepted'),
    ('xenstore.h', 'if (!err && !xblk_is_pow2(*v) && !(zero_ok && !*v)) {', 'if (0) {',
     'sector-size need not be a power of two'),
    ('xenstore.h', 'bi->phys_sector_size = max_t(unsigned int, v, bi->sector_size);', 'bi->phys_sector_size = v;',
     'physical block smaller than logical kept'),
    ('xenstore.h', 'clamp_t(u64, v, 1, XBLK_MAX_QUEUES)', 'clamp_t(u64, v, 0, XBLK_MAX_QUEUES)',
     'zero queues from the backend kept'),
    ('xenstore.h', 'min_t(u64, v, XBLK_MAX_INDIRECT_SEGS)', '(unsigned int)v',
     'indirect segments not clamped (truncated)'),
    ('xenstore.h', 'XBLK_KEY_FLUSH, 0, 0, 1, &v', 'XBLK_KEY_FLUSH, 0, 0, 2, &v',
     'feature-flush-cache=2 accepted'),
    ('xenstore.h', 'if (!bi->discard)\n\t\treturn 0;', '',
     'discard keys read without feature-discard'),
    ('xenstore.h', '(bi->discard_granularity && v >= bi->discard_granularity)', '(bi->discard_granularity && v > bi->discard_granularity)',
     'discard-alignment == granularity accepted'),
    ('xenstore.h', 'if (v && v < (bi->sector_size >> XBLK_SECTOR_SHIFT)) {', 'if (0) {',
     'xblk-max-sectors below one block accepted'),
    ('xenstore.h', 'neg->nr_queues = max(1U, min3(bi->max_queues, fl->max_queues, fl->nr_cpus));',
     'neg->nr_queues = max(1U, min(bi->max_queues, fl->max_queues));',
     'queues not limited by CPUs'),
    ('xenstore.h', 'neg->indirect = segs > BLKIF_MAX_SEGMENTS_PER_REQUEST;', 'neg->indirect = segs >= BLKIF_MAX_SEGMENTS_PER_REQUEST;',
     'indirect used for 11 segments'),
    ('xenstore.h', 'neg->persistent = bi->persistent && fl->persistent;', 'neg->persistent = bi->persistent;',
     'persistent grants without the frontend wanting them'),
    ('xenstore.h', '(unsigned int)XBLK_SECTORS_PER_PAGE)', '(unsigned int)XBLK_SECTORS_PER_PAGE + 1)',
     'max_sectors cap off by a page'),
    ('xenstore.h', 'if (minor >> 7)', 'if (minor >> 8)',
     'IDE minors >= 128 alias other disks'),
    ('xenstore.h', 'if (vdev >> 29)', 'if (vdev >> 30)',
     'reserved 2 << 28 numbers accepted'),
    ('xenstore.h', 'return *part < 16 ? 0 : -EINVAL;', 'return 0;',
     'extended partitions >= 16 accepted'),
    ('xenstore.h', "tmp[n++] = 'a' + i % 26;\n\t\ti /= 26;", "tmp[n++] = 'a' + i % 26;\n\t\ti /= 27;",
     'disk names wrong past xvdz'),
    ('xenstore.h', 'if (3 + n + 4 > len)', 'if (3 + n + 1 > len)',
     'disk name buffer too small for the partition'),
    ('request.h', 'seg[i].last_sect >= XBLK_SECTORS_PER_PAGE', 'seg[i].last_sect > XBLK_SECTORS_PER_PAGE',
     'last_sect 8 accepted'),
    ('request.h', 'seg[i].first_sect > seg[i].last_sect ||', '',
     'first_sect > last_sect accepted'),
    ('request.h', 'nr_sectors > lim->sectors - sector', 'sector + nr_sectors > lim->sectors',
     'sector + length wraps 2^64'),
    ('request.h', 'if ((sector | nr_sectors) & mask)', 'if (sector & mask)',
     'length not block-aligned accepted'),
    ('request.h', 'if ((!nseg && !flush) || nseg > BLKIF_MAX_SEGMENTS_PER_REQUEST)', 'if (nseg > BLKIF_MAX_SEGMENTS_PER_REQUEST)',
     'read/write with 0 segments accepted'),
    ('request.h', 'nseg > BLKIF_MAX_SEGMENTS_PER_REQUEST)\n\t\treturn XBLK_REQ_BAD_NR_SEGS;', 'nseg > BLKIF_MAX_SEGMENTS_PER_REQUEST + 1)\n\t\treturn XBLK_REQ_BAD_NR_SEGS;',
     'read/write with 12 segments accepted'),
    ('request.h', 'nseg > XBLK_MAX_INDIRECT_SEGS)', 'nseg > XBLK_MAX_INDIRECT_SEGS + 512)',
     'nine indirect pages accepted'),
    ('request.h', 'if (!nseg || nseg > lim->max_indirect_segs ||', 'if (!nseg ||',
     'more indirect segments than offered accepted'),
    ('request.h', 'req->operation != BLKIF_OP_READ && lim->read_only', 'flush && lim->read_only',
     'writes to read-only devices accepted'),
    ('request.h', 'if (op == BLKIF_OP_WRITE && lim->read_only)', 'if (0)',
     'indirect writes to read-only devices accepted'),
    ('request.h', 'op != BLKIF_OP_WRITE)', 'op != BLKIF_OP_WRITE && 0)',
     'any indirect inner op accepted'),
    ('request.h', 'if (!req->u.discard.nr_sectors)\n\t\t\treturn XBLK_REQ_EMPTY;', '',
     'empty discard accepted'),
    ('request.h', 'if (!lim->discard)\n\t\t\treturn XBLK_REQ_NOT_OFFERED;', '',
     'discard without feature-discard accepted'),
    ('request.h', 'case BLKIF_OP_WRITE_BARRIER:\n\t\treturn XBLK_REQ_NOT_OFFERED;', 'case BLKIF_OP_WRITE_BARRIER:\n\t\treturn XBLK_REQ_VALID;',
     'barrier accepted'),
    ('request.h', '\tcase XBLK_REQ_NOT_OFFERED:\n\t\treturn BLKIF_RSP_EOPNOTSUPP;', '\t\treturn BLKIF_RSP_EOPNOTSUPP;\n\tcase XBLK_REQ_NOT_OFFERED:',
     'not-offered answered with ERROR'),
    ('request.h', 'dst->u.rw.id = src->u.rw.id;', 'dst->u.rw.id = src->u.rw.id >> 1;',
     'x86_32 rw id decoded wrongly'),
    ('request.h', 'dst->u.indirect.nr_segments = src->u.indirect.nr_segments;', 'dst->u.indirect.nr_segments = (u8)src->u.indirect.nr_segments;',
     'x86_32 indirect segment count truncated'),
    ('request.h', 'u8 nr_segments;\n\tu16 handle;\n\tu64 id;', 'u16 handle;\n\tu8 nr_segments;\n\tu64 id;',
     'x86_32 rw header fields swapped'),
    ('retry.h', '\tcase GNTST_no_device_space:\t/* our maptrack table is full */\n', '',
     'a full maptrack table fails the request'),
    ('retry.h', '\tcase GNTST_eagain:\t\t/* page being paged in: try again */\n', '\tcase GNTST_bad_gntref:\n',
     'a bad grant reference is retried forever'),
    ('retry.h', 'if (cur >= hi / 2)\n\t\treturn hi;\n', '',
     'backoff overshoots its maximum'),
    ('retry.h', 'return one_in && count % one_in == 0;', 'return count % (one_in + 1) == 0;',
     'fault injection not off at 0'),
]


def run_mutant(n, header, old, new, what, verbose):
    d = os.path.join(OUT, str(n))
    inc = os.path.join(d, 'include')
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(os.path.join(ROOT, 'include'), inc)
    path = os.path.join(inc, 'xblk', header)
    with open(path) as f:
        text = f.read()
    if old not in text:
        return 'stale'			# the header changed: update MUTANTS
    with open(path, 'w') as f:
        f.write(text.replace(old, new, 1))
    p = subprocess.run(['make', '-s', '--no-print-directory', '-C', HERE,
                        '-j%d' % (os.cpu_count() or 1),
                        'OUT=' + os.path.join(d, 'out'), 'XBLK_INC=' + inc,
                        'WERROR=', 'OPT=-O0', 'replay', 'run'],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = p.stdout
    shutil.rmtree(d, ignore_errors=True)
    if verbose:
        print(out)
    if p.returncode == 0:
        return 'SURVIVED'
    if ('error:' in out and 'passed' not in out and 'FUZZ_ASSERT' not in out
            and 'ERROR: AddressSanitizer' not in out and 'runtime error' not in out):
        return 'build-error'		# a mutant that does not compile proves nothing
    return 'killed'


def main():
    args = sys.argv[1:]
    verbose = '-v' in args
    key = args[args.index('-k') + 1] if '-k' in args else ''
    counts = {}
    for n, (header, old, new, what) in enumerate(MUTANTS):
        if key and key not in what and key not in header:
            continue
        res = run_mutant(n, header, old, new, what, verbose)
        counts[res] = counts.get(res, 0) + 1
        print(f'{res:>11}  {header:<11} {what}', flush=True)
    total = sum(counts.values())
    print(f"mutants: {total}, killed {counts.get('killed', 0)}, "
          f"survived {counts.get('SURVIVED', 0)}, stale {counts.get('stale', 0)}, "
          f"build errors {counts.get('build-error', 0)}")
    return 0 if counts.get('killed', 0) == total else 1


if __name__ == '__main__':
    sys.exit(main())
