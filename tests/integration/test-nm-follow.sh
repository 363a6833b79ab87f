#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# igmpd follows NetworkManager over a private system bus, with tests/helpers/fake-nm.py standing
# in for NetworkManager (same object paths, properties and signals as the real one):
#   - NetworkManager absent at start: igmpd applies policy and carries on; it appears later
#   - activation: the profile's user.data igmpd.<knob> values reach /proc/sys, the status names
#     "NetworkManager:<profile id>"; a bad value is logged once and ignored; other keys ignored
#   - precedence: policy < NetworkManager < runtime (SetLinkKnobs), and back on RevertLink
#   - the applied connection counts (Device.GetAppliedConnection), not the saved profile: a
#     saved edit changes nothing, even when igmpd re-reads NetworkManager (ReconfigureLink),
#     until it is reapplied (Device.Reapply, which announces nothing: ReconfigureLink tells
#     igmpd); key removed and reapplied: falls back to policy
#   - a user's profile (connection.permissions) is ignored: its values do not apply, one log
#     line says why, IgnoredSources and igmpctl status show it (issue 18, items 2 and 3)
#   - deactivation: falls back to policy; a link without a profile is never touched
#   - VPN active connections are not device profiles
#   - NetworkManager restart: name vanishes (fall back) and reappears (values back)
#   - a device maps to its link by Ifindex: a link that takes the device's name gets nothing
#   - [Daemon] NetworkManager=no: profiles are ignored
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
. "$(dirname "$0")/nm-lib.sh"

dbus_start
nm_bus_policy

NS=$(ns_new nmf)
veth_add "$NS" nmf0 nmf1
conf_put 10-site.conf <<'CONF'
[Match]
Name=nmf*

[IGMP]
V3UnsolicitedReportInterval=500
V2UnsolicitedReportInterval=5000
CONF
POLICY=$T_CONF/10-site.conf
V3=igmpv3_unsolicited_report_interval
V2=igmpv2_unsolicited_report_interval
MLD2=mldv2_unsolicited_report_interval

knobs_of() {
        bctl get-property org.igmpd1 "$(link_path "$(ifindex_of "$NS" "$1")")" org.igmpd1.Link Knobs
}
# expect_source IF KNOB KERNEL POLICY SOURCE: the link's Knobs property shows that entry.
expect_source() {
        local want="\"$2\" $3 $4 \"$5\""
        wait_until "knobs_of $1 | grep -qF '$want'" || fail "$1 Knobs is '$(knobs_of "$1")', expected $want"
}

info "NetworkManager absent: policy applies, igmpd carries on"
igmpd_start "$NS"
igmpd_wait_bus
expect_knob "$NS" ipv4 nmf0 $V3 500
WAIT_SECS=10 wait_until "[ \$(log_count 'NetworkManager is not on the bus') -ge 1 ]" ||
        fail "igmpd did not notice NetworkManager's absence"

info "NetworkManager appears later; a profile with user data is activated on nmf0"
nm_start
WAIT_SECS=10 wait_until "[ \$(log_count 'NetworkManager is on the bus') -ge 1 ]" ||
        fail "igmpd did not notice NetworkManager appearing"
DEV0=$(nmctl AddDevice su nmf0 "$(ifindex_of "$NS" nmf0)")
DEV1=$(nmctl AddDevice su nmf1 "$(ifindex_of "$NS" nmf1)")
CONN=$(nmctl AddConnection 'sa{ss}' iptv 5 \
        igmpd.$V3 200 igmpd.$MLD2 300ms igmpd.force_igmp_version bogus igmpd.no_such_knob 1 other.app.key x)
AC=$(nmctl Activate oob "$CONN" "$DEV0" false)
expect_knob "$NS" ipv4 nmf0 $V3 200
expect_knob "$NS" ipv6 nmf0 $MLD2 300
expect_source nmf0 $V3 200 200 "NetworkManager:iptv"
expect_source nmf0 $V2 5000 5000 "$POLICY"      # not in the profile: policy still
expect_source nmf0 force_igmp_version 0 -1 ""   # bad value ignored: kernel default
expect_knob "$NS" ipv4 nmf1 $V3 500              # the other device has no profile
expect_source nmf1 $V3 500 500 "$POLICY"
[ "$(log_count "NetworkManager profile 'iptv'.*force_igmp_version=bogus.*ignoring")" -eq 1 ] ||
        fail "the bad value was not logged exactly once: $(grep -c bogus "$T_LOG")"
