#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Change signals: InterfacesAdded/InterfacesRemoved as links come and go, PropertiesChanged
# for knob values, renames, alternative names, state, the manager's ConfigFiles and the audit
# Sources — seen on the wire with busctl monitor, and as igmpctl monitor prints them (text and
# JSON): every line and event with its time, lists (matched files) whole.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
need_jq
dbus_start

NS=$(ns_new sig)
veth_add "$NS" v0 v1
conf_put 10-site.conf <<'CONF'
[Match]
Name=v0

[IGMP]
V3UnsolicitedReportInterval=300
CONF
igmpd_start "$NS"
igmpd_wait_bus
IDX0=$(ifindex_of "$NS" v0)
IDX1=$(ifindex_of "$NS" v1)
P0=$(link_path "$IDX0")
P1=$(link_path "$IDX1")

export LC_ALL=C.UTF-8
# igmpctl monitor starts each line with the local time: "2024-05-01 12:00:00.123 ".
TS='[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3} '
# mon_has PATTERN: a line of igmpctl monitor, its time left out, matches PATTERN (grep, basic).
mon_has() { grep -q -- "$1" <(sed -E "s/^$TS//" "$T_TMP/mon.txt"); }

busctl --system --json=short monitor org.igmpd1 > "$T_TMP/wire.json" 2> "$T_TMP/wire.err" &
_T_PIDS+=($!)
"$IGMPCTL" monitor > "$T_TMP/mon.txt" 2> "$T_TMP/mon.err" &
MON_TXT=$!
_T_PIDS+=($MON_TXT)
"$IGMPCTL" --json=short monitor > "$T_TMP/mon.json" 2> "$T_TMP/mon-json.err" &
MON_JSON=$!
_T_PIDS+=($MON_JSON)
wait_until "grep -q Monitoring '$T_TMP/mon.err' && grep -q Monitoring '$T_TMP/mon-json.err' && grep -qi monitoring '$T_TMP/wire.err'" ||
        fail "monitors did not start: $(cat "$T_TMP/mon.err" "$T_TMP/wire.err")"
sleep 0.3

info "a link appears"
veth_add "$NS" v2 v3
IDX2=$(ifindex_of "$NS" v2)
P2=$(link_path "$IDX2")
wait_until "mon_has '^+ v2 ($IDX2): added'" || fail "igmpctl monitor: no 'added' line: $(cat "$T_TMP/mon.txt")"

info "a knob changes"
"$IGMPCTL" link v0 --v3-interval 200
wait_until "mon_has 'igmpv3_unsolicited_report_interval kernel 300ms → 200ms, wanted 300ms → 200ms, source runtime'" ||
        fail "igmpctl monitor: no knob line: $(cat "$T_TMP/mon.txt")"

info "a link is renamed"
ip -n "$NS" link set v2 name v2new
wait_until "mon_has '^v2new ($IDX2): Name v2 → v2new'" || fail "igmpctl monitor: no rename: $(cat "$T_TMP/mon.txt")"
ALTNAME=""
# The kernel announces an alternative name (RTM_NEWLINK) only for a link that is up.
ip -n "$NS" link set v2new up
if ip -n "$NS" link property add dev v2new altname v2alt 2>/dev/null; then
        ALTNAME=v2alt
        wait_until "[ \"\$(bctl get-property org.igmpd1 $P2 org.igmpd1.Link AlternativeNames)\" = 'as 1 \"v2alt\"' ]" ||
                fail "AlternativeNames after 'ip link property add': $(bctl get-property org.igmpd1 "$P2" org.igmpd1.Link AlternativeNames)"
        wait_until "mon_has '^v2new ($IDX2): AlternativeNames none → v2alt$'" ||
                fail "igmpctl monitor: no alternative name line: $(cat "$T_TMP/mon.txt")"
fi

info "state changes with a reload"
conf_put 20-v1.conf <<'CONF'
[Match]
Name=v1 v0

