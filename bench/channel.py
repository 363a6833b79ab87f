#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Join-to-first-accepted-report latency from mcast-join and upstream output.

  channel.py PROTO QRV PROBS DIR

DIR holds join.* files (mcast-join output: "join USEC IFNAME GROUP") and up.out (upstream
output: "USEC IFNAME GROUP N accept|drop|after"). Down-side interfaces are named d<K> (kernel
defaults) or p<K> (igmpd policy); the drop probability of interface K is PROBS[K mod len].
Prints one line per (policy, p):
  channel PROTO QRV POLICY P n=… p50=… p95=… p99=… never=… reports=…
with latencies in ms ("inf" when the percentile falls on joins that never completed) and
reports = mean reports the upstream saw per join.
"""
import glob
import ipaddress
import math
import os
import re
import sys

proto, qrv, probs, d = sys.argv[1], sys.argv[2], sys.argv[3].split(","), sys.argv[4]
joins = {}  # group -> (usec, ifname)
for f in glob.glob(os.path.join(d, "join.*")):
    for line in open(f):
        w = line.split()
        if len(w) == 4 and w[0] == "join":
            joins[str(ipaddress.ip_address(w[3]))] = (int(w[1]), w[2])

accept, reports = {}, {}
for line in open(os.path.join(d, "up.out")):
    w = line.split()
    if len(w) != 5:
        continue
    g = str(ipaddress.ip_address(w[2]))
    if g not in joins:
        continue
    reports[g] = max(reports.get(g, 0), int(w[3]))
    if w[4] == "accept":
        accept[g] = int(w[0])

cells = {}
for g, (t, ifname) in joins.items():
    m = re.match(r"([a-z]+)(\d+)$", ifname)
    pol = "igmpd 200 ms" if m.group(1) == "p" else "kernel default"
    p = probs[int(m.group(2)) % len(probs)]
    lat = (accept[g] - t) / 1000.0 if g in accept else math.inf
    cells.setdefault((pol, p), []).append((lat, reports.get(g, 0)))


def pct(v, q):
    r = max(1, math.ceil(len(v) * q / 100.0))
    x = v[r - 1]
    return "inf" if math.isinf(x) else "%.0f" % max(x, 0.0)


for (pol, p) in sorted(cells, key=lambda c: (c[0] != "kernel default", float(c[1]))):
    v = sorted(x for x, _ in cells[(pol, p)])
    rep = [r for _, r in cells[(pol, p)]]
    never = sum(1 for x in v if math.isinf(x)) / len(v)
    print("channel %s %s %s %s n=%d p50=%s p95=%s p99=%s never=%.4f reports=%.2f"
          % (proto, qrv, pol.replace(" ", "_"), p, len(v), pct(v, 50), pct(v, 95), pct(v, 99), never,
             sum(rep) / len(rep)))
