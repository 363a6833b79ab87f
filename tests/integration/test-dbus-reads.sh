#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Reads never write and never block (DESIGN.md, Behaviour; issue 14, item 6). An unprivileged
# caller's reads — GetManagedObjects, Describe, ListLinksState, a link's Get/GetAll, igmpctl
# status/list — are answered from igmpd's state: after another process wrote 7777 over igmpd's 200, the kernel
# keeps 7777 whoever reads (the link events decide, as when the link goes up), and the reads
# show 7777 once the refresh they asked for has run. A loop of reads costs at most one link
# dump per second (counted with strace: every RTM_GETLINK dump igmpd asks the kernel for),
# however many readers, while a link plugged in meanwhile is configured and another client's
# Ping answered (their latencies are printed, not asserted: they depend on the machine).
# A link's own reads (Get, GetAll: igmpctl status LINK) read its knobs from the kernel first:
# the first read after a write shows it (the binary of main 37a5c0a showed the value from before,
# one read behind). The bulk reads say how old their values are: KernelValuesAgeUSec, and igmpctl
# list and status once it is 10 s or more.
# The old binary fails the first part (the read rewrote 7777) and the dump count (one dump per
# read: 439 in 2.1 s here).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
command -v setpriv > /dev/null || skip "setpriv (util-linux) is not installed"
command -v strace > /dev/null || skip "strace is not installed (it counts igmpd's link dumps)"
need_jq
dbus_start

NS=$(ns_new reads)
veth_add "$NS" v0 v1
conf_put 10-v.conf <<'CONF'
[Match]
Name=v0 h*

[IGMP]
V3UnsolicitedReportInterval=200
CONF
igmpd_start "$NS"
igmpd_wait_bus
V3=igmpv3_unsolicited_report_interval
expect_knob "$NS" ipv4 v0 $V3 200
P=$(link_path "$(ifindex_of "$NS" v0)")
M=(org.igmpd1 /org/igmpd1)
knobs_v3() {
        as_nobody busctl --system --json=short get-property org.igmpd1 "$P" org.igmpd1.Link Knobs |
                jq -c ".data.$V3"
}

# First, before any read could have asked for a refresh: nothing but the read itself can tell
# igmpd of these writes (no drift watch in tests, and the link sends no message).
info "a link's own reads show a write at once: Get, GetAll, igmpctl status LINK"
in_ns "$NS" sh -c "echo 7001 > /proc/sys/net/ipv4/conf/v0/$V3"
got=$(knobs_v3)
[ "$got" = "[7001,200,\"$T_CONF/10-v.conf\"]" ] || fail "Get Knobs right after a write of 7001: $got"
in_ns "$NS" sh -c "echo 7002 > /proc/sys/net/ipv4/conf/v0/$V3"
as_nobody busctl --system --json=short call org.igmpd1 "$P" org.freedesktop.DBus.Properties GetAll s org.igmpd1.Link |
        jq -e ".data[0].Knobs.data.$V3[0] == 7002" > /dev/null || fail "GetAll right after a write does not show 7002"
in_ns "$NS" sh -c "echo 7003 > /proc/sys/net/ipv4/conf/v0/$V3"
as_nobody "$IGMPCTL" status v0 > "$T_TMP/status" || fail "igmpctl status v0 failed"
grep -qE "^ *$V3 +7003ms\\* +200ms " "$T_TMP/status" || fail "igmpctl status v0 right after a write: $(cat "$T_TMP/status")"
[ "$(knob_get "$NS" ipv4 v0 $V3)" = 7003 ] || fail "a link's read wrote $V3"

info "the bulk reads' values are 10 s old: KernelValuesAgeUSec, igmpctl list and status say so"
sleep 10.2 # no read meanwhile: nothing refreshes them
age=$(bctl get-property "${M[@]}" org.igmpd1.Manager KernelValuesAgeUSec)
[[ $age =~ ^t\ [0-9]+$ ]] && [ "${age#t }" -ge 10000000 ] || fail "KernelValuesAgeUSec after 10 s without reads: $age"
"$IGMPCTL" list > "$T_TMP/list" || fail "igmpctl list failed"
grep -qE "^Kernel values read [0-9]+(s|min) ago \(no drift watch\); 'igmpctl status LINK' reads a link's now\.$" "$T_TMP/list" ||
        fail "igmpctl list does not say how old its values are: $(cat "$T_TMP/list")"
bctl --json=short call "${M[@]}" org.igmpd1.Manager Describe | jq -r '.data[0]' | jq -e '.kernel_values_age_usec >= 0' > /dev/null ||
        fail "no kernel_values_age_usec in Describe()"
wait_until "[ \"\$(bctl get-property ${M[*]} org.igmpd1.Manager KernelValuesAgeUSec | cut -c3-)\" -lt 10000000 ]" ||
        fail "the refresh list asked for did not make the values younger"
