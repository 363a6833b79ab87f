#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# igmpd follows NetworkManager over a private system bus, with tests/helpers/fake-nm.py standing
# in for NetworkManager (same object paths, properties and signals as the real one):
#   - NetworkManager absent at start: igmpd applies policy and carries on; it appears later
#   - activation: the profile's user.data igmpd.<knob> values reach /proc/sys, the status names
#     "NetworkManager:<profile id>"; a bad value is logged once and ignored; other keys ignored
#   - precedence: policy < NetworkManager < runtime (SetLinkKnobs), and back on RevertLink
#   - profile update (Updated signal): new value; key removed: falls back to policy
#   - deactivation: falls back to policy; a link without a profile is never touched
#   - VPN active connections are not device profiles
#   - NetworkManager restart: name vanishes (fall back) and reappears (values back)
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

info "profile updated (Updated signal): new value, without reactivation"
nmctl UpdateConnection 'oa{ss}' "$CONN" 2 igmpd.$V3 250 igmpd.force_igmp_version bogus
expect_knob "$NS" ipv4 nmf0 $V3 250
expect_source nmf0 $V3 250 250 "NetworkManager:iptv"
# mldv2 left the profile: back to what it was before igmpd changed it (no policy for it)
expect_knob "$NS" ipv6 nmf0 $MLD2 1000
expect_source nmf0 $MLD2 1000 -1 ""
[ "$(log_count "force_igmp_version=bogus.*ignoring")" -le 2 ] || fail "the bad value is logged on every re-read"

info "key removed from the profile: falls back to policy"
nmctl UpdateConnection 'oa{ss}' "$CONN" 1 other.app.key y
expect_knob "$NS" ipv4 nmf0 $V3 500
expect_source nmf0 $V3 500 500 "$POLICY"

info "deactivation: falls back to policy"
nmctl UpdateConnection 'oa{ss}' "$CONN" 1 igmpd.$V3 200
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
