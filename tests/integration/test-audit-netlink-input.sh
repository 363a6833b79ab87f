#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What the audit source takes from its socket:
#  - only the kernel speaks for audit: a SYSCALL record another process sends to igmpd's audit
#    socket (any process with CAP_NET_ADMIN can: tests/helpers/audit-forge.py) makes no event;
#  - a receive error that persists (here: recvfrom(2) failing with EPERM under a seccomp
#    filter, while a message waits in the socket) pauses the source and retries less and less
#    often, with one warning, instead of spinning and logging for ever.
#
# The kernel multicasts audit records only in the initial network namespace, so igmpd runs in
# the host's, with no policy file (it writes no knob) and AuditRule=no (it changes nothing in
# the audit configuration).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"

FORGE=$SRCDIR/tests/helpers/audit-forge.py
DENY=$HELPERS/deny-syscall
[ -x "$DENY" ] || fail "deny-syscall helper missing in $HELPERS"
command -v python3 > /dev/null || skip "python3 is not installed"
[ "$(uname -m)" = x86_64 ] || skip "deny-syscall knows x86_64 system call numbers only"
[ "$(cat /proc/2/comm 2>/dev/null)" = kthreadd ] || skip "cannot tell the initial network namespace (no kthreadd at pid 2)"
[ "$(stat -L -c %i /proc/self/ns/net)" = "$(stat -L -c %i /proc/2/ns/net)" ] ||
        skip "not in the initial network namespace, where the kernel sends audit records"

mkdir -p "$T_ROOT/etc/igmpd"
printf '[Daemon]\nAuditSources=audit\nAuditRule=no\nNetworkManager=no\n' > "$T_ROOT/etc/igmpd/igmpd.conf"
[ -z "$(find "$T_ROOT" -name '*.conf' -path '*/conf.d/*')" ] || fail "the config root must hold no policy file"

host_igmpd_start() { # host_igmpd_start [WRAPPER…]
        local before
        touch "$T_LOG"
        before=$(grep -c 'links, ready' "$T_LOG" || true)
        SYSTEMD_LOG_TARGET=console SYSTEMD_LOG_LEVEL=debug "$@" "$IGMPD" --config-root "$T_ROOT" >> "$T_LOG" 2>&1 &
        T_IGMPD_PID=$!
        _T_PIDS+=("$T_IGMPD_PID")
        wait_until "[ \$(grep -c 'links, ready' '$T_LOG' || true) -gt $before ] || ! kill -0 $T_IGMPD_PID 2>/dev/null" ||
                fail "igmpd did not become ready"
        kill -0 "$T_IGMPD_PID" 2>/dev/null || fail "igmpd exited during start-up"
        grep -q 'audit active' "$T_LOG" || skip "the audit source is not active here: $(grep 'Audit source audit' "$T_LOG" | tail -n 1)"
}

info "a SYSCALL record sent by a process, not the kernel, is no event"
dbus_start
host_igmpd_start
igmpd_wait_bus
AUD=(org.igmpd1 /org/igmpd1 org.igmpd1.Audit)
FAKE_PID=4194303
port=$(python3 "$FORGE" "$T_IGMPD_PID" "$FAKE_PID") || fail "could not send to igmpd's audit socket"
info "sent a forged record to igmpd's audit socket (port $port)"
# Either igmpd says it ignored it, or (the defect) the event shows up: wait for one of them.
wait_until "grep -q 'not sent by the kernel' '$T_LOG' || bctl call ${AUD[*]} ListEvents | grep -q '$FAKE_PID'" ||
        fail "igmpd neither ignored nor took the forged record"
! bctl call "${AUD[@]}" ListEvents | grep -q "$FAKE_PID" || fail "a forged record became an event: $(bctl call "${AUD[@]}" ListEvents)"
! grep -q "pid $FAKE_PID" "$T_LOG" || fail "a forged record was logged as a deprecated sysctl(2) call"
igmpd_stop

info "recvfrom(2) fails for good while a message waits: one warning, then retries less and less often"
: > "$T_LOG"
host_igmpd_start "$DENY" recvfrom
python3 "$FORGE" "$T_IGMPD_PID" "$FAKE_PID" > /dev/null || fail "could not send to igmpd's audit socket"
failures() { grep -c 'Failed to read audit records' "$T_LOG" || true; }
retries() { grep -c 'Trying again to read audit records' "$T_LOG" || true; }
# Three retries (0.1 + 0.2 + 0.4 s of pauses), or (the defect) a flood of error lines.
WAIT_SECS=60 wait_until "[ \$(retries) -ge 3 ] || [ \$(failures) -ge 200 ]" ||
        fail "neither retries nor errors: $(tail -n 5 "$T_LOG")"
[ "$(grep -c 'Failed to read audit records.*pausing the audit source' "$T_LOG" || true)" = 1 ] ||
        fail "expected one warning, got $(failures) lines: $(grep 'Failed to read audit records' "$T_LOG" | sort | uniq -c | head -n 3)"
kill -0 "$T_IGMPD_PID" 2>/dev/null || fail "igmpd died"
igmpd_stop
echo "PASS: $T_NAME"
