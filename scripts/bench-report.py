#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the XLAB-BENCH lines of lab bench boots into tables, a CSV, a plot and the targets.

usage: bench-report.py LOG [LOG...] OUTDIR

Reads the "XLAB-BENCH round=R clock=C set=S pair=P work=W key=value..." lines of the LOGs
(the serial logs of tests/lab/run.sh bench and bench-wall; lines without clock/set, e.g. from
a real host, count as the main set), averages IOPS, bandwidth and latencies over the rounds,
sums the counters over the rounds before dividing, and writes
  OUTDIR/bench.csv   one row per (set, pair, job)
  OUTDIR/bench.txt   the tables and the issue's targets (also printed), ending with
                     "N passed, N failed"
  OUTDIR/bench.gp    a gnuplot script; OUTDIR/bench.png if gnuplot is installed
Everything but the notifications comes from the main set (the icount boot); notifications per
request come from the "notify" set (the wall-clock boot), or from the main set if that ran on
the wall clock (or on a host) and there is no notify set.
Exit status: 0 when every target was measured and holds, 1 when one does not hold or could not
be measured, 2 when there is no data.
"""
import collections
import os
import re
import subprocess
import sys

SIZES = ["512", "1k", "2k", "4k", "8k", "16k", "32k", "64k", "128k"]
CORE = ["seq-4k", "rand-4k", "qd1", "slow-seq-4k", "slow-rand-4k", "slow-qd1"]
LOADED = ["seq-4k", "rand-4k", "slow-seq-4k", "slow-rand-4k"]   # notifications "under load"
LINE = re.compile(r"XLAB-BENCH (round=.*)$")
INFO = re.compile(r"XLAB-BENCH-INFO (.*)$")
MEANS = ("iops", "kibs", "lat_mean", "clat_mean", "clat_p50", "clat_p99", "clat_p999")
SUMS = ("rd", "rd_merged", "rd_sect", "wr", "wr_merged", "wr_sect", "ring_req", "be_req",
        "passes", "fe_irq", "be_irq", "fe_notify_out", "fe_notify_in", "be_notify_in",
        "be_notify_out", "fe_timer_polls", "be_timer_polls")


def parse(paths):
    rows, infos = [], []
    for path in paths:
        with open(path, errors="replace") as f:
            for line in f:
                line = line.rstrip()
                m = INFO.search(line)
                if m:
                    infos.append(m.group(1))
                    continue
                m = LINE.search(line)
                if not m:
                    continue
                kv = dict(w.split("=", 1) for w in m.group(1).split() if "=" in w)
                if "pair" in kv and "work" in kv:
                    kv.setdefault("set", "main")
                    rows.append(kv)
    return rows, infos


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def div(a, b):
    return a / b if a is not None and b else None


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
        # CPU time in the window of each job, over the I/Os fio did in that window
        ios = d0 = g = win = busy = own = 0.0
        own_ok = True
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
        a["g_vcpu"] = " ".join(r.get("g_vcpu", "-") for r in rs)
        a["d0_vcpu"] = " ".join(r.get("d0_vcpu", "-") for r in rs)
        a["d0_us"] = div(d0 / 1000, ios) if ncpu else None
        a["g_us"] = div(g / 1000, ios) if ncpu else None
        a["d0own_us"] = div(own / 1000, ios) if ncpu and own_ok else None
        a["busy"] = div(busy, win) if ncpu else None
        a["win_steady"] = sum(steady) / len(steady) if steady else None
        derive(key[1], a)
        out[key] = a
    return out


def derive(pair, a):
    ios = (a["rd"] or 0) + (a["wr"] or 0)
    sect = (a["rd_sect"] or 0) + (a["wr_sect"] or 0)
    merged = (a["rd_merged"] or 0) + (a["wr_merged"] or 0)
    a["avg_req_kib"] = div(sect * 512 / 1024, ios)
    a["merged_pct"] = div(100.0 * merged, ios + merged)
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


def baseline(p):
    """the in-tree pair a pair is compared with: intree, or intree@dl for PAIR@dl"""
    return "intree" + (p[p.index("@"):] if "@" in p else "")


def ours(p):
    return p != "native" and not p.startswith("intree")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    logs, outdir = sys.argv[1:-1], sys.argv[-1]
    rows, infos = parse(logs)
    main_rows = [r for r in rows if r["set"] != "notify"]
    if not main_rows:
        print(f"bench-report: no XLAB-BENCH lines in {' '.join(logs)}", file=sys.stderr)
        return 2
    agg = aggregate(rows)
    M = {(p, w): a for (s, p, w), a in agg.items() if s != "notify"}
    N = {(p, w): a for (s, p, w), a in agg.items() if s == "notify"}
    main_clock = collections.Counter(r.get("clock", "-") for r in main_rows).most_common(1)[0][0]
    if not N and main_clock != "icount":
        N, notify_src = M, f"the main set ({main_clock} clock)"
    else:
        notify_src = "the wall-clock boot"
    pairs = list(collections.OrderedDict.fromkeys(p for p, _ in M))
    works = list(collections.OrderedDict.fromkeys(w for _, w in M))
    os.makedirs(outdir, exist_ok=True)
    txt = []

    def say(s=""):
        txt.append(s)

    def get(p, w, k, src=None):
        return (src if src is not None else M).get((p, w), {}).get(k)

    def ratio(p, w, k="iops", base=None):
        return div(get(p, w, k), get(base or baseline(p), w, k))

    # ---- CSV
    cols = ["set", "clock", "pair", "work", "rounds", "iops", "iops_min", "iops_max", "kibs",
            "lat_mean", "clat_p50", "clat_p99", "clat_p999", "rd", "rd_merged", "wr",
            "wr_merged", "merged_pct", "avg_req_kib", "ring_req", "req_per_mib", "be_req",
            "passes", "req_per_pass", "d0_us", "g_us", "d0own_us", "busy", "win_steady", "cpu_jobs",
            "g_vcpu", "d0_vcpu",
            "fe_sent", "be_sent", "fe_irq_per_req", "be_irq_per_req", "fe_tmr_per_req",
            "be_tmr_per_req"]
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

    # ---- header
    for i in collections.OrderedDict.fromkeys(infos):
        say(f"Boot: {i}")
    rounds = max(a["n"] for a in M.values())
    say(f"Main set on the {main_clock} clock, up to {rounds} round(s) per job; notifications from "
        f"{notify_src}.")
    say()

    # ---- per job
    say("Per job: IOPS (mean of the rounds), spread = (max - min) / mean over the rounds, MB/s,")
    say("merged % of the guest disk's I/Os, average request at the guest disk (KiB), CPU per I/O")
    say("of dom0 and of the guest (us of CPU time Xen charged, virtual under icount) and of dom0")
    say("by its own /proc/stat (d0own), pCPUs busy (dom0 + guest CPU time over the window), ring")
    say("requests per backend pass, IOPS against the in-tree pair (PAIR@dl against intree@dl)")
    say(f"{'work':<14}{'pair':<16}{'n':>2}{'IOPS':>9}{'spread':>8}{'MB/s':>8}{'merged%':>9}"
        f"{'avgKiB':>8}{'dom0us':>8}{'guestus':>8}{'d0own':>7}{'pCPUs':>6}{'req/pass':>9}{'x intree':>9}")
    for w in works:
        for p in pairs:
            a = M.get((p, w))
            if not a:
                continue
            spread = (div(a["iops_max"] - a["iops_min"], a["iops"]) if a["n"] > 1 and
                      a["iops"] else None)
            r = None if p.startswith("intree") else ratio(p, w)
            say(f"{w:<14}{p:<16}{a['n']:>2}{fmt(a['iops']):>9}"
                f"{fmt(spread and 100 * spread, '{:.1f}%'):>8}{fmt(div(a['kibs'], 1000 / 1.024)):>8}"
                f"{fmt(a['merged_pct'], '{:.1f}'):>9}{fmt(a['avg_req_kib'], '{:.1f}'):>8}"
                f"{fmt(a['d0_us'], '{:.1f}'):>8}{fmt(a['g_us'], '{:.1f}'):>8}"
                f"{fmt(a['d0own_us'], '{:.1f}'):>7}{fmt(a['busy'], '{:.2f}'):>6}"
                f"{fmt(a['req_per_pass'], '{:.2f}'):>9}{fmt(r, '{:.2f}x'):>9}")
    say()
    spreads = sorted(div(a["iops_max"] - a["iops_min"], a["iops"]) for a in M.values()
                     if a["n"] > 1 and a["iops"])
    if spreads:
        say(f"Repeatability: over {len(spreads)} jobs run more than once, the rounds of one pair "
            f"differ by at most {100 * spreads[-1]:.2f}% (median {100 * spreads[len(spreads) // 2]:.2f}%)")
        say()

    # ---- latency at queue depth 1
    lat_works = [w for w in works if w.endswith("qd1")]
    if lat_works:
        say("Queue depth 1: latency (us: mean total, completion percentiles), mean of the rounds")
        say(f"{'work':<14}{'pair':<16}{'IOPS':>9}{'mean':>9}{'p50':>8}{'p99':>8}{'p99.9':>8}"
            f"{'mean x intree':>15}")
        for w in lat_works:
            for p in pairs:
                a = M.get((p, w))
                if not a:
                    continue
                r = None if p.startswith("intree") else ratio(p, w, "lat_mean")
                say(f"{w:<14}{p:<16}{fmt(a['iops']):>9}{fmt(a['lat_mean'], '{:.1f}'):>9}"
                    f"{fmt(a['clat_p50']):>8}{fmt(a['clat_p99']):>8}{fmt(a['clat_p999']):>8}"
                    f"{fmt(r, '{:.2f}x'):>15}")
        say()

    # ---- block-size sweep
    sweep_pairs = [p for p in pairs if "@" not in p]
    if any(f"seq-{bs}" in works for bs in SIZES):
        say("Sequential read by block size (8 jobs x iodepth 32 x iodepth_batch 16): IOPS")
        hdr = f"{'bs':>6}" + "".join(f"{p:>12}" for p in sweep_pairs)
        for p in sweep_pairs:
            if ours(p):
                hdr += f"{p + '/intree':>16}{p + '/native':>16}"
        say(hdr)
        for bs in SIZES:
            w = f"seq-{bs}"
            if w not in works:
                continue
            line = f"{bs:>6}" + "".join(f"{fmt(get(p, w, 'iops')):>12}" for p in sweep_pairs)
            for p in sweep_pairs:
                if ours(p):
                    line += (f"{fmt(ratio(p, w), '{:.2f}x'):>16}"
                             f"{fmt(ratio(p, w, base='native'), '{:.2f}x'):>16}")
            say(line)
        say()

    # ---- notifications
    nworks = [w for w in list(collections.OrderedDict.fromkeys(w for _, w in N))]
    npairs = [p for p in list(collections.OrderedDict.fromkeys(p for p, _ in N)) if p != "native"]
    if N:
        say(f"Notifications per ring request sent by the frontend / the backend, interrupts per")
        say(f"ring request in the guest / dom0, ring requests per MiB, and looks at the ring by a")
        say(f"timer per ring request in the guest / dom0 (ours: coalescing); from {notify_src}")
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

    # ---- the issue's targets, for every variant of ours against the in-tree pair
    res = collections.Counter()
    say("Targets (ours against the in-tree pair of the same boot):")

    def check(label, cond, detail):
        tag = {True: "PASS", False: "FAIL", None: "n/a "}[cond]
        res[tag.strip()] += 1
        say(f"  {tag} {label}: {detail}")

    def x(v, spec="{:.2f}x"):
        return fmt(v, spec)

    variants = [p for p in pairs if ours(p) and "@" not in p]
    if "intree" not in pairs or not variants:
        check("pairs", None, "needs the in-tree pair and one of ours in the main set")
    for p in variants:
        r, avg = ratio(p, "seq-4k"), get(p, "seq-4k", "avg_req_kib")
        check(f"{p} seq-4k", None if r is None or avg is None else (r >= 2.0 and avg >= 32),
              f"IOPS {x(r)} (>= 2.0x), average request {fmt(avg, '{:.1f}')} KiB (>= 32)")
        r = ratio(p, "rand-4k")
        check(f"{p} rand-4k", None if r is None else r >= 1.3, f"IOPS {x(r)} (>= 1.3x)")
        r, lat = ratio(p, "qd1"), ratio(p, "qd1", "lat_mean")
        check(f"{p} qd1", None if r is None or lat is None else (r >= 1.25 and lat <= 0.8),
              f"IOPS {x(r)} (>= 1.25x), mean latency {x(lat)} (<= 0.8x)")
        for w, want in (("slow-seq-4k", 2.0), ("slow-rand-4k", 1.0), ("slow-qd1", 1.0)):
            r = ratio(p, w)
            check(f"{p} {w}", None if r is None else r >= want, f"IOPS {x(r)} (>= {want}x)")
        sw = [(bs, ratio(p, f"seq-{bs}")) for bs in SIZES]
        have = [(bs, v) for bs, v in sw if v is not None]
        if len(have) < len(SIZES):
            check(f"{p} seq 512..128k", None,
                  f"only {len(have)} of {len(SIZES)} block sizes measured (each >= 1.0x)")
        else:
            low = min(have, key=lambda t: t[1])
            bad = [bs for bs, v in have if v < 1.0]
            check(f"{p} seq 512..128k", not bad,
                  f"lowest {low[1]:.2f}x at {low[0]} (each >= 1.0x)" +
                  (f"; below: {' '.join(bad)}" if bad else ""))
        r = ratio(p, "seq-64k", base="native")
        check(f"{p} seq-64k vs native", None if r is None else r >= 0.6,
              f"{x(r)} of dom0-native (>= 0.6x)")
        dl = p + "@dl"
        have = [(w, ratio(dl, w)) for w in CORE if ratio(dl, w) is not None]
        if not have:
            check(f"{dl}", None, "no job measured against intree@dl (each >= 1.0x)")
        else:
            low = min(have, key=lambda t: t[1])
            bad = [w for w, v in have if v < 1.0]
            check(f"{dl}", not bad, f"{len(have)} jobs, lowest {low[1]:.2f}x at {low[0]} (each >= 1.0x)"
                  + (f"; below: {' '.join(bad)}" if bad else ""))
        for w in ("seq-4k", "rand-4k"):
            r = ratio(p, w, "d0_us")
            check(f"{p} {w} dom0 CPU", None if r is None else r <= 0.6,
                  f"{fmt(get(p, w, 'd0_us'), '{:.1f}')} against {fmt(get('intree', w, 'd0_us'), '{:.1f}')}"
                  f" us per I/O: {x(r)} (<= 0.6x)")
        for w in LOADED:
            a = N.get((p, w))
            f_, b_ = (a["fe_sent"], a["be_sent"]) if a else (None, None)
            check(f"{p} {w} notifications", None if f_ is None or b_ is None else
                  (f_ <= 0.125 and b_ <= 0.125),
                  f"frontend {fmt(f_, '{:.3f}')}, backend {fmt(b_, '{:.3f}')} per request (<= 0.125)"
                  + ("" if a else f"; not measured in {notify_src}"))
    say()
    if main_clock == "icount":
        say("icount: 1 instruction = 1 ns, vCPUs never run in parallel; hypercall, VM-exit and interrupt")
        say("hardware costs and cache misses are not in the count (Documentation/bench.rst).")
    else:
        say("Figures are from Xen under QEMU TCG: only the ratios between columns mean anything.")
    if res["n/a"]:
        say(f"{res['n/a']} target(s) not measured")
    say(f"{res['PASS']} passed, {res['FAIL']} failed")

    # ---- plot: IOPS against block size, one line per pair
    dat = os.path.join(outdir, "bench-seq.dat")
    with open(dat, "w") as f:
        f.write("bs " + " ".join(sweep_pairs) + "\n")
        for bs in SIZES:
            if f"seq-{bs}" in works:
                f.write(bs + " " + " ".join(fmt(get(p, f"seq-{bs}", "iops"), "{:.1f}")
                                            .replace("-", "NaN") for p in sweep_pairs) + "\n")
    gp = os.path.join(outdir, "bench.gp")
    with open(gp, "w") as f:
        f.write(f"""set terminal pngcairo size 900,560
set output '{os.path.join(outdir, "bench.png")}'
set title 'Sequential read IOPS, 8 jobs x iodepth 32 (Xen under QEMU, {main_clock} clock)'
set xlabel 'block size'
set ylabel 'IOPS'
set logscale y
set grid
set key outside right
set style data linespoints
plot for [i=2:{len(sweep_pairs) + 1}] '{dat}' using i:xtic(1) title columnheader(i) lw 2
""")
    try:
        subprocess.run(["gnuplot", gp], check=True, stderr=subprocess.DEVNULL)
        print(f"bench-report: plot {os.path.join(outdir, 'bench.png')}", file=sys.stderr)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"bench-report: no plot ({e})", file=sys.stderr)
    with open(os.path.join(outdir, "bench.txt"), "w") as f:
        f.write("\n".join(txt) + "\n")
    print("\n".join(txt))

    return 0 if res["FAIL"] == 0 and res["n/a"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
