#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# [Daemon] Namespaces=named: every namespace under /run/netns is followed, also those made after
# start; [Match] Namespace= picks them; a file without it stays in igmpd's own namespace; the
# CNI flow (a veth made in the host, moved into the pod's namespace, renamed eth0) is configured
# in the pod's namespace; a namespace deleted while its links are pending is forgotten.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/netns-lib.sh"

HOST=$(zns_add host)
POD1=$(zns_add pod-a)
OTHER=$(zns_add other)
veth_add "$HOST" hv0 hv1
veth_add "$POD1" eth0 peer0
veth_add "$OTHER" eth0 peer0

named_conf
# A site default written before Namespaces= existed: igmpd's own namespace only.
conf_put 10-site.conf <<'C'
[IGMP]
V3UnsolicitedReportInterval=300
C
# Pods: zns-*-pod-* only.
conf_put 20-pods.conf <<C
[Match]
Namespace=zns-$$-pod-*
Name=eth0
[IGMP]
V3UnsolicitedReportInterval=150
[MLD]
V2UnsolicitedReportInterval=250
C
# A typo in Namespace= skips the file.
conf_put 30-typo.conf <<'C'
[Match]
Namespace=zns-[
[IGMP]
V2UnsolicitedReportInterval=777
C

# Robustness= follows Namespace= too: the pods' igmp_qrv, not the host's nor the other's; mld_qrv
# (the host's alone) in a file for pods is a problem.
conf_put 25-pods-qrv.conf <<C
[Match]
Namespace=zns-$$-pod-*
[IGMP]
Robustness=5
[MLD]
Robustness=3
C
qrv() { ip netns exec "$1" cat /proc/sys/net/ipv4/igmp_qrv; }
qrv_is() { [ "$(qrv "$1")" = "$2" ]; }
qrv_host=$(qrv "$HOST") qrv_other=$(qrv "$OTHER")

igmpd_start "$HOST"
grep -q "Namespaces=named: following" "$T_LOG" || fail "igmpd does not say it follows namespaces"
grep -q "30-typo.conf:2: Invalid pattern 'zns-\[' in Namespace=" "$T_LOG" || fail "the bad Namespace= was not reported"

info "host links: the site default; the pod's eth0: the pod file; the other namespace: untouched"
expect_knob "$HOST" ipv4 hv0 igmpv3_unsolicited_report_interval 300
expect_knob "$POD1" ipv4 eth0 igmpv3_unsolicited_report_interval 150
expect_knob "$POD1" ipv6 eth0 mldv2_unsolicited_report_interval 252
expect_knob "$OTHER" ipv4 eth0 igmpv3_unsolicited_report_interval 1000
expect_knob "$POD1" ipv4 peer0 igmpv3_unsolicited_report_interval 1000 # Name=eth0 only
expect_knob "$POD1" ipv4 eth0 igmpv2_unsolicited_report_interval 10000 # the typo file applies nowhere

info "igmp_qrv: 5 in the pod's namespace, the host's ($qrv_host) and the other's ($qrv_other) untouched"
wait_until "qrv_is $POD1 5" || fail "igmp_qrv in $POD1 is $(qrv "$POD1"), expected 5"
qrv_is "$HOST" "$qrv_host" || fail "igmpd's own igmp_qrv changed to $(qrv "$HOST")"
qrv_is "$OTHER" "$qrv_other" || fail "$OTHER's igmp_qrv changed to $(qrv "$OTHER")"
grep -q "25-pods-qrv.conf:6: Robustness= in \[MLD\]" "$T_LOG" || fail "[MLD] Robustness= for pods was not reported"

info "a namespace made after start is followed"
POD2=$(zns_add pod-b)
wait_until "grep -q 'Following network namespace $POD2' '$T_LOG'" || fail "$POD2 was not followed"
veth_add "$POD2" eth0 peer0
expect_knob "$POD2" ipv4 eth0 igmpv3_unsolicited_report_interval 150
wait_until "qrv_is $POD2 5" || fail "igmp_qrv in $POD2 (made after start) is $(qrv "$POD2"), expected 5"

info "the CNI flow: veth made in the host namespace, moved into the pod's, renamed eth0 there"
POD3=$(zns_add pod-c)
wait_until "grep -q 'Following network namespace $POD3' '$T_LOG'" || fail "$POD3 was not followed"
ip -n "$HOST" link add vethcni0 type veth peer name vethcni1
ip -n "$HOST" link set vethcni0 netns "$POD3"
ip -n "$POD3" link set vethcni0 name eth0
ip -n "$POD3" link set eth0 up
expect_knob "$POD3" ipv4 eth0 igmpv3_unsolicited_report_interval 150
# …and the host peer gets the host's policy, not the pod's.
expect_knob "$HOST" ipv4 vethcni1 igmpv3_unsolicited_report_interval 300

info "namespaces deleted while their links are being made and configured are forgotten"
for i in $(seq 1 10); do
        ns="zns-$$-pod-d$i"
        echo "$ns" >> "$T_TMP/.namespaces"
        ip netns add "$ns"
        for j in $(seq 0 19); do echo "link add eth$j type veth peer name peer$j"; done > "$T_TMP/batch"
        ip -n "$ns" -batch "$T_TMP/batch"
        (ip -n "$ns" link set eth0 name eth0x 2>/dev/null || true) &
        renamer=$!
        ip netns del "$ns"
        wait "$renamer" || true
done
kill -0 "$T_IGMPD_PID" || fail "igmpd died"
# Each one igmpd followed, it forgot; none is left in the table or on disk.
for i in $(seq 1 10); do
        ns="zns-$$-pod-d$i"
        if grep -q "Following network namespace $ns " "$T_LOG"; then
                wait_until "grep -q 'Network namespace $ns is gone' '$T_LOG'" || fail "$ns was followed and never forgotten"
        fi
        wait_until "[ ! -e '$T_ROOT/run/igmpd/netns/$ns' ]" || fail "$ns's record stayed"
done

info "a name bound to a new namespace at once (deleted and made again): the new one is followed"
POD6=$(zns_add pod-f)
wait_until "grep -q 'Following network namespace $POD6' '$T_LOG'" || fail "$POD6 was not followed"
ip netns del "$POD6" && ip netns add "$POD6"
veth_add "$POD6" eth0 peer0
expect_knob "$POD6" ipv4 eth0 igmpv3_unsolicited_report_interval 150
ip netns del "$POD6"

info "deleting a followed namespace forgets it"
ip netns del "$POD2"
wait_until "grep -q 'Network namespace $POD2 is gone' '$T_LOG'" || fail "$POD2 was not forgotten"
# (The log line comes first, then the record goes.)
wait_until "[ ! -e '$T_ROOT/run/igmpd/netns/$POD2' ]" || fail "the record of the gone namespace stayed"

info "reload: a new policy for the pods applies in each of them"
sed -i 's/=150/=120/' "$T_CONF/20-pods.conf"
igmpd_reload
expect_knob "$POD1" ipv4 eth0 igmpv3_unsolicited_report_interval 120
expect_knob "$POD3" ipv4 eth0 igmpv3_unsolicited_report_interval 120
expect_knob "$HOST" ipv4 hv0 igmpv3_unsolicited_report_interval 300

info "the record of originals is kept per namespace; the stop gives each namespace its igmp_qrv back"
igmpd_stop
qrv_is "$POD1" 2 || fail "igmp_qrv in $POD1 is $(qrv "$POD1") after the stop, expected 2 (the value found)"
[ -s "$T_ROOT/run/igmpd/netns/$POD1/originals" ] || fail "no record of originals for $POD1"
grep -q "eth0" "$T_ROOT/run/igmpd/netns/$POD1/originals" || fail "the record of $POD1 does not name eth0"

info "igmpd --restore (after the stop) writes back every namespace's originals, each in its namespace"
POD5=$(zns_add pod-e)
mkdir -p "$T_ROOT/run/igmpd/netns/zns-$$-gone"
printf 'igmpd-originals 1\n' > "$T_ROOT/run/igmpd/netns/zns-$$-gone/originals"
# A gone namespace's Robustness record goes too (igmpd before 2026-12-07 left it, and with it
# the namespace's directory).
printf 'igmpd-namespace-originals 1 0:0\n' > "$T_ROOT/run/igmpd/netns/zns-$$-gone/namespace-originals"
in_ns "$HOST" "$IGMPD" --config-root "$T_ROOT" --restore > "$T_TMP/restore.out" 2>&1 ||
        fail "igmpd --restore failed: $(cat "$T_TMP/restore.out")"
sed 's/^/# /' "$T_TMP/restore.out"
expect_knob "$HOST" ipv4 hv0 igmpv3_unsolicited_report_interval 1000
expect_knob "$POD1" ipv4 eth0 igmpv3_unsolicited_report_interval 1000
expect_knob "$POD1" ipv6 eth0 mldv2_unsolicited_report_interval 1000
expect_knob "$POD3" ipv4 eth0 igmpv3_unsolicited_report_interval 1000
expect_knob "$OTHER" ipv4 eth0 igmpv3_unsolicited_report_interval 1000
grep -q "^$POD1/eth0: igmpv3_unsolicited_report_interval 120 -> 1000" "$T_TMP/restore.out" || fail "no word of $POD1/eth0"
grep -q "^zns-$$-gone: network namespace gone" "$T_TMP/restore.out" || fail "no word of the gone namespace"
[ ! -e "$T_ROOT/run/igmpd/netns/$POD1/originals" ] || fail "$POD1's record stayed after --restore"
[ ! -e "$T_ROOT/run/igmpd/netns/zns-$$-gone" ] || fail "the gone namespace's record stayed"
[ "$(knob_get "$POD5" ipv4 lo igmpv3_unsolicited_report_interval)" = 1000 ] || fail "a namespace without a record was touched"
if grep -q "ERROR\|Assertion\|AddressSanitizer" "$T_LOG"; then fail "errors in the log"; fi
[ -n "${ZNS_SHOWLOG:-}" ] && grep -v "^$" "$T_LOG" | grep -iv debug | head -60
echo "PASS: $T_NAME"
