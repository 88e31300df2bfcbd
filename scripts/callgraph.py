#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# Which file of a driver calls which (issue 32): for blkfront/ and blkback/,
# every function of one .c file that another .c file of the same directory
# calls or takes the address of, printed as file-level edges with the
# functions behind each; then whether the files form a one-way stack.  A
# circle of files (a strongly connected set of more than one file) fails,
# except main.c <-> xenbus.c in blkback/ (module init registers the xenbus
# driver, whose callbacks use main.c's parameter block).  Also fails a .c
# file over 800 lines.  Part of "make style".
#
# Function definitions come from universal-ctags (scripts/deps.sh installs
# it): name, file, whether static, first and last line.  References are the
# identifiers of each file outside comments, strings and #include lines that
# name a non-static function of another file of the directory; a file's own
# definition of a name hides the others.  Headers are not nodes: a static
# inline in blkfront.h or blkback.h belongs to no file.  Deterministic:
# files, edges and functions are printed sorted.
#
# usage: callgraph.py [DIR...]        (default: blkfront blkback)
# Exit status: 0 when every checked directory is a one-way stack and no
# file is too long; 1 otherwise; 2 when ctags or a directory is missing.
import json
import os
import re
import subprocess
import sys

MAX_LINES = 800

# Circles a directory may have, each as the set of its files.
ALLOWED = {
    'blkback': [{'main.c', 'xenbus.c'}],
    'blkfront': [],
}

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def definitions(d, files):
    """{file: [(name, static, first, last)]} of the functions in files."""
    try:
        out = subprocess.run(
            ['ctags', '--output-format=json', '--fields=+nfe',
             '--c-kinds=f', '--language-force=C', '-f', '-'] +
            [os.path.join(d, f) for f in files],
            cwd=ROOT, check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        print(f'callgraph: universal-ctags failed ({e}): run scripts/deps.sh',
              file=sys.stderr)
        sys.exit(2)
    defs = {f: [] for f in files}
    for line in out.splitlines():
        t = json.loads(line)
        if t.get('_type') != 'tag' or t.get('kind') != 'function':
            continue
        f = os.path.basename(t['path'])
        defs[f].append((t['name'], bool(t.get('file')), t['line'],
                        t.get('end', t['line'])))
    return defs


# Comments, string and character literals (kept as blanks, so that line
# numbers hold), and #include lines.
STRIP = re.compile(r'''
    /\*.*?\*/ | //[^\n]* |
    "(?:\\.|[^"\\\n])*" | '(?:\\.|[^'\\\n])*' |
    ^[ \t]*\#[ \t]*include[^\n]*
''', re.S | re.M | re.X)
IDENT = re.compile(r'\b[A-Za-z_]\w*\b')


def blank(m):
    return re.sub(r'[^\n]', ' ', m.group(0))


def references(path):
    """[(line, identifier)] of a C file, outside comments and strings."""
    with open(path, encoding='utf-8', errors='replace') as fh:
        text = STRIP.sub(blank, fh.read())
    refs = []
    for n, line in enumerate(text.split('\n'), 1):
        refs.extend((n, m.group(0)) for m in IDENT.finditer(line))
    return refs


def enclosing(defs, line):
    for name, _, first, last in defs:
        if first <= line <= last:
            return name
    return '(file scope)'


def edges_of(d, files):
    """{(caller file, callee file): {callee function: {caller function}}}"""
    defs = definitions(d, files)
    public = {}
    for f in files:
        for name, static, _, _ in defs[f]:
            if not static:
                public[name] = f
    edges = {}
    for f in files:
        own = {name for name, _, _, _ in defs[f]}
        for line, ident in references(os.path.join(ROOT, d, f)):
            g = public.get(ident)
            if g is None or g == f or ident in own:
                continue
            fn = edges.setdefault((f, g), {}).setdefault(ident, set())
            fn.add(enclosing(defs[f], line))
    return edges


def circles(files, edges):
    """Strongly connected sets of more than one file (Tarjan), sorted."""
    succ = {f: sorted(g for (a, g) in edges if a == f) for f in files}
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = set()
            while True:
                w = stack.pop()
                on.discard(w)
                scc.add(w)
                if w == v:
                    break
            if len(scc) > 1:
                out.append(sorted(scc))

    for f in files:
        if f not in index:
            visit(f)
    return sorted(out)


def order(files, edges, cycles):
    """Files from the top of the stack down, a circle as one entry."""
    comp = {f: f for f in files}
    for c in cycles:
        for f in c:
            comp[f] = ' <-> '.join(c)
    nodes = sorted(set(comp.values()))
    succ = {n: set() for n in nodes}
    for (a, b) in edges:
        if comp[a] != comp[b]:
            succ[comp[a]].add(comp[b])
    indeg = {n: 0 for n in nodes}
    for n in nodes:
        for m in succ[n]:
            indeg[m] += 1
    out, ready = [], sorted(n for n in nodes if indeg[n] == 0)
    while ready:
        n = ready.pop(0)
        out.append(n)
        for m in sorted(succ[n]):
            indeg[m] -= 1
            if indeg[m] == 0:
                ready.append(m)
        ready.sort()
    return out


def long_files(d, files):
    bad = []
    for f in files:
        with open(os.path.join(ROOT, d, f), 'rb') as fh:
            n = fh.read().count(b'\n')
        if n > MAX_LINES:
            bad.append((f, n))
    return bad


def check(d):
    files = sorted(f for f in os.listdir(os.path.join(ROOT, d))
                   if f.endswith('.c') and not f.endswith('.mod.c'))
    edges = edges_of(d, files)
    print(f'== {d}/: {len(files)} files, {len(edges)} edges between them')
    for (a, b) in sorted(edges):
        fns = edges[(a, b)]
        print(f'  {a} -> {b}: ' + ', '.join(sorted(fns)))
    cycles = circles(files, edges)
    print(f'  from the top down: ' + ', '.join(order(files, edges, cycles)))
    bad = 0
    for c in cycles:
        allowed = set(c) in ALLOWED.get(d, [])
        how = 'allowed' if allowed else 'FAIL'
        print(f'  circle ({how}): ' + ' <-> '.join(c))
        for (a, b) in sorted(edges):
            if a in c and b in c:
                print(f'    {a} -> {b}: ' + ', '.join(
                    f'{fn} (from {", ".join(sorted(callers))})'
                    for fn, callers in sorted(edges[(a, b)].items())))
        if not allowed:
            bad += 1
    for f, n in long_files(d, files):
        print(f'  too long (FAIL): {f} has {n} lines (at most {MAX_LINES})')
        bad += 1
    if not bad:
        print(f'  {d}/: one-way, no circle'
              f'{" but the allowed" if cycles else ""}, '
              f'no .c file over {MAX_LINES} lines')
    return bad


def main():
    dirs = sys.argv[1:] or ['blkfront', 'blkback']
    if any(d in ('-h', '--help') for d in dirs):
        print('usage: callgraph.py [DIR...]  (default: blkfront blkback)')
        return 0
    for d in dirs:
        if not os.path.isdir(os.path.join(ROOT, d)):
            print(f'callgraph: no directory {d} under {ROOT}', file=sys.stderr)
            return 2
    bad = 0
    for d in dirs:
        bad += check(d.rstrip('/'))
    if bad:
        print(f'callgraph: {bad} problem(s)')
        return 1
    print('callgraph: ok')
    return 0


if __name__ == '__main__':
    sys.exit(main())
