#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# When no audit source can see a deprecated sysctl(2) call, igmpd says so plainly — at info
# level in its log, in the Audit property Coverage, in igmpctl audit and igmpctl kernel — with
# what to change; an empty audit must not read as "nothing calls sysctl(2)". Here igmpd runs in
# a network namespace, where the audit source cannot run, with AuditSources=audit only: no
# source can see anything. A reload that turns on the kernel log source (a test stream) makes
# the warning go away.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
need_jq
dbus_start
export LC_ALL=C.UTF-8
unset SYSTEMD_COLORS NO_COLOR

NS=$(ns_new cov)
mkdir -p "$T_ROOT/etc/igmpd"
printf '[Daemon]\nAuditSources=audit\nNetworkManager=no\n' > "$T_ROOT/etc/igmpd/igmpd.conf"
: > "$T_TMP/kmsg"
IGMPD_LOG_LEVEL=info igmpd_start "$NS" --kmsg-path "$T_TMP/kmsg"
igmpd_wait_bus
AUD=(org.igmpd1 /org/igmpd1 org.igmpd1.Audit)

info "nothing can see a call: the daemon says it at info level"
grep -qx 'Deprecated sysctl(2) audit: no source can see a call on this system. To see them: add libc to AuditSources= (BPF: programs that call glibc'"'"'s sysctl(); needs the igmpd-bpf helper); or add syscall to AuditSources= (BPF: every caller, at a cost to every system call).' "$T_LOG" ||
        fail "no info line saying nothing can see a call: $(grep -i audit "$T_LOG")"
expect_out '^\(ss\) "none" "To see them: add libc to AuditSources=' bctl get-property "${AUD[@]}" Coverage

info "igmpctl audit and kernel say it, with what to change"
"$IGMPCTL" audit > "$T_TMP/audit" || fail "igmpctl audit failed"
[ "$(head -n1 "$T_TMP/audit")" = "No events." ] || fail "audit: $(cat "$T_TMP/audit")"
grep -qx 'No audit source can see a deprecated sysctl(2) call here: igmpctl audit stays empty whatever programs call it.' "$T_TMP/audit" ||
        fail "igmpctl audit does not say nothing can see a call: $(cat "$T_TMP/audit")"
grep -q '^To see them: add libc to AuditSources=' "$T_TMP/audit" || fail "igmpctl audit gives no fix: $(cat "$T_TMP/audit")"
"$IGMPCTL" kernel > "$T_TMP/kernel" || fail "igmpctl kernel failed"
grep -qx 'Audit sources: none active' "$T_TMP/kernel" || fail "kernel: $(cat "$T_TMP/kernel")"
grep -q '^No audit source can see a deprecated sysctl(2) call here' "$T_TMP/kernel" ||
        fail "igmpctl kernel does not say nothing can see a call: $(cat "$T_TMP/kernel")"
"$IGMPCTL" --json=short kernel > "$T_TMP/kernel.json"
jq_true "$T_TMP/kernel.json" '.audit_coverage == "none" and (.audit_advice | startswith("To see them: "))'
# JSON on stdout stays JSON; the warning goes to stderr there.
"$IGMPCTL" --json=short audit > "$T_TMP/audit.json" 2> "$T_TMP/audit.err"
jq_true "$T_TMP/audit.json" 'length == 0'
grep -q '^No audit source can see' "$T_TMP/audit.err" || fail "audit --json: no warning on stderr: $(cat "$T_TMP/audit.err")"

info "a reload that turns on a source that sees calls: the warning goes"
printf '[Daemon]\nAuditSources=kmsg audit\nNetworkManager=no\n' > "$T_ROOT/etc/igmpd/igmpd.conf"
"$IGMPCTL" reload || fail "reload failed"
wait_until "bctl get-property ${AUD[*]} Coverage | grep -q '\"some\"'" ||
        fail "Coverage after the reload: $(bctl get-property "${AUD[@]}" Coverage)"
grep -qx 'Deprecated sysctl(2) audit: calls can be seen now.' "$T_LOG" || fail "no log line when it changed: $(grep -i 'audit' "$T_LOG")"
"$IGMPCTL" audit > "$T_TMP/audit" || fail "igmpctl audit failed"
[ "$(cat "$T_TMP/audit")" = "No events." ] || fail "audit still warns: $(cat "$T_TMP/audit")"
"$IGMPCTL" kernel | grep -q 'can see' && fail "kernel still warns: $("$IGMPCTL" kernel)"
igmpd_alive
echo "PASS: $T_NAME"
