#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# GetManagedObjects on /org/igmpd1 is built by igmpd in one pass (manager-bus.c), not by
# sd-bus: it must list exactly the links ListLinks lists, each with sd-bus's standard
# interfaces and org.igmpd1.Link with the same properties GetAll returns for that object —
# for configured, unmanaged, runtime-changed and IPv6-less links — with kernel values
# refreshed after the call (an out-of-band sysctl write shows in the calls that follow: reads
# answer at once and refresh asynchronously), and bad calls still get errors.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
need_jq
dbus_start

NS=$(ns_new obj)
veth_add "$NS" v0 v1
veth_add "$NS" iptv0 iptv1
veth_add "$NS" small0 small1
ip -n "$NS" link set small0 mtu 1000    # no IPv6 device: the MLD knobs are unavailable (-1)
ip -n "$NS" link property add dev v0 altname uplink-0 2>/dev/null || true
conf_put 10-site.conf <<'CONF'
[Match]
Name=v* small*

[IGMP]
V3UnsolicitedReportInterval=300

[MLD]
V2UnsolicitedReportInterval=400
CONF
conf_put 50-iptv.conf <<'CONF'
[Match]
Name=iptv0

[IGMP]
V2UnsolicitedReportInterval=250
V3UnsolicitedReportInterval=200
CONF

igmpd_start "$NS"
igmpd_wait_bus
expect_knob "$NS" ipv4 iptv0 igmpv3_unsolicited_report_interval 200
IPTV0=$(ifindex_of "$NS" iptv0)
bctl call org.igmpd1 /org/igmpd1 org.igmpd1.Manager SetLinkKnobs 'ia{sv}u' "$IPTV0" 1 \
        force_igmp_version u 3 0 > /dev/null || fail "SetLinkKnobs failed"
expect_knob "$NS" ipv4 iptv0 force_igmp_version 3

# Out of band: a knob no policy sets, written behind igmpd's back. igmpd gets no event for it;
# the call asks for a refresh, and the calls after it show the value.
in_ns "$NS" sh -c 'echo 7777 > /proc/sys/net/ipv4/conf/v1/igmpv2_unsolicited_report_interval'

OBJ=$T_TMP/objects.json
objects_show_7777() {
        bctl --json=short call org.igmpd1 /org/igmpd1 org.freedesktop.DBus.ObjectManager GetManagedObjects > "$OBJ" ||
                fail "GetManagedObjects failed"
        jq -e --arg p "$(link_path "$(ifindex_of "$NS" v1)")" \
                '.data[0][$p]["org.igmpd1.Link"].Knobs.data.igmpv2_unsolicited_report_interval[0] == 7777' "$OBJ" > /dev/null
}
wait_until objects_show_7777 || fail "the out-of-band write never showed in GetManagedObjects"
jq_true "$OBJ" '.type == "a{oa{sa{sv}}}"'

info "the same objects as ListLinks"
bctl --json=short call org.igmpd1 /org/igmpd1 org.igmpd1.Manager ListLinks |
        jq -r '.data[0][][2]' | sort > "$T_TMP/listed"
jq -r '.data[0] | keys[]' "$OBJ" | sort > "$T_TMP/managed"
diff -u "$T_TMP/listed" "$T_TMP/managed" || fail "GetManagedObjects and ListLinks list different objects"
[ "$(wc -l < "$T_TMP/listed")" -eq 7 ] || fail "expected 7 links (lo + 3 pairs), got $(wc -l < "$T_TMP/listed")"

