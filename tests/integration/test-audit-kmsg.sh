#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Deprecated sysctl(2) audit, kernel log source. A stream of /dev/kmsg-format records fed
# through --kmsg-path (a FIFO) with: a whole warning, one split into continuation records, an
# EPIPE-style gap (sequence jump) that cuts a split warning, a record of user facility (never an
# event), an escaped comm, and a flood that is coalesced. Events are checked in the log, as the
# DeprecatedSysctl signal and through ListEvents on a private bus. A reload shrinks the history
# (AuditHistory=) and stops and restarts the source (AuditSources=). A restart (reading a regular
# file holding the old records and one new) publishes only the new one: the last sequence
# number handled is kept in /run/igmpd/kmsg-seq. That cursor is written lazily: a burst of
# non-matching records costs at most a write or two (counted with strace when there is one, and
# in the debug log), a record that made an event is saved at once (so neither a clean stop nor a
# SIGKILL publishes it twice), a clean stop saves the last seq, and once saved no timer is left
# (no wake-ups when idle). Finally, against the real /dev/kmsg: a record a process writes there
# (facility user) is read but never published.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
dbus_start

NS=$(ns_new akmsg)
FIFO=$T_TMP/kmsg.fifo
mkfifo "$FIFO"
mkdir -p "$T_ROOT/etc/igmpd"
cat > "$T_ROOT/etc/igmpd/igmpd.conf" <<'CONF'
[Daemon]
AuditSources=kmsg
NetworkManager=no
CONF
AUD=(org.igmpd1 /org/igmpd1 org.igmpd1.Audit)
SEQ_FILE=$T_ROOT/run/igmpd/kmsg-seq

events() { bctl call "${AUD[@]}" ListEvents; }
# Lines of the log announcing an event for COMM.
event_lines() { grep -F "Deprecated sysctl(2) call: process '$1'" "$T_LOG" || true; }

igmpd_start "$NS" --kmsg-path "$FIFO"
igmpd_wait_bus
expect_out '^as 1 "kmsg"$' bctl get-property "${AUD[@]}" Sources
busctl --system monitor --match "type='signal',interface='org.igmpd1.Audit',member='DeprecatedSysctl'" \
        > "$T_TMP/signals" 2>&1 &
_T_PIDS+=($!)
sleep 0.5 # let the monitor subscribe

info "kernel log stream: whole, split, gap, foreign facility, escaped comm"
# printf: %s keeps the backslashes of kmsg's \xNN escapes as they are.
{
        printf '%s\n' "4,1,1000,-;warning: process \`mcastd' used the deprecated sysctl system call with 3.5.16.-2.17."
        printf '%s\n' " SUBSYSTEM=ignored-dictionary-line"
        printf '%s\n' "4,2,1001,-;warning: process \`split' used the deprecated "
        printf '%s\n' "4,3,1001,c;sysctl system call with 1.4."
        # 4 … 9 were overwritten (EPIPE); 10 is whole, 11 starts a warning whose rest (12) is lost
        printf '%s\n' "4,10,1010,-;warning: process \`aftergap' used the deprecated sysctl system call with 1.1."
        printf '%s\n' "4,11,1011,-;warning: process \`cut' used the deprecated "
        printf '%s\n' "4,13,1012,c;sysctl system call with 1.4."
        # facility 1 (user): what a process writing to /dev/kmsg gets
        printf '%s\n' "12,14,1013,-;warning: process \`forged' used the deprecated sysctl system call with 1.4."
        printf '%s\n' "4,15,1014,-;warning: process \`we\\x20ird\\xff' used the deprecated sysctl system call with 3.5.16.-3.17."
} > "$FIFO"
WAIT_SECS=5 wait_until "[ -n \"\$(event_lines 'we ird\\xff')\" ]" || fail "no event for the escaped comm"
[ "$(event_lines mcastd | grep -c '3.5.16.-2.17. = /proc/sys/net/ipv4/conf/all/force_igmp_version (source kmsg, 1 call)')" = 1 ] ||
        fail "whole warning: $(event_lines mcastd)"
