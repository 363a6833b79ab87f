#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The daemon's layering rule, checked: no include circle among the modules of src/daemon
(a module is NAME.c with NAME.h), except a D-Bus face NAME-bus with the object NAME it
serves. A circle means two layers call each other; see the comment at the top of
src/daemon/manager.h for who may call whom.

  check-include-graph.py [SRCDIR]      exit 0 if the rule holds, 1 (listing the circles) if not
"""

import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)\.h"', re.M)


def modules(daemon_dir):
    """module name -> set of module names it includes (headers of src/daemon only)."""
    names = {os.path.splitext(f)[0] for f in os.listdir(daemon_dir) if f.endswith((".c", ".h"))}
    graph = {n: set() for n in names}
    for f in os.listdir(daemon_dir):
        if not f.endswith((".c", ".h")):
            continue
        me = os.path.splitext(f)[0]
        with open(os.path.join(daemon_dir, f), encoding="utf-8") as fh:
            for inc in INCLUDE.findall(fh.read()):
                if inc in names and inc != me:
                    graph[me].add(inc)
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
    graph = modules(os.path.join(srcdir, "src", "daemon"))
    bad = [c for c in circles(graph) if not allowed(c)]
    for c in bad:
        edges = ", ".join(f"{a} -> {b}" for a in c for b in sorted(graph[a]) if b in c)
        print(f"include circle: {' '.join(c)} ({edges})")
    if bad:
        print("See the layering at the top of src/daemon/manager.h: a lower layer reports up through a hook, "
              "it does not include the layer above.")
        return 1
    print(f"include graph: {len(graph)} modules of src/daemon, no circle but a face with its object")
    return 0


if __name__ == "__main__":
    sys.exit(main())
