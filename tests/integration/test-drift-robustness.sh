#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The drift watch and the namespace knob igmp_qrv ([IGMP] Robustness=), in throwaway network
# namespaces (prefix zqrv):
#  - sysctl -w net.ipv4.igmp_qrv in igmpd's namespace → igmpd's value again, a log line naming
#    the writer, PropertiesChanged of IGMPRobustness;
#  - the same knob written in another namespace → left alone, nothing said;
#  - DriftAction=warn after a reload → the value stays, reported as kept, and D-Bus and igmpctl
#    status show the difference; at the stop igmpd leaves a value it did not write.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"

bpf_require
hostwide_lock
CG_ROOT=/sys/fs/cgroup/unified
[ "$(stat -f -c %T "$CG_ROOT" 2>/dev/null)" = cgroup2fs ] || CG_ROOT=/sys/fs/cgroup
[ "$(stat -f -c %T "$CG_ROOT" 2>/dev/null)" = cgroup2fs ] || skip "no cgroup2 hierarchy mounted"

zqrv_ns() {
        local ns="zqrv-$$-$1"
        echo "$ns" >> "$T_TMP/.namespaces"
        ip netns add "$ns" >&2 || fail "cannot create network namespace $ns"
        ip -n "$ns" link set lo up >&2
        echo "$ns"
}
qrv() { in_ns "$1" cat /proc/sys/net/ipv4/igmp_qrv; }

dbus_start
cat > "$T_ROOT/etc/igmpd/igmpd.conf.d/50-drift.conf" <<'CONF'
[Daemon]
DriftWatch=yes
NetworkManager=no
CONF
NSCONF=$T_CONF/10-ns.conf
conf_put 10-ns.conf <<'CONF'
[IGMP]
Robustness=3
CONF

NS=$(zqrv_ns d)
NS2=$(zqrv_ns o)
veth_add "$NS" v0 v1
igmpd_start "$NS"
igmpd_wait_bus
WAIT_SECS=60 wait_until "grep -qE 'Drift watch is (active|not active)' '$T_LOG'" || fail "the drift watch neither started nor failed"
grep -q 'Drift watch is active' "$T_LOG" || fail "the drift watch is not active: $(grep 'Drift watch' "$T_LOG")"
[ "$(qrv "$NS")" = 3 ] || fail "igmp_qrv is $(qrv "$NS"), expected 3"
M=(org.igmpd1 /org/igmpd1 org.igmpd1.Manager)

busctl --system monitor --match "type='signal',sender='org.igmpd1',member='PropertiesChanged',path='/org/igmpd1'" \
        > "$T_TMP/signals" 2>&1 &
_T_PIDS+=($!)
sleep 0.5

info "sysctl -w net.ipv4.igmp_qrv=5 → reverted, with the writer named"
pid=$(in_ns "$NS" sh -c 'echo $$; exec sysctl -q -w net.ipv4.igmp_qrv=5')
WAIT_SECS=10 wait_until "grep -q \"net.ipv4.igmp_qrv changed from 3 to 5 by process 'sysctl' (pid $pid, uid 0); igmpd's value is 3 (from $NSCONF): reverted.\" '$T_LOG'" ||
        fail "no log line naming sysctl (pid $pid): $(grep igmp_qrv "$T_LOG")"
WAIT_SECS=10 wait_until "[ \"\$(qrv $NS)\" = 3 ]" || fail "not reverted: $(qrv "$NS")"
WAIT_SECS=10 wait_until "grep -q IGMPRobustness '$T_TMP/signals'" || fail "no PropertiesChanged of IGMPRobustness: $(cat "$T_TMP/signals")"

info "the same knob in another namespace → left alone"
n=$(log_count 'igmp_qrv changed')
in_ns "$NS2" sysctl -q -w net.ipv4.igmp_qrv=6
sleep 1
[ "$(qrv "$NS2")" = 6 ] || fail "igmp_qrv of the other namespace was changed back: $(qrv "$NS2")"
[ "$(log_count 'igmp_qrv changed')" = "$n" ] || fail "a write in another namespace was reported: $(grep igmp_qrv "$T_LOG" | tail -n 2)"

info "DriftAction=warn: kept, and shown"
printf '[Daemon]\nDriftAction=warn\n' > "$T_ROOT/etc/igmpd/igmpd.conf.d/60-warn.conf"
"$IGMPCTL" reload > /dev/null || fail "igmpctl reload failed"
in_ns "$NS" sh -c 'echo 6 > /proc/sys/net/ipv4/igmp_qrv'
WAIT_SECS=10 wait_until "grep -q \"net.ipv4.igmp_qrv changed from 3 to 6 by process 'sh' .*: kept (DriftAction=warn).\" '$T_LOG'" ||
        fail "no log line for the kept write: $(grep igmp_qrv "$T_LOG")"
[ "$(qrv "$NS")" = 6 ] || fail "DriftAction=warn reverted igmp_qrv: $(qrv "$NS")"
expect_out "^\\(iis\\) 6 3 \"$NSCONF\"\$" bctl get-property "${M[@]}" IGMPRobustness
"$IGMPCTL" --no-pager status > "$T_TMP/status.out" 2>&1 || fail "igmpctl status failed"
grep -qE "^ *IGMP robustness: 6\\* \\(igmpd's value is 3 from $NSCONF: another process changed it\\)\$" "$T_TMP/status.out" ||
        fail "igmpctl status: $(cat "$T_TMP/status.out")"

info "stop: a value igmpd did not write is left"
igmpd_stop
[ "$(qrv "$NS")" = 6 ] || fail "the stop overwrote another process's igmp_qrv: $(qrv "$NS")"
grep -q "net.ipv4.igmp_qrv is 6, set by another process since igmpd wrote 3: leaving it." "$T_LOG" || fail "no log line for the stop"
info "ok"
