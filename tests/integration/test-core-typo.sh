#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A typo must never make a policy file apply more widely than written. Each file below has a
# mistake in or around its [Match] (a misspelt key or section, an invalid MAC, an empty value,
# an invalid glob, a line outside any section, a missing '='): each used to lose its match
# condition and apply to every link — a 20 s IGMPv2 interval landed on an IPTV link. Now each is
# skipped whole with a "file skipped" message, at start, on reload and in --check, while a good
# file next to them still applies.
. "$(dirname "$0")/lib.sh"

NS=$(ns_new typo)
veth_add "$NS" iptv0 stb1

conf_put 60-good.conf <<EOF
[Match]
Name=stb1
[IGMP]
V3UnsolicitedReportInterval=300
EOF

bad_files() {
        conf_put 50-nmae.conf <<EOF
[Match]
Nmae=stb1
[IGMP]
V2UnsolicitedReportInterval=20s
EOF
        conf_put 51-mac.conf <<EOF
[Match]
MACAddress=00:11:22:33:44:5g
[IGMP]
V3UnsolicitedReportInterval=777
EOF
        conf_put 52-empty.conf <<EOF
[Match]
Name=
[MLD]
Version=1
EOF
        conf_put 53-mtach.conf <<EOF
[Mtach]
Name=stb1
[IGMP]
Version=2
EOF
        conf_put 54-glob.conf <<EOF
[Match]
Name=eth[
[MLD]
V2UnsolicitedReportInterval=555
EOF
        conf_put 55-outside.conf <<EOF
Name=stb1
[IGMP]
V2UnsolicitedReportInterval=21s
EOF
        conf_put 56-noeq.conf <<EOF
[Match]
Name stb1
[MLD]
V1UnsolicitedReportInterval=22s
EOF
}
N_BAD=7

# Kernel defaults of every knob on a link no good file covers.
expect_untouched() {
        local ifn=$1
        expect_knob "$NS" ipv4 "$ifn" igmpv2_unsolicited_report_interval 10000
        expect_knob "$NS" ipv4 "$ifn" force_igmp_version 0
        expect_knob "$NS" ipv6 "$ifn" force_mld_version 0
        expect_knob "$NS" ipv6 "$ifn" mldv2_unsolicited_report_interval 1000
        expect_knob "$NS" ipv6 "$ifn" mldv1_unsolicited_report_interval 10000
}

# 1. At start.
bad_files
igmpd_start "$NS"
expect_knob "$NS" ipv4 stb1 igmpv3_unsolicited_report_interval 300
expect_knob "$NS" ipv4 iptv0 igmpv3_unsolicited_report_interval 1000
expect_untouched iptv0
expect_untouched stb1
n=$(log_count 'file skipped')
[ "$n" -ge $N_BAD ] || fail "expected a 'file skipped' message for each of $N_BAD files, got $n"
for f in 50-nmae 51-mac 52-empty 53-mtach 54-glob 55-outside 56-noeq; do
        grep -qE "$T_CONF/$f\.conf:[0-9]+: .*file skipped\." "$T_LOG" || fail "no FILE:LINE 'file skipped' message for $f.conf"
done
grep -q "$N_BAD skipped as invalid" "$T_LOG" || fail "the load summary does not count $N_BAD skipped files"

# 2. --check says the same and fails.
rc=0
out=$(in_ns "$NS" "$IGMPD" --config-root "$T_ROOT" --check 2>&1) || rc=$?
[ "$rc" = 1 ] || fail "--check exit status $rc with skipped files, expected 1"
echo "$out" | grep -qF "$T_CONF/50-nmae.conf:2: Unknown key 'Nmae' in section [Match]" || fail "--check: no message for 50-nmae.conf: $out"
echo "$out" | grep -qF "$T_CONF/53-mtach.conf:1: Unknown section [Mtach], file skipped." || fail "--check: no message for 53-mtach.conf: $out"
echo "$out" | grep -qE '^ +igmpv2_unsolicited_report_interval +10000ms +- +none$' ||
        fail "--check shows a skipped file's value as effective: $out"

# 3. On reload: a good set, then the same typos added; nothing widens.
rm -f "$T_CONF"/5*.conf
igmpd_reload
wait_until "[ \$(log_count '0 skipped as invalid') -ge 1 ]" || fail "reload without bad files not logged"
bad_files
igmpd_reload
wait_until "[ \$(log_count '$N_BAD skipped as invalid') -ge 2 ]" || fail "reload with bad files not logged"
expect_knob "$NS" ipv4 stb1 igmpv3_unsolicited_report_interval 300
expect_untouched iptv0
expect_untouched stb1
kill -0 "$T_IGMPD_PID" || fail "igmpd died"
echo "PASS: $T_NAME"
