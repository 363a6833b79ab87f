#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Interface names are bytes; D-Bus strings are UTF-8 (issue 14, item 4). With a link named
# "bad" + byte 0xff, one whose name holds a terminal escape (ESC) and, where the kernel has
# them, an alternative name and a policy file name that are not UTF-8: ListLinks,
# GetManagedObjects, Describe and InterfacesAdded work and show such names escaped ("bad\xff"),
# NameBytes has the bytes; GetLinkByName finds the link by its escaped form and by a name that
# merely looks escaped; igmpctl list/status/link work with the raw name, print no control
# character, and its JSON says what Describe says. A backslash is escaped too (issue 24, item 5):
# with "bad" + 0xff and the seven characters bad\xff present at once, they show as bad\xff and
# bad\x5cxff, and each of those forms finds its own link (igmpctl and GetLinkByName).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
need_jq
[ -x "$IGMPCTL" ] || fail "igmpctl not found at $IGMPCTL"
dbus_start
export LC_ALL=C.UTF-8
unset SYSTEMD_COLORS NO_COLOR SYSTEMD_PAGER PAGER COLUMNS

NS=$(ns_new utf8)
BAD=$'bad\xff'
ESC=$'e\e[31mx'
LOOKS=$'bad\\xfe'   # seven characters, valid UTF-8: a name that looks escaped
LIT='bad\xff'       # seven characters too, while "bad" + 0xff exists: shown bad\x5cxff
conf_put 50-all.conf <<'CONF'
[Match]
Name=bad* ok* e* look*

[IGMP]
V3UnsolicitedReportInterval=222
CONF
# A policy file whose name is not UTF-8: MatchedFiles, ConfigFiles and the sources show it escaped.
conf_put $'60-\xfe.conf' <<'CONF'
[Match]
Name=ok1

[IGMP]
V2UnsolicitedReportInterval=3333
CONF
igmpd_start "$NS"
igmpd_wait_bus
V3=igmpv3_unsolicited_report_interval

busctl --system --json=short monitor org.igmpd1 > "$T_TMP/wire.json" 2> "$T_TMP/wire.err" &
_T_PIDS+=($!)
wait_until "grep -qi monitoring '$T_TMP/wire.err'" || fail "busctl monitor did not start: $(cat "$T_TMP/wire.err")"
sleep 0.3
# wire_has FILTER: a message busctl monitor saw satisfies the jq FILTER.
wire_has() { jq -e -s "any(.[]; $1)" "$T_TMP/wire.json" > /dev/null 2>&1; }

info "links named with bytes that are not UTF-8, and with a terminal escape"
ip -n "$NS" link add "$BAD" type veth peer name ok1 || fail "the kernel refused the name 'bad\\xff'"
ip -n "$NS" link add "$ESC" type veth peer name "$LOOKS"
ip -n "$NS" link add "$LIT" type veth peer name ok2
ALT=""
# The kernel announces an alternative name (RTM_NEWLINK) only for a link that is up.
ip -n "$NS" link set ok1 up
ip -n "$NS" link property add dev ok1 altname $'alt\xfd' 2>/dev/null && ALT=1
[ -n "$ALT" ] || info "this kernel has no alternative names: that part is left out"
# Reads answer from what igmpd knows: give the altname's event time to arrive (the checks below
# say what is wrong if it never does).
if [ -n "$ALT" ]; then
        wait_until "bctl call org.igmpd1 /org/igmpd1 org.igmpd1.Manager GetLinkByName s 'alt\\xfd' > /dev/null 2>&1" || true
fi
IDX_BAD=$(in_ns "$NS" cat "/sys/class/net/$BAD/ifindex")
IDX_OK=$(ifindex_of "$NS" ok1)
IDX_ESC=$(in_ns "$NS" cat "/sys/class/net/$ESC/ifindex")
IDX_LOOKS=$(in_ns "$NS" cat "/sys/class/net/$LOOKS/ifindex")
IDX_LIT=$(in_ns "$NS" cat "/sys/class/net/$LIT/ifindex")
expect_knob "$NS" ipv4 ok1 $V3 222
# v3_of NAME; wait_v3 NAME VALUE (no eval: the names hold backslashes and escapes).
v3_of() { in_ns "$NS" cat "/proc/sys/net/ipv4/conf/$1/$V3" 2>&1; }
wait_v3() {
        local i
        for ((i = 0; i < 200; i++)); do
                [ "$(v3_of "$1")" = "$2" ] && return 0
                sleep 0.05
        done
        fail "$(printf %q "$1"): $V3 is $(v3_of "$1"), expected $2"
}
bad_v3() { v3_of "$BAD"; }
wait_v3 "$BAD" 222
wait_v3 "$LIT" 222

