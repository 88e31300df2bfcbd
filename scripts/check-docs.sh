#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Facts the documentation states about the code and the scripts, checked
# against them (part of "make style"; the module parameters are
# scripts/check-params.sh's):
#
#   make targets     every "make <target>" in README.md and
#                    Documentation/*.rst is a target of the top Makefile (or
#                    of the Makefile of the directory it names with -C);
#   package path     README.md and admin-guide.rst install the package from
#                    where scripts/build-package.sh puts it,
#                    build/package/xblk-dkms_<dkms.conf version>_all.deb;
#   fault cycles     the cycle counts of testing.rst and README.md are
#                    scripts/test-faults.sh's (short and --long);
#   unit cases       tests/unit/README.md's "Cases: N (test_x n, ...)" = the
#                    XTEST cases of each tests/unit/test_*.c;
#   statistics       blkback.rst's list of statistics/ files = the ones
#                    blkback/sysfs.c creates, each with an ABI entry.
#
# One PASS or FAIL line per check, then "check-docs: N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
exec python3 - "$root" <<'PY'
import glob, os, re, sys

root = sys.argv[1]
sys.path.insert(0, os.path.join(root, "scripts"))
from checklib import Checks  # noqa: E402

checks = Checks("check-docs")
result = checks.result


def read(p):
    return open(os.path.join(root, p)).read()


def make_targets(mk):
    t = set()
    for line in read(mk).splitlines():
        m = re.match(r"^([A-Za-z0-9_. -]+?)\s*:(?!=)", line)
        if m and not line.startswith("\t"):
            t |= set(m.group(1).split())
    return t


docs = ["README.md"] + sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "Documentation/*.rst")))

# make targets
top = make_targets("Makefile")
bad, seen = [], 0
for d in docs:
    # in code: a code span (`make x`, ``make x``) or a line of a code block (Markdown:
    # inside ``` fences; reST: indented)
    text, fence = [], False
    for line in read(d).splitlines():
        if line.startswith("```"):
            fence = not fence
        text.append(line if fence or d.endswith(".rst") else "")
    code = "\n".join(l if (d.endswith(".md") or l.startswith("   ")) else "" for l in text)
    spans = "\n".join(re.findall(r"`+([^`]+)`+", read(d)))
    for m in re.finditer(r"(?:^[ \t]*(?:[$#][ \t])?)make((?:[ \t]+-C[ \t]+\S+|[ \t]+[A-Z_]+=[^ \t\n<>`]+|[ \t]+-j\S*)*)"
                         r"[ \t]+([a-z][a-z0-9-]*)\b", code + "\n" + spans, re.M):
        opts, tgt = m.group(1), m.group(2)
        c = re.search(r"-C\s+(\S+)", opts)
        mk = os.path.join(c.group(1).rstrip("/"), "Makefile") if c else "Makefile"
        if not os.path.exists(os.path.join(root, mk)):
            continue
        seen += 1
        if tgt not in make_targets(mk):
            bad.append("%s: make%s %s" % (d, opts, tgt))
result(not bad and seen, "make targets named in the docs exist (%d)" % seen, sorted(set(bad)))

# package path
ver = re.search(r'^PACKAGE_VERSION="(.*)"$', read("dkms.conf"), re.M).group(1)
want = "build/package/xblk-dkms_%s_all.deb" % ver
bad = []
if 'out=${1:-$root/build/package}' not in read("scripts/build-package.sh"):
    bad.append("scripts/build-package.sh no longer defaults to build/package")
for d in ("README.md", "Documentation/admin-guide.rst"):
    t = read(d)
    if want not in t:
        bad.append("%s does not name %s" % (d, want))
    for m in re.findall(r"xblk-dkms_[0-9][^ `\s]*_all\.deb", t):
        if m != "xblk-dkms_%s_all.deb" % ver:
            bad.append("%s names %s" % (d, m))
    # (dpkg-buildpackage in a clone leaves it in ../)
    for m in re.findall(r"apt(?:-get)? install [^\n]*?(\S*xblk-dkms_\S*\.deb)", t):
        if m not in ("./" + want, want, "../xblk-dkms_%s_all.deb" % ver):
            bad.append("%s installs %s, not where a build puts it" % (d, m))
