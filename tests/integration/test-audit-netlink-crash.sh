#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# AuditRule=yes after a crash. igmpd adds the sysctl(2) audit rule and switches auditing on;
# killed with SIGKILL it cannot undo that, so it records what it changed
# (ROOT/run/igmpd/audit-changes). The next start takes the rule and flag over when it wants them
# (AuditRule=yes: removed at its clean stop), or undoes them at once (AuditRule=no, or the audit
# source off). Each time the host's audit state is compared byte for byte with the one before
# the test, and the test puts it back itself if igmpd did not (trap).
#
# Audit is host-wide and its records exist only in the initial network namespace: igmpd runs in
# the host's, with no policy file (it writes no knob), under the host-wide test lock.
. "$(dirname "$0")/lib.sh"

AUDIT_STATE=$HELPERS/audit-state
[ -x "$AUDIT_STATE" ] || fail "audit-state helper missing in $HELPERS"
[ "$(cat /proc/2/comm 2>/dev/null)" = kthreadd ] || skip "cannot tell the initial network namespace (no kthreadd at pid 2)"
[ "$(stat -L -c %i /proc/self/ns/net)" = "$(stat -L -c %i /proc/2/ns/net)" ] ||
        skip "not in the initial network namespace, where the kernel sends audit records"
hostwide_lock
rc=0
"$AUDIT_STATE" show > "$T_TMP/audit-before" 2> "$T_TMP/audit-err" || rc=$?
[ $rc = 0 ] || { [ $rc = 77 ] && skip "no audit here: $(cat "$T_TMP/audit-err")"; fail "audit-state: $(cat "$T_TMP/audit-err")"; }
ENABLED_BEFORE=$(head -1 "$T_TMP/audit-before" | cut -d' ' -f2)
[ "$ENABLED_BEFORE" != 2 ] || skip "the host's audit configuration is locked (enabled=2)"
[ "$("$AUDIT_STATE" count-key igmpd-sysctl)" = 0 ] ||
        skip "an igmpd-sysctl audit rule is already loaded on this host (not igmpd's): igmpd adds none, a crash leaves nothing"
info "audit before: enabled=$ENABLED_BEFORE, $(($(wc -l < "$T_TMP/audit-before") - 1)) rules"
CHANGES=$T_ROOT/run/igmpd/audit-changes

host_igmpd_start() {
        local before
        touch "$T_LOG"
        before=$(grep -c 'links, ready' "$T_LOG" || true)
        SYSTEMD_LOG_TARGET=console SYSTEMD_LOG_LEVEL=debug "$IGMPD" --config-root "$T_ROOT" >> "$T_LOG" 2>&1 &
        T_IGMPD_PID=$!
        _T_PIDS+=("$T_IGMPD_PID")
        wait_until "[ \$(grep -c 'links, ready' '$T_LOG' || true) -gt $before ] || ! kill -0 $T_IGMPD_PID 2>/dev/null" ||
                fail "igmpd did not become ready"
        kill -0 "$T_IGMPD_PID" 2>/dev/null || fail "igmpd exited during start-up"
}
host_igmpd_kill() {
        kill -KILL "$T_IGMPD_PID"
        wait "$T_IGMPD_PID" 2>/dev/null || true
        T_IGMPD_PID=""
}
same_as_before() { # same_as_before WHEN
        "$AUDIT_STATE" show > "$T_TMP/audit-now"
        cmp -s "$T_TMP/audit-before" "$T_TMP/audit-now" ||
                fail "$1: audit state differs: before $(cat "$T_TMP/audit-before"); now $(cat "$T_TMP/audit-now")"
}
daemon_conf() { # daemon_conf SOURCES RULE
        mkdir -p "$T_ROOT/etc/igmpd"
        printf '[Daemon]\nAuditSources=%s\nAuditRule=%s\nNetworkManager=no\n' "$1" "$2" > "$T_ROOT/etc/igmpd/igmpd.conf"
}
# igmpd with AuditRule=yes, then SIGKILL: the rule and the enabled flag stay, and the record.
crash_with_rule() {
        daemon_conf audit yes
        host_igmpd_start
        grep -q 'Added audit rule -a always,exit -F arch=b64 -S 156 -k igmpd-sysctl' "$T_LOG" || fail "rule not added"
        [ "$("$AUDIT_STATE" enabled)" = 1 ] || fail "auditing is not enabled while igmpd runs"
        grep -qx 'rule b64' "$CHANGES" || fail "the b64 rule is not recorded: $(cat "$CHANGES" 2>&1)"
        if [ "$ENABLED_BEFORE" = 0 ]; then
                grep -qx 'enabled-before 0' "$CHANGES" || fail "the enabled flag is not recorded: $(cat "$CHANGES")"
        fi
        host_igmpd_kill
        [ "$("$AUDIT_STATE" count-key igmpd-sysctl)" -ge 1 ] || fail "no rule left after SIGKILL (nothing to test)"
}

# Runs before lib.sh's cleanup, whatever happens: stop igmpd (it removes its rules), then put
# back anything left behind.
audit_restore() {
        set +e
        if [ -n "${T_IGMPD_PID:-}" ]; then
                kill -TERM "$T_IGMPD_PID" 2>/dev/null
                for _ in $(seq 100); do kill -0 "$T_IGMPD_PID" 2>/dev/null || break; sleep 0.05; done
                kill -KILL "$T_IGMPD_PID" 2>/dev/null
                wait "$T_IGMPD_PID" 2>/dev/null
                T_IGMPD_PID=""
        fi
        "$AUDIT_STATE" show > "$T_TMP/audit-final"
        if ! cmp -s "$T_TMP/audit-before" "$T_TMP/audit-final"; then
                echo "# audit state differs from before the test, restoring it" >&2
                "$AUDIT_STATE" del-key igmpd-sysctl
                "$AUDIT_STATE" set-enabled "$ENABLED_BEFORE"
        fi
}
trap '_rc=$?; audit_restore; (exit $_rc); _t_cleanup' EXIT
[ -z "$(find "$T_ROOT" -name '*.conf' -path '*/conf.d/*')" ] || fail "the config root must hold no policy file"

info "SIGKILL, restart with AuditRule=yes: the rule and the flag are taken over, removed at the stop"
crash_with_rule
host_igmpd_start
grep -q 'arch=b64 was added by an igmpd that did not stop cleanly: taken over' "$T_LOG" ||
        fail "the rule left by the crash was not taken over"
igmpd_stop
same_as_before "after the clean stop that followed the crash"
[ ! -e "$CHANGES" ] || fail "$CHANGES left after a clean stop: $(cat "$CHANGES")"

info "SIGKILL, restart with AuditRule=no: undone at start"
crash_with_rule
daemon_conf audit no
host_igmpd_start
same_as_before "right after a start with AuditRule=no"
[ ! -e "$CHANGES" ] || fail "$CHANGES left after undoing it: $(cat "$CHANGES")"
igmpd_stop
same_as_before "after the stop"

info "SIGKILL, restart with the audit source off: undone at start"
crash_with_rule
daemon_conf none no
host_igmpd_start
same_as_before "right after a start with AuditSources=none"
[ ! -e "$CHANGES" ] || fail "$CHANGES left after undoing it: $(cat "$CHANGES")"
igmpd_stop
same_as_before "after the stop"
! grep -qE ': Set [a-z0-9_]+=' "$T_LOG" || fail "igmpd wrote a knob: $(grep -E ': Set ' "$T_LOG")"
echo "PASS: $T_NAME (audit state as before after each crash: enabled=$ENABLED_BEFORE)"