info "ListLinks and GetManagedObjects answer, names escaped"
bctl --json=short call org.igmpd1 /org/igmpd1 org.igmpd1.Manager ListLinks > "$T_TMP/list.json" 2>&1 ||
        fail "ListLinks failed: $(cat "$T_TMP/list.json")"
jq_true "$T_TMP/list.json" ".data[0] | map(select(.[0] == $IDX_BAD and .[1] == \"bad\\\\xff\")) | length == 1"
jq_true "$T_TMP/list.json" ".data[0] | map(select(.[0] == $IDX_ESC and .[1] == \"e\\u001b[31mx\")) | length == 1"
jq_true "$T_TMP/list.json" ".data[0] | map(select(.[0] == $IDX_LIT and .[1] == \"bad\\\\x5cxff\")) | length == 1"
bctl --json=short call org.igmpd1 /org/igmpd1 org.freedesktop.DBus.ObjectManager GetManagedObjects \
        > "$T_TMP/objects.json" 2>&1 || fail "GetManagedObjects failed: $(cat "$T_TMP/objects.json")"
P_BAD=$(link_path "$IDX_BAD")
P_OK=$(link_path "$IDX_OK")
jq_true "$T_TMP/objects.json" ".data[0][\"$P_BAD\"][\"org.igmpd1.Link\"].Name.data == \"bad\\\\xff\""
jq_true "$T_TMP/objects.json" ".data[0][\"$P_BAD\"][\"org.igmpd1.Link\"].NameBytes.data == [98,97,100,255]"
jq_true "$T_TMP/objects.json" ".data[0][\"$(link_path "$IDX_LIT")\"][\"org.igmpd1.Link\"].Name.data == \"bad\\\\x5cxff\""
jq_true "$T_TMP/objects.json" ".data[0][\"$P_OK\"][\"org.igmpd1.Link\"].MatchedFiles.data | map(select(endswith(\"/60-\\\\xfe.conf\"))) | length == 1"
jq_true "$T_TMP/objects.json" ".data[0][\"$P_OK\"][\"org.igmpd1.Link\"].Knobs.data.igmpv2_unsolicited_report_interval[2] | endswith(\"/60-\\\\xfe.conf\")"
if [ -n "$ALT" ]; then
        jq_true "$T_TMP/objects.json" ".data[0][\"$P_OK\"][\"org.igmpd1.Link\"].AlternativeNames.data == [\"alt\\\\xfd\"]"
fi
bctl --json=short get-property org.igmpd1 /org/igmpd1 org.igmpd1.Manager ConfigFiles > "$T_TMP/files.json" ||
        fail "ConfigFiles failed"
jq_true "$T_TMP/files.json" '.data | map(select(endswith("/60-\\xfe.conf"))) | length == 1'
bctl --json=short get-property org.igmpd1 "$P_BAD" org.igmpd1.Link Name > "$T_TMP/name.json" || fail "Get Name failed"
jq_true "$T_TMP/name.json" '.data == "bad\\xff"'
bctl --json=short call org.igmpd1 /org/igmpd1 org.igmpd1.Manager GetLinkByIndex i "$IDX_BAD" > "$T_TMP/byidx.json" ||
        fail "GetLinkByIndex failed"
jq_true "$T_TMP/byidx.json" '.data[0] == "bad\\xff"'

info "InterfacesAdded was sent for the link that is not UTF-8"
wait_until "wire_has '.member == \"InterfacesAdded\" and .payload.data[0] == \"$P_BAD\"'" ||
        fail "no InterfacesAdded for $P_BAD: $(jq -c 'select(.member == "InterfacesAdded") | .payload.data[0]' "$T_TMP/wire.json")"

