#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Events lost after an overrun must be reported again. The kernel flags ENOBUFS once per
# congestion: until a read finds the event socket's queue empty, it drops further events
# without a word. igmpd used to re-dump while the stale queue was still there; a burst of links
# created between the end of that dump and the draining of the queue was dropped in silence and
# never configured (seen in test-storm-links when the SIGSTOP landed in that window: a whole
# burst unconfigured, igmpd idle). The window is made exact here with gdb: igmpd is held right
# after the re-dump returns, the burst is created, igmpd goes on. Every link of the burst must
# be configured: the queue is emptied before the dump, so the burst's overrun is flagged anew.
. "$(dirname "$0")/lib.sh"
command -v gdb > /dev/null || skip "gdb is not installed (scripts/packages-test.txt)"

NS=$(ns_new silent)
mkdir -p "$T_ROOT/etc/igmpd"
printf '[Daemon]\nNetlinkReceiveBufferSize=4K\n' > "$T_ROOT/etc/igmpd/igmpd.conf"
conf_put 50-all.conf <<'CONF'
[Match]
Name=fa* fb* ga* gb*

[IGMP]
V3UnsolicitedReportInterval=222
CONF
igmpd_start "$NS"
V3=igmpv3_unsolicited_report_interval

N=40
for i in $(seq 1 $N); do echo "link add fa$i type veth peer name fb$i"; done > "$T_TMP/overflow"
for i in $(seq 1 $N); do echo "link add ga$i type veth peer name gb$i"; done > "$T_TMP/burst"

# gdb stops igmpd (attach), the first batch overflows its 4 KiB buffer, igmpd goes on until the
# overrun's re-dump (netlink_enumerate) has returned, and is held there while the burst is made.
info "overflow, re-dump, then a burst while igmpd is held right after the dump"
resyncs_before=$(log_count 'ENOBUFS')
timeout 300 gdb -p "$T_IGMPD_PID" -batch -nx \
        -ex 'set pagination off' -ex 'set confirm off' \
        -ex 'break netlink_enumerate' \
        -ex "shell ip -n $NS -batch $T_TMP/overflow" \
        -ex 'continue' \
        -ex 'finish' \
        -ex "shell ip -n $NS -batch $T_TMP/burst && echo BURST-CREATED" \
        -ex 'delete' -ex 'detach' > "$T_TMP/gdb.log" 2>&1 || true
grep -q '^Value returned' "$T_TMP/gdb.log" && grep -q '^BURST-CREATED' "$T_TMP/gdb.log" ||
        fail "gdb did not hold igmpd after the re-dump: $(tail -n 20 "$T_TMP/gdb.log")"
kill -0 "$T_IGMPD_PID" 2>/dev/null || fail "igmpd died under gdb"
[ "$(log_count 'ENOBUFS')" -gt "$resyncs_before" ] ||
        fail "the 4 KiB buffer never overflowed: the overrun path was not exercised"

info "every link of both batches is configured"
all_configured() {
        in_ns "$NS" sh -c "grep -Lx 222 /proc/sys/net/ipv4/conf/[fg][ab][0-9]*/$V3" > "$T_TMP/wrong" 2>&1 || true
        [ ! -s "$T_TMP/wrong" ] &&
                [ "$(in_ns "$NS" sh -c 'ls -d /proc/sys/net/ipv4/conf/[fg][ab][0-9]*' | wc -l)" -eq $((4 * N)) ]
}
WAIT_SECS=30 wait_until all_configured ||
        fail "links never configured after the overrun ($(log_count 'ENOBUFS') overruns logged): $(head -n 10 "$T_TMP/wrong" | tr '\n' ' ')"
kill -0 "$T_IGMPD_PID" 2>/dev/null || fail "igmpd died"
echo "PASS: $T_NAME ($((4 * N)) links configured, $(log_count 'ENOBUFS') overruns)"
