#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# [Match] Type= takes the link types as networkctl prints them: "none" for a tun device (which
# libnl's name, "nohdr", made unmatchable), "ether" for a veth.
. "$(dirname "$0")/lib.sh"

NS=$(ns_new mtype)

conf_put 50-tun.conf <<'CONF'
[Match]
Type=none

[IGMP]
V3UnsolicitedReportInterval=300ms
CONF
conf_put 60-ether.conf <<'CONF'
[Match]
Type=ether

[IGMP]
V2UnsolicitedReportInterval=400ms
CONF

ip -n "$NS" tuntap add dev tun0 mode tun || skip "cannot make a tun device here"
veth_add "$NS" v0 v1
igmpd_start "$NS"

info "Type=none matches the tun device, Type=ether the veth, neither the other"
expect_knob "$NS" ipv4 tun0 igmpv3_unsolicited_report_interval 300
expect_knob "$NS" ipv4 v0 igmpv2_unsolicited_report_interval 400
expect_knob "$NS" ipv4 v0 igmpv3_unsolicited_report_interval 1000
expect_knob "$NS" ipv4 tun0 igmpv2_unsolicited_report_interval 10000

info "a tun device added while running"
ip -n "$NS" tuntap add dev tun1 mode tun
expect_knob "$NS" ipv4 tun1 igmpv3_unsolicited_report_interval 300

echo "PASS: $T_NAME"