info "GetLinkByName: by the escaped form, and a name that merely looks escaped is itself"
expect_out "^io $IDX_BAD " bctl call org.igmpd1 /org/igmpd1 org.igmpd1.Manager GetLinkByName s 'bad\xff'
expect_out "^io $IDX_LIT " bctl call org.igmpd1 /org/igmpd1 org.igmpd1.Manager GetLinkByName s 'bad\x5cxff'
expect_out "^io $IDX_LOOKS " bctl call org.igmpd1 /org/igmpd1 org.igmpd1.Manager GetLinkByName s 'bad\xfe'
expect_out "^io $IDX_ESC " bctl call org.igmpd1 /org/igmpd1 org.igmpd1.Manager GetLinkByName s "$ESC"
if [ -n "$ALT" ]; then
        expect_out "^io $IDX_OK " bctl call org.igmpd1 /org/igmpd1 org.igmpd1.Manager GetLinkByName s 'alt\xfd'
fi
expect_dbus_error org.igmpd1.Error.NoSuchLink /org/igmpd1 org.igmpd1.Manager.GetLinkByName string:'bad\xfd'
expect_dbus_error org.igmpd1.Error.NoSuchLink /org/igmpd1 org.igmpd1.Manager.GetLinkByName string:'bad\xFF'

info "igmpctl list, status and link with the raw name"
"$IGMPCTL" list > "$T_TMP/list.txt" 2> "$T_TMP/list.err" || fail "igmpctl list failed: $(cat "$T_TMP/list.err")"
grep -qE "^ *$IDX_BAD +bad\\\\xff +veth" "$T_TMP/list.txt" || fail "igmpctl list: $(cat -v "$T_TMP/list.txt")"
grep -qE "^ *$IDX_ESC +e\\\\x1b\\[31mx +veth" "$T_TMP/list.txt" || fail "igmpctl list: $(cat -v "$T_TMP/list.txt")"
grep -qE "^ *$IDX_LIT +bad\\\\x5cxff +veth" "$T_TMP/list.txt" || fail "igmpctl list: $(cat -v "$T_TMP/list.txt")"
"$IGMPCTL" status "$BAD" ok1 "$ESC" > "$T_TMP/status.txt" 2>&1 || fail "igmpctl status failed: $(cat -v "$T_TMP/status.txt")"
grep -q "$IDX_BAD: bad\\\\xff" "$T_TMP/status.txt" || fail "igmpctl status: $(cat -v "$T_TMP/status.txt")"
grep -q '60-\\xfe.conf' "$T_TMP/status.txt" || fail "igmpctl status lacks the escaped file name: $(cat -v "$T_TMP/status.txt")"
"$IGMPCTL" status 'bad*' > "$T_TMP/glob.txt" 2>&1 || fail "igmpctl status 'bad*' failed: $(cat -v "$T_TMP/glob.txt")"
grep -q "$IDX_BAD: bad\\\\xff" "$T_TMP/glob.txt" || fail "igmpctl status 'bad*': $(cat -v "$T_TMP/glob.txt")"
# Nothing igmpctl printed holds a control character but newlines, whatever the names.
for f in list status glob; do
        ! LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$T_TMP/$f.txt" || fail "igmpctl $f printed a control character: $(cat -v "$T_TMP/$f.txt")"
        iconv -f UTF-8 -t UTF-8 "$T_TMP/$f.txt" > /dev/null 2>&1 || fail "igmpctl $f printed bytes that are not UTF-8"
done
"$IGMPCTL" link "$BAD" --v3-interval 333 > "$T_TMP/ctl" 2>&1 || fail "igmpctl link 'bad\\xff': $(cat -v "$T_TMP/ctl")"
expect_knob "$NS" ipv4 ok1 $V3 222
wait_v3 "$BAD" 333
"$IGMPCTL" link 'bad\xfe' --v3-interval 334 > "$T_TMP/ctl" 2>&1 || fail "igmpctl link 'bad\\xfe': $(cat "$T_TMP/ctl")"
wait_v3 "$LOOKS" 334
[ "$(bad_v3)" = 333 ] || fail "igmpctl link 'bad\\xfe' (the seven characters) changed bad\\xff"
"$IGMPCTL" link "$ESC" --v3-interval 335 > "$T_TMP/ctl" 2>&1 || fail "igmpctl link ESC: $(cat -v "$T_TMP/ctl")"
wait_v3 "$ESC" 335
# The two names that once looked alike, each by the form igmpctl shows.
"$IGMPCTL" link 'bad\x5cxff' --v3-interval 336 > "$T_TMP/ctl" 2>&1 || fail "igmpctl link 'bad\x5cxff': $(cat "$T_TMP/ctl")"
wait_v3 "$LIT" 336
[ "$(bad_v3)" = 333 ] || fail "igmpctl link 'bad\x5cxff' changed bad + 0xff"
"$IGMPCTL" link 'bad\xff' --v3-interval 337 > "$T_TMP/ctl" 2>&1 || fail "igmpctl link 'bad\xff': $(cat "$T_TMP/ctl")"
wait_v3 "$BAD" 337
[ "$(v3_of "$LIT")" = 336 ] || fail "igmpctl link 'bad\xff' changed the seven characters bad\xff"
"$IGMPCTL" status 'bad\x5cxff' > "$T_TMP/lit.txt" 2>&1 || fail "igmpctl status 'bad\x5cxff': $(cat "$T_TMP/lit.txt")"
grep -q "^.* $IDX_LIT: bad\\\\x5cxff\$" "$T_TMP/lit.txt" || fail "igmpctl status 'bad\x5cxff': $(cat -v "$T_TMP/lit.txt")"
"$IGMPCTL" link $'nope\e[2J' --v3-interval 1 > "$T_TMP/nope" 2>&1 && fail "igmpctl link on a missing link succeeded"
! LC_ALL=C grep -q $'\e' "$T_TMP/nope" || fail "igmpctl echoed a raw escape: $(cat -v "$T_TMP/nope")"
grep -q 'No such link: nope\\x1b\[2J' "$T_TMP/nope" || fail "igmpctl link nope…: $(cat -v "$T_TMP/nope")"