[IGMP]
Version=2
CONF
"$IGMPCTL" reload
wait_until "mon_has '^v1 ($IDX1): State unmanaged → configured'" || fail "igmpctl monitor: no state change: $(cat "$T_TMP/mon.txt")"
wait_until "mon_has '^igmpd: configuration reloaded, 2 policy files'" || fail "igmpctl monitor: no reload line"
# Every matched file, not the first and "…".
wait_until "mon_has '^v0 ($IDX0): MatchedFiles $T_CONF/10-site.conf → $T_CONF/10-site.conf, $T_CONF/20-v1.conf$'" ||
        fail "igmpctl monitor: matched files not shown whole: $(cat "$T_TMP/mon.txt")"

info "a link goes away"
ip -n "$NS" link del v2new
wait_until "mon_has '^- v2new ($IDX2): removed'" || fail "igmpctl monitor: no 'removed' line: $(cat "$T_TMP/mon.txt")"

info "the daemon stops and comes back"
igmpd_stop
wait_until "mon_has '^igmpd: stopped'" || fail "igmpctl monitor: no 'stopped'"
igmpd_start "$NS"
igmpd_wait_bus
# "started" once the first pass is over and the monitor has read the links: what changes next
# shows as old → new.
wait_until "mon_has '^igmpd: started'" || fail "igmpctl monitor: no 'started'"
"$IGMPCTL" link v0 --v3-interval 150
wait_until "mon_has 'kernel 200ms → 150ms, wanted 200ms → 150ms, source runtime'" ||
        fail "igmpctl monitor: no change after the restart: $(cat "$T_TMP/mon.txt")"

info "the audit sources change with a reload: Sources is announced"
# A kernel log stream of the test's own (--kmsg-path): no capability needed to switch it on
# by a reload (igmpd drops CAP_SYSLOG at start when its configuration does not use /dev/kmsg).
mkfifo "$T_TMP/kmsg"
mkdir -p "$T_ROOT/etc/igmpd"
printf '[Daemon]\nAuditSources=none\n' > "$T_ROOT/etc/igmpd/igmpd.conf"
igmpd_stop
igmpd_start "$NS" --kmsg-path "$T_TMP/kmsg"
igmpd_wait_bus
sources() { bctl get-property org.igmpd1 /org/igmpd1 org.igmpd1.Audit Sources; }
[ "$(sources)" = 'as 0' ] || fail "AuditSources=none: Sources is $(sources)"
printf '[Daemon]\nAuditSources=kmsg\n' > "$T_ROOT/etc/igmpd/igmpd.conf"
"$IGMPCTL" reload
wait_until "[ \"\$(sources)\" = 'as 1 \"kmsg\"' ]" || fail "AuditSources=kmsg: Sources is $(sources)"
printf '[Daemon]\nAuditSources=none\n' > "$T_ROOT/etc/igmpd/igmpd.conf"
"$IGMPCTL" reload
wait_until "[ \"\$(sources)\" = 'as 0' ]" || fail "AuditSources=none again: Sources is $(sources)"

sleep 0.5
cat "$T_TMP/mon.txt"
kill -INT $MON_TXT $MON_JSON
rc=0
wait $MON_TXT || rc=$?
[ $rc = 0 ] || fail "igmpctl monitor exited $rc on Ctrl-C"
wait $MON_JSON || fail "igmpctl --json monitor failed on Ctrl-C"

info "every line of igmpctl monitor starts with its time"
grep -qvE "^$TS" "$T_TMP/mon.txt" && fail "lines without a time: $(grep -vE "^$TS" "$T_TMP/mon.txt")"

