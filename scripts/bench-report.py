#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the XLAB-BENCH lines of a lab bench boot into a table, a CSV and a plot.

usage: bench-report.py LOG OUTDIR

Reads the "XLAB-BENCH round=R pair=P work=W key=value..." lines of LOG (the serial log of
tests/lab/run.sh bench), averages IOPS and bandwidth over the rounds, sums the counters over
the rounds before dividing, and writes
  OUTDIR/bench.csv   one row per (pair, workload)
  OUTDIR/bench.txt   the tables and the issue's targets, also printed
  OUTDIR/bench.gp    a gnuplot script; OUTDIR/bench.png if gnuplot is installed
Exit status: 0 when every target holds, 1 when one does not, 2 when data is missing.
"""
import collections
import os
import re
import subprocess
import sys

SIZES = ["512", "1k", "2k", "4k", "8k", "16k", "32k", "64k", "128k"]
LINE = re.compile(r"XLAB-BENCH (round=.*)$")


def parse(path):
    rows = []
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.search(line.rstrip())
            if not m:
                continue
            kv = dict(w.split("=", 1) for w in m.group(1).split() if "=" in w)
            rows.append(kv)
    return rows


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def aggregate(rows):
    """(pair, work) -> dict of means (iops, kibs) and sums (counters), plus 'n' rounds."""
    groups = collections.OrderedDict()
    for r in rows:
        groups.setdefault((r["pair"], r["work"]), []).append(r)
    out = collections.OrderedDict()
    for key, rs in groups.items():
        a = {"n": len(rs)}
        for k in ("iops", "kibs"):
            vals = [num(r.get(k)) for r in rs if num(r.get(k)) is not None]
            a[k] = sum(vals) / len(vals) if vals else None
            a[k + "_min"] = min(vals) if vals else None
            a[k + "_max"] = max(vals) if vals else None
        for k in ("rd", "rd_merged", "rd_sect", "wr", "wr_merged", "wr_sect", "ring_req",
                  "fe_irq", "be_irq", "fe_notify_out", "fe_notify_in", "be_notify_in",
                  "be_notify_out"):
            vals = [num(r.get(k)) for r in rs]
            a[k] = None if any(v is None for v in vals) else sum(vals)
        derive(key[0], a)
        out[key] = a
    return out


def div(a, b):
    return a / b if a is not None and b else None


def derive(pair, a):
    ios = (a["rd"] or 0) + (a["wr"] or 0)
    sect = (a["rd_sect"] or 0) + (a["wr_sect"] or 0)
    merged = (a["rd_merged"] or 0) + (a["wr_merged"] or 0)
    a["avg_req_kib"] = div(sect * 512 / 1024, ios)
    a["merged_pct"] = div(100.0 * merged, ios + merged)
    a["merged"] = merged
    mib = sect * 512 / 1048576
    a["req_per_mib"] = div(a["ring_req"], mib)
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


def fmt(v, spec="{:.0f}"):
    return "-" if v is None else spec.format(v)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    log, outdir = sys.argv[1], sys.argv[2]
    rows = parse(log)
    if not rows:
        print(f"bench-report: no XLAB-BENCH lines in {log}", file=sys.stderr)
        return 2
    agg = aggregate(rows)
    pairs = list(collections.OrderedDict.fromkeys(p for p, _ in agg))
    works = list(collections.OrderedDict.fromkeys(w for _, w in agg))
    rounds = max(a["n"] for a in agg.values())
    os.makedirs(outdir, exist_ok=True)
    txt = []

    def say(s=""):
        txt.append(s)

    # ---- CSV
    cols = ["pair", "work", "rounds", "iops", "iops_min", "iops_max", "kibs", "rd", "rd_merged",
            "wr", "wr_merged", "merged_pct", "avg_req_kib", "ring_req", "req_per_mib",
            "fe_sent", "be_sent", "fe_irq_per_req", "be_irq_per_req"]
    with open(os.path.join(outdir, "bench.csv"), "w") as f:
        f.write(",".join(cols) + "\n")
        for (p, w), a in agg.items():
            vals = [p, w, str(a["n"])]
            for c in cols[3:]:
                v = a.get(c)
                vals.append("" if v is None else (f"{v:.4g}" if isinstance(v, float) else str(v)))
            f.write(",".join(vals) + "\n")

    # ---- seed-style table: IOPS per block size, one column per pair
    say(f"Sequential read, 8 jobs x iodepth 32 x iodepth_batch 16, O_DIRECT; IOPS, mean of "
        f"{rounds} round(s)")
    hdr = f"{'bs':>6}" + "".join(f"{p:>14}" for p in pairs)
    if "intree" in pairs:
        hdr += "".join(f"{' ' + p + '/intree':>22}" for p in pairs
                       if not p.startswith("intree") and p != "native")
    say(hdr)
    for bs in SIZES:
        w = f"seq-{bs}"
        if w not in works:
            continue
        line = f"{bs:>6}" + "".join(f"{fmt(agg.get((p, w), {}).get('iops')):>14}" for p in pairs)
        if "intree" in pairs:
            base = agg.get(("intree", w), {}).get("iops")
            for p in pairs:
                if p.startswith("intree") or p == "native":
                    continue
                line += f"{fmt(div(agg.get((p, w), {}).get('iops'), base), '{:.2f}x'):>22}"
        say(line)
    say()
    say("Per job: IOPS, MB/s, merged % of I/Os, average request at the guest disk (KiB),")
    say("ring requests per MiB, notifications per ring request sent by the frontend / backend,")
    say("interrupts per ring request in the guest / dom0")
    say(f"{'work':<12}{'pair':<14}{'IOPS':>8}{'MB/s':>8}{'merged%':>9}{'avgKiB':>8}"
        f"{'req/MiB':>9}{'fe_ntf':>8}{'be_ntf':>8}{'g_irq':>7}{'d_irq':>7}")
    for w in works:
        for p in pairs:
            a = agg.get((p, w))
            if not a:
                continue
            say(f"{w:<12}{p:<14}{fmt(a['iops']):>8}{fmt(div(a['kibs'], 1000 / 1.024)):>8}"
                f"{fmt(a['merged_pct'], '{:.1f}'):>9}{fmt(a['avg_req_kib'], '{:.1f}'):>8}"
                f"{fmt(a['req_per_mib'], '{:.1f}'):>9}{fmt(a['fe_sent'], '{:.3f}'):>8}"
                f"{fmt(a['be_sent'], '{:.3f}'):>8}{fmt(a['fe_irq_per_req'], '{:.3f}'):>7}"
                f"{fmt(a['be_irq_per_req'], '{:.3f}'):>7}")
    say()

    # ---- the issue's targets, for every variant of ours against the in-tree pair
    ok = True
    say("Targets (ours against the in-tree pair, same boot):")

    def check(label, cond, detail):
        nonlocal ok
        if cond is None:
            say(f"  n/a  {label}: {detail}")
            return
        ok = ok and cond
        say(f"  {'PASS' if cond else 'FAIL'} {label}: {detail}")

    for p in pairs:
        if p.startswith("intree") or p == "native" or "intree" not in pairs:
            continue

        def ratio(w):
            return div(agg.get((p, w), {}).get("iops"), agg.get(("intree", w), {}).get("iops"))

        def ceiling(w):
            # fio on the device in dom0 bounds what any guest path can do in this lab
            c = div(agg.get(("native", w), {}).get("iops"), agg.get(("intree", w), {}).get("iops"))
            return "" if c is None else f"; native is {c:.2f}x"

        r = ratio("seq-4k")
        avg = agg.get((p, "seq-4k"), {}).get("avg_req_kib")
        check(f"{p} seq-4k", None if r is None or avg is None else (r >= 2.0 and avg >= 32),
              f"IOPS {fmt(r, '{:.2f}')}x (>= 2.0x), average request {fmt(avg, '{:.1f}')} KiB (>= 32)"
              + ceiling("seq-4k"))
        for w, want in (("slow-4k", 2.0), ("rand-4k", 1.2), ("rand-4k-q1", 1.2), ("seq-64k", 1.5)):
            r = ratio(w)
            check(f"{p} {w}", None if r is None else r >= want,
                  f"IOPS {fmt(r, '{:.2f}')}x (>= {want}x){ceiling(w)}")
        worst = None
        for w in (f"seq-{bs}" for bs in SIZES):
            r = ratio(w)
            if r is not None and (worst is None or r < worst[1]):
                worst = (w, r)
        check(f"{p} no regression", None if worst is None else worst[1] >= 0.95,
              f"lowest ratio {fmt(worst and worst[1], '{:.2f}')}x at {worst and worst[0]} (>= 0.95x)")
        for w in ("seq-4k", "slow-4k", "write-4k", "rand-4k"):
            a = agg.get((p, w))
            if not a:
                continue
            f_, b_ = a["fe_sent"], a["be_sent"]
            check(f"{p} {w} notifications", None if f_ is None or b_ is None else
                  (f_ <= 0.125 and b_ <= 0.125),
                  f"frontend {fmt(f_, '{:.3f}')}, backend {fmt(b_, '{:.3f}')} per request (<= 0.125)")
    say()
    say("Figures are from Xen under QEMU TCG: only the ratios between columns mean anything.")

    with open(os.path.join(outdir, "bench.txt"), "w") as f:
        f.write("\n".join(txt) + "\n")
    print("\n".join(txt))

    # ---- plot: IOPS against block size, one line per pair
    dat = os.path.join(outdir, "bench-seq.dat")
    with open(dat, "w") as f:
        f.write("bs " + " ".join(pairs) + "\n")
        for bs in SIZES:
            if f"seq-{bs}" in works:
                f.write(bs + " " + " ".join(fmt(agg.get((p, f"seq-{bs}"), {}).get("iops"), "{:.1f}")
                                            .replace("-", "NaN") for p in pairs) + "\n")
    gp = os.path.join(outdir, "bench.gp")
    with open(gp, "w") as f:
        f.write(f"""set terminal pngcairo size 900,560
set output '{os.path.join(outdir, "bench.png")}'
set title 'Sequential read IOPS, 8 jobs x iodepth 32 (Xen under QEMU TCG: ratios only)'
set xlabel 'block size'
set ylabel 'IOPS'
set logscale y
set grid
set key outside right
set style data linespoints
plot for [i=2:{len(pairs) + 1}] '{dat}' using i:xtic(1) title columnheader(i) lw 2
""")
    try:
        subprocess.run(["gnuplot", gp], check=True)
        print(f"plot: {os.path.join(outdir, 'bench.png')}")
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"bench-report: no plot ({e})", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
