#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# igmpd --check: reports FILE:LINE problems and the effective value and source of each knob,
# writes nothing, and exits 1 when a file had a problem (0 otherwise).
. "$(dirname "$0")/lib.sh"

NS=$(ns_new check)
veth_add "$NS" iptv0 eth0
cp "$SRCDIR"/data/examples/*.conf "$T_CONF/"

out=$(in_ns "$NS" "$IGMPD" --config-root "$T_ROOT" --check 2>&1) || fail "--check failed on good files: $out"
echo "$out" | grep -qE '^ +igmpv3_unsolicited_report_interval +1000 -> 200 +.*/50-iptv\.conf$' ||
        fail "--check does not show iptv0's effective value and source: $out"
echo "$out" | grep -qE '^ +force_igmp_version +0 +\(no policy' || fail "--check does not show uncovered knobs"
[ "$(knob_get "$NS" ipv4 iptv0 igmpv3_unsolicited_report_interval)" = 1000 ] || fail "--check changed a knob"

printf '[IGMP]\nVersion=7\nV3UnsolicitedReportInterval=1s\n' > "$T_CONF/90-bad.conf"
rc=0
out=$(in_ns "$NS" "$IGMPD" --config-root "$T_ROOT" --check 2>&1) || rc=$?
[ "$rc" = 1 ] || fail "--check exit status $rc with a bad file, expected 1"
echo "$out" | grep -qF "$T_CONF/90-bad.conf:2: Version=7 is out of range (auto, 1, 2 or 3), ignoring." ||
        fail "no FILE:LINE message: $out"
[ "$(knob_get "$NS" ipv4 iptv0 igmpv3_unsolicited_report_interval)" = 1000 ] || fail "--check changed a knob"
[ "$(knob_get "$NS" ipv4 iptv0 force_igmp_version)" = 0 ] || fail "--check changed a knob"
echo "PASS: $T_NAME"
