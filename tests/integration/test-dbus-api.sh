#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Every method and property of org.igmpd1 over a private system bus: lookups, runtime changes
# to /proc/sys and to the runtime files (atomic, /run vs /etc with the persistent flag,
# surviving a restart), revert, reconfigure, reload, Describe(), the ObjectManager and the
# Audit skeleton; argument errors name their field; a failed write changes nothing.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
need_jq
dbus_start

NS=$(ns_new api)
veth_add "$NS" v0 v1
ip -n "$NS" link property add dev v0 altname iptv-uplink 2>/dev/null || info "no altname support, skipping that lookup"
conf_put 10-site.conf <<'CONF'
[Match]
Name=v0

[IGMP]
V3UnsolicitedReportInterval=300
CONF

igmpd_start "$NS"
igmpd_wait_bus
expect_knob "$NS" ipv4 v0 igmpv3_unsolicited_report_interval 300

IDX=$(ifindex_of "$NS" v0)
P=$(link_path "$IDX")
M=(org.igmpd1 /org/igmpd1 org.igmpd1.Manager)
L=(org.igmpd1 "$P" org.igmpd1.Link)
RUN_FILE=$T_ROOT/run/igmpd/runtime.d/v0.conf
ETC_FILE=$T_ROOT/etc/igmpd/runtime.d/v0.conf
V3=igmpv3_unsolicited_report_interval
V2=igmpv2_unsolicited_report_interval

info "Manager properties"
expect_out '^s "[0-9]+\.[0-9]+' bctl get-property "${M[@]}" Version
expect_out "^a\{sb\} 6 \"$V2\" true \"$V3\" true \"force_igmp_version\" true \"mldv1_unsolicited_report_interval\" true \"mldv2_unsolicited_report_interval\" true \"force_mld_version\" true$" \
        bctl get-property "${M[@]}" KernelFeatures
expect_out "^as 1 \"$T_CONF/10-site.conf\"$" bctl get-property "${M[@]}" ConfigFiles

info "lookups"
expect_out "$IDX \"v0\" \"$P\"" bctl call "${M[@]}" ListLinks
expect_out "^io $IDX \"$P\"$" bctl call "${M[@]}" GetLinkByName s v0
if ip -n "$NS" link show dev v0 | grep -q 'altname iptv-uplink'; then
        expect_out "^io $IDX \"$P\"$" bctl call "${M[@]}" GetLinkByName s iptv-uplink
fi
expect_out "^so \"v0\" \"$P\"$" bctl call "${M[@]}" GetLinkByIndex i "$IDX"

info "Link properties"
expect_out "^i $IDX$" bctl get-property "${L[@]}" Index
expect_out '^s "v0"$' bctl get-property "${L[@]}" Name
expect_out '^s "veth"$' bctl get-property "${L[@]}" Kind
expect_out '^s "ether"$' bctl get-property "${L[@]}" Type
expect_out "^s \"$(in_ns "$NS" cat /sys/class/net/v0/address)\"$" bctl get-property "${L[@]}" MACAddress
if ip -n "$NS" link show dev v0 | grep -q 'altname iptv-uplink'; then
        expect_out '^as 1 "iptv-uplink"$' bctl get-property "${L[@]}" AlternativeNames
else
        expect_out '^as 0$' bctl get-property "${L[@]}" AlternativeNames
fi
expect_out '^s "configured"$' bctl get-property "${L[@]}" State
expect_out '^s ""$' bctl get-property "${L[@]}" LastError
expect_out "^as 1 \"$T_CONF/10-site.conf\"$" bctl get-property "${L[@]}" MatchedFiles
expect_out "^a\{s\(iis\)\} 6 \"$V2\" 10000 -1 \"\" \"$V3\" 300 300 \"$T_CONF/10-site.conf\" " \
        bctl get-property "${L[@]}" Knobs
# the peer has no policy: unmanaged, everything kernel default
expect_out '^s "unmanaged"$' bctl get-property org.igmpd1 "$(link_path "$(ifindex_of "$NS" v1)")" org.igmpd1.Link State

info "SetLinkKnobs: runtime change → /proc/sys and /run/igmpd/runtime.d"
bctl call "${M[@]}" SetLinkKnobs 'ia{sv}u' "$IDX" 2 $V3 u 200 force_mld_version u 2 0
expect_knob "$NS" ipv4 v0 $V3 200
expect_knob "$NS" ipv6 v0 force_mld_version 2
[ -f "$RUN_FILE" ] || fail "no runtime file at $RUN_FILE"
grep -qx 'V3UnsolicitedReportInterval=200ms' "$RUN_FILE" || fail "runtime file lacks the value: $(cat "$RUN_FILE")"
grep -qx 'Version=2' "$RUN_FILE" || fail "runtime file lacks the MLD version: $(cat "$RUN_FILE")"
[ ! -e "$ETC_FILE" ] || fail "non-persistent change wrote $ETC_FILE"
[ -z "$(find "$T_ROOT" -name '.#*')" ] || fail "temporary files left behind: $(find "$T_ROOT" -name '.#*')"
expect_out "\"$V3\" 200 200 \"runtime\"" bctl get-property "${L[@]}" Knobs

