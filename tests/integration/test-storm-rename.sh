#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Rename storm: 500 links (250 veth pairs) named ra*/rb*, each renamed twice (→ ma*/mb* → fa*/fb*)
# while igmpd runs, in one `ip -batch`. Interleaved with that, 500 unrelated links (ka*/kb*)
# that no policy matches take over the vacated middle names (ka1 → ma1 right after ma1 → fa1).
# Policy exists for r* (555) and f* (333), none for m* or k*. The unrelated links carry sentinel
# values set before igmpd started; a write issued under a stale name would land on them.
# Afterwards: every f* link has the f* policy, every unrelated link still has its sentinels,
# and igmpd never wrote a knob of a link whose name it no longer had.
. "$(dirname "$0")/lib.sh"

PAIRS=${PAIRS:-250}
NS=$(ns_new rename)
export IGMPD_LOG_LEVEL=${IGMPD_LOG_LEVEL:-info}

{
        for i in $(seq 1 "$PAIRS"); do
                echo "link add ra$i type veth peer name rb$i"
                echo "link add ka$i type veth peer name kb$i"
        done
} > "$T_TMP/create"
ip -n "$NS" -batch "$T_TMP/create"
# Sentinels on the unrelated links, set before igmpd runs.
in_ns "$NS" sh -c '
        for d in /proc/sys/net/ipv4/conf/k[ab][0-9]*; do
                echo 7777 > $d/igmpv3_unsolicited_report_interval
                echo 8888 > $d/igmpv2_unsolicited_report_interval
        done
        for d in /proc/sys/net/ipv6/conf/k[ab][0-9]*; do
                echo 7000 > $d/mldv2_unsolicited_report_interval
        done'

conf_put 40-r.conf <<'CONF'
[Match]
Name=r*

[IGMP]
V3UnsolicitedReportInterval=555

[MLD]
V2UnsolicitedReportInterval=1500
CONF
conf_put 60-f.conf <<'CONF'
[Match]
Name=f*

[IGMP]
V3UnsolicitedReportInterval=333
V2UnsolicitedReportInterval=3333

[MLD]
V2UnsolicitedReportInterval=500
CONF

igmpd_start "$NS"
expect_knob "$NS" ipv4 ra1 igmpv3_unsolicited_report_interval 555
expect_knob "$NS" ipv4 "ra$PAIRS" igmpv3_unsolicited_report_interval 555

{
        for i in $(seq 1 "$PAIRS"); do
                for s in a b; do
                        echo "link set r$s$i name m$s$i"
                        echo "link set m$s$i name f$s$i"
                        echo "link set k$s$i name m$s$i"
                done
        done
} > "$T_TMP/rename"
start=$SECONDS
ip -n "$NS" -batch "$T_TMP/rename"
info "$((PAIRS * 4)) renames of storm links, $((PAIRS * 2)) of unrelated links, in $((SECONDS - start)) s"

n=$((PAIRS * 2))
check_final() {
        in_ns "$NS" sh -c '
                [ $(ls -d /proc/sys/net/ipv4/conf/f[ab][0-9]* | wc -l) -eq '"$n"' ] &&
                [ -z "$(grep -Lx 333 /proc/sys/net/ipv4/conf/f[ab][0-9]*/igmpv3_unsolicited_report_interval)" ] &&
                [ -z "$(grep -Lx 3333 /proc/sys/net/ipv4/conf/f[ab][0-9]*/igmpv2_unsolicited_report_interval)" ] &&
                [ -z "$(grep -Lx 500 /proc/sys/net/ipv6/conf/f[ab][0-9]*/mldv2_unsolicited_report_interval)" ]'
}
WAIT_SECS=60 wait_until check_final || {
        bad=$(in_ns "$NS" sh -c 'grep -Lx 333 /proc/sys/net/ipv4/conf/f[ab][0-9]*/igmpv3_unsolicited_report_interval' | head -n 10 | tr '\n' ' ')
        fail "renamed links lack the policy of their final name: $bad"
}
# Let any late write land before looking at the bystanders.
sleep 2
check_bystanders() {
        local bad nm
        bad=$(in_ns "$NS" sh -c '
                grep -Lx 7777 /proc/sys/net/ipv4/conf/m[ab][0-9]*/igmpv3_unsolicited_report_interval
                grep -Lx 8888 /proc/sys/net/ipv4/conf/m[ab][0-9]*/igmpv2_unsolicited_report_interval
                grep -Lx 7000 /proc/sys/net/ipv6/conf/m[ab][0-9]*/mldv2_unsolicited_report_interval' | head -n 20)
        nm=$(in_ns "$NS" sh -c 'ls -d /proc/sys/net/ipv4/conf/m[ab][0-9]* | wc -l')
        [ "$nm" -eq "$n" ] || fail "expected $n unrelated links under m* names, found $nm"
        [ -z "$bad" ] || fail "knobs of unrelated links were written ($1): $(echo "$bad" | tr '\n' ' ')"
}
check_bystanders "after the storm"
# Still in step afterwards: a reload must not disturb either group.
igmpd_reload
sleep 1
check_final || fail "state changed after a reload"
check_bystanders "after a reload"
kill -0 "$T_IGMPD_PID" 2>/dev/null || fail "igmpd died"
echo "PASS: $T_NAME ($n links renamed twice, $n bystanders untouched)"
