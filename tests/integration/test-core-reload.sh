#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Reload picks up changed files; a removed policy restores the value found before igmpd changed
# it; a broken file is reported with FILE:LINE and the other files stay in force; runtime
# drop-ins override policy.
. "$(dirname "$0")/lib.sh"

NS=$(ns_new reload)
veth_add "$NS" v0 v1
# A value set by someone else before igmpd starts: this is what must come back.
in_ns "$NS" sh -c 'echo 4321 > /proc/sys/net/ipv4/conf/v0/igmpv2_unsolicited_report_interval'

conf_put 20-v.conf <<'CONF'
[Match]
Name=v0

[IGMP]
V2UnsolicitedReportInterval=2s
V3UnsolicitedReportInterval=300ms
CONF
igmpd_start "$NS"
expect_knob "$NS" ipv4 v0 igmpv2_unsolicited_report_interval 2000
expect_knob "$NS" ipv4 v0 igmpv3_unsolicited_report_interval 300

info "reload with a changed file"
conf_put 20-v.conf <<'CONF'
[Match]
Name=v0

[IGMP]
V2UnsolicitedReportInterval=3s
V3UnsolicitedReportInterval=400ms
CONF
igmpd_reload
expect_knob "$NS" ipv4 v0 igmpv2_unsolicited_report_interval 3000
expect_knob "$NS" ipv4 v0 igmpv3_unsolicited_report_interval 400

info "a broken file: FILE:LINE message, its good lines and the other files still apply"
conf_put 30-broken.conf <<'CONF'
[Match]
Name=v*

[IGMP]
V3UnsolicitedReportInterval=fast
Version=9
V2UnsolicitedReportInterval=0

[MLD]
V1UnsolicitedReportInterval=1.5s
CONF
igmpd_reload
expect_knob "$NS" ipv6 v0 mldv1_unsolicited_report_interval 1500
expect_knob "$NS" ipv4 v0 igmpv3_unsolicited_report_interval 400
expect_knob "$NS" ipv4 v0 igmpv2_unsolicited_report_interval 3000
expect_knob "$NS" ipv4 v0 force_igmp_version 0
for l in 5 6 7; do
        grep -q "30-broken.conf:$l: .*ignoring\.$" "$T_LOG" || fail "no FILE:LINE message for line $l"
done
expect_knob "$NS" ipv6 v1 mldv1_unsolicited_report_interval 1500

info "runtime drop-in overrides policy"
mkdir -p "$T_ROOT/run/igmpd/runtime.d"
printf '[IGMP]\nV3UnsolicitedReportInterval=150\n' > "$T_ROOT/run/igmpd/runtime.d/v0.conf"
igmpd_reload
expect_knob "$NS" ipv4 v0 igmpv3_unsolicited_report_interval 150
rm "$T_ROOT/run/igmpd/runtime.d/v0.conf"
igmpd_reload
expect_knob "$NS" ipv4 v0 igmpv3_unsolicited_report_interval 400

info "removing the policy restores the values found before"
rm "$T_CONF/20-v.conf" "$T_CONF/30-broken.conf"
igmpd_reload
expect_knob "$NS" ipv4 v0 igmpv2_unsolicited_report_interval 4321
expect_knob "$NS" ipv4 v0 igmpv3_unsolicited_report_interval 1000
expect_knob "$NS" ipv6 v0 mldv1_unsolicited_report_interval 10000

info "masking a file with a /dev/null symlink in /etc hides the one in /usr/lib"
mkdir -p "$T_ROOT/usr/lib/igmpd/conf.d"
printf '[IGMP]\nVersion=2\n' > "$T_ROOT/usr/lib/igmpd/conf.d/60-vendor.conf"
igmpd_reload
expect_knob "$NS" ipv4 v0 force_igmp_version 2
ln -s /dev/null "$T_CONF/60-vendor.conf"
igmpd_reload
expect_knob "$NS" ipv4 v0 force_igmp_version 0

kill -0 "$T_IGMPD_PID" || fail "igmpd died"
echo "PASS: $T_NAME"