"$IGMPCTL" list | grep -q 'Kernel values' && fail "igmpctl list still says its values are old: $("$IGMPCTL" list)"
sleep 11.5 # the refresh that list asked for may start up to a second later (one a second at most)
"$IGMPCTL" status > "$T_TMP/summary" || fail "igmpctl status failed"
grep -qE "^ +Kernel values: read [0-9]+(s|min) ago; 'igmpctl status LINK' reads a link's now$" "$T_TMP/summary" ||
        fail "igmpctl status does not say how old its values are: $(cat "$T_TMP/summary")"

# Reads as nobody, each of which used to dump all links and correct what had drifted. Each
# comes right after another process wrote 7777 over igmpd's 200, and must leave 7777 in the
# kernel: a read never writes (the old binary's GetManagedObjects put 200 back before replying).
read_keeps_7777() { # read_keeps_7777 WHAT COMMAND...
        local what=$1
        shift
        in_ns "$NS" sh -c "echo 7777 > /proc/sys/net/ipv4/conf/v0/$V3"
        as_nobody "$@" > /dev/null || fail "$what as nobody failed"
        [ "$(knob_get "$NS" ipv4 v0 $V3)" = 7777 ] ||
                fail "$what as nobody rewrote $V3 in the kernel: 7777 → $(knob_get "$NS" ipv4 v0 $V3)"
}
reads_as_nobody() {
        read_keeps_7777 GetManagedObjects busctl --system call "${M[@]}" org.freedesktop.DBus.ObjectManager GetManagedObjects
        read_keeps_7777 Describe busctl --system call "${M[@]}" org.igmpd1.Manager Describe
        read_keeps_7777 "Get Knobs" busctl --system get-property org.igmpd1 "$P" org.igmpd1.Link Knobs
        read_keeps_7777 GetAll busctl --system call org.igmpd1 "$P" org.freedesktop.DBus.Properties GetAll s org.igmpd1.Link
        read_keeps_7777 ListLinksState busctl --system call "${M[@]}" org.igmpd1.Manager ListLinksState
        read_keeps_7777 "igmpctl status" "$IGMPCTL" status
        read_keeps_7777 "igmpctl status v0" "$IGMPCTL" status v0
        read_keeps_7777 "igmpctl --json=short list" "$IGMPCTL" --json=short list
}

info "another process writes 7777 over igmpd's 200; no read by nobody puts 200 back"
writes_before=$(log_count "Set $V3=200")
reads_as_nobody

info "the reads show the kernel's value once their refresh has run, and still write nothing"
wait_until "[ \"\$(knobs_v3)\" = '[7777,200,\"$T_CONF/10-v.conf\"]' ]" ||
        fail "reads never showed the kernel's value: Knobs $V3 = $(knobs_v3)"
as_nobody "$IGMPCTL" status v0 > "$T_TMP/status" || fail "igmpctl status v0 failed"
grep -qE "^ *$V3 +7777ms\\* +200ms " "$T_TMP/status" || fail "igmpctl status v0 does not show 7777 in the kernel: $(cat "$T_TMP/status")"
reads_as_nobody
sleep 1.2   # past a refresh interval: another refresh has run
reads_as_nobody
[ "$(knob_get "$NS" ipv4 v0 $V3)" = 7777 ] || fail "a read by nobody rewrote $V3: $(knob_get "$NS" ipv4 v0 $V3)"
[ "$(log_count "Set $V3=200")" -eq "$writes_before" ] || fail "igmpd wrote $V3 during the reads: $(grep "Set $V3" "$T_LOG" | tail -3)"
ip -n "$NS" link show dev v0 > /dev/null || fail "v0 vanished"

info "the link events still decide: v0 going up corrects the drift"
ip -n "$NS" link set v0 up
expect_knob "$NS" ipv4 v0 $V3 200
wait_until "[ \"\$(knobs_v3)\" = '[200,200,\"$T_CONF/10-v.conf\"]' ]" || fail "Knobs $V3 after the correction: $(knobs_v3)"

# With the drift watch active the cached values are the kernel's and reads refresh nothing.
WATCHED=0
if bctl get-property org.igmpd1 /org/igmpd1 org.igmpd1.Manager DriftWatch 2> /dev/null | grep -q '"active"'; then
        WATCHED=1
fi

BUS_LOOP=$HELPERS/bus-loop
[ -x "$BUS_LOOP" ] || fail "$BUS_LOOP is not built"

