#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# One channel-change run of bench/gateway.sh, in three network namespaces: a source, a middle box
# and a set-top box running igmpd. Runs inside the qemu guest that bench/gateway.sh boots (the
# "proxy" mode needs a kernel with multicast routing) and, for the "bridge" mode, also on the
# host. Prints one line per join (bench/chanchange) and a few facts about the run.
#
#   gateway-lab.sh proxy|bridge QRV JOINS
#
#   proxy   the middle box is a home gateway: igmpproxy, upstream toward the source, one
#           downstream link per lane toward the box; multicast is routed (MFC entries that
#           igmpproxy installs)
#   bridge  the middle box is a snooping Linux bridge (querier on, IGMPv2 queries like
#           igmpproxy's; lane ports with mcast_flood off), the setting of DESIGN.md's bridge figure
#
# Lanes (box interfaces): d10, d30 (kernel defaults) and p10, p30 (igmpd policy: both report
# intervals 200 ms); the number is the share of the box's IGMP packets the middle box drops on
# that link (nftables numgen, as they arrive: reports and leaves alike). net.ipv4.igmp_qrv of the
# box's namespace is QRV (set before its links exist). A join waits (QRV − 1) × 10 s + 1 s for its
# first packet, the longest the kernel's IGMPv2 default can take; past that it is "never".
# Environment: IGMPD, CHANCHANGE (the programs), NS_PREFIX (default gw-), LAB_TMP (scratch dir).
set -euo pipefail

MODE=$1 QRV=$2 JOINS=$3
P=${NS_PREFIX:-gw-}
SRC=${P}src MID=${P}mid BOX=${P}box
TMP=${LAB_TMP:-$(mktemp -d /tmp/gateway-lab.XXXXXX)}
LANES="d10 d30 p10 p30"
PIDS=()