info "values may come as 'i' too"
bctl call "${M[@]}" SetLinkKnobs 'ia{sv}u' "$IDX" 1 $V3 i 250 0
expect_knob "$NS" ipv4 v0 $V3 250

info "persistent flag → /etc/igmpd/runtime.d"
bctl call "${M[@]}" SetLinkKnobs 'ia{sv}u' "$IDX" 1 $V2 u 5000 1
expect_knob "$NS" ipv4 v0 $V2 5000
[ -f "$ETC_FILE" ] || fail "no persistent file at $ETC_FILE"
grep -qx 'V2UnsolicitedReportInterval=5000ms' "$ETC_FILE" || fail "persistent file: $(cat "$ETC_FILE")"
# The source tells the two apart: "runtime" is /run (gone at reboot), "runtime:persistent" /etc.
expect_out "\"$V2\" 5000 5000 \"runtime:persistent\" \"$V3\" 250 250 \"runtime\"" bctl get-property "${L[@]}" Knobs
# The log names the caller and the values.
grep -qE "v0: Runtime change by uid 0, pid [0-9]+ \(:[0-9.]+\): $V2=5000ms; stored in $ETC_FILE\.$" "$T_LOG" ||
        fail "runtime change log line: $(grep 'Runtime change' "$T_LOG")"

info "runtime changes survive a daemon restart"
igmpd_stop
# Back to kernel defaults while it is down, so the new instance finds (and later restores) them.
in_ns "$NS" sh -c "echo 10000 > /proc/sys/net/ipv4/conf/v0/$V2; echo 1000 > /proc/sys/net/ipv4/conf/v0/$V3;
                   echo 0 > /proc/sys/net/ipv6/conf/v0/force_mld_version"
igmpd_start "$NS"
igmpd_wait_bus
expect_knob "$NS" ipv4 v0 $V2 5000
expect_knob "$NS" ipv4 v0 $V3 250

info "RevertLink: files gone, policy and original values back"
bctl call "${M[@]}" RevertLink iu "$IDX" 0
[ ! -e "$RUN_FILE" ] && [ ! -e "$ETC_FILE" ] || fail "runtime files still there after revert"
expect_knob "$NS" ipv4 v0 $V3 300
expect_knob "$NS" ipv4 v0 $V2 10000
expect_knob "$NS" ipv6 v0 force_mld_version 0
expect_out "\"$V3\" 300 300 \"$T_CONF/10-site.conf\"" bctl get-property "${L[@]}" Knobs

info "RevertLink: the state and sources change at once; 'reverted' is logged only when there was something"
LO=(org.igmpd1 "$(link_path 1)" org.igmpd1.Link)
bctl call "${M[@]}" SetLinkKnobs 'ia{sv}u' 1 1 $V3 u 400 0
expect_knob "$NS" ipv4 lo $V3 400
expect_out '^s "configured"$' bctl get-property "${LO[@]}" State
n_reverted=$(log_count '^lo: Runtime changes reverted by uid 0, pid [0-9]+')
bctl call "${M[@]}" RevertLink iu 1 0
expect_knob "$NS" ipv4 lo $V3 1000
# No reload, no waiting: the reply comes after the link was configured again.
expect_out '^s "unmanaged"$' bctl get-property "${LO[@]}" State
expect_out "\"$V3\" 1000 -1 \"\"" bctl get-property "${LO[@]}" Knobs
[ "$(log_count '^lo: Runtime changes reverted by uid 0, pid [0-9]+')" = $((n_reverted + 1)) ] ||
        fail "revert not logged once: $(grep 'revert' "$T_LOG")"
bctl call "${M[@]}" RevertLink iu 1 0
[ "$(log_count '^lo: Runtime changes reverted')" = $((n_reverted + 1)) ] ||
        fail "a revert with nothing to revert logged 'Runtime changes reverted': $(grep 'revert' "$T_LOG")"
expect_out '^s "unmanaged"$' bctl get-property "${LO[@]}" State

