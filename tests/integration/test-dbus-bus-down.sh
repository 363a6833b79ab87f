#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The kernel-facing job never depends on the bus: started without a reachable bus, igmpd
# applies policy, says so once, and brings its D-Bus face up when the bus appears; when the
# bus goes away it keeps configuring links and reconnects when the bus is back. Once
# connected and idle, it does not wake up (no retry timer left behind).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
dbus_prepare

NS=$(ns_new down)
veth_add "$NS" v0 v1
conf_put 10-site.conf <<'CONF'
[Match]
Name=v*

[IGMP]
V3UnsolicitedReportInterval=300
CONF
# Only the D-Bus face is under test: no audit source (the kernel log of a busy machine wakes the
# kmsg source) and no NetworkManager follower.
mkdir -p "$T_ROOT/etc/igmpd"
cat > "$T_ROOT/etc/igmpd/igmpd.conf" <<'CONF'
[Daemon]
AuditSources=none
NetworkManager=no
CONF
V3=igmpv3_unsolicited_report_interval
NOT_REACHABLE='System bus not reachable, applying policy without a D-Bus face'

info "no bus at start: policy applied anyway, said once"
igmpd_start "$NS"
expect_knob "$NS" ipv4 v0 $V3 300
wait_until "[ \$(log_count '$NOT_REACHABLE') -ge 1 ]" || fail "no 'not reachable' message"
sleep 3.5   # a retry timer would have fired at 1 s and 2 s
[ "$(log_count "$NOT_REACHABLE")" = 1 ] || fail "'not reachable' logged $(log_count "$NOT_REACHABLE") times"
# No socket file, no retries: igmpd waits for the socket with inotify (test-dbus-bus-appears.sh).
[ "$(log_count 'still not reachable')" = 0 ] || fail "retried while the bus socket does not exist"
veth_add "$NS" v2 v3
expect_knob "$NS" ipv4 v2 $V3 300

info "the bus appears: the D-Bus face comes up on its own"
dbus_start
WAIT_SECS=40 wait_until "bus_has_owner org.igmpd1" || fail "igmpd did not connect once the bus appeared"
[ "$(log_count 'Connected to the system bus as org.igmpd1')" = 1 ] || fail "no (or repeated) connect message"
"$IGMPCTL" status v2 | grep -qE "^$V3 +300ms +300ms " || fail "status over the new bus: $("$IGMPCTL" status v2)"

info "idle means idle: no wake-ups while connected and nothing happens"
PID=$T_IGMPD_PID
sleep 1
a=$(awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$PID/status")
sleep 3
b=$(awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$PID/status")
[ "$a" = "$b" ] || fail "igmpd woke up $((b - a)) times in 3 idle seconds"

info "the bus goes away: links are still configured"
dbus_stop
wait_until "[ \$(log_count 'Lost the connection to the system bus') -ge 1 ]" || fail "lost bus not noticed"
veth_add "$NS" v4 v5
expect_knob "$NS" ipv4 v4 $V3 300
kill -0 "$T_IGMPD_PID" || fail "igmpd died with the bus"

info "the bus comes back: reconnected"
dbus_start
WAIT_SECS=40 wait_until "bus_has_owner org.igmpd1" || fail "igmpd did not reconnect"
"$IGMPCTL" status v4 | grep -qE "^$V3 +300ms +300ms " || fail "status after reconnect: $("$IGMPCTL" status v4)"
"$IGMPCTL" link v4 --v3-interval 200
expect_knob "$NS" ipv4 v4 $V3 200

info "a second igmpd on the same bus: the name is taken, it applies policy anyway, says so once"
NS2=$(ns_new two)
veth_add "$NS2" w0 w1
conf_put 10-w.conf <<'CONF'
[Match]
Name=w0

[IGMP]
V3UnsolicitedReportInterval=444
CONF
ip netns exec "$NS2" env SYSTEMD_LOG_TARGET=console SYSTEMD_LOG_LEVEL=info \
        "$IGMPD" --config-root "$T_ROOT" > "$T_TMP/second.log" 2>&1 &
_T_PIDS+=($!)
expect_knob "$NS2" ipv4 w0 $V3 444
wait_until "grep -q 'Failed to acquire the bus name org.igmpd1 (another process owns it)' '$T_TMP/second.log'" ||
        fail "second igmpd: $(cat "$T_TMP/second.log")"
sleep 3.5
[ "$(grep -c 'Failed to acquire' "$T_TMP/second.log")" = 1 ] || fail "name conflict logged more than once"
"$IGMPCTL" status v4 > /dev/null || fail "the first igmpd lost its name"

echo "PASS: $T_NAME"