[ "$(log_count "NetworkManager profile 'iptv'.*unknown knob 'no_such_knob'")" -eq 1 ] ||
        fail "the unknown knob was not logged exactly once"
[ "$(log_count "other.app.key")" -eq 0 ] || fail "another program's user data key was reported"

info "precedence: runtime over NetworkManager, and back on revert"
IDX0=$(ifindex_of "$NS" nmf0)
bctl call org.igmpd1 /org/igmpd1 org.igmpd1.Manager SetLinkKnobs 'ia{sv}u' "$IDX0" 1 $V3 u 150 0 ||
        fail "SetLinkKnobs failed"
expect_knob "$NS" ipv4 nmf0 $V3 150
expect_source nmf0 $V3 150 150 "runtime"
bctl call org.igmpd1 /org/igmpd1 org.igmpd1.Manager RevertLink iu "$IDX0" 0 || fail "RevertLink failed"
expect_knob "$NS" ipv4 nmf0 $V3 200
expect_source nmf0 $V3 200 200 "NetworkManager:iptv"

# resync: igmpd re-reads NetworkManager (ReconfigureLink) and the read has finished.
resync() {
        local n
        n=$(log_count 'NetworkManager: full read done')
        bctl call org.igmpd1 /org/igmpd1 org.igmpd1.Manager ReconfigureLink i "$IDX0" || fail "ReconfigureLink failed"
        wait_until "[ \$(log_count 'NetworkManager: full read done') -gt $n ]" || fail "igmpd did not re-read NetworkManager"
}
# reapply DEVICE: NetworkManager's Device.Reapply of the saved profile (no signal), then igmpd is told.
reapply() {
        bctl call org.freedesktop.NetworkManager "$1" org.freedesktop.NetworkManager.Device Reapply 'a{sa{sv}}tu' 0 0 0 ||
                fail "Reapply failed"
        resync
}

info "profile saved: nothing changes until it is reapplied"
nmctl UpdateConnection 'oa{ss}' "$CONN" 2 igmpd.$V3 250 igmpd.force_igmp_version bogus
resync
expect_knob "$NS" ipv4 nmf0 $V3 200
expect_source nmf0 $V3 200 200 "NetworkManager:iptv"
expect_knob "$NS" ipv6 nmf0 $MLD2 300
info "reapplied: the saved values apply"
reapply "$DEV0"
expect_knob "$NS" ipv4 nmf0 $V3 250
expect_source nmf0 $V3 250 250 "NetworkManager:iptv"
# mldv2 left the profile: back to what it was before igmpd changed it (no policy for it)
expect_knob "$NS" ipv6 nmf0 $MLD2 1000
expect_source nmf0 $MLD2 1000 -1 ""
[ "$(log_count "force_igmp_version=bogus.*ignoring")" -le 2 ] || fail "the bad value is logged on every re-read"

info "key removed from the profile and reapplied: falls back to policy"
nmctl UpdateConnection 'oa{ss}' "$CONN" 1 other.app.key y
reapply "$DEV0"
expect_knob "$NS" ipv4 nmf0 $V3 500
expect_source nmf0 $V3 500 500 "$POLICY"

info "deactivation: falls back to policy"
nmctl UpdateConnection 'oa{ss}' "$CONN" 1 igmpd.$V3 200
reapply "$DEV0"
expect_knob "$NS" ipv4 nmf0 $V3 200
nmctl Deactivate o "$AC"
expect_knob "$NS" ipv4 nmf0 $V3 500
expect_source nmf0 $V3 500 500 "$POLICY"

