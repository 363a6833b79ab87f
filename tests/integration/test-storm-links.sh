#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Link storm: 4000 links (2000 veth pairs) created in 4 bursts of `ip -batch` while igmpd runs
# with a 4 KiB netlink receive buffer; during bursts 2 and 4 the daemon is frozen (SIGSTOP) so
# the kernel must drop events (ENOBUFS). Every link ends up with the policy's IPv4 and IPv6
# values, the daemon resynchronised at least once and is still alive.
. "$(dirname "$0")/lib.sh"

PAIRS=${PAIRS:-2000}
BURSTS=4
NS=$(ns_new lstorm)
export IGMPD_LOG_LEVEL=${IGMPD_LOG_LEVEL:-info}

mkdir -p "$T_ROOT/etc/igmpd"
printf '[Daemon]\nNetlinkReceiveBufferSize=4K\n' > "$T_ROOT/etc/igmpd/igmpd.conf"
conf_put 50-storm.conf <<'CONF'
[Match]
Name=sa* sb*

[IGMP]
V3UnsolicitedReportInterval=223
V2UnsolicitedReportInterval=2223

[MLD]
V2UnsolicitedReportInterval=500
CONF

igmpd_start "$NS"
start=$SECONDS
per=$((PAIRS / BURSTS))
for b in $(seq 0 $((BURSTS - 1))); do
        for i in $(seq $((b * per + 1)) $(((b + 1) * per))); do
                echo "link add sa$i type veth peer name sb$i"
        done > "$T_TMP/batch$b"
done
for b in $(seq 0 $((BURSTS - 1))); do
        if [ $((b % 2)) -eq 1 ]; then
                kill -STOP "$T_IGMPD_PID"
                ip -n "$NS" -batch "$T_TMP/batch$b"
                kill -CONT "$T_IGMPD_PID"
        else
                ip -n "$NS" -batch "$T_TMP/batch$b"
        fi
done
info "created $((PAIRS * 2)) links in $((SECONDS - start)) s"

total=$((PAIRS * 2))
check_all() {
        in_ns "$NS" sh -c '
                [ $(ls -d /proc/sys/net/ipv4/conf/s[ab][0-9]* | wc -l) -eq '"$total"' ] &&
                [ $(ls -d /proc/sys/net/ipv6/conf/s[ab][0-9]* | wc -l) -eq '"$total"' ] &&
                [ -z "$(grep -Lx 223 /proc/sys/net/ipv4/conf/s[ab][0-9]*/igmpv3_unsolicited_report_interval)" ] &&
                [ -z "$(grep -Lx 2223 /proc/sys/net/ipv4/conf/s[ab][0-9]*/igmpv2_unsolicited_report_interval)" ] &&
                [ -z "$(grep -Lx 500 /proc/sys/net/ipv6/conf/s[ab][0-9]*/mldv2_unsolicited_report_interval)" ]'
}
WAIT_SECS=60 wait_until check_all || {
        for f in ipv4/conf/s[ab][0-9]*/igmpv3_unsolicited_report_interval ipv4/conf/s[ab][0-9]*/igmpv2_unsolicited_report_interval \
                 ipv6/conf/s[ab][0-9]*/mldv2_unsolicited_report_interval; do
                bad=$(in_ns "$NS" sh -c "grep -LxE '223|2223|500' /proc/sys/net/$f" | head -n 10 | tr '\n' ' ')
                [ -z "$bad" ] || info "wrong: $bad"
        done
        fail "not every one of $total links configured after 60 s"
}
info "all $total links configured $((SECONDS - start)) s after the first burst"

resyncs=$(log_count 'ENOBUFS')
[ "$resyncs" -ge 1 ] || fail "the small buffer never overflowed: the ENOBUFS path was not exercised"
kill -0 "$T_IGMPD_PID" 2>/dev/null || fail "igmpd died"
expect_no_knob_fds
echo "PASS: $T_NAME ($total links configured, $resyncs ENOBUFS resyncs, $((SECONDS - start)) s)"
