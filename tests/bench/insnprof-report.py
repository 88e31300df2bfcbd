#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where a bench job's instructions went, from tests/bench/xlab-insnprof.c's dumps.

usage: insnprof-report.py [--top N] [--calls] LOG PROFDIR TAG...

LOG      the bench boot's serial log (tests/lab/out/logs/bench.log): the
         XLAB-PROF-MOD lines (module text addresses in dom0 and in the guest)
         and XLAB-PROF-IO lines (requests the backend took in the window)
PROFDIR  tests/lab/out/insnprof: prof-TAG.txt, one per job window
TAG      e.g. r1.xblk.seq-4k (a glob is fine: 'r1.*.seq-4k')
--calls  also list the most called functions, with their calls per
         request: the executions of the block at a function's first
         address (a loop back to that address counts too; both domains'
         copies of a kernel function count together)

Symbols: Xen from the symbol table of Debian's xen-4.17-amd64.efi (the
multiboot image the lab boots is the same build, stripped); the kernel from
linux-image-<kver>-dbg's vmlinux: an `nm -n` of it in
/var/cache/xblk/dbg/vmlinux.nm or $XLAB_VMLINUX_NM, made with

  cd /var/cache/xblk/dbg && apt-get download linux-image-<kver>-dbg &&
  dpkg-deb --fsys-tarfile linux-image-<kver>-dbg_*.deb |
    tar -x --wildcards './usr/lib/debug/boot/vmlinux-*' &&
  nm -n usr/lib/debug/boot/vmlinux-<kver> > vmlinux.nm

(without it kernel addresses stay hex); modules from their .ko files (ours
in tests/lab/out/modules, the rest in /lib/modules/<kver>).

