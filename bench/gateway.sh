#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A real home gateway in the channel-change benchmark (BENCHMARKS.md, "A home gateway"):
# igmpproxy between an IPTV source and a set-top box running igmpd. This machine's kernel has no
# multicast routing (CONFIG_IP_MROUTE is not set), so the run happens in a qemu guest booting
# Debian 12's own kernel (linux-image-amd64, software emulation), whose root is the cached
# Debian 12 root of the nspawn tests plus igmpproxy, nftables and kmod, loaded as the initramfs.
# Needs root. Not run by CI.
#
#   sudo bench/gateway.sh [--joins N] [--build DIR] [--keep]
#
#   --joins N    channel changes per lane and run (default 100)
#   --build DIR  the meson build of this machine's architecture whose igmpd and bench/chanchange
#                run in the guest and on the host (default build/): they run there unchanged, the
#                guest's root being Debian 12 with the same libraries
#   --keep       keep the console log and the raw results (printed at the end)
#
# In one guest run, for igmp_qrv 2 and then 3: the gateway (bench/gateway-lab.sh proxy) and a
# snooping bridge in its place (bench/gateway-lab.sh bridge, qrv 2); the bridge run once more on
# this host (no emulation) right before, to tell what emulation adds. Each run: four lanes side
# by side, kernel default and igmpd's 200 ms, each with 10 % and 30 % of the box's IGMP packets
# lost. Prints the tables of BENCHMARKS.md. Everything it made (the qemu process, namespaces,
# the temporary directory) is removed on exit; the kernel package and the root stay cached in
# /var/cache/igmpd-bench and /var/cache/igmpd-tests.
set -euo pipefail

SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD_DIR:-$SRCDIR/build}
JOINS=100
KEEP=""
while [ $# -gt 0 ]; do
        case $1 in
        --joins) JOINS=$2; shift ;;
        --build) BUILD=$2; shift ;;
        --keep) KEEP=yes ;;
        -h|--help) sed -n '3,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "gateway.sh: unknown argument '$1'" >&2; exit 2 ;;
        esac
        shift
done
die() { echo "gateway.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root"
IGMPD=$BUILD/src/daemon/igmpd
CHANCHANGE=$BUILD/bench/chanchange
if [ ! -x "$IGMPD" ] || [ ! -x "$CHANCHANGE" ]; then
        die "build first: meson setup $BUILD && ninja -C $BUILD"
fi

# What it needs on this machine (scripts/packages-gateway.txt), installed when missing.
missing=()
while read -r pkg; do
        case "$pkg" in ''|'#'*) continue ;; esac
        dpkg-query -W -f='${Status}' "$pkg" 2> /dev/null | grep -q "install ok installed" || missing+=("$pkg")