info "a VPN on top of the device is not the device's profile"
CONN_VPN=$(nmctl AddConnection 'sa{ss}' corp-vpn 1 igmpd.$V3 333)
AC_VPN=$(nmctl Activate oob "$CONN_VPN" "$DEV0" true)
AC=$(nmctl Activate oob "$CONN" "$DEV0" false)
expect_knob "$NS" ipv4 nmf0 $V3 200
expect_source nmf0 $V3 200 200 "NetworkManager:iptv"
nmctl Deactivate o "$AC_VPN"

info "a user's profile (connection.permissions) is ignored, and says so once"
nmctl Deactivate o "$AC"
expect_knob "$NS" ipv4 nmf0 $V3 500
# igmpctl monitor prints the ignored source coming and going (text and JSON).
LC_ALL=C.UTF-8 "$IGMPCTL" monitor > "$T_TMP/mon.txt" 2> "$T_TMP/mon.err" &
_T_PIDS+=($!)
"$IGMPCTL" --json=short monitor > "$T_TMP/mon.json" 2> "$T_TMP/mon-json.err" &
_T_PIDS+=($!)
wait_until "grep -q Monitoring '$T_TMP/mon.err' && grep -q Monitoring '$T_TMP/mon-json.err'" ||
        fail "igmpctl monitor did not start: $(cat "$T_TMP/mon.err" "$T_TMP/mon-json.err")"
CONN_USER=$(nmctl AddConnectionWith 'ssasa{ss}' "alice iptv" "" 1 "user:alice:" 2 igmpd.$V3 333 igmpd.$V2 444)
AC_USER=$(nmctl Activate oob "$CONN_USER" "$DEV0" false)
WHY="NetworkManager:alice iptv: it belongs to user:alice (connection.permissions); only system profiles (no connection.permissions) may set igmpd values"
wait_until "[ \$(log_count \"nmf0: NetworkManager profile 'alice iptv' ignored: it belongs to user:alice [(]connection.permissions[)]\") -eq 1 ]" ||
        fail "no log line says why the user's profile is ignored: $(grep -F 'alice' "$T_LOG" | tail -n 3)"
resync
resync
expect_knob "$NS" ipv4 nmf0 $V3 500
expect_source nmf0 $V3 500 500 "$POLICY"
expect_source nmf0 $V2 5000 5000 "$POLICY"
[ "$(log_count "NetworkManager profile 'alice iptv' ignored")" -eq 1 ] ||
        fail "the ignored profile was not logged exactly once: $(grep -cF "'alice iptv' ignored" "$T_LOG")"
ignored=$(bctl --json=short get-property org.igmpd1 "$(link_path "$IDX0")" org.igmpd1.Link IgnoredSources | jq -c .data)
[ "$ignored" = "$(jq -cn --arg w "$WHY" '[$w]')" ] || fail "IgnoredSources is $ignored"
"$IGMPCTL" --no-pager status nmf0 > "$T_TMP/status" || fail "igmpctl status failed"
grep -qF "Ignored sources: NetworkManager:alice iptv: it belongs to user:alice" "$T_TMP/status" ||
        fail "igmpctl status does not show the ignored profile: $(cat "$T_TMP/status")"
"$IGMPCTL" --json=short status nmf0 > "$T_TMP/status.json" || fail "igmpctl --json status failed"
jq -e --arg w "$WHY" '.[0].ignored_sources == [$w]' "$T_TMP/status.json" > /dev/null ||
        fail "igmpctl --json status: $(cat "$T_TMP/status.json")"
"$IGMPCTL" --json=short status > "$T_TMP/status-all.json" || fail "igmpctl --json status (all) failed"
jq -e --arg w "$WHY" --argjson i "$IDX0" '.[] | select(.index == $i) | .ignored_sources == [$w]' "$T_TMP/status-all.json" > /dev/null ||
        fail "igmpctl --json status (ListLinksState) lacks the ignored source"
bctl call org.igmpd1 /org/igmpd1 org.igmpd1.Manager Describe | grep -qF "it belongs to user:alice" ||
        fail "Describe lacks the ignored source"
wait_until "grep -qF 'nmf0 ($IDX0): IgnoredSources none → $WHY' '$T_TMP/mon.txt'" ||
        fail "igmpctl monitor did not print the ignored source: $(tail -n 5 "$T_TMP/mon.txt")"