[ "$(event_lines split | grep -c '1.4. = /proc/sys/kernel/version')" = 1 ] || fail "split warning not joined: $(event_lines split)"
[ "$(event_lines aftergap | grep -c '1.1. = /proc/sys/kernel/ostype')" = 1 ] || fail "record after the gap: $(event_lines aftergap)"
[ -z "$(event_lines cut)" ] || fail "a warning cut by lost records was published: $(event_lines cut)"
[ -z "$(event_lines forged)" ] || fail "a user-facility record was published: $(event_lines forged)"
grep -q '6 kernel log records were lost' "$T_LOG" || fail "the gap 3→10 was not counted"
grep -q 'kernel log record was lost before igmpd could read it (7 in total)' "$T_LOG" || fail "the gap 11→13 was not counted"
event_lines 'we ird\xff' | grep -qF '3.5.16.-3.17. = /proc/sys/net/ipv4/conf/default/force_igmp_version' ||
        fail "escaped comm event: $(event_lines 'we ird')"

info "coalescing: 4 identical warnings at once → one event now, one with repeats 3 a second later"
{
        for s in 16 17 18 19; do
                printf '%s\n' "4,$s,2000,-;warning: process \`flood' used the deprecated sysctl system call with 1.4."
        done
} > "$FIFO"
WAIT_SECS=3 wait_until "[ \$(event_lines flood | wc -l) -ge 2 ]" || fail "flood: $(event_lines flood)"
sleep 1.2
[ "$(event_lines flood | wc -l)" = 2 ] || fail "flood published $(event_lines flood | wc -l) events: $(event_lines flood)"
event_lines flood | head -1 | grep -q '(source kmsg, 1 call)' || fail "flood first: $(event_lines flood)"
event_lines flood | tail -1 | grep -q '(source kmsg, 3 calls)' || fail "flood folded: $(event_lines flood)"

info "D-Bus: ListEvents and the signal"
out=$(events)
grep -qE '^a\(tsussaisu\) 6 ' <<< "$out" || fail "ListEvents: $out"
grep -qE '[0-9]+ "kmsg" 0 "mcastd" "" 5 3 5 16 -2 17 "/proc/sys/net/ipv4/conf/all/force_igmp_version" 1' <<< "$out" ||
        fail "ListEvents lacks mcastd: $out"
grep -qF '"kmsg" 0 "we ird\\xff" "" 5 3 5 16 -3 17 "/proc/sys/net/ipv4/conf/default/force_igmp_version" 1' <<< "$out" ||
        fail "ListEvents lacks the escaped comm: $out"