info "what went over the wire (busctl monitor)"
W=$T_TMP/wire.json
sig() { jq -c "select(.type == \"signal\" and .member == \"$1\") $2" "$W"; }
[ -n "$(sig InterfacesAdded "| select(.path == \"/org/igmpd1\" and .payload.data[0] == \"$P2\") | select(.payload.data[1] | has(\"org.igmpd1.Link\"))")" ] ||
        fail "no InterfacesAdded for $P2 with org.igmpd1.Link"
[ -n "$(sig InterfacesRemoved "| select(.payload.data[0] == \"$P2\") | select(.payload.data[1] | index(\"org.igmpd1.Link\"))")" ] ||
        fail "no InterfacesRemoved for $P2"
[ -n "$(sig PropertiesChanged "| select(.path == \"$P0\" and .payload.data[0] == \"org.igmpd1.Link\") | select(.payload.data[1] | has(\"Knobs\"))")" ] ||
        fail "no PropertiesChanged(Knobs) for $P0"
[ -n "$(sig PropertiesChanged "| select(.path == \"$P2\") | select(.payload.data[1].Name.data == \"v2new\")")" ] ||
        fail "no PropertiesChanged(Name) for the rename"
[ -n "$(sig PropertiesChanged "| select(.path == \"$P1\") | select(.payload.data[1].State.data == \"configured\")")" ] ||
        fail "no PropertiesChanged(State) for v1"
[ -n "$(sig PropertiesChanged "| select(.path == \"/org/igmpd1\" and .payload.data[0] == \"org.igmpd1.Manager\") | select(.payload.data[1] | has(\"ConfigFiles\"))")" ] ||
        fail "no PropertiesChanged(ConfigFiles) after the reload"
[ -n "$(sig PropertiesChanged "| select(.path == \"/org/igmpd1\" and .payload.data[0] == \"org.igmpd1.Manager\") | select(.payload.data[1] | has(\"ConfigProblems\") and has(\"NConfigProblems\"))")" ] ||
        fail "no PropertiesChanged(ConfigProblems, NConfigProblems) after the reload"
if [ -n "$ALTNAME" ]; then
        [ -n "$(sig PropertiesChanged "| select(.path == \"$P2\") | select(.payload.data[1].AlternativeNames.data == [\"v2alt\"])")" ] ||
                fail "no PropertiesChanged(AlternativeNames) for the new alternative name"
fi
for want in '["kmsg"]' '[]'; do
        [ -n "$(sig PropertiesChanged "| select(.path == \"/org/igmpd1\" and .payload.data[0] == \"org.igmpd1.Audit\") | select(.payload.data[1].Sources.data == $want)")" ] ||
                fail "no PropertiesChanged(Sources = $want) after the reload that changed the audit sources"
done
# only what changed is announced: never an empty PropertiesChanged
[ -z "$(sig PropertiesChanged '| select(.payload.data[1] == {} and .payload.data[2] == [])')" ] ||
        fail "empty PropertiesChanged sent"

info "igmpctl --json monitor"
J=$T_TMP/mon.json
jq -e -s "any(.[]; .event == \"added\" and .link.index == $IDX2 and .link.name == \"v2\")" "$J" > /dev/null || fail "json: no added event: $(cat "$J")"
jq -e -s "any(.[]; .event == \"changed\" and .link.index == $IDX0 and (.changed | index(\"knobs\")) and .link.knobs.igmpv3_unsolicited_report_interval.policy == 200)" "$J" > /dev/null ||
        fail "json: no knob change: $(cat "$J")"
jq -e -s "any(.[]; .event == \"changed\" and .link.name == \"v2new\" and (.changed | index(\"name\")))" "$J" > /dev/null || fail "json: no rename"
jq -e -s "any(.[]; .event == \"removed\" and .index == $IDX2 and .name == \"v2new\")" "$J" > /dev/null || fail "json: no removed event"
jq -e -s 'any(.[]; .event == "reloaded" and (.config_files | length) == 2)' "$J" > /dev/null || fail "json: no reload event"
jq -e -s 'any(.[]; .event == "stopped") and any(.[]; .event == "started")' "$J" > /dev/null || fail "json: no stop/start events"
jq -e -s 'all(.[]; (.realtime_usec | type) == "number" and .realtime_usec > 1500000000000000)' "$J" > /dev/null ||
        fail "json: events without realtime_usec: $(cat "$J")"

echo "PASS: $T_NAME"