result(not bad, "the docs install the package from %s" % want, sorted(set(bad)))

# fault cycles
tf = read("scripts/test-faults.sh")
short = dict(re.findall(r"(\w+_cycles)=(\d+)", re.search(r'^opts="([^"]*)"', tf, re.M).group(1)))
long_ = dict(re.findall(r"(\w+_cycles)=(\d+)", re.search(r'^[ \t]+opts="(leak[^"]*)"', tf, re.M).group(1)))
names = {"leak": "leak_cycles", "destroys": "destroy_cycles", "detaches": "detach_cycles",
         "save/restore": "restore_cycles"}
bad = []
t = " ".join(read("Documentation/testing.rst").split())
for word, key in names.items():
    m = re.search(r"%s(?: cycles)? (\d+) / (\d+)" % re.escape(word), t)
    if not m:
        bad.append("testing.rst: no '%s N / N'" % word)
    elif (m.group(1), m.group(2)) != (short.get(key), long_.get(key)):
        bad.append("testing.rst: %s %s / %s, test-faults.sh %s / %s" % (word, m.group(1), m.group(2),
                                                                       short.get(key), long_.get(key)))
t = " ".join(read("README.md").split())
m = re.search(r"\(`make test-faults`: (\d+) detaches under I/O, (\d+) save/restore cycles, (\d+) leak cycles\); "
              r"their long variants \((\d+), (\d+), (\d+)\)", t)
if not m:
    bad.append("README.md: no '(`make test-faults`: N detaches ..., N save/restore cycles, N leak cycles)'")
else:
    got = m.groups()
    exp = tuple(d[k] for d in (short, long_) for k in ("detach_cycles", "restore_cycles", "leak_cycles"))
    if got != exp:
        bad.append("README.md: %s, test-faults.sh %s" % ("/".join(got), "/".join(exp)))
result(not bad, "fault-suite cycle counts in testing.rst and README.md = scripts/test-faults.sh "
       "(short %s)" % " ".join("%s=%s" % kv for kv in sorted(short.items())), bad)

# unit cases
counts = {}
for p in sorted(glob.glob(os.path.join(root, "tests/unit/test_*.c"))):
    counts[os.path.basename(p)[:-2]] = len(re.findall(r"^XTEST\(", open(p).read(), re.M))
t = " ".join(read("tests/unit/README.md").split())
m = re.search(r"Cases: (\d+) \(([^)]*)\)", t)
bad = []
if not m:
    bad.append("tests/unit/README.md has no 'Cases: N (...)'")
else:
    doc = {k: int(v) for k, v in re.findall(r"(test_\w+) (\d+)", m.group(2))}
    if doc != counts:
        bad.append("README %s, sources %s" % (sorted(doc.items()), sorted(counts.items())))
    if int(m.group(1)) != sum(counts.values()):
        bad.append("README total %s, sources %d" % (m.group(1), sum(counts.values())))
result(not bad, "tests/unit/README.md's case counts = the XTEST cases (%d)" % sum(counts.values()), bad)

# backend statistics
src = read("blkback/sysfs.c")
grp = re.search(r"static struct attribute \*\w*stat\w*\[\] = \{(.*?)\};", src, re.S)
bad = []
if not grp:
    bad.append("no statistics attribute group in blkback/sysfs.c")
    code = set()
else:
    code = set(re.findall(r"&dev_attr_(\w+)\.attr", grp.group(1)))
t = read("Documentation/blkback.rst")
m = re.search(r"\* ``statistics/``:(.*?)\n\n", t, re.S)
# (the list ends where the sentence about xentop begins)
doc = set(re.findall(r"``(\w+)``", m.group(1).split("``xentop``")[0])) if m else set()
if doc - code or code - doc:
    bad.append("blkback.rst: missing %s, extra %s" % (sorted(code - doc), sorted(doc - code)))
abi = set(re.findall(r"statistics/(\w+)\n", read("Documentation/ABI/testing/sysfs-driver-xblkback")))
if code - abi:
    bad.append("ABI file: no entry for %s" % sorted(code - abi))
result(not bad and code, "blkback.rst and the ABI file list xblkback's %d statistics/ files" % len(code), bad)

sys.exit(checks.end())
PY
