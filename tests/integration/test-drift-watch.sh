#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The drift watch (DriftWatch=yes; its BPF helper is igmpd's child here, igmpd running as root
# inside "ip netns exec", whose fresh /sys has no cgroup2 mount: the helper mounts one
# privately). Other processes' writes of igmpd's knobs:
#  - sysctl -w of a managed knob → igmpd's value again (revert), a KnobOverridden signal and a
#    log line naming the writer; igmpctl monitor prints it; the time until the value is back is
#    measured and reported (no timed assertion: the machine may be busy);
#  - two writers alternating their command names → reported at most once a second per knob, the
#    writes left unreported counted; a stale value before (the knob set over netlink while igmpd
#    was stopped, then written through /proc/sys) → reported from igmpd's value, never "from X to
#    X" (issue 24, item 5);
#  - a write the kernel rejects, the same knob written in another network namespace, and
#    igmpd's own writes → nothing (the program's counters say where each went);
#  - an unmanaged knob written → the cached value changes (PropertiesChanged of Knobs with the
#    new value) and igmpctl status shows it, no reload;
#  - RTM_SETLINK with IFLA_INET_CONF (bypasses /proc/sys) → seen in the link message, reverted,
#    writer unknown;
#  - reads meanwhile (GetManagedObjects, Describe, igmpctl status/list) serve the cache and
#    cause no refresh dump;
#  - DriftAction=warn after a reload → the value stays, still reported ("kept");
#  - kill -9 igmpd → its cgroup/sysctl program is gone from the cgroup2 root.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"

SET_INET_CONF=$HELPERS/set-inet-conf
[ -x "$SET_INET_CONF" ] || fail "helper missing: $SET_INET_CONF"
bpf_require
command -v python3 > /dev/null || skip "python3 is not installed (reads bpftool's JSON)"
hostwide_lock

CG_ROOT=/sys/fs/cgroup/unified
[ "$(stat -f -c %T "$CG_ROOT" 2>/dev/null)" = cgroup2fs ] || CG_ROOT=/sys/fs/cgroup
[ "$(stat -f -c %T "$CG_ROOT" 2>/dev/null)" = cgroup2fs ] || skip "no cgroup2 hierarchy mounted (bpftool cgroup tree needs one)"

dbus_start
cat > "$T_ROOT/etc/igmpd/igmpd.conf.d/50-drift.conf" <<'CONF'
[Daemon]
DriftWatch=yes
NetworkManager=no
CONF
conf_put 50-v0.conf <<'CONF'
[Match]
Name=v0
[IGMP]
V3UnsolicitedReportInterval=200
[MLD]
V2UnsolicitedReportInterval=500
CONF

NS=$(ns_new d)
NS2=$(ns_new o)
veth_add "$NS" v0 v1
ip -n "$NS" link set v0 up
veth_add "$NS2" v0 v1
K3=/proc/sys/net/ipv4/conf/v0/igmpv3_unsolicited_report_interval
K2=/proc/sys/net/ipv4/conf/v0/igmpv2_unsolicited_report_interval

