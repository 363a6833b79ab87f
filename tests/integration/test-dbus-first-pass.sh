#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The first pass over the links does not block the event loop: igmpd is on the bus before it
# starts and answers during it, from the links seen so far. Thousands of veth links in a
# namespace; a client calls Manager.ListLinks back to back from before igmpd starts; a reply
# that lists fewer links than igmpd has once ready was served during the first pass (no link
# goes away here). Skips when every reply came after the first pass: too short to be seen on
# this machine (make it longer with PAIRS=).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
dbus_start

PAIRS=${PAIRS:-2000}
NS=igdump-$$
echo "$NS" >> "$T_TMP/.namespaces"
_T_NAMESPACES+=("$NS")
ip netns add "$NS" || fail "cannot create network namespace $NS"
for i in $(seq "$PAIRS"); do
        echo "link add va$i type veth peer name vb$i"
done > "$T_TMP/links.batch"
ip -n "$NS" -batch "$T_TMP/links.batch" || fail "cannot create $PAIRS veth pairs"
conf_put 10-site.conf <<'CONF'
[Match]
Name=v*

[IGMP]
V3UnsolicitedReportInterval=300
CONF

"$HELPERS/bus-loop" links 300 > "$T_TMP/replies" 2> "$T_TMP/bus-loop.log" &
_T_PIDS+=("$!")
# A reload asked for during the first pass (SIGHUP once igmpd answers: its handler is set by then)
# waits for the pass's end: READY=1 and "ready" first, then the reload.
( for _ in $(seq 3000); do
        [ -s "$T_TMP/replies" ] && exec pkill -HUP -f -- "--config-root $T_ROOT\$"
        sleep 0.01
done ) &
_T_PIDS+=("$!")
# igmpctl monitor, started as soon as igmpd has its name: during the first pass, whose links
# are not announced one by one. At the pass's end (State "running") it reads them again and
# says "igmpd: started".
( for _ in $(seq 3000); do
        bus_has_owner org.igmpd1 && exec "$IGMPCTL" monitor > "$T_TMP/mon.txt" 2> "$T_TMP/mon.err"
        sleep 0.01
done ) &
_T_PIDS+=("$!")
IGMPD_LOG_LEVEL=info igmpd_start "$NS"
igmpd_wait_bus
ALL=$(bctl call org.igmpd1 /org/igmpd1 org.igmpd1.Manager ListLinks | awk '{ print $2 }')
[ "$ALL" -ge $((2 * PAIRS)) ] || fail "igmpd lists $ALL links once ready, expected at least $((2 * PAIRS))"
wait_until "grep -qx '$ALL' '$T_TMP/replies'" || fail "the client got no full reply after the first pass"

read -r EARLY FIRST < <(awk -v all="$ALL" '$1 < all { n++; if (!f) f = $1 } END { print n + 0, f + 0 }' "$T_TMP/replies")
[ "$EARLY" -gt 0 ] || skip "the first pass ($ALL links) was over before a call got through"
info "$EARLY replies during the first pass (the first listed $FIRST of $ALL links)"
[ "$(log_count 'links, ready')" = 1 ] || fail "igmpd did not say it was ready exactly once"

wait_until "grep -q 'Reloading configuration' '$T_LOG'" || fail "the SIGHUP sent during the first pass was not acted on"
ready_at=$(grep -n 'links, ready' "$T_LOG" | head -n 1 | cut -d: -f1)
reload_at=$(grep -n 'Reloading configuration' "$T_LOG" | head -n 1 | cut -d: -f1)
if grep -q 'Reload requested during the first pass' "$T_LOG"; then
        [ "$reload_at" -gt "$ready_at" ] || fail "a reload asked for during the first pass ran before its end (log lines $reload_at, $ready_at)"
        info "the SIGHUP during the first pass reloaded after it (log lines $ready_at, $reload_at)"
else
        [ "$reload_at" -gt "$ready_at" ] || fail "igmpd reloaded before it was ready, without saying the reload waits (log lines $reload_at, $ready_at)"
        info "the SIGHUP came after the first pass"
fi

info "igmpctl monitor, started during the first pass, shows a change of a link the pass found last"
wait_until "grep -q '^Monitoring igmpd' '$T_TMP/mon.err'" || fail "igmpctl monitor did not start: $(cat "$T_TMP/mon.err")"
# A barrier: the monitor handles igmpd's signals in order, so once it shows a link added now it
# has handled the first pass's end (State "running", sent before igmpd said it was ready) and
# read the links again; on a busy machine it could otherwise still be at it when the knob changes.
ip -n "$NS" link add vbar0 type veth peer name vbar1 || fail "cannot add the barrier link"
wait_until "grep -q ' + vbar0 ([0-9]*): added' '$T_TMP/mon.txt'" || fail "igmpctl monitor: no line for the link added: $(cat "$T_TMP/mon.txt")"
"$IGMPCTL" link "vb$PAIRS" --v3-interval 150 || fail "igmpctl link vb$PAIRS --v3-interval 150 failed"
wait_until "grep -q ' vb$PAIRS ([0-9]*): igmpv3_unsolicited_report_interval kernel 300ms → 150ms' '$T_TMP/mon.txt'" ||
        fail "igmpctl monitor: no 300ms → 150ms for vb$PAIRS: $(cat "$T_TMP/mon.txt" "$T_TMP/mon.err")"
n=$(grep -c ' igmpd: started$' "$T_TMP/mon.txt")
[ "$n" -le 1 ] || fail "igmpctl monitor said 'started' $n times: $(cat "$T_TMP/mon.txt")"
if [ "$n" = 1 ]; then
        info "the monitor started during the first pass and read the links again at its end"
else
        info "the monitor started after the first pass"
fi