info "Link methods: SetKnobs, Revert, Reconfigure"
bctl call "${L[@]}" SetKnobs 'a{sv}u' 1 $V3 u 150 0
expect_knob "$NS" ipv4 v0 $V3 150
bctl call "${L[@]}" Revert u 0
expect_knob "$NS" ipv4 v0 $V3 300
in_ns "$NS" sh -c "echo 777 > /proc/sys/net/ipv4/conf/v0/$V3"
bctl call "${L[@]}" Reconfigure
expect_knob "$NS" ipv4 v0 $V3 300

info "ReconfigureLink corrects drift"
in_ns "$NS" sh -c "echo 777 > /proc/sys/net/ipv4/conf/v0/$V3"
bctl call "${M[@]}" ReconfigureLink i "$IDX"
expect_knob "$NS" ipv4 v0 $V3 300

info "Reload picks up a new file"
conf_put 20-v2.conf <<'CONF'
[Match]
Name=v*

[IGMP]
V2UnsolicitedReportInterval=3s
CONF
bctl call "${M[@]}" Reload
expect_knob "$NS" ipv4 v0 $V2 3000
expect_knob "$NS" ipv4 v1 $V2 3000
expect_out "^as 2 \"$T_CONF/10-site.conf\" \"$T_CONF/20-v2.conf\"$" bctl get-property "${M[@]}" ConfigFiles
expect_out "^as 2 " bctl get-property "${L[@]}" MatchedFiles

info "ReloadEx answers with the number of problems; ConfigProblems lists them (file, line, message)"
expect_out '^a\(sus\) 0$' bctl get-property "${M[@]}" ConfigProblems
expect_out '^u 0$' bctl get-property "${M[@]}" NConfigProblems
expect_out '^u 0$' bctl call "${M[@]}" ReloadEx u 0
printf '[IGMP]\nVersion=7\n' > "$T_CONF/30-typo.conf"
printf '[Mtach]\nName=v0\n' > "$T_CONF/40-widen.conf"
expect_out '^u 2$' bctl call "${M[@]}" ReloadEx u 0
expect_out "^a\(sus\) 2 \"$T_CONF/30-typo.conf\" 2 \"Version=7 is out of range \(auto, 1, 2 or 3\), ignoring.\" \"$T_CONF/40-widen.conf\" 1 \"Unknown section \[Mtach\], file skipped.\"$" \
        bctl get-property "${M[@]}" ConfigProblems
expect_out '^u 2$' bctl get-property "${M[@]}" NConfigProblems
bctl --json=short call "${M[@]}" Describe | jq -r '.data[0]' > "$T_TMP/describe.json"
jq_true "$T_TMP/describe.json" ".n_config_problems == 2 and .config_problems[1] == {\"file\": \"$T_CONF/40-widen.conf\", \"line\": 1, \"message\": \"Unknown section [Mtach], file skipped.\"}"
expect_dbus_error org.igmpd1.Error.InvalidArgument /org/igmpd1 org.igmpd1.Manager.ReloadEx uint32:1
# Bounded: a directory full of broken files is counted whole, listed in part.
for i in $(seq 100); do printf '[IGMP]\nVersion=9\n' > "$T_CONF/5$i-many.conf"; done
expect_out '^u 102$' bctl call "${M[@]}" ReloadEx u 0
expect_out '^a\(sus\) 64 ' bctl get-property "${M[@]}" ConfigProblems
rm -f "$T_CONF"/5*-many.conf "$T_CONF/30-typo.conf" "$T_CONF/40-widen.conf"
expect_out '^u 0$' bctl call "${M[@]}" ReloadEx u 0
expect_out '^a\(sus\) 0$' bctl get-property "${M[@]}" ConfigProblems

info "Describe() is JSON of everything"
bctl --json=short call "${M[@]}" Describe | jq -r '.data[0]' > "$T_TMP/describe.json"
jq_true "$T_TMP/describe.json" '.version | type == "string"'
jq_true "$T_TMP/describe.json" ".kernel_features.$V3 == true"
jq_true "$T_TMP/describe.json" ".config_files == [\"$T_CONF/10-site.conf\", \"$T_CONF/20-v2.conf\"]"
bctl --json=short get-property org.igmpd1 /org/igmpd1 org.igmpd1.Audit Sources | jq -c .data > "$T_TMP/sources.json"
jq_true "$T_TMP/describe.json" ".audit_sources == $(cat "$T_TMP/sources.json")"
jq_true "$T_TMP/describe.json" "[.links[].index] == ([.links[].index] | sort)"
jq_true "$T_TMP/describe.json" ".links[] | select(.name == \"v0\") | .index == $IDX and .kind == \"veth\" and .state == \"configured\" and .last_error == null"
jq_true "$T_TMP/describe.json" ".links[] | select(.name == \"v0\") | .knobs.$V3 == {\"kernel\": 300, \"policy\": 300, \"source\": \"$T_CONF/10-site.conf\", \"drifted\": false}"
jq_true "$T_TMP/describe.json" ".links[] | select(.name == \"v0\") | .knobs.force_igmp_version == {\"kernel\": 0, \"policy\": null, \"source\": null, \"drifted\": false}"
jq_true "$T_TMP/describe.json" ".links[] | select(.name == \"v0\") | (.knobs | keys | length) == 6"

