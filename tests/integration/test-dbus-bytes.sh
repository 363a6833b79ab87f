#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Every string igmpd sends that comes from input holding arbitrary bytes is valid UTF-8 in
# utf8_escape()'s form, "\xNN" for each byte that is not UTF-8 and for each backslash (issue 24,
# items 4 and 5). Inputs: a bad config value with byte 0xb0 and one with a backslash, policy file
# names with bytes that are not UTF-8 and with a backslash (files that apply and a file with a
# problem), interface and alternative names (a name with byte 0xff and a name that is the six
# characters by\xff, both at once), NetworkManager profile ids with backslashes (a system
# profile that sets values and a user's that is ignored). Then every property of every object
# reads (GetAll of each interface, GetManagedObjects), every read method answers (ListLinks,
# ListLinksState, GetLinkByIndex, Describe, ListEvents), the PropertiesChanged of a reload
# carries the problems, and each shows the escaped form. (One byte 0xb0 in a value made
# ConfigProblems, GetAll of org.igmpd1.Manager and the reload's PropertiesChanged fail.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
. "$(dirname "$0")/nm-lib.sh"
need_jq
dbus_start
nm_bus_policy
nm_start
export LC_ALL=C.UTF-8

NS=$(ns_new bytes)
BYTES=$'by\xff'     # "by" and byte 0xff: shown by\xff
LOOKS='by\xff'      # the six characters: shown by\x5cxff
V2=igmpv2_unsolicited_report_interval
V3=igmpv3_unsolicited_report_interval
MLD1=mldv1_unsolicited_report_interval
conf_put $'40-\xfe.conf' <<'CONF'
[Match]
Name=by*

[IGMP]
V2UnsolicitedReportInterval=3333
CONF
conf_put '45-back\slash.conf' <<'CONF'
[Match]
Name=by*

[MLD]
V1UnsolicitedReportInterval=4444
CONF
printf '[Match]\nName=by*\n\n[IGMP]\nV3UnsolicitedReportInterval=2\xb0s\n' > "$T_CONF/50-value.conf"
printf '[Match]\nName=by*\n\n[IGMP]\nV3UnsolicitedReportInterval=\\xb0\n' > "$T_CONF/"$'60-\xfd.conf'

ip -n "$NS" link add "$BYTES" type veth peer name "$LOOKS" || fail "the kernel refused the name by\\xff"
veth_add "$NS" byalt byalt-peer
ip -n "$NS" link set byalt up
ALT=""
ip -n "$NS" link property add dev byalt altname $'alt\xfd\\' 2>/dev/null && ALT=1
[ -n "$ALT" ] || info "this kernel has no alternative names: that part is left out"
IDX_BYTES=$(in_ns "$NS" cat "/sys/class/net/$BYTES/ifindex")
IDX_LOOKS=$(in_ns "$NS" cat "/sys/class/net/$LOOKS/ifindex")
IDX_ALT=$(ifindex_of "$NS" byalt)
P_BYTES=$(link_path "$IDX_BYTES")
P_LOOKS=$(link_path "$IDX_LOOKS")
P_ALT=$(link_path "$IDX_ALT")

igmpd_start "$NS"
igmpd_wait_bus
expect_knob "$NS" ipv4 byalt $V2 3333
expect_knob "$NS" ipv6 byalt $MLD1 4444

info "NetworkManager profiles whose ids hold backslashes: one sets values, a user's is ignored"
DEV_LOOKS=$(nmctl AddDevice su "$LOOKS" "$IDX_LOOKS")
DEV_ALT=$(nmctl AddDevice su byalt "$IDX_ALT")
CONN=$(nmctl AddConnection 'sa{ss}' 'iptv\1' 1 igmpd.$V3 222)
CONN_USER=$(nmctl AddConnectionWith 'ssasa{ss}' 'alice\x' "" 1 "user:alice:" 1 igmpd.$V3 333)
nmctl Activate oob "$CONN" "$DEV_LOOKS" false > /dev/null
nmctl Activate oob "$CONN_USER" "$DEV_ALT" false > /dev/null
v3_of() { in_ns "$NS" cat "/proc/sys/net/ipv4/conf/$1/$V3" 2>&1; }
wait_until '[ "$(v3_of "$LOOKS")" = 222 ]' || fail "the NetworkManager profile did not apply: $(v3_of "$LOOKS")"
wait_until "grep -q \"NetworkManager profile 'alice.*ignored\" '$T_LOG'" || fail "the user's profile was not ignored"
[ "$(v3_of "$BYTES")" = 1000 ] || fail "by<0xff> took another link's profile: $(v3_of "$BYTES")"