cleanup() {
        for p in "${PIDS[@]}"; do kill "$p" 2> /dev/null || true; done
        for p in "${PIDS[@]}"; do wait "$p" 2> /dev/null || true; done
        for ns in "$SRC" "$MID" "$BOX"; do ip netns del "$ns" 2> /dev/null || true; done
        [ -n "${LAB_TMP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for ns in "$SRC" "$MID" "$BOX"; do
        ip netns add "$ns"
        ip -n "$ns" link set lo up
done
# Read when the box's links are created.
ip netns exec "$BOX" sysctl -qw net.ipv4.igmp_qrv="$QRV"

# igmpd on the box, before its links exist: they are configured as they appear.
mkdir -p "$TMP/root/etc/igmpd/conf.d" "$TMP/root/etc/igmpd/igmpd.conf.d"
printf '[Daemon]\nDriftWatch=no\nAuditSources=none\n' > "$TMP/root/etc/igmpd/igmpd.conf.d/50-lab.conf"
printf '[Match]\nName=p*\n\n[IGMP]\nV2UnsolicitedReportInterval=200\nV3UnsolicitedReportInterval=200\n' \
        > "$TMP/root/etc/igmpd/conf.d/50-iptv.conf"
DBUS_SYSTEM_BUS_ADDRESS=unix:path=$TMP/no-bus SYSTEMD_LOG_TARGET=console SYSTEMD_LOG_LEVEL=info \
        ip netns exec "$BOX" "$IGMPD" --config-root "$TMP/root" > "$TMP/igmpd.log" 2>&1 &
PIDS+=($!)

# nft_loss FAMILY HOOK: the middle box drops each lane's share of the box's IGMP packets.
nft_loss() {
        local lane
        ip netns exec "$MID" nft "add table $1 loss"
        ip netns exec "$MID" nft "add chain $1 loss in { type filter hook $2 priority -200; }"
        for lane in $LANES; do
                ip netns exec "$MID" nft "add rule $1 loss in iifname \"m$lane\" ip protocol igmp numgen random mod 100 < ${lane:1} counter drop"
        done
}

ip link add s0 netns "$SRC" type veth peer name up0 netns "$MID"
for lane in $LANES; do
        ip link add "$lane" netns "$BOX" type veth peer name "m$lane" netns "$MID"
done

if [ "$MODE" = proxy ]; then
        ip -n "$SRC" addr add 10.1.0.1/24 dev s0
        ip -n "$MID" addr add 10.1.0.2/24 dev up0
        {
                echo "quickleave"
                echo "phyint up0 upstream ratelimit 0 threshold 1"
                echo "        altnet 10.1.0.0/24"
                i=0
                for lane in $LANES; do
                        i=$((i + 1))
                        ip -n "$MID" addr add "10.2.$i.1/24" dev "m$lane"
                        ip -n "$BOX" addr add "10.2.$i.2/24" dev "$lane"
                        echo "phyint m$lane downstream ratelimit 0 threshold 1"
                done
                echo "phyint lo disabled"
        } > "$TMP/igmpproxy.conf"
        # Not the input hook: with multicast routing on, a report to a routable group goes from
        # ip_mr_input() straight to igmpproxy's socket (router alert), past LOCAL_IN.
        nft_loss ip prerouting
else
        ip -n "$MID" link add br0 type bridge mcast_snooping 1 mcast_querier 1 mcast_igmp_version 2
        ip -n "$MID" link set up0 master br0
        ip -n "$SRC" addr add 10.9.0.1/24 dev s0
        ip -n "$MID" addr add 10.9.0.254/24 dev br0
        i=0
        for lane in $LANES; do
                i=$((i + 1))
                ip -n "$MID" link set "m$lane" master br0
                ip -n "$MID" link set "m$lane" type bridge_slave mcast_flood off
                ip -n "$BOX" addr add "10.9.0.$((10 + i))/24" dev "$lane"
        done
        ip -n "$MID" link set br0 up
        nft_loss bridge prerouting
fi
ip -n "$SRC" link set s0 up
ip -n "$MID" link set up0 up
for lane in $LANES; do
        ip -n "$MID" link set "m$lane" up
        ip -n "$BOX" link set "$lane" up
done

if [ "$MODE" = proxy ]; then
        ip netns exec "$MID" sysctl -qw net.ipv4.ip_forward=1
        ip netns exec "$MID" igmpproxy -d -v "$TMP/igmpproxy.conf" > "$TMP/igmpproxy.log" 2>&1 &
        PIDS+=($!)
fi
# Until the box's links are configured and the middle box has asked its first query (a snooping
# bridge that has just come up held the first joins back ≈ 6 s with 3 s here).
sleep "${LAB_SETTLE:-10}"
for lane in $LANES; do
        echo "knob $lane v2=$(ip netns exec "$BOX" cat /proc/sys/net/ipv4/conf/"$lane"/igmpv2_unsolicited_report_interval)" \
                "v3=$(ip netns exec "$BOX" cat /proc/sys/net/ipv4/conf/"$lane"/igmpv3_unsolicited_report_interval)"
done

base=1
args=()
for lane in $LANES; do
        args+=("$lane:239.$base.0.0")
        base=$((base + 1))
done
t0=$(date +%s)
if [ "$MODE" = proxy ]; then
        # What the gateway forwards where, two seconds into the run.
        (sleep 2; ip -n "$MID" mroute show | head -n 12 | sed 's/^/mroute /') &
fi
"$CHANCHANGE" "/run/netns/$SRC" s0 "/run/netns/$BOX" "$JOINS" $(( (QRV - 1) * 10000 + 1000 )) "${args[@]}"
echo "elapsed $(( $(date +%s) - t0 )) s"

# What the box's kernel used: the IGMP version per link (V2 after an IGMPv2 query).
# shellcheck disable=SC2016
ip netns exec "$BOX" awk 'NR > 1 && $2 ~ /^[dp][0-9]+$/ {print "igmpver", $2, $5}' /proc/net/igmp
ip netns exec "$MID" nft list table "$([ "$MODE" = proxy ] && echo ip || echo bridge)" loss |
        sed -n 's/.*iifname "m\([dp][0-9]*\)".*counter packets \([0-9]*\).*/dropped \1 \2/p'
if [ "$MODE" = proxy ]; then
        ip -n "$MID" mroute show > /dev/null 2>&1 && echo "mroutes $(ip -n "$MID" mroute show | wc -l)"
        grep -ciE 'route|vif' "$TMP/igmpproxy.log" | sed 's/^/igmpproxy_route_lines /'
fi