done < "$SRCDIR/scripts/packages-gateway.txt"
if [ ${#missing[@]} -gt 0 ]; then
        echo "Installing: ${missing[*]}" >&2
        apt-get -o DPkg::Lock::Timeout=600 update -qq || true
        DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" > /dev/null
fi

TMP=$(mktemp -d /tmp/igmpd-gateway.XXXXXX)
QEMU_PID=""
cleanup() {
        if [ -n "$QEMU_PID" ]; then
                kill "$QEMU_PID" 2> /dev/null || true
                wait "$QEMU_PID" 2> /dev/null || true
        fi
        if [ -n "$KEEP" ]; then
                mkdir -p "$SRCDIR/build-gateway"
                cp "$TMP"/console.log "$TMP"/*.txt "$SRCDIR/build-gateway/" 2> /dev/null || true
                echo "raw results kept in $SRCDIR/build-gateway" >&2
        fi
        rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Debian's kernel, the package that linux-image-amd64 points to, unpacked (not installed).
CACHE=/var/cache/igmpd-bench
mkdir -p "$CACHE"
kpkg=$(apt-cache depends linux-image-amd64 | sed -n 's/^ *Depends: \(linux-image-[0-9].*\)$/\1/p' | head -n 1)
[ -n "$kpkg" ] || die "apt does not know linux-image-amd64 (apt-get update?)"
if ! ls "$CACHE/${kpkg}_"*.deb > /dev/null 2>&1; then
        echo "Downloading $kpkg…" >&2
        (cd "$CACHE" && apt-get download "$kpkg" > /dev/null 2>&1) || die "cannot download $kpkg"
fi
mkdir "$TMP/kernel"
for deb in "$CACHE/${kpkg}_"*.deb; do :; done # the last one
dpkg-deb -x "$deb" "$TMP/kernel"
kver=${kpkg#linux-image-}
grep -q '^CONFIG_IP_MROUTE=y' "$TMP/kernel/boot/config-$kver" || die "$kpkg has no multicast routing"

# The guest's root: the nspawn tests' Debian 12 root plus what the gateway needs, copied.
base=$("$SRCDIR/tests/nspawn/build-rootfs-extra.sh" gateway igmpproxy nftables kmod procps) ||
        die "cannot build the guest's root (tests/nspawn/build-rootfs-extra.sh)"
ROOT=$TMP/root
cp -a "$base" "$ROOT"
rm -rf "$ROOT"/usr/share/{doc,man,locale,info} "$ROOT"/var/cache/* "$ROOT"/var/lib/apt/lists/*
# The modules the runs use (veth, nf_tables and numgen, the bridge) and what they need.
mkdir -p "$ROOT/lib/modules/$kver/kernel/drivers/net"
cp "$TMP"/kernel/lib/modules/"$kver"/modules.{order,builtin,builtin.modinfo} "$ROOT/lib/modules/$kver/"
cp -a "$TMP/kernel/lib/modules/$kver/kernel/"{net,lib,crypto} "$ROOT/lib/modules/$kver/kernel/"
cp "$TMP/kernel/lib/modules/$kver/kernel/drivers/net/veth.ko"* "$ROOT/lib/modules/$kver/kernel/drivers/net/"
chroot "$ROOT" depmod "$kver"
mkdir -p "$ROOT/opt/igmpd"
cp "$IGMPD" "$CHANCHANGE" "$SRCDIR/bench/gateway-lab.sh" "$ROOT/opt/igmpd/"
cat > "$ROOT/init" <<'EOF'
#!/bin/bash
# The guest's whole life: the runs, then power off. Every result line starts with "GW ".
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp; mount -t tmpfs run /run; mkdir -p /run/netns
echo 1 > /proc/sys/kernel/sysrq
export PATH=/usr/sbin:/usr/bin:/sbin:/bin IGMPD=/opt/igmpd/igmpd CHANCHANGE=/opt/igmpd/chanchange
joins=$(sed -n 's/.*gw_joins=\([0-9]*\).*/\1/p' /proc/cmdline)
modprobe -a veth nf_tables nft_numgen bridge
echo "GW kernel $(uname -r) cpus $(nproc)"
run() { # MODE QRV
        echo "GW run $1 $2 start $(date +%s)"
        /opt/igmpd/gateway-lab.sh "$1" "$2" "$joins" 2>&1 | sed "s/^/GW $1 $2 /"
}
run bridge 2
run proxy 2
run proxy 3
echo "GW done"
echo o > /proc/sysrq-trigger
sleep 60
EOF
chmod +x "$ROOT/init"
(cd "$ROOT" && find . -print0 | cpio --null -o -H newc --quiet) > "$TMP/initrd"

# The same bridge run on this host first (nothing else of this script runs meanwhile).
echo "Bridge run on this host ($JOINS joins per lane)…" >&2
NS_PREFIX=igw$$- IGMPD=$IGMPD CHANCHANGE=$CHANCHANGE "$SRCDIR/bench/gateway-lab.sh" bridge 2 "$JOINS" 2>&1 |
        sed 's/^/GW host-bridge 2 /' > "$TMP/host.txt"

echo "Booting $kpkg under qemu (software emulation; the runs take a while)…" >&2
qemu-system-x86_64 -machine pc -cpu max -smp 2 -m 2048 -display none -monitor none -no-reboot \
        -nic none -serial "file:$TMP/console.log" \
        -kernel "$TMP/kernel/boot/vmlinuz-$kver" -initrd "$TMP/initrd" \
        -append "console=ttyS0 rdinit=/init panic=-1 quiet loglevel=3 gw_joins=$JOINS" &
QEMU_PID=$!
deadline=$((SECONDS + 3 * 3600))
while kill -0 "$QEMU_PID" 2> /dev/null; do
        [ $SECONDS -lt $deadline ] || die "the guest did not finish within 3 hours"
        sleep 5
done
wait "$QEMU_PID" || true
QEMU_PID=""
grep -q '^GW done' "$TMP/console.log" || { tail -n 40 "$TMP/console.log" >&2; die "the guest did not finish its runs"; }
tr -d '\r' < "$TMP/console.log" | grep '^GW ' | sed 's/^GW //' > "$TMP/guest.txt"
sed 's/^GW //' "$TMP/host.txt" > "$TMP/host-clean.txt"

python3 - "$TMP/guest.txt" "$TMP/host-clean.txt" <<'PY'
import math, re, sys
rows = {}  # (where, mode, qrv, lane) -> latencies (ms, inf = never)
facts = []
for where, path in (("guest", sys.argv[1]), ("host", sys.argv[2])):
    for line in open(path):
        w = line.split()
        if len(w) >= 7 and w[2] == "join":
            mode = w[0].replace("host-", "")
            lat = math.inf if w[6] == "never" else int(w[6]) / 1000.0
            rows.setdefault((where, mode, w[1], w[3]), []).append((int(w[4]), lat))
        elif len(w) >= 3 and w[2] in ("igmpver", "dropped", "mroutes", "elapsed", "knob", "igmpproxy_route_lines"):
            facts.append(f"{where} {line.strip()}")
        elif w and w[0] in ("kernel",):
            facts.append(f"{where} {line.strip()}")

def stats(v):
    v = sorted(x for k, x in v if k > 0)  # join 0 of a lane warms the path up: left out
    def pct(q):
        x = v[max(1, math.ceil(len(v) * q / 100.0)) - 1]
        return x
    never = sum(1 for x in v if math.isinf(x))
    return len(v), pct(50), pct(95), pct(99), 100.0 * never / len(v)

def fmt(x):
    return "∞" if math.isinf(x) else f"{x:.0f} ms"

def ratio(a, b):
    if math.isinf(a) or math.isinf(b):
        return "–"
    return f"{a / b:.1f}×" if b > 0 else "–"

print("| where | middle box | qrv | loss | kernel default: n · p50 / p95 / p99 · never | igmpd 200 ms: n · p50 / p95 / p99 · never | default ÷ igmpd (p95, p99) |")
print("|---|---|---|---|---|---|---|")
keys = sorted({k[:3] for k in rows}, key=lambda k: (k[0] != "host", k[1] != "bridge", k[2]))
for where, mode, qrv in keys:
    for loss in ("10", "30"):
        d, p = rows.get((where, mode, qrv, "d" + loss)), rows.get((where, mode, qrv, "p" + loss))
        if not d or not p:
            continue
        sd, sp = stats(d), stats(p)
        print(f"| {where} | {'igmpproxy' if mode == 'proxy' else 'snooping bridge'} | {qrv} | {loss} % | "
              f"{sd[0]} · {fmt(sd[1])} / {fmt(sd[2])} / {fmt(sd[3])} · {sd[4]:.0f} % | "
              f"{sp[0]} · {fmt(sp[1])} / {fmt(sp[2])} / {fmt(sp[3])} · {sp[4]:.0f} % | "
              f"{ratio(sd[2], sp[2])}, {ratio(sd[3], sp[3])} |")
print()
print("Emulation (bridge, qrv 2, guest ÷ host, p50 / p95):")
for lane in ("d10", "d30", "p10", "p30"):
    g, h = rows.get(("guest", "bridge", "2", lane)), rows.get(("host", "bridge", "2", lane))
    if g and h:
        sg, sh = stats(g), stats(h)
        print(f"- {lane}: p50 {fmt(sg[1])} vs {fmt(sh[1])} ({ratio(sg[1], sh[1])}), p95 {fmt(sg[2])} vs {fmt(sh[2])} ({ratio(sg[2], sh[2])})")
print()
print("Facts:")
for f in facts:
    print("-", f)
PY
