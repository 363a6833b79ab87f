#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# igmpd --restore after a crash (kill -9) with Namespaces=named: a followed namespace's
# namespace knob (igmp_qrv) gets the value igmpd found back, written in that namespace, as igmpd's
# own namespace's does; its record (ROOT/run/igmpd/netns/NAME/namespace-originals) and directory
# go once every write went through. A write that fails (/proc/sys read-only) keeps every record
# for the next run of the same command.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/netns-lib.sh"

ZNS_PREFIX=nsrest # this test's namespaces: nsrest-PID-…

HOST=$(zns_add host)
PODA=$(zns_add pod-a)
PODB=$(zns_add pod-b)
veth_add "$PODA" eth0 peer0
NETNS_DIR=$T_ROOT/run/igmpd/netns
V3=igmpv3_unsolicited_report_interval

named_conf
# igmpd's own namespace: igmp_qrv 3.
conf_put 10-host-qrv.conf <<'C'
[IGMP]
Robustness=3
C
# The pods: igmp_qrv 6; pod-a's eth0 a link knob too (pod-b has only lo: its namespace knob alone).
conf_put 20-pods-qrv.conf <<C
[Match]
Namespace=nsrest-$$-pod-*
[IGMP]
Robustness=6
C
conf_put 30-pods-eth0.conf <<C
[Match]
Namespace=nsrest-$$-pod-*
Name=eth0
[IGMP]
V3UnsolicitedReportInterval=150
C

qrv() { in_ns "$1" cat /proc/sys/net/ipv4/igmp_qrv; }
# The values found: not the kernel default (2), so that a write-back is told from nothing.
for ns in "$HOST" "$PODA" "$PODB"; do
        in_ns "$ns" sh -c 'echo 4 > /proc/sys/net/ipv4/igmp_qrv'
done

# crash: igmpd follows the pods and changes their knobs, then is killed (no stop, no write-back).
crash() {
        igmpd_start "$HOST"
        wait_until "[ \"\$(qrv $PODA)\" = 6 ] && [ \"\$(qrv $PODB)\" = 6 ]" ||
                fail "igmp_qrv in the pods is $(qrv "$PODA")/$(qrv "$PODB"), expected 6"
        [ "$(qrv "$HOST")" = 3 ] || fail "igmp_qrv in igmpd's own namespace is $(qrv "$HOST"), expected 3"
        expect_knob "$PODA" ipv4 eth0 $V3 150
        for ns in "$PODA" "$PODB"; do
                grep -qx "igmp_qrv=4/6" "$NETNS_DIR/$ns/namespace-originals" ||
                        fail "no record of $ns's igmp_qrv: $(cat "$NETNS_DIR/$ns/namespace-originals" 2>&1)"
        done
        kill -KILL "$T_IGMPD_PID"
        wait "$T_IGMPD_PID" 2>/dev/null || true
        T_IGMPD_PID=""
        [ "$(qrv "$PODA")" = 6 ] || fail "igmp_qrv in $PODA changed without igmpd"
}

# restore [ro]: igmpd --restore with the same --config-root; ro: /proc/sys read-only for it (a
# bind mount in the mount namespace ip netns exec makes for the command alone). Its exit status.
restore() {
        local rc=0
        if [ "${1:-}" = ro ]; then
                in_ns "$HOST" sh -c 'mount -o bind,ro /proc/sys /proc/sys && exec "$@"' sh \
                        "$IGMPD" --config-root "$T_ROOT" --restore > "$T_TMP/restore.out" 2>&1 || rc=$?
        else
                in_ns "$HOST" "$IGMPD" --config-root "$T_ROOT" --restore > "$T_TMP/restore.out" 2>&1 || rc=$?
        fi
        sed 's/^/# /' "$T_TMP/restore.out"
        return $rc
}

info "kill -9, then igmpd --restore: each namespace's igmp_qrv back, in its namespace; the records go"
crash
restore || fail "igmpd --restore failed: $(cat "$T_TMP/restore.out")"
[ "$(qrv "$HOST")" = 4 ] || fail "igmp_qrv in igmpd's own namespace is $(qrv "$HOST") after igmpd --restore, expected 4"
for ns in "$PODA" "$PODB"; do
        [ "$(qrv "$ns")" = 4 ] || fail "igmp_qrv in $ns is $(qrv "$ns") after igmpd --restore, expected 4 (the value found)"
        grep -q "^$ns: Set net.ipv4.igmp_qrv back to 4, the value found.$" "$T_TMP/restore.out" ||
                fail "igmpd --restore does not say it set $ns's igmp_qrv back: $(cat "$T_TMP/restore.out")"
        [ ! -e "$NETNS_DIR/$ns" ] || fail "$ns's record stayed after igmpd --restore: $(ls -A "$NETNS_DIR/$ns")"
done
expect_knob "$PODA" ipv4 eth0 $V3 1000
grep -q "^Restored 4 knob values.$" "$T_TMP/restore.out" || fail "expected 4 restored values: $(cat "$T_TMP/restore.out")"
[ ! -e "$T_ROOT/run/igmpd/namespace-originals" ] || fail "igmpd's own namespace's record stayed"

info "a failed write keeps the records; the same command run again completes"
crash
rc=0
restore ro || rc=$?
[ "$rc" = 1 ] || fail "igmpd --restore with /proc/sys read-only exited $rc, expected 1"
for ns in "$PODA" "$PODB"; do
        [ "$(qrv "$ns")" = 6 ] || fail "igmp_qrv in $ns is $(qrv "$ns") after a failed igmpd --restore"
        grep -q "^$ns: Failed to set net.ipv4.igmp_qrv back to 4, the value found: Read-only file system$" \
                "$T_TMP/restore.out" || fail "igmpd --restore does not say $ns's write failed: $(cat "$T_TMP/restore.out")"
        grep -qx "igmp_qrv=4/6" "$NETNS_DIR/$ns/namespace-originals" ||
                fail "$ns's record did not survive a failed write: $(cat "$NETNS_DIR/$ns/namespace-originals" 2>&1)"
done
[ -s "$NETNS_DIR/$PODA/originals" ] || fail "$PODA's record of its links did not survive a failed write"
[ -e "$T_ROOT/run/igmpd/namespace-originals" ] || fail "igmpd's own namespace's record did not survive a failed write"
restore || fail "igmpd --restore after a failed one failed: $(cat "$T_TMP/restore.out")"
for ns in "$HOST" "$PODA" "$PODB"; do
        [ "$(qrv "$ns")" = 4 ] || fail "igmp_qrv in $ns is $(qrv "$ns") after the second igmpd --restore, expected 4"
done
[ ! -e "$NETNS_DIR/$PODA" ] && [ ! -e "$NETNS_DIR/$PODB" ] || fail "records stayed after the second igmpd --restore"
expect_knob "$PODA" ipv4 eth0 $V3 1000

if grep -q "Assertion\|AddressSanitizer" "$T_LOG"; then fail "errors in the log"; fi
echo "PASS: $T_NAME"
