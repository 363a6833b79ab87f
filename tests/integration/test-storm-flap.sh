#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Flapping: 40 links (20 veth pairs) set up/down and their MTU switched between 1200 (IPv6 conf
# directory disappears) and 1500 (it reappears with kernel defaults) over and over while igmpd
# runs. After each round that ends at MTU 1200 the IPv4 knobs are right and the IPv6 ones are
# absent; after the last MTU raise every link has the policy's IPv4 *and* IPv6 values again.
# First, once and deterministically: a single MTU dip on links that are up and stay up.
. "$(dirname "$0")/lib.sh"

PAIRS=${PAIRS:-20}
ROUNDS=${ROUNDS:-30}
NS=$(ns_new flap)
export IGMPD_LOG_LEVEL=${IGMPD_LOG_LEVEL:-info}

for i in $(seq 1 "$PAIRS"); do
        echo "link add fa$i type veth peer name fb$i"
done > "$T_TMP/create"
ip -n "$NS" -batch "$T_TMP/create"

conf_put 50-flap.conf <<'CONF'
[Match]
Name=f*

[IGMP]
V3UnsolicitedReportInterval=321
V2UnsolicitedReportInterval=4321

[MLD]
V1UnsolicitedReportInterval=3000
V2UnsolicitedReportInterval=1500
Version=2
CONF
igmpd_start "$NS"

n=$((PAIRS * 2))
check_v4() {
        in_ns "$NS" sh -c '
                [ -z "$(grep -Lx 321 /proc/sys/net/ipv4/conf/f[ab][0-9]*/igmpv3_unsolicited_report_interval)" ] &&
                [ -z "$(grep -Lx 4321 /proc/sys/net/ipv4/conf/f[ab][0-9]*/igmpv2_unsolicited_report_interval)" ]'
}
check_v6() {
        in_ns "$NS" sh -c '
                [ $(ls -d /proc/sys/net/ipv6/conf/f[ab][0-9]* 2>/dev/null | wc -l) -eq '"$n"' ] &&
                [ -z "$(grep -Lx 1500 /proc/sys/net/ipv6/conf/f[ab][0-9]*/mldv2_unsolicited_report_interval)" ] &&
                [ -z "$(grep -Lx 3000 /proc/sys/net/ipv6/conf/f[ab][0-9]*/mldv1_unsolicited_report_interval)" ] &&
                [ -z "$(grep -Lx 2 /proc/sys/net/ipv6/conf/f[ab][0-9]*/force_mld_version)" ]'
}
WAIT_SECS=20 wait_until "check_v4 && check_v6" || fail "initial configuration incomplete"

# One MTU dip on links that stay up: the IPv6 conf directory goes away and comes back with
# kernel defaults, and nothing else happens to the link (no up/down, no rename).
mtu_all() {
        { for i in $(seq 1 "$PAIRS"); do echo "link set fa$i mtu $1"; echo "link set fb$i mtu $1"; done; } > "$T_TMP/mtu"
        ip -n "$NS" -batch "$T_TMP/mtu"
}
{ for i in $(seq 1 "$PAIRS"); do echo "link set fa$i up"; echo "link set fb$i up"; done; } > "$T_TMP/up"
ip -n "$NS" -batch "$T_TMP/up"
WAIT_SECS=20 wait_until "check_v4 && check_v6" || fail "configuration incomplete after links went up"
sleep 1
mtu_all 1200
sleep 1
left=$(in_ns "$NS" sh -c 'ls -d /proc/sys/net/ipv6/conf/f[ab][0-9]* 2>/dev/null | wc -l')
[ "$left" -eq 0 ] || fail "IPv6 conf present for $left links at MTU 1200"
mtu_all 1500
WAIT_SECS=20 wait_until "check_v4 && check_v6" || {
        in_ns "$NS" sh -c 'grep -H . /proc/sys/net/ipv6/conf/fa1/m* /proc/sys/net/ipv6/conf/fa1/force_mld_version' >&2
        fail "IPv6 knobs not reapplied after one MTU dip 1500 → 1200 → 1500 on up links"
}

start=$SECONDS
for r in $(seq 1 "$ROUNDS"); do
        {
                for i in $(seq 1 "$PAIRS"); do
                        echo "link set fa$i up"
                        echo "link set fb$i mtu 1200"
                        echo "link set fa$i mtu 1200"
                        echo "link set fb$i up"
                        echo "link set fa$i down"
                        echo "link set fa$i mtu 1500"
                        echo "link set fb$i mtu 1500"
                        echo "link set fb$i down"
                        echo "link set fa$i up"
                        echo "link set fb$i up"
                done
        } > "$T_TMP/round"
        ip -n "$NS" -batch "$T_TMP/round"
        if [ $((r % 10)) -eq 0 ]; then
                # A round that ends low: IPv6 conf must be gone, IPv4 still right.
                { for i in $(seq 1 "$PAIRS"); do echo "link set fa$i mtu 1200"; echo "link set fb$i mtu 1200"; done; } > "$T_TMP/low"
                ip -n "$NS" -batch "$T_TMP/low"
                WAIT_SECS=20 wait_until check_v4 || fail "IPv4 knobs wrong at MTU 1200 (round $r)"
                left=$(in_ns "$NS" sh -c 'ls -d /proc/sys/net/ipv6/conf/f[ab][0-9]* 2>/dev/null | wc -l')
                [ "$left" -eq 0 ] || fail "IPv6 conf present for $left links at MTU 1200"
                { for i in $(seq 1 "$PAIRS"); do echo "link set fa$i mtu 1500"; echo "link set fb$i mtu 1500"; done; } > "$T_TMP/high"
                ip -n "$NS" -batch "$T_TMP/high"
                WAIT_SECS=20 wait_until "check_v4 && check_v6" || fail "IPv6 knobs not reapplied after the MTU raise (round $r)"
        fi
done
info "$ROUNDS rounds of flapping on $n links in $((SECONDS - start)) s"

WAIT_SECS=30 wait_until "check_v4 && check_v6" || {
        in_ns "$NS" sh -c 'grep -H . /proc/sys/net/ipv6/conf/f[ab][0-9]*/mldv2_unsolicited_report_interval | grep -v ":1500$" | head'
        fail "final state incorrect"
}
kill -0 "$T_IGMPD_PID" 2>/dev/null || fail "igmpd died"
echo "PASS: $T_NAME ($n links, $ROUNDS rounds, final IPv4 and IPv6 state correct)"
