#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Namespaces=named at scale, and the CNI flow's latency (BENCHMARKS.md, "Namespaces").
#
#   sudo bench/netns.sh [NAMESPACES [LINKS_PER_NS [CNI_COUNT [RUNS]]]]   (defaults 200 4 200 3)
#
# In a mount namespace of its own with a private /run/netns (nothing else on the machine sees
# the namespaces it makes, nor does its igmpd see anyone else's): NAMESPACES namespaces with
# LINKS_PER_NS veth ends each (eth0..ethN-1, all covered by a Namespace=zb-* policy), then
#  - cold start: exec → READY=1 (bench/notify-run), igmpd with Namespaces=named against
#    Namespaces=self on the same machine state, RUNS times each; READY comes after the first
#    pass of every namespace;
#  - footprint: VmRSS and open fds of each after READY; (named − self) / NAMESPACES is the cost
#    of one namespace;
#  - the CNI flow (bench/netns-cni): a veth made in igmpd's namespace, moved into a pod
#    namespace, renamed eth0 there; microseconds from the rename to the policy's value read back
#    in the pod, CNI_COUNT times, with the NAMESPACES others followed meanwhile.
# Needs root, iproute2, unshare(1), a build in build/.
set -euo pipefail

N=${1:-200}
L=${2:-4}
CNI=${3:-200}
RUNS=${4:-3}
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$SRCDIR/build}
IGMPD=$BUILD/src/daemon/igmpd
NOTIFY=$BUILD/bench/notify-run
CNIBIN=$BUILD/bench/netns-cni

[ "$(id -u)" = 0 ] || { echo "needs root" >&2; exit 77; }
if [ -z "${_ZB_PRIVATE:-}" ]; then
        mkdir -p /run/netns
        export _ZB_PRIVATE=1
        exec unshare --mount --propagation private "$0" "$@"
fi
mount -t tmpfs -o mode=0755,size=4m zb-netns /run/netns

TMP=$(mktemp -d /tmp/igmpd-bench-netns.XXXXXX)
PID=""
cleanup() {
        set +e
        [ -n "${PID:-}" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
        for ns in $(ip netns list | awk '/^zb-/ {print $1}'); do ip netns del "$ns"; done
        umount "$ROOT/run" 2>/dev/null
        rm -rf "$TMP"
}
trap cleanup EXIT

ROOT=$TMP/root
mkdir -p "$ROOT/etc/igmpd/conf.d" "$ROOT/etc/igmpd/igmpd.conf.d"
printf '[Daemon]\nDriftWatch=no\nNetworkManager=no\nAuditSources=none\n' > "$ROOT/etc/igmpd/igmpd.conf.d/00-bench.conf"
printf '[Match]\nNamespace=zb-* .host\nName=eth*\n[IGMP]\nV3UnsolicitedReportInterval=150\n' > "$ROOT/etc/igmpd/conf.d/20-pods.conf"
# /run/igmpd on tmpfs, as on a real system (the record of originals is fdatasync'ed).
mkdir -p "$ROOT/run"
mount -t tmpfs -o mode=0755,size=64m zb-run "$ROOT/run"
mode() { printf '[Daemon]\nNamespaces=%s\n' "$1" > "$ROOT/etc/igmpd/igmpd.conf.d/50-mode.conf"; }

ip netns add zb-host
ip -n zb-host link set lo up
t0=$(date +%s%N)
for i in $(seq 1 "$N"); do
        ns=zb-p$i
        ip netns add "$ns"
        : > "$TMP/batch"
        for ((j = 0; j < L; j += 2)); do
                echo "link add eth$j type veth peer name eth$((j + 1))" >> "$TMP/batch"
        done
        ip -n "$ns" -batch "$TMP/batch"
done
t1=$(date +%s%N)
echo "setup: $N namespaces × $L links in $(((t1 - t0) / 1000000)) ms"

# start MODE: igmpd in zb-host; sets USEC (exec → READY) and leaves it running as $PID.
start() {
        mode "$1"
        rm -rf "${ROOT:?}/run/"*
        ip netns exec zb-host "$NOTIFY" "$TMP/notify.sock" "$IGMPD" --config-root "$ROOT" \
                > "$TMP/ready" 2> "$TMP/igmpd.log" &
        for _ in $(seq 600); do
                grep -q '^ready' "$TMP/ready" 2>/dev/null && break
                sleep 0.05
        done
        read -r _ USEC PID < "$TMP/ready"
}
stop() {
        kill "$PID"
        while kill -0 "$PID" 2>/dev/null; do sleep 0.05; done
        wait 2>/dev/null || true
        PID=""
}
footprint() {
        sleep 1
        echo "$(awk '/^VmRSS:/ {print $2}' /proc/"$PID"/status) $(ls /proc/"$PID"/fd | wc -l)"
}

for m in self named; do
        for r in $(seq 1 "$RUNS"); do
                start "$m"
                usec=$USEC
                read -r rss fds <<< "$(footprint)"
                echo "cold-start $m run $r: ready $((usec / 1000)) ms, VmRSS $rss kB, $fds fds"
                echo "$m $usec $rss $fds" >> "$TMP/starts"
                if [ "$m" = named ] && [ "$r" = 1 ]; then
                        # Every namespace's links configured by READY?
                        bad=0
                        for i in $(seq 1 "$N"); do
                                v=$(ip netns exec "zb-p$i" cat /proc/sys/net/ipv4/conf/eth0/igmpv3_unsolicited_report_interval)
                                [ "$v" = 150 ] || bad=$((bad + 1))
                        done
                        echo "  namespaces whose eth0 did not hold the policy at READY: $bad of $N"
                fi
                [ "$m" = named ] && [ "$r" = "$RUNS" ] && break
                stop
        done
done
awk -v n="$N" '
        { c[$1]++; t[$1] += $2; rss[$1] += $3; fds[$1] += $4 }
        END {
                for (m in c) printf "mean %s: ready %.0f ms, VmRSS %.0f kB, %.0f fds\n", m, t[m] / c[m] / 1000, rss[m] / c[m], fds[m] / c[m]
                printf "per namespace (named - self, / %d): %.1f kB VmRSS, %.2f fds, %.2f ms of start\n", n,
                        (rss["named"] / c["named"] - rss["self"] / c["self"]) / n,
                        (fds["named"] / c["named"] - fds["self"] / c["self"]) / n,
                        (t["named"] / c["named"] - t["self"] / c["self"]) / n / 1000
        }' "$TMP/starts"

# The CNI flow, against the igmpd (named) still running.
ip netns add zb-cni
sleep 0.5
# The same flow in igmpd's own namespace first (nothing moved): the baseline.
for where in .host zb-cni; do
ip netns exec zb-host "$CNIBIN" "$where" "$CNI" igmpv3_unsolicited_report_interval 150 > "$TMP/cni"
echo "cni timeouts: $(grep -c timeout "$TMP/cni" || true)"
{ grep -v timeout "$TMP/cni" || true; } | awk '{print $2}' | sort -n > "$TMP/cni.sorted"
awk '{ v[NR] = $1 } END {
        if (NR == 0) exit
        printf "cni flow in %s (rename -> policy read back there), %d runs: p50 %.2f ms, p95 %.2f ms, p99 %.2f ms, max %.2f ms\n",
               where, NR, v[int(NR * 0.50 + 0.5)] / 1000, v[int(NR * 0.95 + 0.5)] / 1000, v[int(NR * 0.99 + 0.5)] / 1000, v[NR] / 1000
}' where="$where" "$TMP/cni.sorted"
done
stop