igmpd_start "$NS"
igmpd_wait_bus
WAIT_SECS=60 wait_until "grep -qE 'Drift watch is (active|not active)' '$T_LOG'" || fail "the drift watch neither started nor failed"
grep -q 'Drift watch is active' "$T_LOG" || fail "the drift watch is not active: $(grep 'Drift watch' "$T_LOG")"
expect_knob "$NS" ipv4 v0 igmpv3_unsolicited_report_interval 200
# igmpd holds no capability for BPF: its helper child attached the program.
capeff=$((16#$(awk '/^CapEff:/ { print $2 }' /proc/"$T_IGMPD_PID"/status)))
[ $((capeff & ((1 << 21) | (1 << 38) | (1 << 39)))) -eq 0 ] ||
        fail "igmpd holds CAP_SYS_ADMIN, CAP_PERFMON or CAP_BPF (CapEff $(printf %x $capeff))"
MGR=(org.igmpd1 /org/igmpd1 org.igmpd1.Manager)
expect_out() {
        local want=$1 out
        shift
        out=$("$@" 2>&1) || fail "$* failed: $out"
        grep -qE -- "$want" <<< "$out" || fail "$*: expected /$want/, got: $out"
}
expect_out '^\(ss\) "active" "cgroup/sysctl at ' bctl get-property "${MGR[@]}" DriftWatch
expect_out '^s "revert"$' bctl get-property "${MGR[@]}" DriftAction
expect_out '^Drift watch: active, DriftAction=revert$' "$IGMPCTL" kernel
expect_out '^  cgroup/sysctl at ' "$IGMPCTL" kernel
# With the watch active the cached values are the kernel's: reads ask for no refresh dump (the
# reads below, igmpctl status among them, must show what the watch told igmpd).
refreshes0=$(log_count 'Refreshing the kernel values')
P=$(link_path "$(in_ns "$NS" cat /sys/class/net/v0/ifindex)")

busctl --system monitor --match "type='signal',sender='org.igmpd1'" > "$T_TMP/signals" 2>&1 &
_T_PIDS+=($!)
"$IGMPCTL" monitor > "$T_TMP/mon.txt" 2> "$T_TMP/mon.err" &
_T_PIDS+=($!)
"$IGMPCTL" --json=short monitor > "$T_TMP/mon.json" 2> "$T_TMP/mon-json.err" &
_T_PIDS+=($!)
wait_until "grep -q Monitoring '$T_TMP/mon.err' && grep -q Monitoring '$T_TMP/mon-json.err'" ||
        fail "igmpctl monitor did not start: $(cat "$T_TMP/mon.err" "$T_TMP/mon-json.err")"
sleep 0.5

# The KnobOverridden signals seen, as one line. (Tests compare captured output: grep -q at the
# end of a pipe can kill the writer with SIGPIPE, which pipefail turns into a failure.)
overrides() { grep -A10 'Member=KnobOverridden' "$T_TMP/signals" | tr '\n' ' ' | tr -s ' '; }

# The program's counters (its .bss), from the BPF objects igmpd holds: "sent own elsewhere lost".
bpf_objects_of "$T_IGMPD_PID" > "$T_TMP/objects"
PROG=$(awk '$1 == "prog" { print $2 }' "$T_TMP/objects" | while read -r id; do
        if [[ $(bpftool prog show id "$id") == *igmpd_drift_wat* ]]; then echo "$id"; fi; done | sed -n 1p)
[ -n "$PROG" ] || fail "igmpd holds no drift watch program: $(cat "$T_TMP/objects")"
counters() {
        local map
        for map in $(bpftool -j prog show id "$PROG" | python3 -c 'import json,sys; print(*json.load(sys.stdin)["map_ids"])'); do
                [[ $(bpftool -j map show id "$map") == *'"name":"drift_wa.bss"'* ]] || continue
                bpftool -j map dump id "$map" | python3 -c '
import json, sys
c = json.load(sys.stdin)[0]["formatted"]["value"][".bss"][0]["counters"]
print(c["sent"], c["own"], c["elsewhere"], c["lost"])'
        done
}
read -r SENT0 OWN0 _ LOST0 < <(counters)
[ -n "$SENT0" ] || fail "cannot read the drift watch's counters"
info "drift watch program $PROG, counters at start: sent $SENT0 own $OWN0 lost $LOST0"

info "sysctl -w of a managed knob → reverted, with the writer named"
pid=$(in_ns "$NS" sh -c 'echo $$; exec sysctl -q -w net.ipv4.conf.v0.igmpv3_unsolicited_report_interval=1000')
WAIT_SECS=10 wait_until "[ \"\$(in_ns $NS cat $K3)\" = 200 ]" || fail "not reverted: $(in_ns "$NS" cat $K3)"
WAIT_SECS=10 wait_until "grep -q \"igmpv3_unsolicited_report_interval changed from 200 to 1000 by process 'sysctl' (pid $pid, uid 0); igmpd's value is 200 (from .*50-v0.conf): reverted.\" '$T_LOG'" ||
        fail "no log line naming sysctl (pid $pid)"
WAIT_SECS=10 wait_until "[[ \$(overrides) == *'UINT32 $pid;'* ]]" ||
        fail "no KnobOverridden signal for pid $pid: $(cat "$T_TMP/signals")"
[[ $(overrides) == *"STRING \"igmpv3_unsolicited_report_interval\"; INT32 200; INT32 1000; INT32 200; UINT32 $pid; STRING \"sysctl\"; STRING \"reverted\";"* ]] ||
        fail "KnobOverridden arguments: $(grep -A10 'Member=KnobOverridden' "$T_TMP/signals")"
WAIT_SECS=10 wait_until "grep -q \"^[0-9-]* [0-9:.]* v0 ([0-9]*): igmpv3_unsolicited_report_interval overridden by 'sysctl' (pid $pid): 200ms → 1000ms, igmpd's value 200ms: reverted\$\" '$T_TMP/mon.txt'" ||
        fail "igmpctl monitor: $(cat "$T_TMP/mon.txt")"
WAIT_SECS=10 wait_until "grep -q '\"event\":\"overridden\",\"index\":[0-9]*,\"name\":\"v0\",\"knob\":\"igmpv3_unsolicited_report_interval\",\"old\":200,\"new\":1000,\"value\":200,\"pid\":$pid,\"comm\":\"sysctl\",\"action\":\"reverted\"}' '$T_TMP/mon.json'" ||
        fail "igmpctl --json monitor: $(cat "$T_TMP/mon.json")"

info "the time until a foreign write is reverted (a shell's echo into the knob → 200 read back), 5 times:"
for i in 1 2 3 4 5; do
        in_ns "$NS" bash -c '
                k=$1; t0=${EPOCHREALTIME/./}; echo 1000 > "$k"
                while read -r v < "$k"; [ "$v" != 200 ]; do
                        [ $((${EPOCHREALTIME/./} - t0)) -lt 10000000 ] || { echo timeout; exit 1; }
                done
                echo $((${EPOCHREALTIME/./} - t0))' sh "$K3" >> "$T_TMP/latency" || fail "write $i was not reverted within 10 s"
        sleep 0.05
done
info "revert latency (µs): $(tr '\n' ' ' < "$T_TMP/latency")"

info "two writers fighting igmpd, alternating command names: every write reverted, reported at most once a second per knob"
# The writer chooses its comm: the limit must not be per writer (it was per comm: 224 reports in
# 5 s by alternating two).
ln -s "$(command -v bash)" "$T_TMP/fighter"    # comm "fighter"
ln -s "$(command -v bash)" "$T_TMP/fighter2"   # comm "fighter2"
fought() { log_count "changed from [0-9]+ to 1000 by process 'fighter2?'"; }
before=$(fought)
n_sig=$(grep -c 'Member=KnobOverridden' "$T_TMP/signals")
t0=${EPOCHREALTIME/./}
in_ns "$NS" bash -c 'for i in $(seq 20); do "$2" -c "echo 1000 > $1"; sleep 0.01; "$3" -c "echo 1000 > $1"; sleep 0.01; done' \
        sh "$K3" "$T_TMP/fighter" "$T_TMP/fighter2"
WAIT_SECS=10 wait_until "[ \"\$(in_ns $NS cat $K3)\" = 200 ]" || fail "the last write of the fight was not reverted"
# The fight's last write may have been a reported one, leaving none to count: one write now
# (reported), one more as soon as it is reverted (within the same second: left unreported), and
# after a second one more, whose report counts it.
sleep 1.2
in_ns "$NS" "$T_TMP/fighter" -c 'echo 1000 > "$1"; for i in $(seq 100000); do read -r v < "$1"; [ "$v" = 200 ] && break; done
        echo 1000 > "$1"' sh "$K3"
WAIT_SECS=10 wait_until "[ \"\$(in_ns $NS cat $K3)\" = 200 ]" || fail "the write after the fight was not reverted"
sleep 1.2
in_ns "$NS" "$T_TMP/fighter" -c 'echo 1000 > "$1"' sh "$K3"
WAIT_SECS=10 wait_until "grep -q \"by process 'fighter' .*: reverted; changed [0-9]* more times\? since the last report.\" '$T_LOG'" ||
        fail "no report counting the writes left unreported: $(grep fighter "$T_LOG")"
t1=${EPOCHREALTIME/./}
logged=$(($(fought) - before))
signals=$(($(grep -c 'Member=KnobOverridden' "$T_TMP/signals") - n_sig))
secs=$(((t1 - t0 + 999999) / 1000000))
info "43 writes by two writers in ${secs} s (rounded up): $logged log lines, $signals signals"
# One report per started second, and the first: at most secs + 1 whatever the machine's load.
[ "$logged" -le $((secs + 1)) ] && [ "$signals" -le $((secs + 1)) ] ||
        fail "writers alternating their names are reported too often ($logged lines, $signals signals in $secs s)"

info "a write whose recorded value before is stale (set over netlink meanwhile): never 'from X to X'"
# igmpd frozen: the knob is set to 1000 over netlink (not in the ring), then written 1000 through
# /proc/sys: that record says 1000 before and after, while igmpd knows 200.
sleep 1.1   # past the last report of this knob
kill -STOP "$T_IGMPD_PID"
in_ns "$NS" "$SET_INET_CONF" v0 igmpv3_unsolicited_report_interval 1000 || { kill -CONT "$T_IGMPD_PID"; fail "set-inet-conf failed"; }
in_ns "$NS" sh -c "echo 1000 > $K3"
kill -CONT "$T_IGMPD_PID"
WAIT_SECS=10 wait_until "[ \"\$(in_ns $NS cat $K3)\" = 200 ]" || fail "not reverted: $(in_ns "$NS" cat $K3)"
WAIT_SECS=10 wait_until "grep -q \"igmpv3_unsolicited_report_interval changed from 200 to 1000 by process 'sh' \" '$T_LOG'" ||
        fail "no report of the write from igmpd's value: $(grep 'changed from' "$T_LOG" | tail -n 3)"
same=$(grep -cE 'changed from ([0-9]+) to \1 by' "$T_LOG" || true)
[ "$same" -eq 0 ] || fail "a report says a knob changed from a value to itself: $(grep -E 'changed from ([0-9]+) to \1 by' "$T_LOG")"

info "an MLD interval (jiffies: 500 reads back as 500 or a tick above)"
in_ns "$NS" sh -c 'echo 3000 > /proc/sys/net/ipv6/conf/v0/mldv2_unsolicited_report_interval'
WAIT_SECS=10 wait_until "[ \"\$(in_ns $NS cat /proc/sys/net/ipv6/conf/v0/mldv2_unsolicited_report_interval)\" -lt 3000 ]" ||
        fail "MLD interval not reverted"
grep -q "mldv2_unsolicited_report_interval changed from 50[0-9] to 300[0-9] by process 'sh'" "$T_LOG" ||
        fail "no log line for the MLD interval: $(grep mldv2 "$T_LOG")"

read -r SENT1 OWN1 _ _ < <(counters)
info "counters now: sent $SENT1 own $OWN1"
[ "$OWN1" -gt "$OWN0" ] || fail "igmpd's own reverts were not counted as its own (own $OWN0 → $OWN1)"

n_overrides=$(grep -c 'Member=KnobOverridden' "$T_TMP/signals")
n_logged=$(log_count 'changed from .* by ')

info "a write the kernel rejects, the same knob in another netns, igmpd's own writes → nothing"
in_ns "$NS" sh -c "echo bogus > $K3" 2>/dev/null && fail "the kernel accepted 'bogus'"
in_ns "$NS2" sysctl -q -w net.ipv4.conf.v0.igmpv3_unsolicited_report_interval=4444
"$IGMPCTL" link v0 --v3-interval 300 || fail "igmpctl link failed"
expect_knob "$NS" ipv4 v0 igmpv3_unsolicited_report_interval 300
info "an unmanaged knob written → the cached value changes, no reload"
mpid=$(in_ns "$NS" sh -c 'echo $$; exec sysctl -q -w net.ipv4.conf.v0.igmpv2_unsolicited_report_interval=3333')
WAIT_SECS=10 wait_until "grep -q 'igmpv2_unsolicited_report_interval changed to 3333 by sysctl (pid $mpid)' '$T_LOG'" ||
        fail "the unmanaged write was not seen"
WAIT_SECS=10 wait_until "[[ \$(grep -A40 'Member=PropertiesChanged' '$T_TMP/signals') == *'INT32 3333;'* ]]" ||
        fail "no PropertiesChanged carrying 3333: $(tail -n 60 "$T_TMP/signals")"
"$IGMPCTL" status v0 | grep -E 'igmpv2_unsolicited_report_interval +3333ms +- +none' ||
        fail "igmpctl status does not show the new value: $("$IGMPCTL" status v0)"
[ "$(in_ns "$NS2" cat $K3)" = 4444 ] || fail "the other namespace's value changed"
[ "$(in_ns "$NS" cat $K3)" = 300 ] || fail "the rejected write or the other netns changed igmpd's value"
[ "$(grep -c 'Member=KnobOverridden' "$T_TMP/signals")" = "$n_overrides" ] ||
        fail "unexpected KnobOverridden: $(grep -A10 'Member=KnobOverridden' "$T_TMP/signals" | tail -n 24)"
[ "$(log_count 'changed from .* by ')" = "$n_logged" ] || fail "unexpected override logged: $(grep 'changed from' "$T_LOG")"
read -r SENT2 OWN2 ELSE2 _ < <(counters)
info "counters now: sent $SENT2 own $OWN2 elsewhere $ELSE2"
# The bogus write and the unmanaged one reached igmpd; igmpd's own write of 300 did not.
[ $((SENT2 - SENT1)) -eq 2 ] || fail "expected 2 records (the rejected write, the unmanaged one), got $((SENT2 - SENT1))"
[ "$OWN2" -gt "$OWN1" ] || fail "igmpd's write of 300 was not counted as its own"

info "reads while the watch is active: served from the cache, no refresh dump"
bctl call org.igmpd1 /org/igmpd1 org.freedesktop.DBus.ObjectManager GetManagedObjects > /dev/null || fail "GetManagedObjects failed"
bctl call org.igmpd1 /org/igmpd1 org.igmpd1.Manager Describe > /dev/null || fail "Describe failed"
"$IGMPCTL" list > /dev/null || fail "igmpctl list failed"
sleep 1.2   # past a refresh interval: a refresh asked for would have started
refreshes=$(( $(log_count 'Refreshing the kernel values') - refreshes0 ))
[ "$refreshes" -eq 0 ] || fail "the drift watch is active, yet reads caused $refreshes refresh dumps: $(grep 'Refreshing the kernel values' "$T_LOG" | tail -n 3)"

info "RTM_SETLINK/IFLA_INET_CONF (no /proc/sys) on a link that is up → reverted from the link message"
in_ns "$NS" "$SET_INET_CONF" v0 igmpv3_unsolicited_report_interval 555 || fail "set-inet-conf failed"
WAIT_SECS=10 wait_until "[ \"\$(in_ns $NS cat $K3)\" = 300 ]" || fail "not reverted after RTM_SETLINK: $(in_ns "$NS" cat $K3)"
grep -q "igmpv3_unsolicited_report_interval changed from 300 to 555 by another process (unseen by the drift watch" "$T_LOG" ||
        fail "no log line for the netlink write"
WAIT_SECS=10 wait_until "[[ \$(overrides) == *'INT32 300; INT32 555; INT32 300; UINT32 0; STRING \"\"; STRING \"reverted\";'* ]]" ||
        fail "no KnobOverridden with an unknown writer"

info "DriftAction=warn: the value stays, and is still reported"
printf '[Daemon]\nDriftAction=warn\n' > "$T_ROOT/etc/igmpd/igmpd.conf.d/60-warn.conf"
igmpd_reload
WAIT_SECS=10 wait_until "[[ \$(bctl get-property ${MGR[*]} DriftAction) == *warn* ]]" || fail "DriftAction did not become warn"
sleep 1.1   # past the last report of this knob (the netlink write's)
wpid=$(in_ns "$NS" sh -c 'echo $$; exec sysctl -q -w net.ipv4.conf.v0.igmpv3_unsolicited_report_interval=1500')
WAIT_SECS=10 wait_until "grep -q \"changed from 300 to 1500 by process 'sysctl' (pid $wpid, uid 0); igmpd's value is 300 (from runtime): kept (DriftAction=warn).\" '$T_LOG'" ||
        fail "no 'kept' log line: $(grep 'changed from' "$T_LOG")"
WAIT_SECS=10 wait_until "[[ \$(overrides) == *'STRING \"kept\";'* ]]" || fail "no KnobOverridden 'kept'"
sleep 0.5
[ "$(in_ns "$NS" cat $K3)" = 1500 ] || fail "DriftAction=warn changed the value back"
# Kept, so the link is not as igmpd wants it: drifted, and the kernel cell says which knob.
"$IGMPCTL" status v0 | grep -E 'igmpv3_unsolicited_report_interval +1500ms\* +300ms +runtime' || fail "status: $("$IGMPCTL" status v0)"
"$IGMPCTL" status v0 | grep -qE '^ +State: drifted$' || fail "DriftAction=warn left v0 $("$IGMPCTL" status v0 | grep State:)"
expect_out '^s "drifted"$' bctl get-property org.igmpd1 "$P" org.igmpd1.Link State

info "kill -9 igmpd: its cgroup/sysctl program leaves the cgroup2 root"
grep -qE "^\s*$PROG\s+cgroup_sysctl" <<< "$(bpftool cgroup tree "$CG_ROOT")" || fail "program $PROG not attached at $CG_ROOT: $(bpftool cgroup tree "$CG_ROOT")"
kill -KILL "$T_IGMPD_PID"
wait "$T_IGMPD_PID" 2>/dev/null || true
T_IGMPD_PID=""
WAIT_SECS=20 wait_until "! grep -qE '^\s*$PROG\s+cgroup_sysctl' <<< \"\$(bpftool cgroup tree '$CG_ROOT')\"" ||
        fail "program $PROG still attached after kill -9: $(bpftool cgroup tree "$CG_ROOT")"
WAIT_SECS=20 wait_until "! bpf_objects_exist < '$T_TMP/objects'" || fail "BPF objects of igmpd left after kill -9"
echo "PASS: $T_NAME"
