#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# igmpd keeps only the capabilities its configuration needs (issue 14 item 10), right after
# start, and says which it dropped:
#  1. as root with the default configuration: CAP_NET_ADMIN and CAP_AUDIT_READ (audit source)
#     only — not CAP_SYSLOG (no kmsg source on kernels ≥ 5.9), not CAP_AUDIT_CONTROL (AuditRule=no),
#     nothing else root has; the libc source still works (its helper child gets its own), and
#     the audit source still tells it is not in the initial network namespace;
#  2. with AuditSources=kmsg audit and AuditRule=yes: those four;
#  3. as the unit runs it — an unprivileged user with ambient CAP_NET_ADMIN CAP_SYSLOG
#     CAP_AUDIT_READ CAP_AUDIT_CONTROL — effective, permitted and ambient sets shrink the same way;
#  4. the same with capset(2) denied by a seccomp filter (the unit's SystemCallFilter=~@privileged):
#     igmpd lowers the ambient set and re-executes itself once (same pid), and still configures
#     its links; only the inheritable set, which capset(2) alone can change, keeps the rest;
#  5. a reload that turns on a source whose capability was dropped: inactive, and it says to
#     restart igmpd;
#  6. without CAP_NET_ADMIN at all: one warning naming what to change, not a line per write,
#     and a summary that counts the failed links apart from the unmanaged ones.
. "$(dirname "$0")/lib.sh"

DENY=$HELPERS/deny-syscall
[ -x "$DENY" ] || fail "helper missing: $DENY"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"

