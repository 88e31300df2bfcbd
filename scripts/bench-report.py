#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the XLAB-BENCH lines of lab bench boots into tables, a CSV, a plot and the targets.

usage: bench-report.py [--regimes r1,r2,r3,wall] LOG [LOG...] OUTDIR

Reads the "XLAB-BENCH round=R clock=C set=S pair=P work=W key=value..." lines of the LOGs
(the serial logs of tests/lab/run.sh bench-r1, bench-r2, bench-r3 and bench-wall; a line
without set, e.g. from a real host, or with the old set=main, counts as regime r1). The sets:
r1 (CPU-bound), r2-LAT-TAGS (device-bound, one per null_blk), r3 (per stage) and notify (the
wall-clock boot). IOPS, bandwidth and latencies are averaged over the rounds, counters summed
over the rounds before dividing. Writes
  OUTDIR/bench.csv   one row per (set, pair, job)
  OUTDIR/bench.txt   the tables and the targets of issue 31 (also printed), ending with
                     "N passed, N failed"
  OUTDIR/bench.gp    a gnuplot script; OUTDIR/bench.png if gnuplot is installed: IOPS against
                     block size, one panel per regime and device
--regimes: the regimes whose targets count (a regime listed but not in the logs has its
targets "not measured"); default: those in the logs. Notifications per request come from the
notify set, or from the other sets if those ran on the wall clock and there is no notify set.
Exit status: 0 when every target was measured and holds, 1 when one does not hold or could not
be measured, 2 when there is no data.
"""
import collections
import os
import re
import subprocess
import sys

SIZES = ["512", "1k", "2k", "4k", "8k", "16k", "32k", "64k", "128k"]
KIB = {"512": 0.5, "1k": 1, "2k": 2, "4k": 4, "8k": 8, "16k": 16, "32k": 32, "64k": 64,
       "128k": 128}
R1CORE = ["seq-4k", "rand-4k", "qd1"]
R2JOBS = ["seq-4k", "seq-64k", "seq-128k", "write-4k", "rand-4k", "rand-4k-deep", "qd1", "qd4"]
R2DEVS = ["10ms-256", "10ms-64", "2ms-256"]
LOADED = ["seq-4k", "rand-4k", "slow-seq-4k", "slow-rand-4k"]   # notifications "under load"
TUNED = "intree-tuned"
LINE = re.compile(r"XLAB-BENCH (round=.*)$")
INFO = re.compile(r"XLAB-BENCH-INFO (.*)$")
STAMP = re.compile(r"^\[\s*([0-9.]+)\]")
MEANS = ("iops", "kibs", "lat_mean", "clat_mean", "clat_p50", "clat_p99", "clat_p999")
SUMS = ("rd", "rd_merged", "rd_sect", "wr", "wr_merged", "wr_sect", "ring_req", "be_req",
        "passes", "fe_irq", "be_irq", "fe_notify_out", "fe_notify_in", "be_notify_in",
        "be_notify_out", "fe_timer_polls", "be_timer_polls", "dev_rd", "dev_rd_merged",
        "dev_rd_sect", "dev_wr", "dev_wr_merged", "dev_wr_sect")


def parse(paths):
    rows, infos, boots = [], [], []
    for path in paths:
        last = None
        with open(path, errors="replace") as f:
            for line in f:
                line = line.rstrip()
                m = STAMP.match(line)
                if m:
                    last = float(m.group(1))
                m = INFO.search(line)
                if m:
                    infos.append(m.group(1))
                    continue
                m = LINE.search(line)
                if not m:
                    continue
                kv = dict(w.split("=", 1) for w in m.group(1).split() if "=" in w)
                if "pair" in kv and "work" in kv:
                    if kv.get("set", "main") == "main":
                        kv["set"] = "r1"
                    rows.append(kv)
        boots.append((os.path.basename(path), last))
    return rows, infos, boots


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def div(a, b):
    return a / b if a is not None and b else None


def cpu_figures(rs, a):
    """CPU time in the window of each job, over the I/Os fio did in that window"""
    ios = d0 = g = win = busy = own = idle = 0.0
    own_ok, idle_ok = True, True
    steady = []
    ncpu = 0
    for r in rs:
        w, i = num(r.get("cpu_win_ns")), num(r.get("iops"))
        if r.get("cpu_ok") != "1" or not w or i is None:
            continue
        ncpu += 1
        ios += i * w / 1e9
        d0 += num(r.get("cpu_d0_ns")) or 0
        g += num(r.get("cpu_g_ns")) or 0
        win += w
        busy += (num(r.get("cpu_d0_ns")) or 0) + (num(r.get("cpu_g_ns")) or 0)
        if num(r.get("cpu_idle_ns")) is None:
            idle_ok = False
        else:
            idle += num(r.get("cpu_idle_ns"))
        # dom0's own accounting of the same window (/proc/stat, 1/100 s per vCPU)
        cs = [num(c) for c in r.get("d0_vcpu", "").split("/")]
        if cs and None not in cs:
            own += sum(cs) * 1e7
        else:
            own_ok = False
        # the I/O rate in the window against the job's, by the same counter (the backend's
        # ring requests; dom0's disk for native): near 1 if the window was steady state
        wio, rt = num(r.get("win_io")), num(r.get("runtime"))
        job_io = num(r.get("ring_req"))
        if job_io is None:
            job_io = (num(r.get("rd")) or 0) + (num(r.get("wr")) or 0)
        if wio is not None and rt and job_io:
            steady.append((wio / (w / 1e9)) / (job_io / rt))
    a["cpu_jobs"] = ncpu
    a["d0_us"] = div(d0 / 1000, ios) if ncpu else None
    a["g_us"] = div(g / 1000, ios) if ncpu else None
    a["d0own_us"] = div(own / 1000, ios) if ncpu and own_ok else None
    a["busy"] = div(busy, win) if ncpu else None
    # (dom0 + guest + Xen's idle time) / window: the pCPUs' time all accounted for
    a["accounted"] = div(busy + idle, win) if ncpu and idle_ok else None
    a["win_steady"] = sum(steady) / len(steady) if steady else None
    # one ring whose backend is a serial stage: as many I/Os per second as dom0's CPU time
    # per I/O allows
    a["proj_iops"] = div(1e6, a["d0_us"])


def aggregate(rows):
    """(set, pair, work) -> dict of means, sums and derived figures, plus 'n' rounds."""
    groups = collections.OrderedDict()
    for r in rows:
        groups.setdefault((r["set"], r["pair"], r["work"]), []).append(r)
    out = collections.OrderedDict()
    for key, rs in groups.items():
        a = {"n": len(rs), "clock": rs[0].get("clock", "-")}
        for k in MEANS:
            vals = [num(r.get(k)) for r in rs if num(r.get(k)) is not None]
            a[k] = sum(vals) / len(vals) if vals else None
            a[k + "_min"] = min(vals) if vals else None
            a[k + "_max"] = max(vals) if vals else None
        for k in SUMS:
            vals = [num(r.get(k)) for r in rs]
            a[k] = None if any(v is None for v in vals) else sum(vals)
        cpu_figures(rs, a)
        a["g_vcpu"] = " ".join(r.get("g_vcpu", "-") for r in rs)
        a["d0_vcpu"] = " ".join(r.get("d0_vcpu", "-") for r in rs)
        derive(key[1], a)
        out[key] = a
    return out


def derive(pair, a):
    ios = (a["rd"] or 0) + (a["wr"] or 0)
    sect = (a["rd_sect"] or 0) + (a["wr_sect"] or 0)
    merged = (a["rd_merged"] or 0) + (a["wr_merged"] or 0)
    a["avg_req_kib"] = div(sect * 512 / 1024, ios)
    a["merged_pct"] = div(100.0 * merged, ios + merged)
    # dom0's device: where the backend's requests (or native's) arrive
    if a["dev_rd"] is not None:
        dios = a["dev_rd"] + (a["dev_wr"] or 0)
        dsect = (a["dev_rd_sect"] or 0) + (a["dev_wr_sect"] or 0)
        dmerged = (a["dev_rd_merged"] or 0) + (a["dev_wr_merged"] or 0)
        a["dev_avg_kib"] = div(dsect * 512 / 1024, dios)
        a["dev_merged_pct"] = div(100.0 * dmerged, dios + dmerged)
    else:
        a["dev_avg_kib"] = a["dev_merged_pct"] = None
    a["req_per_mib"] = div(a["ring_req"], sect * 512 / 1048576)
    a["req_per_pass"] = div(a["be_req"], a["passes"])
    rq = a["ring_req"]
    # notifications per ring request, each direction; the in-tree drivers count none, so
    # their interrupts stand in: the backend's interrupts are the frontend's notifications
    if pair.startswith("intree"):
        a["fe_sent"] = div(a["be_irq"], rq)
        a["be_sent"] = div(a["fe_irq"], rq)
    else:
        a["fe_sent"] = div(a["fe_notify_out"], rq)
        a["be_sent"] = div(a["be_notify_out"], rq)
    a["fe_irq_per_req"] = div(a["fe_irq"], rq)
    a["be_irq_per_req"] = div(a["be_irq"], rq)
    # looks at the ring by a timer instead of an event (ours; not in logs before 2026-12-05)
    a["fe_tmr_per_req"] = None if pair.startswith("intree") else div(a["fe_timer_polls"], rq)
    a["be_tmr_per_req"] = None if pair.startswith("intree") else div(a["be_timer_polls"], rq)


def fmt(v, spec="{:.0f}"):
    return "-" if v is None else spec.format(v)


def x(v, spec="{:.2f}x"):
    return fmt(v, spec)


def xw(v, want):
    """a ratio against a threshold: three decimals where two would round it onto the threshold
    (0.997 is not 1.00x)"""
    if v is not None and f"{v:.2f}" == f"{want:.2f}" and v != want:
        return f"{v:.3f}x"
    return x(v)


def baseline(p):
    """the in-tree pair a pair is compared with: intree, or intree@dl for PAIR@dl, intree~emu
    for PAIR~emu (the same scheduler, the same guest TSC)"""
    m = re.search(r"[~@]", p)
    return "intree" + (p[m.start():] if m else "")


def ours(p):
    return p != "native" and not p.startswith("intree")


def regime_of(s):
    return "wall" if s == "notify" else s.split("-")[0]


def set_title(s):
    if s == "r1":
        return "R1, CPU-bound: memory-less null_blk, irqmode=1 (nbfast)"
    if s.startswith("r2-"):
        lat, tags = s[3:].split("-", 1)
        return f"R2, device-bound: null_blk irqmode=2, {lat} completions, {tags} tags"
    if s == "r3":
        return "R3, per stage: Xen on one pCPU, nbfast through one ring (max_queues=1)"
    return s


class Report:
    def __init__(self, agg, sets, regimes, notify, notify_src):
        self.agg = agg
        self.sets = sets
        self.regimes = regimes
        self.N = notify
        self.notify_src = notify_src
        self.txt = []
        self.res = collections.Counter()

    def say(self, s=""):
        self.txt.append(s)

    def get(self, s, p, w, k):
        return self.agg.get((s, p, w), {}).get(k)

    def ratio(self, s, p, w, base, k="iops"):
        return div(self.get(s, p, w, k), self.get(s, base, w, k))

    def pairs(self, s):
        return list(collections.OrderedDict.fromkeys(p for (t, p, _) in self.agg if t == s))

    def works(self, s):
        return list(collections.OrderedDict.fromkeys(w for (t, _, w) in self.agg if t == s))

    # ---- tables
    def spread(self, a):
        return (div(a["iops_max"] - a["iops_min"], a["iops"]) if a["n"] > 1 and a["iops"]
                else None)

    def cpu_table(self, s):
        """R1 and other CPU-bound sets: IOPS, merging, CPU per I/O"""
        say = self.say
        say("Per job: IOPS (mean of the rounds), spread = (max - min) / mean over the rounds, MB/s,")
        say("merged % of the guest disk's I/Os, average request at the guest disk (KiB), CPU per I/O")
        say("of dom0 and of the guest (us of CPU time Xen charged, virtual under icount) and of dom0")
        say("by its own /proc/stat (d0own), pCPUs busy (dom0 + guest CPU time over the window), ring")
        say("requests per backend pass, IOPS against the in-tree pair (PAIR@dl against intree@dl)")
        say(f"{'work':<14}{'pair':<16}{'n':>2}{'IOPS':>9}{'spread':>8}{'MB/s':>8}{'merged%':>9}"
            f"{'avgKiB':>8}{'dom0us':>8}{'guestus':>8}{'d0own':>7}{'pCPUs':>6}{'req/pass':>9}{'x intree':>9}")
        for w in self.works(s):
            for p in self.pairs(s):
                a = self.agg.get((s, p, w))
                if not a:
                    continue
                sp = self.spread(a)
                r = None if p.startswith("intree") else self.ratio(s, p, w, baseline(p))
                say(f"{w:<14}{p:<16}{a['n']:>2}{fmt(a['iops']):>9}"
                    f"{fmt(sp and 100 * sp, '{:.1f}%'):>8}{fmt(div(a['kibs'], 1000 / 1.024)):>8}"
                    f"{fmt(a['merged_pct'], '{:.1f}'):>9}{fmt(a['avg_req_kib'], '{:.1f}'):>8}"
                    f"{fmt(a['d0_us'], '{:.1f}'):>8}{fmt(a['g_us'], '{:.1f}'):>8}"
                    f"{fmt(a['d0own_us'], '{:.1f}'):>7}{fmt(a['busy'], '{:.2f}'):>6}"
                    f"{fmt(a['req_per_pass'], '{:.2f}'):>9}{fmt(r, '{:.2f}x'):>9}")
        say()

    def device_table(self, s):
        """R2: IOPS against the in-tree pair, the tuned one and native; where requests merged"""
        say = self.say
        say("Per job: IOPS (mean of the rounds), spread, MB/s, the average request and merged % at")
        say("the guest disk (g) and at dom0's device (d: where the backend's requests arrive), IOPS")
        say("against the in-tree pair, the tuned in-tree pair and dom0-native")
        say(f"{'work':<14}{'pair':<14}{'n':>2}{'IOPS':>8}{'spread':>8}{'MB/s':>7}{'gKiB':>7}{'gmrg%':>7}"
            f"{'dKiB':>7}{'dmrg%':>7}{'x intree':>9}{'x tuned':>8}{'x native':>9}")
        for w in self.works(s):
            for p in self.pairs(s):
                a = self.agg.get((s, p, w))
                if not a:
                    continue
                sp = self.spread(a)
                ri = None if p in ("intree", "native") else self.ratio(s, p, w, "intree")
                rt = None if p in (TUNED, "native") else self.ratio(s, p, w, TUNED)
                rn = None if p == "native" else self.ratio(s, p, w, "native")
                gk = None if p == "native" else a["avg_req_kib"]
                gm = None if p == "native" else a["merged_pct"]
                say(f"{w:<14}{p:<14}{a['n']:>2}{fmt(a['iops']):>8}"
                    f"{fmt(sp and 100 * sp, '{:.1f}%'):>8}{fmt(div(a['kibs'], 1000 / 1.024)):>7}"
                    f"{fmt(gk, '{:.1f}'):>7}{fmt(gm, '{:.1f}'):>7}"
                    f"{fmt(a['dev_avg_kib'], '{:.1f}'):>7}{fmt(a['dev_merged_pct'], '{:.1f}'):>7}"
                    f"{x(ri):>9}{x(rt):>8}{x(rn):>9}")
        say()

    def stage_table(self, s):
        """R3: exact CPU time per I/O of each domain; the single-ring projection"""
        say = self.say
        say("Per job: IOPS, CPU time per I/O that Xen charged dom0 (the backend, with Xen's work on")
        say("its behalf) and the guest, in ns = instructions (one pCPU under icount); pCPU busy")
        say("(dom0 + guest over the window, at most 1), all time accounted for (dom0 + guest + Xen's")
        say("idle over the window: the pCPUs Xen has, the idle ones out of its pool included); the")
        say("projected IOPS of one ring whose backend is a serial stage (1 s / dom0 ns per I/O);")
        say("dom0's ns per I/O and the projection against the in-tree pair's")
        say(f"{'work':<14}{'pair':<14}{'n':>2}{'IOPS':>8}{'dom0ns':>8}{'guestns':>8}{'busy':>6}"
            f"{'acct':>6}{'1-ring IOPS':>12}{'dom0 x intree':>14}{'1-ring x intree':>16}")
        for w in self.works(s):
            for p in self.pairs(s):
                a = self.agg.get((s, p, w))
                if not a:
                    continue
                d0 = None if a["d0_us"] is None else a["d0_us"] * 1000
                g = None if a["g_us"] is None else a["g_us"] * 1000
                r1 = None if p in ("intree", "native") else self.ratio(s, p, w, "intree", "d0_us")
                r2 = None if p in ("intree", "native") else self.ratio(s, p, w, "intree", "proj_iops")
                say(f"{w:<14}{p:<14}{a['n']:>2}{fmt(a['iops']):>8}{fmt(d0):>8}"
                    f"{fmt(None if p == 'native' else g):>8}{fmt(a['busy'], '{:.2f}'):>6}"
                    f"{fmt(a['accounted'], '{:.2f}'):>6}{fmt(a['proj_iops']):>12}{x(r1):>14}{x(r2):>16}")
        say()

    def latency_table(self, s):
        works = [w for w in self.works(s) if w.endswith("qd1")]
        if not works:
            return
        say = self.say
        say("Queue depth 1: latency (us: mean total, completion percentiles), mean of the rounds")
        say(f"{'work':<14}{'pair':<16}{'IOPS':>9}{'mean':>9}{'p50':>8}{'p99':>8}{'p99.9':>8}"
            f"{'mean x intree':>15}")
        for w in works:
            for p in self.pairs(s):
                a = self.agg.get((s, p, w))
                if not a:
                    continue
                r = None if p.startswith("intree") else self.ratio(s, p, w, baseline(p), "lat_mean")
                say(f"{w:<14}{p:<16}{fmt(a['iops']):>9}{fmt(a['lat_mean'], '{:.1f}'):>9}"
                    f"{fmt(a['clat_p50']):>8}{fmt(a['clat_p99']):>8}{fmt(a['clat_p999']):>8}"
                    f"{fmt(r, '{:.2f}x'):>15}")
        self.say()

    def sweep_table(self, s):
        works = self.works(s)
        if not any(f"seq-{bs}" in works for bs in SIZES):
            return
        pairs = [p for p in self.pairs(s) if "@" not in p and "~" not in p]
        say = self.say
        say("Sequential read by block size (8 jobs x iodepth 32 x iodepth_batch 16): IOPS")
        hdr = f"{'bs':>6}" + "".join(f"{p:>12}" for p in pairs)
        for p in pairs:
            if ours(p):
                hdr += f"{p + '/intree':>16}{p + '/native':>16}"
        say(hdr)
        for bs in SIZES:
            w = f"seq-{bs}"
            if w not in works:
                continue
            line = f"{bs:>6}" + "".join(f"{fmt(self.get(s, p, w, 'iops')):>12}" for p in pairs)
            for p in pairs:
                if ours(p):
                    line += (f"{x(self.ratio(s, p, w, 'intree')):>16}"
                             f"{x(self.ratio(s, p, w, 'native')):>16}")
            say(line)
        say()

    def notify_table(self):
        N = self.N
        if not N:
            return
        say = self.say
        nworks = list(collections.OrderedDict.fromkeys(w for _, w in N))
        npairs = [p for p in collections.OrderedDict.fromkeys(p for p, _ in N) if p != "native"]
        say("Notifications per ring request sent by the frontend / the backend, interrupts per")
        say("ring request in the guest / dom0, ring requests per MiB, and looks at the ring by a")
        say(f"timer per ring request in the guest / dom0 (ours: coalescing); from {self.notify_src}")
        say(f"{'work':<14}{'pair':<16}{'IOPS':>9}{'fe_ntf':>8}{'be_ntf':>8}{'g_irq':>7}{'d_irq':>7}"
            f"{'req/MiB':>9}{'g_tmr':>7}{'d_tmr':>7}")
        for w in nworks:
            for p in npairs:
                a = N.get((p, w))
                if not a:
                    continue
                say(f"{w:<14}{p:<16}{fmt(a['iops']):>9}{fmt(a['fe_sent'], '{:.3f}'):>8}"
                    f"{fmt(a['be_sent'], '{:.3f}'):>8}{fmt(a['fe_irq_per_req'], '{:.3f}'):>7}"
                    f"{fmt(a['be_irq_per_req'], '{:.3f}'):>7}{fmt(a['req_per_mib'], '{:.1f}'):>9}"
                    f"{fmt(a['fe_tmr_per_req'], '{:.3f}'):>7}{fmt(a['be_tmr_per_req'], '{:.3f}'):>7}")
        say()

    # ---- targets
    def check(self, label, cond, detail):
        tag = {True: "PASS", False: "FAIL", None: "n/a "}[cond]
        self.res[tag.strip()] += 1
        self.say(f"  {tag} {label}: {detail}")

    def at_least(self, label, v, want, what):
        self.check(label, None if v is None else v >= want, f"{xw(v, want)} {what} (>= {want}x)")

    def every(self, label, s, p, jobs, base, want, what):
        """each of jobs of p at least want x base's"""
        have = [(w, self.ratio(s, p, w, base)) for w in jobs]
        got = [(w, v) for w, v in have if v is not None]
        if len(got) < len(jobs):
            miss = [w for w, v in have if v is None]
            self.check(label, None, f"{len(got)} of {len(jobs)} jobs measured against {what} "
                       f"(each >= {want}x); missing: {' '.join(miss)}")
            return
        low = min(got, key=lambda t: t[1])
        bad = [w for w, v in got if v < want]
        self.check(label, not bad, f"lowest {xw(low[1], want)} at {low[0]} of {len(got)} jobs against "
                   f"{what} (each >= {want}x)" + (f"; below: {' '.join(bad)}" if bad else ""))

    def targets_r1(self, p):
        s = "r1"
        for w, want in (("seq-4k", 1.35), ("rand-4k", 1.05), ("qd1", 1.4)):
            self.at_least(f"{p} R1 {w}", self.ratio(s, p, w, "intree"), want, "the in-tree pair")
        self.every(f"{p} R1 seq 512..128k", s, p, [f"seq-{bs}" for bs in SIZES], "intree", 1.0,
                   "the in-tree pair")
        self.at_least(f"{p} R1 seq-128k", self.ratio(s, p, "seq-128k", "intree"), 1.05,
                      "the in-tree pair")
        self.every(f"{p}@dl R1", s, p + "@dl", R1CORE, "intree@dl", 1.05, "intree@dl")

    def targets_r2(self, p):
        s = "r2-10ms-256"
        self.every(f"{p} R2 10ms/256 every job", s, p, R2JOBS, TUNED, 1.0, "the tuned in-tree pair")
        self.at_least(f"{p} R2 10ms/256 seq-4k", self.ratio(s, p, "seq-4k", "intree"), 3.3,
                      "the in-tree pair")
        self.at_least(f"{p} R2 10ms/256 seq-64k", self.ratio(s, p, "seq-64k", "intree"), 1.8,
                      "the in-tree pair")
        self.at_least(f"{p} R2 10ms/256 seq-4k", self.ratio(s, p, "seq-4k", "native"), 0.9,
                      "dom0-native")
        for w in ("rand-4k", "rand-4k-deep", "qd1", "qd4"):
            self.at_least(f"{p} R2 10ms/256 {w}", self.ratio(s, p, w, "intree"), 1.0,
                          "the in-tree pair")
        s = "r2-10ms-64"
        self.at_least(f"{p} R2 10ms/64 seq-4k", self.ratio(s, p, "seq-4k", "native"), 4.0,
                      "dom0-native")
        for w in ("seq-64k", "seq-128k"):
            self.at_least(f"{p} R2 10ms/64 {w}", self.ratio(s, p, w, TUNED), 1.5,
                          "the tuned in-tree pair")
        self.at_least(f"{p} R2 10ms/64 rand-4k", self.ratio(s, p, "rand-4k", "intree"), 1.0,
                      "the in-tree pair")
        self.at_least(f"{p} R2 10ms/64 write-4k", self.ratio(s, p, "write-4k", "native"), 3.0,
                      "dom0-native")
        s = "r2-2ms-256"
        self.every(f"{p} R2 2ms/256 every job", s, p, R2JOBS, TUNED, 1.0, "the tuned in-tree pair")

    def targets_r3(self, p):
        s = "r3"
        d, di = self.get(s, p, "seq-4k", "d0_us"), self.get(s, "intree", "seq-4k", "d0_us")
        r = div(d, di)
        self.check(f"{p} R3 seq-4k dom0 per 4 KiB I/O", None if r is None else r <= 0.5,
                   f"{fmt(d and d * 1000)} against {fmt(di and di * 1000)} ns (instructions): "
                   f"{xw(r, 0.5)} (<= 0.5x)")
        pr, pi = self.get(s, p, "seq-4k", "proj_iops"), self.get(s, "intree", "seq-4k", "proj_iops")
        r = div(pr, pi)
        self.check(f"{p} R3 seq-4k single-ring projection", None if r is None else r >= 2.0,
                   f"{fmt(pr)} against {fmt(pi)} IOPS: {xw(r, 2.0)} (>= 2.0x)")

    def targets_wall(self, p):
        for w in LOADED:
            a = self.N.get((p, w))
            f_, b_ = (a["fe_sent"], a["be_sent"]) if a else (None, None)
            self.check(f"{p} wall {w} notifications", None if f_ is None or b_ is None else
                       (f_ <= 0.125 and b_ <= 0.125),
                       f"frontend {fmt(f_, '{:.3f}')}, backend {fmt(b_, '{:.3f}')} per request (<= 0.125)"
                       + ("" if a else f"; not measured in {self.notify_src}"))

    def targets(self):
        self.say("Targets (issue 31; ours against the pairs of the same boot):")
        allp = list(collections.OrderedDict.fromkeys(
            [p for (_, p, _) in self.agg] + [p for (p, _) in self.N]))
        variants = [p for p in allp if ours(p) and "@" not in p and "~" not in p]
        if not variants:
            self.check("pairs", None, "no pair of ours in the logs")
        for p in variants:
            for reg in self.regimes:
                getattr(self, "targets_" + reg)(p)


