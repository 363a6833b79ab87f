#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Deprecated sysctl(2) audit, Linux audit source, on this machine's kernel (≥ 5.9: the syscall is
# gone, only audit sees it). With AuditRule=yes igmpd loads the rule and enables auditing; a
# helper calling syscall(156, …) must produce a DeprecatedSysctl signal with the helper's pid,
# comm and exe within a second; five calls in a row are coalesced. On exit igmpd removes exactly
# what it added: the audit state (enabled flag, rule list) is compared byte for byte with the
# one before the test, and restored by the test itself if igmpd failed to (trap). Coverage says
# "some" then; with AuditRule=no it says "uncertain" with what to change, at info level in the
# log and in igmpctl audit.
#
# The kernel multicasts audit records only in the initial network namespace, so igmpd runs in
# the host's: it then sees the host's links too. It gets a config root without any policy file
# (and NetworkManager=no), so it has nothing to write: the test checks that not one of the
# host's igmpd knobs changed and that igmpd logged no write.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"

AUDIT_STATE=$HELPERS/audit-state
CALL=$HELPERS/call-sysctl
[ -x "$AUDIT_STATE" ] && [ -x "$CALL" ] || fail "helpers missing in $HELPERS"
[ "$(uname -m)" = x86_64 ] || skip "the test calls sysctl(2) by its x86_64 number"
[ "$(cat /proc/2/comm 2>/dev/null)" = kthreadd ] || skip "cannot tell the initial network namespace (no kthreadd at pid 2)"
[ "$(stat -L -c %i /proc/self/ns/net)" = "$(stat -L -c %i /proc/2/ns/net)" ] ||
        skip "not in the initial network namespace, where the kernel sends audit records"
hostwide_lock
rc=0
"$AUDIT_STATE" show > "$T_TMP/audit-before" 2> "$T_TMP/audit-err" || rc=$?
[ $rc = 0 ] || { [ $rc = 77 ] && skip "no audit here: $(cat "$T_TMP/audit-err")"; fail "audit-state: $(cat "$T_TMP/audit-err")"; }
ENABLED_BEFORE=$(head -1 "$T_TMP/audit-before" | cut -d' ' -f2)
[ "$ENABLED_BEFORE" != 2 ] || skip "the host's audit configuration is locked (enabled=2)"
KEY_RULES_BEFORE=$("$AUDIT_STATE" count-key igmpd-sysctl)
info "audit before: enabled=$ENABLED_BEFORE, $(($(wc -l < "$T_TMP/audit-before") - 1)) rules ($KEY_RULES_BEFORE with key igmpd-sysctl)"

# The host's igmpd knobs, to prove igmpd wrote none of them.
knobs_snapshot() {
        local f
        for f in /proc/sys/net/ipv4/conf/*/{igmpv2_unsolicited_report_interval,igmpv3_unsolicited_report_interval,force_igmp_version} \
                 /proc/sys/net/ipv6/conf/*/{mldv1_unsolicited_report_interval,mldv2_unsolicited_report_interval,force_mld_version}; do
                [ -e "$f" ] && echo "$f $(cat "$f")"
        done
}
knobs_snapshot > "$T_TMP/knobs-before"

# Runs before lib.sh's cleanup, whatever happens: stop igmpd (it removes its rules), then put
# back anything it left behind.
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
                [ "$KEY_RULES_BEFORE" = 0 ] && "$AUDIT_STATE" del-key igmpd-sysctl
                "$AUDIT_STATE" set-enabled "$ENABLED_BEFORE"
        fi
}
trap '_rc=$?; audit_restore; (exit $_rc); _t_cleanup' EXIT

dbus_start
mkdir -p "$T_ROOT/etc/igmpd"
cat > "$T_ROOT/etc/igmpd/igmpd.conf" <<'CONF'
[Daemon]
AuditSources=audit
AuditRule=yes
NetworkManager=no
CONF
[ -z "$(find "$T_ROOT" -name '*.conf' -path '*/conf.d/*')" ] || fail "the config root must hold no policy file"