# strace_start: counts from now on igmpd's netlink requests; strace_dumps stops and prints how
# many were RTM_GETLINK dumps.
strace_start() {
        : > "$T_TMP/strace"
        # In its network namespace: strace asks the kernel there what the socket is, to decode.
        # Started as a plain command (ip netns exec execs strace), so that $! is strace itself
        # and the SIGINT below detaches it: a function in the background would be a subshell,
        # and strace would go on tracing igmpd until it exits (LeakSanitizer cannot run then).
        ip netns exec "$NS" strace -qq -f -e trace=sendto,sendmsg -e signal=none -o "$T_TMP/strace" -p "$T_IGMPD_PID" \
                2> "$T_TMP/strace.err" &
        STRACE_PID=$!
        _T_PIDS+=("$STRACE_PID")
        # Attached once igmpd's next system call shows (a Ping makes one).
        wait_until "bctl call org.igmpd1 /org/igmpd1 org.freedesktop.DBus.Peer Ping > /dev/null; [ -s '$T_TMP/strace' ]" ||
                fail "strace did not attach to igmpd: $(cat "$T_TMP/strace.err")"
}
strace_dumps() {
        sleep 0.3   # a refresh asked for by the last read has started by now
        kill -INT "$STRACE_PID" 2> /dev/null
        wait "$STRACE_PID" 2> /dev/null || true
        grep -cE 'nlmsg_type=RTM_GETLINK, nlmsg_flags=[A-Z_|]*NLM_F_DUMP' "$T_TMP/strace" || true
}
ms_now() { echo $(( ${EPOCHREALTIME/./} / 1000 )); }

info "a loop of reads by nobody: at most one link dump per second"
strace_start
t0=$(ms_now)
n=$(as_nobody "$BUS_LOOP" objects 2) || fail "the read loop failed"
t1=$(ms_now)
dumps=$(strace_dumps)
wait_until "grep -qE '^TracerPid:[[:space:]]+0$' /proc/$T_IGMPD_PID/status" || fail "strace did not let go of igmpd"
# One refresh starts per second at most, plus the one running when the loop ends.
bound=$(( (t1 - t0 + 999) / 1000 + 1 ))
info "$n reads in $((t1 - t0)) ms made igmpd dump all links $dumps times (at most $bound)"
[ "$dumps" -le "$bound" ] || fail "$n reads caused $dumps link dumps in $((t1 - t0)) ms; at most $bound allowed"
if [ "$WATCHED" = 0 ]; then
        [ "$dumps" -ge 1 ] || fail "the reads asked for no refresh (the drift watch is not active)"
else
        [ "$dumps" -eq 0 ] || fail "the drift watch is active, yet the reads caused $dumps dumps"
fi

READERS=()
info "three readers hammer GetManagedObjects with 400 more links; links plugged in meanwhile are configured"
for i in $(seq 200); do echo "link add x$i type veth peer name y$i"; done > "$T_TMP/batch"
ip -n "$NS" -batch "$T_TMP/batch"
WAIT_SECS=60 wait_until "[ \$(bctl call org.igmpd1 /org/igmpd1 org.igmpd1.Manager ListLinks | wc -w) -ge 1200 ]" ||
        fail "igmpd did not list the 400 new links"
# Without strace this time (it slows igmpd down): the refreshes are counted in igmpd's log.
refreshes0=$(log_count 'Refreshing the kernel values')
t0=$(ms_now)
for r in 1 2 3; do
        as_nobody "$BUS_LOOP" objects 4 > "$T_TMP/reader$r" &
        _T_PIDS+=($!)
        READERS+=($!)
done
"$BUS_LOOP" ping 3.5 10 > "$T_TMP/pinger" &
PINGER_PID=$!
sleep 0.3
lat=()
for i in 1 2 3 4 5; do
        a=$(ms_now)
        veth_add "$NS" "h$i" "hp$i"
        WAIT_SECS=30 wait_until "[ \"\$(knob_get $NS ipv4 h$i $V3 2> /dev/null)\" = 200 ]" ||
                fail "h$i was not configured while the reads ran"
        lat+=("$(( $(ms_now) - a ))")
        sleep 0.3
done
wait "$PINGER_PID" || fail "Pings to igmpd failed during the reads"
for p in "${READERS[@]}"; do wait "$p" || fail "a read loop failed"; done
t1=$(ms_now)
sleep 0.3
dumps=$(( $(log_count 'Refreshing the kernel values') - refreshes0 ))
reads=$(( $(cat "$T_TMP/reader1") + $(cat "$T_TMP/reader2") + $(cat "$T_TMP/reader3") ))
read -r pings p50 pmax < "$T_TMP/pinger"
bound=$(( (t1 - t0 + 999) / 1000 + 1 ))
info "measured: $reads reads by 3 readers in $((t1 - t0)) ms, $dumps refreshes (at most $bound)"
info "measured: hot-plugged link configured after ${lat[*]} ms (poll every 50 ms, ip link add included)"
info "measured: another client's Ping: $pings calls, p50 $p50 ms, max $pmax ms"
[ "$dumps" -le "$bound" ] || fail "$reads reads caused $dumps refreshes in $((t1 - t0)) ms; at most $bound allowed"
[ "$(knob_get "$NS" ipv4 v0 $V3)" = 200 ] || fail "v0 changed during the reads"
igmpd_alive
echo "PASS: $T_NAME"