info "each object: the standard interfaces, then org.igmpd1.Link equal to its GetAll"
while read -r path; do
        jq -e --arg p "$path" '.data[0][$p] | keys_unsorted == ["org.freedesktop.DBus.Peer",
                "org.freedesktop.DBus.Introspectable", "org.freedesktop.DBus.Properties", "org.igmpd1.Link"]
                and (.["org.freedesktop.DBus.Peer"] == {}) and (.["org.freedesktop.DBus.Introspectable"] == {})
                and (.["org.freedesktop.DBus.Properties"] == {})' "$OBJ" > /dev/null ||
                fail "$path: interfaces differ from sd-bus's: $(jq -c --arg p "$path" '.data[0][$p] | keys_unsorted' "$OBJ")"
        bctl --json=short call org.igmpd1 "$path" org.freedesktop.DBus.Properties GetAll s org.igmpd1.Link |
                jq -S '.data[0]' > "$T_TMP/getall"
        jq -S --arg p "$path" '.data[0][$p]["org.igmpd1.Link"]' "$OBJ" > "$T_TMP/entry"
        diff -u "$T_TMP/getall" "$T_TMP/entry" || fail "$path: GetManagedObjects differs from GetAll"
        # property order as in the vtable (sd-bus's order)
        jq -e --arg p "$path" '.data[0][$p]["org.igmpd1.Link"] | keys_unsorted ==
                ["Index", "Name", "NameBytes", "AlternativeNames", "Kind", "Type", "MACAddress", "State", "Knobs",
                 "MatchedFiles", "LastError", "IgnoredSources", "Namespace", "NamespaceId"]' "$OBJ" > /dev/null ||
                fail "$path: property order differs from the vtable's"
done < "$T_TMP/listed"

info "values: policy, runtime, unmanaged, unavailable, out-of-band"
entry() { jq -c --arg p "$(link_path "$(ifindex_of "$NS" "$1")")" ".data[0][\$p][\"org.igmpd1.Link\"]$2" "$OBJ"; }
[ "$(entry iptv0 '.Knobs.data.igmpv3_unsolicited_report_interval')" = "[200,200,\"$T_CONF/50-iptv.conf\"]" ] ||
        fail "iptv0 v3: $(entry iptv0 '.Knobs.data.igmpv3_unsolicited_report_interval')"
[ "$(entry iptv0 '.Knobs.data.force_igmp_version')" = '[3,3,"runtime"]' ] ||
        fail "iptv0 force_igmp_version: $(entry iptv0 '.Knobs.data.force_igmp_version')"
[ "$(entry iptv0 '.MatchedFiles.data')" = "[\"$T_CONF/50-iptv.conf\"]" ] ||
        fail "iptv0 MatchedFiles: $(entry iptv0 '.MatchedFiles.data')"
[ "$(entry iptv1 '.State.data')" = '"unmanaged"' ] || fail "iptv1 State: $(entry iptv1 '.State.data')"
[ "$(entry small0 '.Knobs.data.mldv2_unsolicited_report_interval')" = "[-1,400,\"$T_CONF/10-site.conf\"]" ] ||
        fail "small0 MLDv2 (no IPv6 device): $(entry small0 '.Knobs.data.mldv2_unsolicited_report_interval')"
[ "$(entry v1 '.Knobs.data.igmpv2_unsolicited_report_interval')" = '[7777,-1,""]' ] ||
        fail "v1 out-of-band write not shown: $(entry v1 '.Knobs.data.igmpv2_unsolicited_report_interval')"
[ "$(entry v0 '.Name.data')" = '"v0"' ] || fail "v0 Name: $(entry v0 '.Name.data')"
[ "$(entry lo '.Kind.data')" = '""' ] || fail "lo Kind: $(entry lo '.Kind.data')"
[ "$(entry lo '.Type.data')" = '"loopback"' ] || fail "lo Type: $(entry lo '.Type.data')"
[ "$(entry lo '.MACAddress.data')" = '"00:00:00:00:00:00"' ] || fail "lo MACAddress: $(entry lo '.MACAddress.data')"
[ "$(entry v0 '.Type.data')" = '"ether"' ] || fail "v0 Type: $(entry v0 '.Type.data')"
V0_MAC=$(in_ns "$NS" cat /sys/class/net/v0/address)
[ "$(entry v0 '.MACAddress.data')" = "\"$V0_MAC\"" ] || fail "v0 MACAddress: $(entry v0 '.MACAddress.data'), ip says $V0_MAC"
if ip -n "$NS" link show dev v0 | grep -q 'altname uplink-0'; then
        [ "$(entry v0 '.AlternativeNames.data')" = '["uplink-0"]' ] ||
                fail "v0 AlternativeNames: $(entry v0 '.AlternativeNames.data')"