def plot(rep, sets, outdir, clock):
    """IOPS against block size: R1's sweep, R2's seq-4k/64k/128k, one panel per set"""
    panels = [s for s in sets if s == "r1" or s.startswith("r2-")]
    if not panels:
        return
    allp = []
    for s in panels:
        allp += [p for p in rep.pairs(s) if "@" not in p and "~" not in p and p not in allp]
    gp = os.path.join(outdir, "bench.gp")
    dats = []
    for s in panels:
        dat = os.path.join(outdir, f"bench-{s}.dat")
        with open(dat, "w") as f:
            f.write("kib " + " ".join(allp) + "\n")
            for bs in SIZES:
                if f"seq-{bs}" in rep.works(s):
                    f.write(f"{KIB[bs]} " + " ".join(
                        fmt(rep.get(s, p, f"seq-{bs}", "iops"), "{:.1f}").replace("-", "NaN")
                        for p in allp) + "\n")
        dats.append((s, dat))
    rows = 1 if len(dats) == 1 else 2
    cols = (len(dats) + rows - 1) // rows
    tics = ", ".join(f'"{bs}" {KIB[bs]}' for bs in SIZES)
    with open(gp, "w") as f:
        f.write(f"""set terminal pngcairo noenhanced size {520 * cols},{380 * rows} font ',9'
set output '{os.path.join(outdir, "bench.png")}'
set multiplot layout {rows},{cols} title 'Sequential read IOPS against block size, 8 jobs x iodepth 32 (Xen 4.17 under QEMU, {clock} clock)'
set logscale x 2
set logscale y
set xrange [0.4:160]
set xtics ({tics})
set grid
set key bottom left font ',8'
set style data linespoints
""")
        for s, dat in dats:
            title = set_title(s).split(": ", 1)[-1] if s.startswith("r2-") else "R1: " + set_title(s).split(": ", 1)[-1]
            if s.startswith("r2-"):
                title = "R2: " + title
            f.write(f"set title \"{title}\"\n")
            f.write(f"plot for [i=2:{len(allp) + 1}] '{dat}' using 1:i title columnheader(i) lw 2 pt 7 ps 0.6\n")
        f.write("unset multiplot\n")
    try:
        subprocess.run(["gnuplot", gp], check=True, stderr=subprocess.DEVNULL)
        print(f"bench-report: plot {os.path.join(outdir, 'bench.png')}", file=sys.stderr)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"bench-report: no plot ({e})", file=sys.stderr)