info "JSON: igmpctl and Describe agree, names escaped the same way"
"$IGMPCTL" --json=short status > "$T_TMP/ctl.json" || fail "igmpctl --json status failed"
bctl --json=short call org.igmpd1 /org/igmpd1 org.igmpd1.Manager Describe | jq -r '.data[0]' > "$T_TMP/describe.json"
jq_true "$T_TMP/ctl.json" "map(select(.index == $IDX_BAD)) | .[0].name == \"bad\\\\xff\""
jq_true "$T_TMP/describe.json" ".links | map(select(.index == $IDX_BAD)) | .[0].name == \"bad\\\\xff\""
jq_true "$T_TMP/describe.json" ".links | map(select(.index == $IDX_ESC)) | .[0].name == \"e\\u001b[31mx\""
jq_true "$T_TMP/describe.json" '.config_files | map(select(endswith("/60-\\xfe.conf"))) | length == 1'
jq_true "$T_TMP/describe.json" ".links | map(select(.index == $IDX_LIT)) | .[0].name == \"bad\\\\x5cxff\""
for idx in "$IDX_BAD" "$IDX_OK" "$IDX_ESC" "$IDX_LOOKS" "$IDX_LIT"; do
        a=$(jq -cS "map(select(.index == $idx)) | .[0] | {name, alternative_names, matched_files, knobs}" "$T_TMP/ctl.json")
        b=$(jq -cS ".links | map(select(.index == $idx)) | .[0] | {name, alternative_names, matched_files, knobs}" "$T_TMP/describe.json")
        [ "$a" = "$b" ] || fail "link $idx: igmpctl --json says $a, Describe says $b"
done

info "renamed to another name that is not UTF-8, then removed"
ip -n "$NS" link set "$BAD" name $'bad\xfc\xfc'
wait_until "wire_has '.member == \"PropertiesChanged\" and .path == \"$P_BAD\" and .payload.data[1].Name.data == \"bad\\\\xfc\\\\xfc\" and .payload.data[1].NameBytes.data == [98,97,100,252,252]'" ||
        fail "no PropertiesChanged with the new escaped name: $(jq -c 'select(.member == "PropertiesChanged" and .path == "'"$P_BAD"'") | .payload.data[1]' "$T_TMP/wire.json")"
expect_out "^io $IDX_BAD " bctl call org.igmpd1 /org/igmpd1 org.igmpd1.Manager GetLinkByName s 'bad\xfc\xfc'
# No link is "bad" + 0xff any more: that form is now only the name itself, the seven characters.
expect_out "^io $IDX_LIT " bctl call org.igmpd1 /org/igmpd1 org.igmpd1.Manager GetLinkByName s 'bad\xff'
ip -n "$NS" link del ok1
wait_until "wire_has '.member == \"InterfacesRemoved\" and .payload.data[0] == \"$P_BAD\"'" ||
        fail "no InterfacesRemoved for $P_BAD"
igmpd_alive
echo "PASS: $T_NAME (names that are not UTF-8 escaped on the bus, in JSON and in igmpctl)"
