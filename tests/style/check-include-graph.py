#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The layering rule, checked: no include circle among the modules of src/daemon, src/client
and src/shared (a module is DIR/NAME.c with DIR/NAME.h; an include resolves as the compiler
does: the including file's directory, then src/shared, src/daemon, src/client), except a
D-Bus face NAME-bus with the object NAME it serves. A circle means two layers call each
other; see the comment at the top of src/daemon/manager.h for who may call whom.

  check-include-graph.py [SRCDIR]      exit 0 if the rule holds, 1 (listing the circles) if not
"""

import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)\.h"', re.M)


DIRS = ("shared", "daemon", "client")  # the include path's order (meson.build: inc)


def modules(src_dir):
    """module "dir/name" -> set of modules it includes (headers of DIRS only)."""
    names = {d: {os.path.splitext(f)[0] for f in os.listdir(os.path.join(src_dir, d)) if f.endswith((".c", ".h"))}
             for d in DIRS}
    graph = {f"{d}/{n}": set() for d in DIRS for n in names[d]}
    for d in DIRS:
        for f in os.listdir(os.path.join(src_dir, d)):
            if not f.endswith((".c", ".h")):
                continue
            me = f"{d}/{os.path.splitext(f)[0]}"
            with open(os.path.join(src_dir, d, f), encoding="utf-8") as fh:
                for inc in INCLUDE.findall(fh.read()):
                    where = next((x for x in (d,) + DIRS if inc in names[x]), None)
                    if where and f"{where}/{inc}" != me:
                        graph[me].add(f"{where}/{inc}")
    return graph


def circles(graph):
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def allowed(comp):
    """A face with its object: exactly {NAME, NAME-bus}."""
    return len(comp) == 2 and any(a + "-bus" == b or b + "-bus" == a for a in comp for b in comp)


def main():
    srcdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    graph = modules(os.path.join(srcdir, "src"))
    bad = [c for c in circles(graph) if not allowed(c)]
    for c in bad:
        edges = ", ".join(f"{a} -> {b}" for a in c for b in sorted(graph[a]) if b in c)
        print(f"include circle: {' '.join(c)} ({edges})")
    if bad:
        print("See the layering at the top of src/daemon/manager.h: a lower layer reports up through a hook, "
              "it does not include the layer above.")
        return 1
    print(f"include graph: {len(graph)} modules of src/{{{','.join(DIRS)}}}, no circle but a face with its object")
    return 0


if __name__ == "__main__":
    sys.exit(main())