info "igmpd in the host network namespace, no policy"
touch "$T_LOG"
SYSTEMD_LOG_TARGET=console SYSTEMD_LOG_LEVEL=debug "$IGMPD" --config-root "$T_ROOT" >> "$T_LOG" 2>&1 &
T_IGMPD_PID=$!
_T_PIDS+=("$T_IGMPD_PID")
wait_until "grep -q 'links, ready' '$T_LOG' || ! kill -0 $T_IGMPD_PID 2>/dev/null" || fail "igmpd did not become ready"
kill -0 "$T_IGMPD_PID" 2>/dev/null || fail "igmpd exited during start-up"
igmpd_wait_bus
AUD=(org.igmpd1 /org/igmpd1 org.igmpd1.Audit)
expect_out '^as 1 "audit"$' bctl get-property "${AUD[@]}" Sources
# With its rule loaded the audit source sees calls: nothing to warn about.
expect_out '^\(ss\) "some" ""$' bctl get-property "${AUD[@]}" Coverage
grep -q 'Added audit rule -a always,exit -F arch=b64 -S 156 -k igmpd-sysctl' "$T_LOG" ||
        { [ "$KEY_RULES_BEFORE" != 0 ] && grep -q 'arch=b64 is already loaded' "$T_LOG"; } || fail "rule not added"
[ "$("$AUDIT_STATE" enabled)" = 1 ] || fail "auditing is not enabled while igmpd runs"
[ "$("$AUDIT_STATE" count-key igmpd-sysctl)" -ge 1 ] || fail "no igmpd-sysctl rule loaded while igmpd runs"

busctl --system monitor --match "type='signal',interface='org.igmpd1.Audit',member='DeprecatedSysctl'" \
        > "$T_TMP/signals" 2>&1 &
_T_PIDS+=($!)
sleep 0.5

info "one sysctl(2) call → one signal with pid, comm, exe within a second"
t0=$(date +%s%N)
out=$("$CALL" 3.5.16.-2.17)
pid=$(sed -n 's/^pid \([0-9]*\) .*/\1/p' <<< "$out")
[ -n "$pid" ] || fail "call-sysctl printed '$out'"
grep -q 'errno 38' <<< "$out" || info "note: sysctl(2) did not fail with ENOSYS here: $out"
found=""
for _ in $(seq 200); do
        if grep -q "UINT32 $pid;" "$T_TMP/signals"; then
                found=$(date +%s%N)
                break
        fi
        sleep 0.005
done
[ -n "$found" ] || fail "no DeprecatedSysctl signal for pid $pid within a second: $(cat "$T_TMP/signals")"
LATENCY_MS=$(((found - t0) / 1000000))
info "signal for pid $pid after $LATENCY_MS ms (call to signal seen by busctl monitor)"
[ "$LATENCY_MS" -lt 1000 ] || fail "signal took $LATENCY_MS ms"
EXE=$(readlink -f "$CALL")
sig=$(cat "$T_TMP/signals")
grep -q 'STRING "audit";' <<< "$sig" || fail "signal source: $sig"
grep -q 'STRING "call-sysctl";' <<< "$sig" || fail "signal comm: $sig"
grep -qF "STRING \"$EXE\";" <<< "$sig" || fail "signal exe (want $EXE): $sig"
grep -qE "Deprecated sysctl\(2\) call: process 'call-sysctl' \(pid $pid, exe $EXE\)" "$T_LOG" || fail "log line for pid $pid"
expect_out "\"audit\" $pid \"call-sysctl\" \"$EXE\" 0 \"\" 1" bctl call "${AUD[@]}" ListEvents