CAP_NET_ADMIN=$((1 << 12)) CAP_AUDIT_CONTROL=$((1 << 30)) CAP_SYSLOG=$((1 << 34)) CAP_AUDIT_READ=$((1 << 37))
capset_of() { # capset_of PID FIELD: CapEff, CapPrm, CapInh or CapAmb as a number
        echo $((16#$(awk -v f="$2:" '$1 == f { print $2 }' /proc/"$1"/status)))
}
expect_caps() { # expect_caps PID MASK WHAT [inheritable-kept]
        local f v
        for f in CapEff CapPrm CapAmb; do
                v=$(capset_of "$1" $f)
                [ "$f" = CapAmb ] && [ "$v" = 0 ] && continue # root has none; the unit's case checks below
                [ "$v" = "$2" ] || fail "$3: $f of igmpd is $(printf %x "$v"), expected $(printf %x "$2")"
        done
        v=$(capset_of "$1" CapInh)
        # Without capset(2) the inheritable set cannot shrink; without ambient or file
        # capabilities it gives nothing at exec.
        [ "${4:-}" = inheritable-kept ] || [ $((v & ~$2)) = 0 ] ||
                fail "$3: CapInh of igmpd is $(printf %x "$v"), more than $(printf %x "$2")"
        info "$3: CapEff/CapPrm $(printf %x "$2")"
}

conf_put 50-all.conf <<'CONF'
[Match]
Name=pv*

[IGMP]
V3UnsolicitedReportInterval=345
CONF
mkdir -p "$T_ROOT/etc/igmpd"
daemon_conf() { printf '[Daemon]\nNetworkManager=no\n%s\n' "$1" > "$T_ROOT/etc/igmpd/igmpd.conf"; }

NS=$(ns_new p)
veth_add "$NS" pv0 pv1

info "1. root, default configuration"
daemon_conf ""
igmpd_start "$NS"
expect_caps "$T_IGMPD_PID" $((CAP_NET_ADMIN | CAP_AUDIT_READ)) "root, defaults"
grep -qE "Dropped [0-9]+ capabilities this configuration does not need, keeping CAP_NET_ADMIN CAP_AUDIT_READ: .*CAP_SYS_ADMIN.*CAP_SYSLOG" "$T_LOG" ||
        fail "no log line naming the dropped capabilities: $(grep -i capabilit "$T_LOG")"
expect_knob "$NS" ipv4 pv0 igmpv3_unsolicited_report_interval 345
# Without CAP_SYS_PTRACE root's /proc/1/ns/net is out of reach: the audit source must still
# know it is not in the initial network namespace.
grep -q "Audit source audit is not active: not in the initial network namespace" "$T_LOG" ||
        fail "the audit source did not see it is in another network namespace: $(grep 'source audit' "$T_LOG")"
if [ -n "${IGMPD_BPF_HELPER:-}" ] && [ -x "$IGMPD_BPF_HELPER" ] && [ -r /sys/kernel/btf/vmlinux ]; then
        WAIT_SECS=60 wait_until "grep -qE 'Audit source libc is (active|not active)' '$T_LOG'" || fail "the libc source never settled"
        grep -q 'Audit source libc is active' "$T_LOG" ||
                fail "the libc source did not start after the drop: $(grep 'Audit source libc' "$T_LOG")"
        info "the libc source is active although igmpd dropped CAP_SYS_ADMIN and CAP_BPF"
fi

info "5. a reload that asks for the kmsg source (CAP_SYSLOG was dropped; dmesg_restrict $(cat /proc/sys/kernel/dmesg_restrict))"
if [ "$(cat /proc/sys/kernel/dmesg_restrict)" = 1 ] && [ -c /dev/kmsg ]; then
        daemon_conf "AuditSources=kmsg"
        igmpd_reload
        WAIT_SECS=20 wait_until "grep -q 'Audit source kmsg is not active: needs CAP_SYSLOG, which igmpd does not hold (dropped at start' '$T_LOG'" ||
                fail "the kmsg source does not say its capability was dropped: $(grep 'source kmsg' "$T_LOG")"
        kill -0 "$T_IGMPD_PID" || fail "igmpd died on the reload"
else
        info "skipped: /dev/kmsg is readable without CAP_SYSLOG here"
fi
igmpd_stop

info "2. AuditSources=kmsg audit, AuditRule=yes"
daemon_conf "$(printf 'AuditSources=kmsg audit\nAuditRule=yes')"
igmpd_start "$NS"
expect_caps "$T_IGMPD_PID" $((CAP_NET_ADMIN | CAP_AUDIT_READ | CAP_SYSLOG | CAP_AUDIT_CONTROL)) "root, kmsg audit AuditRule=yes"
igmpd_stop

# 3 and 4: as the unit runs it. The daemon writes below its config root as that user.
chmod 711 "$T_TMP"
chown -R nobody "$T_ROOT"
UNIT_CAPS=+net_admin,+syslog,+audit_read,+audit_control
as_unit() { # as_unit NAME [WRAPPER…]: igmpd as nobody with the unit's ambient capabilities
        local name=$1
        shift
        : > "$T_TMP/$name.log"
        ip netns exec "$NS" setpriv --reuid nobody --regid nogroup --clear-groups --inh-caps="$UNIT_CAPS" \
                --ambient-caps="$UNIT_CAPS" --bounding-set=-all,"$UNIT_CAPS" -- \
                env SYSTEMD_LOG_TARGET=console SYSTEMD_LOG_LEVEL=info "$@" "$IGMPD" --config-root "$T_ROOT" \
                >> "$T_TMP/$name.log" 2>&1 &
        T_IGMPD_PID=$!
        _T_PIDS+=("$T_IGMPD_PID")
        wait_until "grep -q 'links, ready' '$T_TMP/$name.log' || ! kill -0 $T_IGMPD_PID 2>/dev/null" ||
                fail "$name: igmpd did not become ready: $(tail -5 "$T_TMP/$name.log")"
        kill -0 "$T_IGMPD_PID" 2>/dev/null || fail "$name: igmpd exited: $(tail -5 "$T_TMP/$name.log")"
}
daemon_conf ""

info "3. unprivileged user with the unit's ambient capabilities"
ip -n "$NS" link set pv0 down
echo 1000 | in_ns "$NS" tee /proc/sys/net/ipv4/conf/pv0/igmpv3_unsolicited_report_interval > /dev/null
as_unit ambient
[ "$(capset_of "$T_IGMPD_PID" CapAmb)" = $((CAP_NET_ADMIN | CAP_AUDIT_READ)) ] ||
        fail "ambient: CapAmb $(printf %x "$(capset_of "$T_IGMPD_PID" CapAmb)")"
expect_caps "$T_IGMPD_PID" $((CAP_NET_ADMIN | CAP_AUDIT_READ)) "nobody + ambient"
grep -q "Dropped 2 capabilities this configuration does not need, keeping CAP_NET_ADMIN CAP_AUDIT_READ: CAP_AUDIT_CONTROL CAP_SYSLOG" "$T_TMP/ambient.log" ||
        fail "ambient: $(grep -i capabilit "$T_TMP/ambient.log")"
ip -n "$NS" link set pv0 up
expect_knob "$NS" ipv4 pv0 igmpv3_unsolicited_report_interval 345
igmpd_stop

info "4. the same with capset(2) denied by seccomp, as in the unit"
echo 1000 | in_ns "$NS" tee /proc/sys/net/ipv4/conf/pv0/igmpv3_unsolicited_report_interval > /dev/null
as_unit seccomp "$DENY" capset
pid_before=$T_IGMPD_PID
grep -q "^Seccomp:[[:space:]]*2" /proc/"$T_IGMPD_PID"/status || fail "seccomp: no filter on igmpd"
[ "$(capset_of "$T_IGMPD_PID" CapAmb)" = $((CAP_NET_ADMIN | CAP_AUDIT_READ)) ] ||
        fail "seccomp: CapAmb $(printf %x "$(capset_of "$T_IGMPD_PID" CapAmb)")"
expect_caps "$T_IGMPD_PID" $((CAP_NET_ADMIN | CAP_AUDIT_READ)) "nobody + ambient + capset denied" inheritable-kept
grep -q "Dropped 2 capabilities this configuration does not need (capset() is filtered: ambient capabilities lowered, igmpd re-executed), keeping CAP_NET_ADMIN CAP_AUDIT_READ: CAP_AUDIT_CONTROL CAP_SYSLOG" "$T_TMP/seccomp.log" ||
        fail "seccomp: $(grep -i capabilit "$T_TMP/seccomp.log")"
[ "$(grep -c 'links, ready' "$T_TMP/seccomp.log")" = 1 ] || fail "seccomp: igmpd became ready more than once"
[ "$T_IGMPD_PID" = "$pid_before" ] || fail "seccomp: the pid changed"
expect_knob "$NS" ipv4 pv0 igmpv3_unsolicited_report_interval 345
igmpd_stop

info "6. without CAP_NET_ADMIN: one warning that says what to change, not one per write"
conf_put 60-more.conf <<'CONF'
[Match]
Name=pv*

[IGMP]
V2UnsolicitedReportInterval=2345
[MLD]
V2UnsolicitedReportInterval=345
CONF
: > "$T_TMP/nocap.log"
ip netns exec "$NS" setpriv --reuid nobody --regid nogroup --clear-groups --inh-caps=-all --bounding-set=-all -- \
        env SYSTEMD_LOG_TARGET=console SYSTEMD_LOG_LEVEL=info "$IGMPD" --config-root "$T_ROOT" >> "$T_TMP/nocap.log" 2>&1 &
T_IGMPD_PID=$!
_T_PIDS+=("$T_IGMPD_PID")
wait_until "grep -q 'links, ready' '$T_TMP/nocap.log' || ! kill -0 $T_IGMPD_PID 2>/dev/null" ||
        fail "nocap: igmpd did not become ready: $(tail -5 "$T_TMP/nocap.log")"
kill -0 "$T_IGMPD_PID" 2>/dev/null || fail "nocap: igmpd exited: $(tail -5 "$T_TMP/nocap.log")"
# 2 links × 3 knobs refused (lo is not touched): one warning naming the fix, nothing per write.
[ "$(grep -c 'was refused' "$T_TMP/nocap.log")" = 1 ] || fail "nocap: not one warning: $(cat "$T_TMP/nocap.log")"
grep -qE "^pv[01]: Writing /proc/sys/net/ipv[46]/conf/pv[01]/[a-z0-9_]+ was refused \(Permission denied\): igmpd needs CAP_NET_ADMIN in this network namespace" "$T_TMP/nocap.log" ||
        fail "nocap: the warning does not say what to change: $(cat "$T_TMP/nocap.log")"
! grep -q 'Failed to set' "$T_TMP/nocap.log" || fail "nocap: a line per write: $(grep 'Failed to set' "$T_TMP/nocap.log")"
grep -qx 'Configured 0 of 2 links, ready; 2 failed (writes refused, see above); 1 unmanaged (no source sets any of its knobs).' "$T_TMP/nocap.log" ||
        fail "nocap: summary: $(grep Configured "$T_TMP/nocap.log")"
igmpd_stop
echo "PASS: $T_NAME"