grep -qE '"kmsg" 0 "flood" "" 2 1 4 "/proc/sys/kernel/version" 3' <<< "$out" || fail "ListEvents lacks the folded flood: $out"
# Oldest first.
[ "$(grep -oE '"(mcastd|split|aftergap|we ird[^"]*|flood)"' <<< "$out" | tr -d '"' | tr '\n' ,)" = 'mcastd,split,aftergap,we ird\\xff,flood,flood,' ] ||
        fail "ListEvents order: $out"
[ "$(grep -c 'DeprecatedSysctl' "$T_TMP/signals")" = 6 ] || fail "expected 6 signals: $(cat "$T_TMP/signals")"
grep -q 'STRING "mcastd"' "$T_TMP/signals" || fail "signal for mcastd missing: $(cat "$T_TMP/signals")"

info "reload: AuditHistory= shrinks the history, AuditSources= stops and restarts the source"
printf 'AuditHistory=2\n' >> "$T_ROOT/etc/igmpd/igmpd.conf"
igmpd_reload
WAIT_SECS=3 wait_until "events | grep -qE '^a\(tsussaisu\) 2 .*\"flood\".*\"flood\"'" || fail "history not shrunk: $(events)"
sed -i 's/^AuditSources=.*/AuditSources=none/' "$T_ROOT/etc/igmpd/igmpd.conf"
igmpd_reload
WAIT_SECS=3 wait_until "bctl get-property ${AUD[*]} Sources | grep -qx 'as 0'" || fail "Sources after AuditSources=none"
sed -i 's/^AuditSources=.*/AuditSources=kmsg/' "$T_ROOT/etc/igmpd/igmpd.conf"
igmpd_reload
WAIT_SECS=3 wait_until "bctl get-property ${AUD[*]} Sources | grep -qx 'as 1 \"kmsg\"'" || fail "Sources after AuditSources=kmsg"
printf '%s\n' "4,20,2500,-;warning: process \`reloaded' used the deprecated sysctl system call with 1.4." > "$FIFO"
WAIT_SECS=3 wait_until "[ -n \"\$(event_lines reloaded)\" ]" || fail "no event after the source restarted"
[ "$(grep -c 'Deprecated sysctl(2) call' "$T_LOG")" = 7 ] || fail "events published twice across the reload"

info "restart: records already handled are not published again"
WAIT_SECS=3 wait_until "[ \"\$(cut -d' ' -f1 '$SEQ_FILE' 2>/dev/null)\" = 20 ]" ||
        fail "kmsg-seq holds '$(cat "$SEQ_FILE" 2>&1)', expected 20"
igmpd_stop
before=$(grep -c 'Deprecated sysctl(2) call' "$T_LOG")
FILE=$T_TMP/kmsg.txt
{
        printf '%s\n' "4,1,1000,-;warning: process \`mcastd' used the deprecated sysctl system call with 3.5.16.-2.17."
        printf '%s\n' "4,19,2000,-;warning: process \`flood' used the deprecated sysctl system call with 1.4."
        printf '%s\n' "4,20,2500,-;warning: process \`reloaded' used the deprecated sysctl system call with 1.4."
        printf '%s\n' "4,21,3000,-;warning: process \`fresh' used the deprecated sysctl system call with 1.4."
} > "$FILE"
igmpd_start "$NS" --kmsg-path "$FILE"
igmpd_wait_bus
WAIT_SECS=5 wait_until "[ -n \"\$(event_lines fresh)\" ]" || fail "no event for the new record after the restart"
sleep 0.3
[ "$(($(grep -c 'Deprecated sysctl(2) call' "$T_LOG") - before))" = 1 ] || fail "old records published again after restart"
expect_out '^a\(tsussaisu\) 1 [0-9]+ "kmsg" 0 "fresh" ' events
igmpd_stop

# The cursor file's seq, or "none".
seq_file() { cut -d' ' -f1 "$SEQ_FILE" 2>/dev/null || echo none; }
saves() { grep -c 'Saved the kernel log position' "$T_LOG" || true; }
# Context switches of all of igmpd's threads.
ctxt() { cat /proc/"$1"/task/*/status | awk '/ctxt_switches/ { n += $2 } END { print n }'; }
# printf one record per write() to stdout: non-matching kernel-facility records FIRST … LAST.
unrelated() {
        local s
        for s in $(seq "$1" "$2"); do
                printf '%s\n' "6,$s,3000,-;igkmsg0: unrelated kernel message $s"
        done
}
warning() { printf '%s\n' "4,$1,4000,-;warning: process \`$2' used the deprecated sysctl system call with 1.4."; }

info "lazy cursor: 1000 non-matching records, one per write, cost at most two cursor writes"
igmpd_start "$NS" --kmsg-path "$FIFO"
igmpd_wait_bus
PID=$T_IGMPD_PID
s0=$(saves)
STRACE=""
if command -v strace > /dev/null; then
        strace -f -qq -e trace=/^rename,openat -o "$T_TMP/strace" -p "$PID" 2> "$T_TMP/strace.err" &
        STRACE=$!
        _T_PIDS+=("$STRACE")
        WAIT_SECS=3 wait_until "grep -q '^TracerPid:[[:space:]]*$STRACE\$' /proc/$PID/status" || fail "strace did not attach"
else
        info "no strace: counting cursor writes in the debug log only"
fi
unrelated 100 1099 > "$FIFO"
WAIT_SECS=10 wait_until "[ \"\$(seq_file)\" = 1099 ]" || fail "kmsg-seq holds '$(seq_file)' after the burst, expected 1099"
n=$(($(saves) - s0))
[ "$n" -ge 1 ] && [ "$n" -le 2 ] || fail "the burst of 1000 records wrote the cursor $n times"
if [ -n "$STRACE" ]; then
        kill -INT "$STRACE"
        wait "$STRACE" 2>/dev/null || true
        renames=$(grep -c 'rename' "$T_TMP/strace" || true)
        opens=$(grep -c 'kmsg-seq' "$T_TMP/strace" || true)
        [ "$renames" -ge 1 ] && [ "$renames" -le 2 ] || fail "the burst made $renames rename calls: $(cat "$T_TMP/strace")"
        [ "$opens" -le $((renames * 2)) ] || fail "the burst touched kmsg-seq $opens times: $(grep kmsg-seq "$T_TMP/strace")"
        info "burst of 1000 records: $renames rename, $opens calls naming kmsg-seq"
fi

info "idle means idle: no timer left once the cursor is saved"
sleep 0.5
a=$(ctxt "$PID")
sleep 2
b=$(ctxt "$PID")
[ "$a" = "$b" ] || fail "igmpd woke up $((b - a)) times in 2 idle seconds after saving the cursor"

info "a record that made an event is saved at once; the rest lazily; a clean stop saves the last"
warning 1100 lazyevent > "$FIFO"
# Well under the lazy delay (5 s): this write is immediate.
WAIT_SECS=2 wait_until "[ \"\$(seq_file)\" = 1100 ]" || fail "kmsg-seq holds '$(seq_file)' after an event, expected 1100"
[ "$(event_lines lazyevent | wc -l)" = 1 ] || fail "lazyevent: $(event_lines lazyevent)"
unrelated 1101 1110 > "$FIFO"
sleep 0.5
[ "$(seq_file)" = 1100 ] || fail "kmsg-seq moved to '$(seq_file)' at once for non-matching records"
igmpd_stop
[ "$(seq_file)" = 1110 ] || fail "kmsg-seq holds '$(seq_file)' after SIGTERM, expected 1110"
{
        warning 1100 lazyevent
        unrelated 1101 1110
        warning 1111 afterstop
} > "$FILE"
igmpd_start "$NS" --kmsg-path "$FILE"
WAIT_SECS=5 wait_until "[ -n \"\$(event_lines afterstop)\" ]" || fail "no event for the record after the clean stop"
sleep 0.3
[ "$(event_lines lazyevent | wc -l)" = 1 ] || fail "a record reported before the clean stop was reported again: $(event_lines lazyevent)"
[ "$(seq_file)" = 1111 ] || fail "kmsg-seq holds '$(seq_file)' after the restart, expected 1111"
igmpd_stop

info "SIGKILL: the lazily saved tail is read again, but no event is published twice"
igmpd_start "$NS" --kmsg-path "$FIFO"
{
        warning 1200 beforekill
        unrelated 1201 1250
} > "$FIFO"
WAIT_SECS=3 wait_until "[ \"\$(seq_file)\" = 1200 ] && [ -n \"\$(event_lines beforekill)\" ]" ||
        fail "kmsg-seq holds '$(seq_file)' after the event, expected 1200"
sleep 0.3
kill -KILL "$T_IGMPD_PID"
wait "$T_IGMPD_PID" 2>/dev/null || true
T_IGMPD_PID=""
[ "$(seq_file)" = 1200 ] || fail "kmsg-seq holds '$(seq_file)' after SIGKILL, expected 1200 (lazy tail not saved)"
{
        warning 1200 beforekill
        unrelated 1201 1250
        warning 1251 afterkill
} > "$FILE"
igmpd_start "$NS" --kmsg-path "$FILE"
WAIT_SECS=5 wait_until "[ -n \"\$(event_lines afterkill)\" ]" || fail "no event for the record after SIGKILL"
sleep 0.3
[ "$(event_lines beforekill | wc -l)" = 1 ] || fail "a record reported before SIGKILL was reported again: $(event_lines beforekill)"
igmpd_stop

info "real /dev/kmsg: a record written by a process is never an event"
[ -w /dev/kmsg ] || skip "cannot write /dev/kmsg"
rm -f "$SEQ_FILE"
igmpd_start "$NS"
igmpd_wait_bus
expect_out '^as 1 "kmsg"$' bctl get-property "${AUD[@]}" Sources
# A test marker in the host's kernel log (facility user, level warning); comm says it is a test.
echo "<4>warning: process \`igmpd-test-evil' used the deprecated sysctl system call with 1.4." > /dev/kmsg
rec=$(timeout 2 cat /dev/kmsg 2>/dev/null | grep -F 'igmpd-test-evil' | tail -1 || true)
seq=$(cut -d, -f2 <<< "$rec")
[ -n "$seq" ] || fail "the test record did not reach /dev/kmsg"
[ "${rec%%,*}" = 12 ] || fail "a process's record did not get facility user (user.warning = 12): $rec"
# Non-matching records: saved by the lazy timer (5 s) or at the latest when igmpd stops.
WAIT_SECS=10 wait_until "[ \"\$(cut -d' ' -f1 '$SEQ_FILE' 2>/dev/null || echo 0)\" -ge $seq ]" ||
        fail "igmpd did not read up to the test record $seq (kmsg-seq: $(cat "$SEQ_FILE" 2>&1))"
[ -z "$(event_lines igmpd-test-evil)" ] || fail "a process's /dev/kmsg record was published: $(event_lines igmpd-test-evil)"
if events | grep -q 'igmpd-test-evil'; then
        fail "ListEvents holds the forged record"
fi
info "ok: record $seq read, not published"