def write_csv(agg, outdir):
    cols = ["set", "clock", "pair", "work", "rounds", "iops", "iops_min", "iops_max", "kibs",
            "lat_mean", "clat_p50", "clat_p99", "clat_p999", "rd", "rd_merged", "wr",
            "wr_merged", "merged_pct", "avg_req_kib", "dev_merged_pct", "dev_avg_kib",
            "ring_req", "req_per_mib", "be_req", "passes", "req_per_pass", "d0_us", "g_us",
            "d0own_us", "busy", "accounted", "proj_iops", "win_steady", "cpu_jobs", "g_vcpu",
            "d0_vcpu", "fe_sent", "be_sent", "fe_irq_per_req", "be_irq_per_req",
            "fe_tmr_per_req", "be_tmr_per_req"]
    with open(os.path.join(outdir, "bench.csv"), "w") as f:
        f.write(",".join(cols) + "\n")
        for (s, p, w), a in agg.items():
            vals = [s, a["clock"], p, w, str(a["n"])]
            for c in cols[5:]:
                v = a.get(c)
                if isinstance(v, float):
                    v = f"{v:.4f}".rstrip("0").rstrip(".")
                vals.append("" if v is None else str(v))
            f.write(",".join(vals) + "\n")


def main():
    args = sys.argv[1:]
    want = None
    if len(args) >= 2 and args[0] == "--regimes":
        want = [r for r in args[1].split(",") if r]
        args = args[2:]
    if len(args) < 2:
        sys.exit(__doc__)
    logs, outdir = args[:-1], args[-1]
    rows, infos, boots = parse(logs)
    main_rows = [r for r in rows if r["set"] != "notify"]
    if not main_rows and not want:
        print(f"bench-report: no XLAB-BENCH lines in {' '.join(logs)}", file=sys.stderr)
        return 2
    if not rows:
        print(f"bench-report: no XLAB-BENCH lines in {' '.join(logs)}", file=sys.stderr)
        return 2
    agg = aggregate(rows)
    M = collections.OrderedDict((k, a) for k, a in agg.items() if k[0] != "notify")
    N = {(p, w): a for (s, p, w), a in agg.items() if s == "notify"}
    clocks = collections.Counter(r.get("clock", "-") for r in main_rows)
    main_clock = clocks.most_common(1)[0][0] if clocks else "wall"
    notify_src = "the wall-clock boot"
    if not N and main_rows and main_clock != "icount":
        # the regimes' own boots ran on the wall clock: their notifications (r1's jobs)
        N = {(p, w): a for (s, p, w), a in M.items() if s == "r1"}
        notify_src = f"the R1 set ({main_clock} clock)"
    sets = list(collections.OrderedDict.fromkeys(s for (s, _, _) in M))
    order = {"r1": 0, "r2": 1, "r3": 2}
    sets.sort(key=lambda s: (order.get(regime_of(s), 3), R2DEVS.index(s[3:]) if s[3:] in R2DEVS else 9))
    present = list(collections.OrderedDict.fromkeys(regime_of(s) for s in sets))
    if N:
        present.append("wall")
    if want is None:
        want = present
    want = [r for r in ("r1", "r2", "r3", "wall") if r in want]
    os.makedirs(outdir, exist_ok=True)
    write_csv(agg, outdir)
    rep = Report(M, sets, want, N, notify_src)
    say = rep.say

    for i in collections.OrderedDict.fromkeys(infos):
        say(f"Boot: {i}")
    for name, last in boots:
        if last is not None:
            say(f"Boot {name}: {int(last) // 60} min {int(last) % 60} s of wall time")
    if M:
        rounds = max(a["n"] for a in M.values())
        say(f"Regimes on the {main_clock} clock, up to {rounds} round(s) per job; notifications "
            f"from {notify_src}.")
    say()
    for s in sets:
        say(f"=== {set_title(s)}")
        say()
        if s.startswith("r2-"):
            rep.device_table(s)
        elif s == "r3":
            rep.stage_table(s)
        else:
            rep.cpu_table(s)
        if s == "r1":
            rep.latency_table(s)
            rep.sweep_table(s)
    spreads = sorted(div(a["iops_max"] - a["iops_min"], a["iops"]) for a in M.values()
                     if a["n"] > 1 and a["iops"])
    if spreads:
        say(f"Repeatability: over {len(spreads)} jobs run more than once, the rounds of one pair "
            f"differ by at most {100 * spreads[-1]:.2f}% (median {100 * spreads[len(spreads) // 2]:.2f}%)")
        say()
    rep.notify_table()
    rep.targets()
    say()
    if main_clock == "icount":
        say("icount: 1 instruction = 1 ns, vCPUs never run in parallel; hypercall, VM-exit and interrupt")
        say("hardware costs and cache misses are not in the count (Documentation/bench.rst).")
    else:
        say("Figures are from Xen under QEMU TCG: only the ratios between columns mean anything.")
    if rep.res["n/a"]:
        say(f"{rep.res['n/a']} target(s) not measured")
    say(f"{rep.res['PASS']} passed, {rep.res['FAIL']} failed")
    plot(rep, sets, outdir, main_clock)
    with open(os.path.join(outdir, "bench.txt"), "w") as f:
        f.write("\n".join(rep.txt) + "\n")
    print("\n".join(rep.txt))
    return 0 if rep.res["FAIL"] == 0 and rep.res["n/a"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
