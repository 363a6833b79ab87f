#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# igmpd under valgrind memcheck: start, link churn (create, rename, MTU 1200/1500, up/down,
# delete), a broken and a good policy file, Robustness= (in a namespace file and, as a problem,
# in a link file), runtime drop-ins, two reloads, netlink overruns (a
# 4 KiB receive buffer) with a link created and deleted and two links swapping names while the
# daemon is frozen, then SIGTERM. Asserts
# exit status 0 (valgrind exits 99 on any error, definite leaks included) and a summary with
# "ERROR SUMMARY: 0 errors" and no "definitely lost" bytes.
. "$(dirname "$0")/lib.sh"

command -v valgrind >/dev/null || skip "valgrind is not installed"
# A sanitizer build (scripts/test-sanitizers.sh) checks memory itself; valgrind cannot run it.
igmpd_linked_with libasan libubsan && skip "igmpd is built with sanitizers (ASan checks it instead)"

NS=$(ns_new valgrind)
VG_LOG=$T_TMP/valgrind.log
REAL_IGMPD=$IGMPD
IGMPD=$T_TMP/igmpd-under-valgrind
cat > "$IGMPD" <<WRAP
#!/bin/sh
exec valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
        --show-leak-kinds=definite --track-fds=no --log-file="$VG_LOG" "$REAL_IGMPD" "\$@"
WRAP
chmod +x "$IGMPD"

veth_add "$NS" va0 va1
mkdir -p "$T_ROOT/etc/igmpd"
printf '[Daemon]\nNetlinkReceiveBufferSize=4K\n' > "$T_ROOT/etc/igmpd/igmpd.conf"
conf_put 50-vg.conf <<'CONF'
[Match]
Name=va* vb*

[IGMP]
V3UnsolicitedReportInterval=234
Version=2
Robustness=5

[MLD]
V2UnsolicitedReportInterval=600
CONF
# The namespace knobs: igmp_qrv written (and given back at the stop), mld_qrv refused here.
conf_put 05-ns.conf <<'CONF'
[IGMP]
Robustness=3

[MLD]
Robustness=4
CONF
conf_put 60-broken.conf <<'CONF'
[Match]
Name=va*
MACAddress=zz:zz

[IGMP]
V2UnsolicitedReportInterval=forever
Bogus=1
CONF
mkdir -p "$T_ROOT/run/igmpd/runtime.d"
printf '[IGMP]\nV3UnsolicitedReportInterval=150\n' > "$T_ROOT/run/igmpd/runtime.d/va1.conf"

WAIT_SECS=60 igmpd_start "$NS"
WAIT_SECS=30 expect_knob "$NS" ipv4 va0 igmpv3_unsolicited_report_interval 234
WAIT_SECS=30 expect_knob "$NS" ipv4 va1 igmpv3_unsolicited_report_interval 150
QRV0=2 # a fresh namespace's
[ "$(in_ns "$NS" cat /proc/sys/net/ipv4/igmp_qrv)" = 3 ] || fail "igmp_qrv is not 3 from 05-ns.conf"

for i in $(seq 1 20); do echo "link add vb$i type veth peer name vc$i"; done > "$T_TMP/b"
ip -n "$NS" -batch "$T_TMP/b"
ip -n "$NS" link set vb1 name vbx1
ip -n "$NS" link set vbx1 name vb1
ip -n "$NS" link set vb2 mtu 1200
ip -n "$NS" link set vb2 mtu 1500
ip -n "$NS" link set vb3 up
ip -n "$NS" link set vc3 up
igmpd_reload
sed -i 's/=234/=235/' "$T_CONF/50-vg.conf"
igmpd_reload
WAIT_SECS=60 expect_knob "$NS" ipv4 vb20 igmpv3_unsolicited_report_interval 235
for i in $(seq 1 10); do echo "link del vb$i"; done > "$T_TMP/d"
ip -n "$NS" -batch "$T_TMP/d"
rm "$T_CONF/50-vg.conf"
igmpd_reload
WAIT_SECS=60 expect_knob "$NS" ipv4 vb20 igmpv3_unsolicited_report_interval 1000

# Overruns: what was queued before is discarded, links found gone are dropped, names swapped
# while frozen resolve to the right links (test-core-overrun-stale.sh checks the outcome).
kill -STOP "$T_IGMPD_PID"
veth_add "$NS" vz1 vz2
ip -n "$NS" link set vb11 name vswap
ip -n "$NS" link set vb12 name vb11
ip -n "$NS" link set vswap name vb12
for i in $(seq 1 30); do echo "link add vd$i type veth peer name ve$i"; done > "$T_TMP/o"
ip -n "$NS" -batch "$T_TMP/o"
ip -n "$NS" link del vz1
kill -CONT "$T_IGMPD_PID"
veth_add "$NS" vmark0 vmark1
WAIT_SECS=60 wait_until "grep -q 'vmark1: New link' '$T_LOG'" || fail "igmpd never saw vmark1"
[ "$(log_count 'ENOBUFS')" -ge 1 ] || fail "the 4 KiB buffer never overflowed"
sleep 1

kill -TERM "$T_IGMPD_PID"
rc=0
wait "$T_IGMPD_PID" || rc=$?
T_IGMPD_PID=""
info "igmpd under valgrind exited with $rc"
[ "$(in_ns "$NS" cat /proc/sys/net/ipv4/igmp_qrv)" = "$QRV0" ] || fail "igmp_qrv was not given back at the stop"
grep -E 'ERROR SUMMARY|in use at exit|All heap blocks|definitely lost|indirectly lost|possibly lost|still reachable' "$VG_LOG" | sed 's/^/# /'
[ "$rc" -eq 0 ] || { sed -n '1,200p' "$VG_LOG" >&2; fail "exit status $rc (99: valgrind found errors)"; }
grep -q 'ERROR SUMMARY: 0 errors' "$VG_LOG" || { cat "$VG_LOG" >&2; fail "valgrind reported errors"; }
if grep -qE 'definitely lost: [1-9]' "$VG_LOG"; then
        cat "$VG_LOG" >&2
        fail "definite leaks"
fi
echo "PASS: $T_NAME (memcheck: 0 errors, no definite leaks)"
