#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Namespaces=named with the drift watch: a write of a managed knob in a followed namespace is
# reverted there, and logged with the namespace; the same knob of a link of the same name
# written in another namespace (followed, no policy there) is left alone, and so is igmpd's own
# namespace's link of that name.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/netns-lib.sh"
bpf_require
hostwide_lock
V3=igmpv3_unsolicited_report_interval

HOST=$(zns_add host)
POD=$(zns_add pod-a)
OTHER=$(zns_add other)
veth_add "$HOST" eth0 peer0
veth_add "$POD" eth0 peer0
veth_add "$OTHER" eth0 peer0
named_conf
cat > "$T_ROOT/etc/igmpd/igmpd.conf.d/60-drift.conf" <<'CONF'
[Daemon]
DriftWatch=yes
NetworkManager=no
CONF
pods_conf
igmpd_start "$HOST"
wait_until "grep -q 'Drift watch is active' '$T_LOG'" || skip "the drift watch is not active here: $(grep -i 'drift watch' "$T_LOG" | tail -1)"
expect_knob "$POD" ipv4 eth0 $V3 150

info "a foreign write in the pod: reverted there"
in_ns "$POD" sh -c "echo 999 > /proc/sys/net/ipv4/conf/eth0/$V3"
expect_knob "$POD" ipv4 eth0 $V3 150
wait_until "grep -q 'eth0: .*$V3.*999' '$T_LOG'" || fail "the override was not logged"

info "the same knob of another namespace's eth0 (no policy there), and of igmpd's own: left alone"
in_ns "$OTHER" sh -c "echo 888 > /proc/sys/net/ipv4/conf/eth0/$V3"
in_ns "$HOST" sh -c "echo 777 > /proc/sys/net/ipv4/conf/eth0/$V3"
# A marker write in the pod after them: once it is reverted, the two before were seen too.
in_ns "$POD" sh -c "echo 998 > /proc/sys/net/ipv4/conf/eth0/$V3"
expect_knob "$POD" ipv4 eth0 $V3 150
[ "$(knob_get "$OTHER" ipv4 eth0 $V3)" = 888 ] || fail "the other namespace's eth0 was changed"
[ "$(knob_get "$HOST" ipv4 eth0 $V3)" = 777 ] || fail "igmpd's own eth0 was changed"
kill -0 "$T_IGMPD_PID" || fail "igmpd died"
echo "PASS: $T_NAME"