info "five calls in a row → one event at once, one with repeats 4 a second later"
out=$("$CALL" 1.4 5)
pid2=$(sed -n '1s/^pid \([0-9]*\) .*/\1/p' <<< "$out")
WAIT_SECS=3 wait_until "[ \$(bctl call ${AUD[*]} ListEvents | grep -o '\"audit\" $pid2 ' | wc -l) -ge 2 ]" ||
        fail "coalesced events for $pid2: $(bctl call "${AUD[@]}" ListEvents)"
ev=$(bctl call "${AUD[@]}" ListEvents)
expect_out "\"audit\" $pid2 \"call-sysctl\" \"$EXE\" 0 \"\" 1 [0-9]+ \"audit\" $pid2 \"call-sysctl\" \"$EXE\" 0 \"\" 4$" \
        bctl call "${AUD[@]}" ListEvents
sleep 1.1
[ "$(bctl call "${AUD[@]}" ListEvents | grep -o "\"audit\" $pid2 " | wc -l)" = 2 ] || fail "more than 2 events for 5 calls: $ev"

info "stop: the audit state is exactly as before"
kill -TERM "$T_IGMPD_PID"
wait "$T_IGMPD_PID" 2>/dev/null || true
T_IGMPD_PID=""
"$AUDIT_STATE" show > "$T_TMP/audit-after"
cmp -s "$T_TMP/audit-before" "$T_TMP/audit-after" ||
        fail "audit state changed: before $(cat "$T_TMP/audit-before") after $(cat "$T_TMP/audit-after")"
info "audit state restored (enabled=$ENABLED_BEFORE)"

info "AuditRule=no: the audit source listens, but igmpd cannot tell whether anything loaded a rule"
sed -i 's/^AuditRule=yes$/AuditRule=no/' "$T_ROOT/etc/igmpd/igmpd.conf"
: > "$T_TMP/norule.log"
SYSTEMD_LOG_TARGET=console SYSTEMD_LOG_LEVEL=info "$IGMPD" --config-root "$T_ROOT" >> "$T_TMP/norule.log" 2>&1 &
T_IGMPD_PID=$!
_T_PIDS+=("$T_IGMPD_PID")
wait_until "grep -q 'links, ready' '$T_TMP/norule.log' || ! kill -0 $T_IGMPD_PID 2>/dev/null" || fail "igmpd did not become ready"
igmpd_wait_bus
expect_out '^\(ss\) "uncertain" "To see them: AuditRule=yes in /etc/igmpd/igmpd.conf' bctl get-property "${AUD[@]}" Coverage
# Said at info level (the daemon runs at info here), with what to change.
grep -q 'Deprecated sysctl(2) audit: only the audit source could see a call, and only if an audit rule for it is loaded, which igmpd did not do (AuditRule=no). To see them: AuditRule=yes' "$T_TMP/norule.log" ||
        fail "no info line about the missing rule: $(cat "$T_TMP/norule.log")"
"$IGMPCTL" audit > "$T_TMP/audit-norule" || fail "igmpctl audit failed"
grep -q '^Only the audit source could see a deprecated sysctl(2) call, and only if an audit rule for it is loaded' "$T_TMP/audit-norule" ||
        fail "igmpctl audit does not say it: $(cat "$T_TMP/audit-norule")"
kill -TERM "$T_IGMPD_PID"
wait "$T_IGMPD_PID" 2>/dev/null || true
T_IGMPD_PID=""
"$AUDIT_STATE" show > "$T_TMP/audit-after"
cmp -s "$T_TMP/audit-before" "$T_TMP/audit-after" || fail "AuditRule=no changed the audit state"

knobs_snapshot > "$T_TMP/knobs-after"
cmp -s "$T_TMP/knobs-before" "$T_TMP/knobs-after" || fail "host knobs changed: $(diff "$T_TMP/knobs-before" "$T_TMP/knobs-after")"
! grep -qE ': Set [a-z0-9_]+=' "$T_LOG" || fail "igmpd wrote a knob: $(grep -E ': Set ' "$T_LOG")"
info "no host knob written ($(wc -l < "$T_TMP/knobs-before") checked)"