info "ObjectManager and Audit skeleton"
expect_out "\"$P\" [0-9]+ .*\"org.igmpd1.Link\" 14 \"Index\" i $IDX " bctl call org.igmpd1 /org/igmpd1 org.freedesktop.DBus.ObjectManager GetManagedObjects
expect_out '^a\(tsussaisu\) [0-9]+' bctl call org.igmpd1 /org/igmpd1 org.igmpd1.Audit ListEvents
expect_out '^as [0-9]+' bctl get-property org.igmpd1 /org/igmpd1 org.igmpd1.Audit Sources

info "errors name the offending field"
expect_dbus_error org.igmpd1.Error.NoSuchLink /org/igmpd1 org.igmpd1.Manager.GetLinkByIndex int32:9999
expect_dbus_error org.igmpd1.Error.NoSuchLink /org/igmpd1 org.igmpd1.Manager.GetLinkByName string:nosuch0
expect_dbus_error org.igmpd1.Error.InvalidArgument /org/igmpd1 org.igmpd1.Manager.GetLinkByName string:../../etc/x
expect_dbus_error org.igmpd1.Error.InvalidArgument /org/igmpd1 org.igmpd1.Manager.GetLinkByIndex int32:0
expect_dbus_error org.igmpd1.Error.NoSuchLink /org/igmpd1 org.igmpd1.Manager.ReconfigureLink int32:9999
expect_dbus_error org.igmpd1.Error.InvalidArgument /org/igmpd1 org.igmpd1.Manager.RevertLink int32:"$IDX" uint32:4
expect_fail 'No link with index 9999' bctl call "${M[@]}" SetLinkKnobs 'ia{sv}u' 9999 1 $V3 u 200 0
expect_fail "unknown knob 'igmpv4'" bctl call "${M[@]}" SetLinkKnobs 'ia{sv}u' "$IDX" 1 igmpv4 u 200 0
expect_fail "knobs\[$V3\]: value 0 out of range" bctl call "${M[@]}" SetLinkKnobs 'ia{sv}u' "$IDX" 1 $V3 u 0 0
expect_fail "knobs\[force_igmp_version\]: value 4 out of range" bctl call "${M[@]}" SetLinkKnobs 'ia{sv}u' "$IDX" 1 force_igmp_version u 4 0
expect_fail "knobs\[$V3\]: expected a variant of type 'u'" bctl call "${M[@]}" SetLinkKnobs 'ia{sv}u' "$IDX" 1 $V3 s 200 0
expect_fail "flags: unknown bits 0x2" bctl call "${M[@]}" SetLinkKnobs 'ia{sv}u' "$IDX" 1 $V3 u 200 2
expect_fail "knobs: empty" bctl call "${M[@]}" SetLinkKnobs 'ia{sv}u' "$IDX" 0 0
expect_fail "given more than once" bctl call "${M[@]}" SetLinkKnobs 'ia{sv}u' "$IDX" 2 $V3 u 200 $V3 u 300 0
[ ! -e "$RUN_FILE" ] || fail "a rejected call wrote $RUN_FILE"
expect_knob "$NS" ipv4 v0 $V3 300

info "a failed write changes nothing and names the path and the error"
rm -rf "$T_ROOT/run/igmpd/runtime.d"
mkdir -p "$T_ROOT/run/igmpd"
touch "$T_ROOT/run/igmpd/runtime.d"   # a file where the directory belongs
expect_fail "Failed to write $T_ROOT/run/igmpd/runtime.d/v0.conf: Not a directory" \
        bctl call "${M[@]}" SetLinkKnobs 'ia{sv}u' "$IDX" 1 $V3 u 200 0
[ "$(knob_get "$NS" ipv4 v0 $V3)" = 300 ] || fail "knob changed although the write failed"
[ -z "$(find "$T_ROOT" -name '.#*')" ] || fail "temporary files left behind"
rm -f "$T_ROOT/run/igmpd/runtime.d"
expect_out '^s "configured"$' bctl get-property "${L[@]}" State

igmpd_alive
echo "PASS: $T_NAME"