fi
[ "$(entry v1 '.AlternativeNames.data')" = '[]' ] || fail "v1 AlternativeNames: $(entry v1 '.AlternativeNames.data')"

info "ListLinksState: the same links and values, as indexes into its string table"
bctl --json=short call org.igmpd1 /org/igmpd1 org.igmpd1.Manager ListLinksState > "$T_TMP/state.json" ||
        fail "ListLinksState failed"
jq_true "$T_TMP/state.json" '.type == "asasa(iuuuuuuauauaiaiauau)" and .data[1][0] == ""'
jq -S '.data as [$k, $s, $l] | $l | map({Index: .[0], Name: $s[.[1]], AlternativeNames: [.[7][] | $s[.]],
        Kind: $s[.[3]], Type: $s[.[2]], MACAddress: $s[.[4]], State: $s[.[5]],
        Knobs: ([range(0; $k | length) as $i | {key: $k[$i], value: [.[9][$i], .[10][$i], $s[.[11][$i]]]}]
                | from_entries),
        MatchedFiles: [.[8][] | $s[.]], LastError: $s[.[6]], IgnoredSources: [.[12][] | $s[.]]})' "$T_TMP/state.json" > "$T_TMP/state.links"
# NameBytes (the name's raw bytes) is GetManagedObjects' own; ListLinksState has the names only.
# So are Namespace and NamespaceId: ListLinksState names a followed namespace's link NETNS/IFNAME
# (test-netns-dbus.sh); here every link is igmpd's own (checked).
jq -e '[.data[0][]["org.igmpd1.Link"].Namespace.data] | all(. == ".host")' "$OBJ" > /dev/null ||
        fail "a link of igmpd's own namespace whose Namespace is not .host"
jq -S '[.data[0][]["org.igmpd1.Link"] | map_values(.data) | del(.NameBytes, .Namespace, .NamespaceId)] | sort_by(.Index)' "$OBJ" > "$T_TMP/objects.links"
diff -u "$T_TMP/objects.links" "$T_TMP/state.links" || fail "ListLinksState differs from GetManagedObjects"
jq_true "$T_TMP/state.json" '.data[0] == ["igmpv2_unsolicited_report_interval", "igmpv3_unsolicited_report_interval",
        "force_igmp_version", "mldv1_unsolicited_report_interval", "mldv2_unsolicited_report_interval",
        "force_mld_version"]'
# Shared strings once: the policy file that matches three links is in the table once.
[ "$(jq --arg f "$T_CONF/10-site.conf" '[.data[1][] | select(. == $f)] | length' "$T_TMP/state.json")" = 1 ] ||
        fail "10-site.conf is not in the string table exactly once: $(jq -c '.data[1]' "$T_TMP/state.json")"

info "bad calls still get errors; a call that wants no reply gets none, and igmpd lives"
expect_dbus_error org.freedesktop.DBus.Error.InvalidArgs /org/igmpd1 \
        org.freedesktop.DBus.ObjectManager.GetManagedObjects string:x
bctl --expect-reply=no call org.igmpd1 /org/igmpd1 org.freedesktop.DBus.ObjectManager GetManagedObjects ||
        fail "no-reply GetManagedObjects failed"
igmpd_alive

info "links that go away leave the reply"
ip -n "$NS" link del small0
wait_until "! bctl call org.igmpd1 /org/igmpd1 org.freedesktop.DBus.ObjectManager GetManagedObjects | grep -q small0" ||
        fail "small0 still listed after deletion"
[ "$(bctl --json=short call org.igmpd1 /org/igmpd1 org.freedesktop.DBus.ObjectManager GetManagedObjects |
        jq '.data[0] | length')" -eq 5 ] || fail "expected 5 objects after deleting a pair"
igmpd_alive
echo "PASS: $T_NAME"
