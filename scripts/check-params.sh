#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The module parameters as the built modules and the sources define them,
# against what README.md ("Module parameters") and Documentation/ABI/testing/
# say about them (part of "make style"):
#
#   names        modinfo -F parm of the built .ko = the module_param*()
#                declarations = the README's table = the ABI file's
#                /sys/module/<module>/parameters/<name> entries;
#   permissions  each declaration's sysfs mode (0644 writable, 0444
#                read-only) = what the README's text says (xblkfront: "all
#                writable"; xblkback: the names its "read-only" sentence
#                lists) = the ABI entry's "Writable" / "Read-only";
#   defaults     the "(default X)" of modinfo's description = the README's
#                default column = the ABI entry's "default X";
#   ranges       every number of the README's range column appears in
#                modinfo's description.
#
#   scripts/check-params.sh [KO_DIR]
#
# KO_DIR holds xblkfront.ko and xblkback.ko; without it both are built in a
# private copy of the tree (build/check-params/) against the Makefile's
# default kernel tree (KDIR=... to choose).  One PASS or FAIL line per
# module and check, then "check-params: N passed, N failed".
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
kodir=${1:-}
if [ -z "$kodir" ]; then
	work=$root/build/check-params
	rm -rf "$work"
	mkdir -p "$work/src"
	if git -C "$root" rev-parse >/dev/null 2>&1; then
		(cd "$root" && git ls-files -co --exclude-standard -z -- . ':!tests' ':!Documentation' |
			tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$work/src"
	else
		(cd "$root" && tar --exclude=./build --exclude=./tests -cf - .) | tar -xf - -C "$work/src"
	fi
	if ! make -C "$work/src" ${KDIR:+KDIR="$KDIR"} -j"$(nproc)" modules >"$work/build.log" 2>&1; then
		echo "FAIL check-params: the modules did not build, see ${work#"$root"/}/build.log"
		tail -n 10 "$work/build.log" | sed 's/^/    /'
		echo "check-params: 0 passed, 1 failed"
		exit 1
	fi
	kodir=$work/ko
	mkdir -p "$kodir"
	cp "$work/src/blkfront/xblkfront.ko" "$work/src/blkback/xblkback.ko" "$kodir/"
fi
for m in xblkfront xblkback; do
	[ -f "$kodir/$m.ko" ] || { echo "check-params: no $kodir/$m.ko" >&2; exit 2; }
	modinfo -F parm "$kodir/$m.ko" >"$kodir/$m.parm" ||
		{ echo "check-params: modinfo $kodir/$m.ko failed" >&2; exit 2; }
done

python3 - "$root" "$kodir" <<'PY'
import os, re, sys

root, kodir = sys.argv[1], sys.argv[2]
srcdir = {"xblkfront": "blkfront", "xblkback": "blkback"}
sys.path.insert(0, os.path.join(root, "scripts"))
from checklib import Checks  # noqa: E402

checks = Checks("check-params")
result = checks.result


def modinfo(mod):
    """name -> description, from modinfo -F parm (name:description (type))"""
    out = {}
    for line in open(os.path.join(kodir, mod + ".parm")):
        name, _, desc = line.rstrip("\n").partition(":")
        out[name] = desc
    return out


def declared(mod):
    """name -> mode, from the module_param*() declarations of the sources"""
    out = {}
    d = os.path.join(root, srcdir[mod])
    pat = re.compile(r"\bmodule_param(_cb|_named)?\s*\((.*?)\)\s*;", re.S)
    for f in sorted(os.listdir(d)):
        if not f.endswith(".c"):
            continue
        for m in pat.finditer(open(os.path.join(d, f)).read()):
            args = [a.strip() for a in m.group(2).split(",")]
            out[args[0]] = args[-1]
    return out


def readme(mod):
    """(name -> (default, range), text before the table) for MODULE's table"""
    text = open(os.path.join(root, "README.md")).read()
    sec = text.split("## Module parameters", 1)[1].split("\n## ", 1)[0]
    m = re.search(r"^`%s` \((.*?)\n\n(\|.*?)\n\n" % mod, sec, re.S | re.M)
    if not m:
        return {}, ""
    rows = {}
    for line in m.group(2).splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) >= 3:
            rows[cells[0].strip("`")] = (cells[1], cells[2])
    return rows, m.group(1)


