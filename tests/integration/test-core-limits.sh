#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The largest values: an IPv4 interval of 2147483647 ms round-trips; the MLD intervals are kept in
# jiffies and 2147483647 would read back as 2147483648 (at HZ=250), leaving the link 'failed',
# so igmpd accepts at most 2147483640 ms there (what round-trips at every HZ) and refuses more
# with a FILE:LINE message naming the range.
. "$(dirname "$0")/lib.sh"

NS=$(ns_new limits)
veth_add "$NS" big0 big1
conf_put 50-big.conf <<EOF
[Match]
Name=big0
[IGMP]
V2UnsolicitedReportInterval=2147483647
[MLD]
V1UnsolicitedReportInterval=2147483640
EOF
conf_put 60-too-big.conf <<EOF
[Match]
Name=big*
[MLD]
V2UnsolicitedReportInterval=2147483647
EOF
igmpd_start "$NS"
expect_knob "$NS" ipv4 big0 igmpv2_unsolicited_report_interval 2147483647
expect_knob "$NS" ipv6 big0 mldv1_unsolicited_report_interval 2147483640
expect_knob "$NS" ipv6 big0 mldv2_unsolicited_report_interval 1000
expect_knob "$NS" ipv6 big1 mldv2_unsolicited_report_interval 1000
grep -qF "$T_CONF/60-too-big.conf:4: V2UnsolicitedReportInterval=2147483647 is out of range (1ms…2147483640ms), ignoring." "$T_LOG" ||
        fail "no range message for the MLD value"
# Only links a source sets knobs on count: big1 (matched, but its only value was refused) and lo
# are unmanaged, not failures.
grep -qx 'Configured 1 of 1 links, ready; 2 unmanaged (no source sets any of their knobs).' "$T_LOG" ||
        fail "big0 did not end configured, or the summary counts unmanaged links: $(grep -E 'Configured|ailed' "$T_LOG")"
echo "PASS: $T_NAME"