dom0 and the guest run the same kernel at the same addresses: their copies
are told apart by the host address of the code (the domain's memory), using
the module text each side reported: a kernel block is the guest's when its
machine address is nearer the guest's modules' than dom0's.  Say so where it
matters: the split is a heuristic, the totals are exact.
"""
import bisect
import collections
import glob
import os
import re
import subprocess
import sys

XEN_LO, XEN_HI = 0xffff82d040000000, 0xffff82d0c0000000
MOD_LO = 0xffffffffa0000000


def nm_syms(path, cmd=None):
    """[(addr, name)] sorted, text symbols only."""
    out = subprocess.run(cmd or ['nm', '-n', path], capture_output=True,
                         text=True).stdout
    syms = []
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 3 and f[1] in 'tTwW':
            syms.append((int(f[0], 16), f[2]))
    syms.sort()
    return syms


def ko_text_syms(path):
    """[(offset in .text, name)] of a module's .text functions."""
    out = subprocess.run(['objdump', '-t', path], capture_output=True,
                         text=True).stdout
    syms = []
    for line in out.splitlines():
        m = re.match(r'([0-9a-f]+)\s.*\s(F|\s)\s\.text\s+[0-9a-f]+\s+(\S+)$', line)
        if m:
            syms.append((int(m.group(1), 16), m.group(3)))
    syms.sort()
    return syms


class Table:
    def __init__(self, syms, lo=None, hi=None):
        self.addrs = [a for a, _ in syms]
        self.names = [n for _, n in syms]
        self.lo = lo if lo is not None else (self.addrs[0] if self.addrs else 0)
        self.hi = hi

    def name(self, a):
        i = bisect.bisect_right(self.addrs, a) - 1
        return self.names[i] if i >= 0 else '?'

    def entry(self, a):
        """The name of the function that starts at a, or None."""
        i = bisect.bisect_left(self.addrs, a)
        return self.names[i] if i < len(self.addrs) and self.addrs[i] == a else None


def find_ko(mod, kver, ours):
    for d in ours:
        for n in (mod, mod.replace('_', '-')):
            p = os.path.join(d, n + '.ko')
            if os.path.exists(p):
                return p
    for n in (mod, mod.replace('_', '-')):
        hits = glob.glob('/lib/modules/%s/kernel/**/%s.ko' % (kver, n), recursive=True)
        if hits:
            return hits[0]
    return None


def main():
    args = sys.argv[1:]
    top = 30
    calls_too = False
    while args[:1] in (['--top'], ['--calls']):
        if args[0] == '--top':
            top = int(args[1])
            args = args[2:]
        else:
            calls_too = True
            args = args[1:]
    if len(args) < 3:
        sys.exit(__doc__)
    log, pdir, tags = args[0], args[1], args[2:]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    kver = os.environ.get('XLAB_KVER', '6.1.0-57-amd64')
    xen = Table(nm_syms('/boot/xen-4.17-amd64.efi'))
    vnm = os.environ.get('XLAB_VMLINUX_NM', '/var/cache/xblk/dbg/vmlinux.nm')
    kern = Table(nm_syms(None, ['cat', vnm])) if os.path.exists(vnm) else None
    if not kern:
        print('(no %s: kernel addresses stay hex, see --help)' % vnm)
    ours = [os.path.join(root, 'tests/lab/out/modules')]

    mods = collections.defaultdict(list)   # pair -> [(side, mod, text)]
    ios = {}
    for line in open(log, errors='replace'):
        i = line.find('XLAB-PROF-MOD ')
        if i >= 0:
            kv = dict(x.split('=', 1) for x in line[i:].split()[1:] if '=' in x)
            mods[kv['pair']].append((kv['side'], kv['mod'], int(kv['text'], 16)))
        i = line.find('XLAB-PROF-IO ')
        if i >= 0:
            f = line[i:].split()
            ios[f[1]] = int(f[2].split('=')[1])
    ko_cache = {}

    files = []
    for t in tags:
        files += sorted(glob.glob(os.path.join(pdir, 'prof-%s.txt' % t)))
    for path in files:
        tag = os.path.basename(path)[5:-4]
        pair = tag.split('.')[1]
        # module text ranges of this pair: (start, end, side, mod, table)
        ranges = []
        for side, mod, text in mods.get(pair, []):
            if mod not in ko_cache:
                ko = find_ko(mod, kver, ours)
                ko_cache[mod] = Table(ko_text_syms(ko)) if ko else None
            tb = ko_cache[mod]
            size = (tb.addrs[-1] + 4096) if tb and tb.addrs else 65536
            ranges.append((text, text + size, side, mod, tb))
        ranges.sort()
        blocks = []
        calls = collections.Counter()
        for line in open(path):
            v, h, n, c = line.split()
            v = int(v, 16)
            blocks.append((v, int(h, 16), int(n) * int(c)))
            if calls_too:
                if XEN_LO <= v < XEN_HI:
                    e = xen.entry(v)
                    e = e and 'xen:' + e
                elif v >= 0x800000000000 and v < MOD_LO and kern:
                    e = kern.entry(v)
                    e = e and 'kernel:' + e
                else:
                    e = None
                if e:
                    calls[e] += int(c)
        total = sum(b[2] for b in blocks)
        # host-minus-virtual offsets of each side's module code: the
        # domain's memory, to tell the kernels apart
        side_h = collections.defaultdict(list)
        for v, h, ins in blocks:
            for lo, hi, side, mod, tb in ranges:
                if lo <= v < hi:
                    side_h[side].append(h)
                    break
        med = {s: sorted(hs)[len(hs) // 2] for s, hs in side_h.items() if hs}

        cat = collections.Counter()
        fn = collections.Counter()
        for v, h, ins in blocks:
            if XEN_LO <= v < XEN_HI:
                cat['xen'] += ins
                fn['xen:' + xen.name(v)] += ins
                continue
            if v < 0x800000000000:
                cat['user'] += ins
                continue
            hit = None
            if v >= MOD_LO:
                for lo, hi, side, mod, tb in ranges:
                    if lo <= v < hi:
                        hit = (side, mod, tb, lo)
                        break
            if hit:
                side, mod, tb, lo = hit
                cat[side + ':mod'] += ins
                fn['%s:[%s]%s' % (side, mod, tb.name(v - lo) if tb else '?')] += ins
                continue
            side = min(med, key=lambda s: abs(med[s] - h)) if med else 'kernel'
            cat[side + ':kernel'] += ins
            fn['%s:%s' % (side, kern.name(v) if kern else hex(v))] += ins
        io = ios.get(tag)
        print('== %s: %.3g instructions%s' % (tag, total,
              ', %d requests, %.0f per request' % (io, total / io) if io else ''))
        for k, c in cat.most_common():
            print('   %-14s %6.2f%%  %s' % (k, 100.0 * c / total,
                  '%.0f per request' % (c / io) if io else ''))
        for k, c in fn.most_common(top):
            print('   %6.2f%%  %s' % (100.0 * c / total, k))
        if calls_too:
            print('   calls%s:' % (' per request' if io else ''))
            for k, c in calls.most_common(top):
                print('   %10.2f  %s' % (c / io if io else c, k))


if __name__ == '__main__':
    main()