wait_until "jq -e --arg w \"\$WHY\" 'select(.event == \"changed\" and (.changed | index(\"ignored_sources\")) and .link.ignored_sources == [\$w])' '$T_TMP/mon.json' > /dev/null" ||
        fail "igmpctl --json monitor did not report ignored_sources: $(tail -n 3 "$T_TMP/mon.json")"
info "back to a system profile: the ignored source goes"
nmctl Deactivate o "$AC_USER"
AC=$(nmctl Activate oob "$CONN" "$DEV0" false)
expect_knob "$NS" ipv4 nmf0 $V3 200
wait_until "[ \"\$(bctl --json=short get-property org.igmpd1 $(link_path "$IDX0") org.igmpd1.Link IgnoredSources | jq -c .data)\" = '[]' ]" ||
        fail "IgnoredSources stayed after the user's profile went"
wait_until "grep -qF 'nmf0 ($IDX0): IgnoredSources $WHY → none' '$T_TMP/mon.txt'" ||
        fail "igmpctl monitor did not print the ignored source going: $(tail -n 5 "$T_TMP/mon.txt")"

info "NetworkManager restarts: values go with it and come back"
nm_stop
expect_knob "$NS" ipv4 nmf0 $V3 500
expect_source nmf0 $V3 500 500 "$POLICY"
nm_start
DEV0=$(nmctl AddDevice su nmf0 "$IDX0")
CONN=$(nmctl AddConnection 'sa{ss}' "iptv restarted" 1 igmpd.$V3 220)
AC=$(nmctl Activate oob "$CONN" "$DEV0" false)
expect_knob "$NS" ipv4 nmf0 $V3 220
expect_source nmf0 $V3 220 220 "NetworkManager:iptv restarted"
igmpd_alive

info "a device maps to its link by ifindex: a link that takes the device's name does not get its profile"
# The link is renamed and another takes its name before NetworkManager says so (the device's
# Interface still reads nmf0): the profile stays with the device's Ifindex (issue 24, item 5).
veth_add "$NS" nmg0 nmg1
IDXG=$(ifindex_of "$NS" nmg0)
ip -n "$NS" link set nmf0 name nmfz
ip -n "$NS" link set nmg0 name nmf0
expect_knob "$NS" ipv4 nmf0 $V3 500              # the newcomer: policy (Name=nmf*)
resync
expect_source nmfz $V3 220 220 "NetworkManager:iptv restarted"
expect_source nmf0 $V3 500 500 "$POLICY"
[ "$(knob_get "$NS" ipv4 nmfz $V3)" = 220 ] || fail "the renamed link lost its profile: $(knob_get "$NS" ipv4 nmfz $V3)"
ip -n "$NS" link del nmf0
ip -n "$NS" link set nmfz name nmf0
[ "$(ifindex_of "$NS" nmf0)" = "$IDX0" ] && [ "$IDXG" != "$IDX0" ] || fail "the links did not get their names back"
resync
expect_source nmf0 $V3 220 220 "NetworkManager:iptv restarted"

info "NetworkManager=no: profiles ignored (after a reload too)"
mkdir -p "$T_ROOT/etc/igmpd"
printf '[Daemon]\nNetworkManager=no\n' > "$T_ROOT/etc/igmpd/igmpd.conf"
igmpd_reload
expect_knob "$NS" ipv4 nmf0 $V3 500
expect_source nmf0 $V3 500 500 "$POLICY"
igmpd_stop
igmpd_start "$NS"
igmpd_wait_bus
sleep 1 # give a (wrong) NetworkManager read time to happen
expect_knob "$NS" ipv4 nmf0 $V3 500
[ "$(log_count 'NetworkManager is on the bus')" -eq 2 ] || fail "igmpd followed NetworkManager with NetworkManager=no"
info "back to auto with a reload: the active profile applies again"
rm "$T_ROOT/etc/igmpd/igmpd.conf"
igmpd_reload
expect_knob "$NS" ipv4 nmf0 $V3 220
igmpd_alive

info "ok"