def abi(mod):
    """name -> description of /sys/module/MOD/parameters/<name>"""
    out = {}
    text = open(os.path.join(root, "Documentation/ABI/testing/sysfs-driver-" + mod)).read()
    for e in re.split(r"\n(?=What:)", text):
        m = re.match(r"What:\s*/sys/module/%s/parameters/(\w+)\s*\n(.*)" % mod, e, re.S)
        if m:
            out[m.group(1)] = m.group(2).split("Description:", 1)[-1]
    return out


def default_of(text):
    """modinfo: the last "(default X"; ABI: "X (default)" or "default X", the first"""
    m = re.findall(r"\(default:?\s+([A-Za-z0-9_]+)", text)
    return m[-1] if m else None


def abi_default(text):
    t = " ".join(text.split())
    m = re.search(r"\"?([A-Za-z0-9_]+)\"? \(default\)|\bdefault:?\s+([A-Za-z0-9_]+)", t)
    return (m.group(1) or m.group(2)) if m else None


for mod in ("xblkfront", "xblkback"):
    mi, dec, (rd, intro), ab = modinfo(mod), declared(mod), readme(mod), abi(mod)
    names = set(mi)
    bad = []
    for what, s in (("declarations", set(dec)), ("README", set(rd)), ("ABI", set(ab))):
        if s != names:
            bad.append("%s: missing %s, extra %s" % (what, sorted(names - s), sorted(s - names)))
    result(not bad and names, "%s: %d parameters, the same names in modinfo, the module_param "
           "declarations, README.md's table and the ABI file" % (mod, len(names)), bad)

    # writable or read-only
    intro = " ".join(intro.split())
    if re.search(r"\ball writable\b", intro):
        readme_ro = set()
    else:
        readme_ro = set()
        for sent in re.split(r"[;.]\s", intro):
            if "read-only" in sent:
                readme_ro |= set(re.findall(r"`(\w+)`", sent)) & names
    bad = []
    for n in sorted(names & set(dec)):
        mode = dec[n]
        if mode not in ("0644", "0444"):
            bad.append("%s: mode %s" % (n, mode))
            continue
        ro = mode == "0444"
        if (n in readme_ro) != ro:
            bad.append("%s: %s, README says %s" % (n, mode, "read-only" if n in readme_ro else "writable"))
        t = " ".join(ab.get(n, "").split())
        says = bool(re.search(r"\bwritable\b", t, re.I)), bool(re.search(r"\bread-only\b", t, re.I))
        if says[0] == says[1]:
            bad.append("%s: the ABI entry says neither Writable nor Read-only" % n)
        elif says[1] != ro:
            bad.append("%s: %s, ABI says %s" % (n, mode, "Read-only" if says[1] else "Writable"))
    result(not bad, "%s: sysfs modes (0644/0444 of the declarations) = README.md = ABI file "
           "(%d read-only)" % (mod, sum(dec[n] == "0444" for n in dec)), bad)

    # defaults
    bad = []
    for n in sorted(names):
        d = default_of(mi[n])
        if d is None:
            bad.append("%s: modinfo's description gives no default" % n)
            continue
        if n in rd and rd[n][0] != d:
            bad.append("%s: default %s, README says %s" % (n, d, rd[n][0]))
        if n in ab and abi_default(ab[n]) != d:
            bad.append("%s: default %s, ABI says %s" % (n, d, abi_default(ab[n])))
    result(not bad, "%s: defaults of modinfo = README.md = ABI file" % mod, bad)

    # ranges
    bad = []
    for n in sorted(set(rd) & names):
        want = set(re.findall(r"\d+", rd[n][1]))
        have = set(re.findall(r"\d+", mi[n]))
        if want - have:
            bad.append("%s: README range %s, not in modinfo's '%s'" % (n, rd[n][1], mi[n][:80]))
    result(not bad, "%s: README.md's ranges appear in modinfo's descriptions" % mod, bad)

sys.exit(checks.end())
PY
