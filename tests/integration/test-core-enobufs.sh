#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# 600 links (300 veth pairs) created in one `ip -batch` while igmpd runs with a deliberately
# small netlink receive buffer while the daemon is frozen: the kernel drops events (ENOBUFS),
# igmpd re-enumerates, and every link ends up configured.
. "$(dirname "$0")/lib.sh"

PAIRS=${PAIRS:-300}
NS=$(ns_new enobufs)

mkdir -p "$T_ROOT/etc/igmpd"
printf '[Daemon]\nNetlinkReceiveBufferSize=4K\n' > "$T_ROOT/etc/igmpd/igmpd.conf"
conf_put 50-all.conf <<'CONF'
[Match]
Name=a* b*

[IGMP]
V3UnsolicitedReportInterval=222
V2UnsolicitedReportInterval=2222
CONF

igmpd_start "$NS"

batch=$T_TMP/batch
for i in $(seq 1 "$PAIRS"); do
        echo "link add a$i type veth peer name b$i"
done > "$batch"
# Freeze the daemon while the batch runs, as a busy daemon would be: ~1.5 KB per RTM_NEWLINK
# cannot fit in the small buffer, so the kernel drops events and flags ENOBUFS.
kill -STOP "$T_IGMPD_PID"
ip -n "$NS" -batch "$batch"
kill -CONT "$T_IGMPD_PID"

check_all() {
        in_ns "$NS" sh -c '
                [ $(ls -d /proc/sys/net/ipv4/conf/[ab][0-9]* | wc -l) -eq '"$((PAIRS * 2))"' ] &&
                [ -z "$(grep -Lx 222 /proc/sys/net/ipv4/conf/[ab][0-9]*/igmpv3_unsolicited_report_interval)" ]'
}
WAIT_SECS=60 wait_until check_all || {
        bad=$(in_ns "$NS" sh -c 'grep -Lx 222 /proc/sys/net/ipv4/conf/[ab][0-9]*/igmpv3_unsolicited_report_interval' |
              cut -d/ -f7 | tr '\n' ' ')
        fail "links not configured: $bad"
}
in_ns "$NS" sh -c 'grep -L "^2222$" /proc/sys/net/ipv4/conf/[ab][0-9]*/igmpv2_unsolicited_report_interval' | grep -q . &&
        fail "some links lack igmpv2_unsolicited_report_interval"

resyncs=$(log_count 'ENOBUFS')
info "links: $((PAIRS * 2)), ENOBUFS resyncs: $resyncs"
[ "$resyncs" -ge 1 ] || fail "the small buffer never overflowed: the ENOBUFS path was not exercised"
kill -0 "$T_IGMPD_PID" || fail "igmpd died"
echo "PASS: $T_NAME ($((PAIRS * 2)) links configured, $resyncs ENOBUFS resyncs)"