busctl --system --json=short monitor org.igmpd1 > "$T_TMP/wire.json" 2> "$T_TMP/wire.err" &
_T_PIDS+=($!)
wait_until "grep -qi monitoring '$T_TMP/wire.err'" || fail "busctl monitor did not start: $(cat "$T_TMP/wire.err")"
sleep 0.3
info "a reload announces the problems"
bctl call org.igmpd1 /org/igmpd1 org.igmpd1.Manager Reload > /dev/null 2>&1 || fail "Reload failed"
wire_has() { jq -e -s "any(.[]; $1)" "$T_TMP/wire.json" > /dev/null 2>&1; }
wait_until "wire_has '.member == \"PropertiesChanged\" and .path == \"/org/igmpd1\" and (.payload.data[1].ConfigProblems.data | length) == 2'" ||
        fail "no PropertiesChanged with ConfigProblems after the reload: $(jq -c 'select(.member == "PropertiesChanged") | .payload.data[1] | keys' "$T_TMP/wire.json")"

info "every property of every object reads"
bctl --list tree org.igmpd1 > "$T_TMP/tree" || fail "busctl tree failed"
grep -qx "$P_BYTES" "$T_TMP/tree" || fail "no object for by<0xff>: $(cat "$T_TMP/tree")"
n_getall=0
while read -r path; do
        bctl --json=short call org.igmpd1 "$path" org.freedesktop.DBus.Introspectable Introspect |
                jq -r '.data[0]' > "$T_TMP/introspect" || fail "Introspect $path failed"
        for iface in $(grep -o '<interface name="[^"]*"' "$T_TMP/introspect" | cut -d'"' -f2 | grep -v '^org\.freedesktop\.DBus\.'); do
                bctl --json=short call org.igmpd1 "$path" org.freedesktop.DBus.Properties GetAll s "$iface" \
                        > "$T_TMP/getall" 2>&1 || fail "GetAll $iface on $path failed: $(cat "$T_TMP/getall")"
                jq -e . "$T_TMP/getall" > /dev/null || fail "GetAll $iface on $path: not JSON"
                n_getall=$((n_getall + 1))
        done
done < "$T_TMP/tree"
# The manager, the audit, and one per link (lo, the veth pair, byalt and its peer).
[ "$n_getall" -ge 7 ] || fail "only $n_getall interfaces read"

info "the escaped forms: bytes that are not UTF-8 and backslashes as \\xNN"
bctl --json=short get-property org.igmpd1 /org/igmpd1 org.igmpd1.Manager ConfigProblems > "$T_TMP/problems.json" ||
        fail "Get ConfigProblems failed"
jq_true "$T_TMP/problems.json" '.data | map(select((.[0] | endswith("/50-value.conf")) and .[1] == 5 and (.[2] | contains("'"'"'2\\xb0s'"'"'")))) | length == 1'
jq_true "$T_TMP/problems.json" '.data | map(select((.[0] | endswith("/60-\\xfd.conf")) and (.[2] | contains("'"'"'\\x5cxb0'"'"'")))) | length == 1'
bctl --json=short get-property org.igmpd1 /org/igmpd1 org.igmpd1.Manager ConfigFiles > "$T_TMP/files.json" ||
        fail "Get ConfigFiles failed"
jq_true "$T_TMP/files.json" '.data | map(select(endswith("/40-\\xfe.conf") or endswith("/45-back\\x5cslash.conf"))) | length == 2'
bctl --json=short call org.igmpd1 /org/igmpd1 org.freedesktop.DBus.ObjectManager GetManagedObjects \
        > "$T_TMP/objects.json" 2>&1 || fail "GetManagedObjects failed: $(cat "$T_TMP/objects.json")"
link_prop() { echo ".data[0][\"$1\"][\"org.igmpd1.Link\"].$2.data"; }
jq_true "$T_TMP/objects.json" "$(link_prop "$P_BYTES" Name) == \"by\\\\xff\""
jq_true "$T_TMP/objects.json" "$(link_prop "$P_BYTES" NameBytes) == [98,121,255]"
jq_true "$T_TMP/objects.json" "$(link_prop "$P_LOOKS" Name) == \"by\\\\x5cxff\""
jq_true "$T_TMP/objects.json" "$(link_prop "$P_LOOKS" NameBytes) == [98,121,92,120,102,102]"
jq_true "$T_TMP/objects.json" "$(link_prop "$P_BYTES" MatchedFiles) | map(select(endswith(\"/40-\\\\xfe.conf\") or endswith(\"/45-back\\\\x5cslash.conf\"))) | length == 2"
jq_true "$T_TMP/objects.json" "$(link_prop "$P_BYTES" Knobs).$V2[2] | endswith(\"/40-\\\\xfe.conf\")"
jq_true "$T_TMP/objects.json" "$(link_prop "$P_BYTES" Knobs).$MLD1[2] | endswith(\"/45-back\\\\x5cslash.conf\")"
jq_true "$T_TMP/objects.json" "$(link_prop "$P_LOOKS" Knobs).$V3 == [222, 222, \"NetworkManager:iptv\\\\x5c1\"]"
jq_true "$T_TMP/objects.json" "$(link_prop "$P_ALT" IgnoredSources) | length == 1 and (.[0] | startswith(\"NetworkManager:alice\\\\x5cx: \"))"
if [ -n "$ALT" ]; then
        jq_true "$T_TMP/objects.json" "$(link_prop "$P_ALT" AlternativeNames) == [\"alt\\\\xfd\\\\x5c\"]"
