#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Links present at start, links added later, renames re-match, IPv6 knobs wait for the IPv6
# conf directory (MTU 1200 → 1500), and going up corrects drift.
. "$(dirname "$0")/lib.sh"

NS=$(ns_new core)

conf_put 10-site.conf <<'CONF'
[Match]
Name=*

[IGMP]
V2UnsolicitedReportInterval=5s
CONF
conf_put 50-iptv.conf <<'CONF'
[Match]
Name=iptv*

[IGMP]
V3UnsolicitedReportInterval=200ms
Version=3

[MLD]
V2UnsolicitedReportInterval=250
CONF

info "links present at start"
veth_add "$NS" iptv0 peer0
igmpd_start "$NS"
expect_knob "$NS" ipv4 iptv0 igmpv3_unsolicited_report_interval 200
expect_knob "$NS" ipv4 iptv0 force_igmp_version 3
expect_knob "$NS" ipv4 iptv0 igmpv2_unsolicited_report_interval 5000
expect_knob "$NS" ipv6 iptv0 mldv2_unsolicited_report_interval 252   # 250 ms in jiffies at HZ=250
expect_knob "$NS" ipv4 peer0 igmpv2_unsolicited_report_interval 5000
expect_knob "$NS" ipv4 peer0 igmpv3_unsolicited_report_interval 1000  # not matched by 50-iptv
# loopback: Name=* is an explicit match, so lo gets the site default too
expect_knob "$NS" ipv4 lo igmpv2_unsolicited_report_interval 5000

info "links added while running, before they are up"
veth_add "$NS" iptv1 peer1
expect_knob "$NS" ipv4 iptv1 igmpv3_unsolicited_report_interval 200
[ "$(in_ns "$NS" cat /sys/class/net/iptv1/operstate)" = down ] || fail "iptv1 should still be down"

info "rename re-matches by the new name"
veth_add "$NS" tmpa tmpb
expect_knob "$NS" ipv4 tmpa igmpv2_unsolicited_report_interval 5000
expect_knob "$NS" ipv4 tmpa igmpv3_unsolicited_report_interval 1000
ip -n "$NS" link set tmpa name iptv7
expect_knob "$NS" ipv4 iptv7 igmpv3_unsolicited_report_interval 200
info "renamed away from the policy: the knob goes back to the value found before"
ip -n "$NS" link set iptv7 name plain7
expect_knob "$NS" ipv4 plain7 igmpv3_unsolicited_report_interval 1000
expect_knob "$NS" ipv4 plain7 force_igmp_version 0

info "rename race: the kernel announces a rename before re-creating the conf directories"
for i in $(seq 1 40); do echo "link add r$i type veth peer name s$i"; done > "$T_TMP/add"
for i in $(seq 1 40); do echo "link set r$i name iptvr$i"; done > "$T_TMP/ren"
ip -n "$NS" -batch "$T_TMP/add"
ip -n "$NS" -batch "$T_TMP/ren"
for i in $(seq 1 40); do
        expect_knob "$NS" ipv4 "iptvr$i" igmpv3_unsolicited_report_interval 200
        expect_knob "$NS" ipv6 "iptvr$i" mldv2_unsolicited_report_interval 252
done

info "IPv6 conf appears when the MTU goes from 1200 to 1500"
veth_add "$NS" iptv2 peer2 mtu 1200
expect_knob "$NS" ipv4 iptv2 igmpv3_unsolicited_report_interval 200
if in_ns "$NS" test -e /proc/sys/net/ipv6/conf/iptv2; then
        fail "IPv6 conf of iptv2 should be absent at MTU 1200"
fi
ip -n "$NS" link set iptv2 mtu 1500
expect_knob "$NS" ipv6 iptv2 mldv2_unsolicited_report_interval 252

info "going up re-checks and corrects drift"
in_ns "$NS" sh -c 'echo 777 > /proc/sys/net/ipv4/conf/iptv1/igmpv3_unsolicited_report_interval'
ip -n "$NS" link set iptv1 up
expect_knob "$NS" ipv4 iptv1 igmpv3_unsolicited_report_interval 200

info "a deleted link is forgotten"
ip -n "$NS" link del iptv0
wait_until "grep -q 'iptv0: Link [0-9]* removed' '$T_LOG'" || fail "removal of iptv0 not seen"
kill -0 "$T_IGMPD_PID" || fail "igmpd died"
echo "PASS: $T_NAME"