fi
bctl --json=short call org.igmpd1 /org/igmpd1 org.igmpd1.Manager ListLinks > "$T_TMP/list.json" || fail "ListLinks failed"
jq_true "$T_TMP/list.json" ".data[0] | map(select(.[0] == $IDX_BYTES and .[1] == \"by\\\\xff\")) | length == 1"
jq_true "$T_TMP/list.json" ".data[0] | map(select(.[0] == $IDX_LOOKS and .[1] == \"by\\\\x5cxff\")) | length == 1"
bctl --json=short call org.igmpd1 /org/igmpd1 org.igmpd1.Manager ListLinksState > "$T_TMP/state.json" ||
        fail "ListLinksState failed"
jq_true "$T_TMP/state.json" '.data[1] | index("by\\xff") and index("by\\x5cxff") and index("NetworkManager:iptv\\x5c1")'
bctl --json=short call org.igmpd1 /org/igmpd1 org.igmpd1.Manager GetLinkByIndex i "$IDX_LOOKS" > "$T_TMP/byidx.json" ||
        fail "GetLinkByIndex failed"
jq_true "$T_TMP/byidx.json" '.data[0] == "by\\x5cxff"'
bctl call org.igmpd1 /org/igmpd1 org.igmpd1.Audit ListEvents > /dev/null || fail "ListEvents failed"

info "Describe() says the same"
bctl --json=short call org.igmpd1 /org/igmpd1 org.igmpd1.Manager Describe > "$T_TMP/describe.raw" ||
        fail "Describe failed: $(cat "$T_TMP/describe.raw")"
jq -r '.data[0]' "$T_TMP/describe.raw" > "$T_TMP/describe.json"
jq_true "$T_TMP/describe.json" '.config_problems | map(select((.file | endswith("/50-value.conf")) and (.message | contains("'"'"'2\\xb0s'"'"'")))) | length == 1'
jq_true "$T_TMP/describe.json" '.config_problems | map(select((.file | endswith("/60-\\xfd.conf")) and (.message | contains("'"'"'\\x5cxb0'"'"'")))) | length == 1'
jq_true "$T_TMP/describe.json" '.config_files | map(select(endswith("/40-\\xfe.conf") or endswith("/45-back\\x5cslash.conf"))) | length == 2'
jq_true "$T_TMP/describe.json" ".links | map(select(.index == $IDX_BYTES)) | .[0].name == \"by\\\\xff\""
jq_true "$T_TMP/describe.json" ".links | map(select(.index == $IDX_LOOKS)) | .[0] | .name == \"by\\\\x5cxff\" and .knobs.$V3.source == \"NetworkManager:iptv\\\\x5c1\""
jq_true "$T_TMP/describe.json" ".links | map(select(.index == $IDX_ALT)) | .[0].ignored_sources[0] | startswith(\"NetworkManager:alice\\\\x5cx: \")"
if [ -n "$ALT" ]; then
        jq_true "$T_TMP/describe.json" ".links | map(select(.index == $IDX_ALT)) | .[0].alternative_names == [\"alt\\\\xfd\\\\x5c\"]"
fi
# Describe's link objects and GetManagedObjects' agree on every string.
for idx in "$IDX_BYTES" "$IDX_LOOKS" "$IDX_ALT"; do
        a=$(jq -cS ".links | map(select(.index == $idx)) | .[0] | [.name, .matched_files, .ignored_sources, (.knobs | map_values(.source))]" "$T_TMP/describe.json")
        b=$(jq -cS --arg p "$(link_path "$idx")" '.data[0][$p]["org.igmpd1.Link"] | [.Name.data, .MatchedFiles.data, .IgnoredSources.data, (.Knobs.data | map_values(.[2] | if . == "" then null else . end))]' "$T_TMP/objects.json")
        [ "$a" = "$b" ] || fail "link $idx: Describe says $a, GetManagedObjects says $b"
done
info "RevertLinkKnobs names by<0xff>'s runtime file escaped"
bctl call org.igmpd1 /org/igmpd1 org.igmpd1.Manager SetLinkKnobs 'ia{sv}u' "$IDX_BYTES" 1 $V3 u 200 0 > /dev/null ||
        fail "SetLinkKnobs on by<0xff> failed"
bctl --json=short call org.igmpd1 /org/igmpd1 org.igmpd1.Manager RevertLinkKnobs iasu "$IDX_BYTES" 0 0 \
        > "$T_TMP/revert.json" 2>&1 || fail "RevertLinkKnobs on by<0xff> failed: $(cat "$T_TMP/revert.json")"
jq_true "$T_TMP/revert.json" '.data[0][0][0] | endswith("/by\\xff.conf")'
igmpd_alive
echo "PASS: $T_NAME (every string on the bus and in Describe() from bytes and backslashes, escaped)"
