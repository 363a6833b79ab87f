#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Namespaces=named on the bus and in igmpctl: each Link carries its namespace (Namespace,
# NamespaceId), paths stay unique across namespaces with the same ifindex and own-namespace
# paths unchanged; ListLinks names NETNS/IFNAME; igmpctl list has a NETNS column, --netns NAME
# and NETNS/IFNAME select a link; runtime overrides are per namespace and link; links of a
# deleted namespace leave the bus.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
. "$(dirname "$0")/netns-lib.sh"
need_jq
dbus_start
export LC_ALL=C.UTF-8
unset SYSTEMD_COLORS NO_COLOR SYSTEMD_PAGER PAGER COLUMNS
ctl() { "$IGMPCTL" --no-pager "$@"; }
V3=igmpv3_unsolicited_report_interval

HOST=$(zns_add host)
PODA=$(zns_add pod-a)
PODB=$(zns_add pod-b)
# The same names (and, made first in fresh namespaces, the same ifindexes) in two pods.
veth_add "$HOST" eth0 peer0
veth_add "$PODA" eth0 peer0
veth_add "$PODB" eth0 peer0
named_conf
pods_conf
# pod-a's igmp_qrv from a file; pod-b's left as the kernel has it.
conf_put 25-qrv.conf <<C
[Match]
Namespace=$PODA
[IGMP]
Robustness=4
C
igmpd_start "$HOST"
igmpd_wait_bus
expect_knob "$PODA" ipv4 eth0 $V3 150

info "paths: igmpd's own links keep theirs; a pod's carry the namespace"
IDX=$(ifindex_of "$HOST" eth0)
bctl get-property org.igmpd1 "$(link_path "$IDX")" org.igmpd1.Link Namespace | grep -qx 's ".host"' ||
        fail "own link's Namespace is not .host"
PA=$(bctl call org.igmpd1 /org/igmpd1 org.igmpd1.Manager GetLinkByName s "$PODA/eth0" | awk '{print $3}' | tr -d '"')
PB=$(bctl call org.igmpd1 /org/igmpd1 org.igmpd1.Manager GetLinkByName s "$PODB/eth0" | awk '{print $3}' | tr -d '"')
[ -n "$PA" ] && [ -n "$PB" ] && [ "$PA" != "$PB" ] || fail "pod links' paths not unique: '$PA' '$PB'"
case "$PA" in /org/igmpd1/link/ns*) ;; *) fail "pod link path $PA";; esac
bctl get-property org.igmpd1 "$PA" org.igmpd1.Link Namespace | grep -qx "s \"$PODA\"" || fail "Namespace of $PA"
INO=$(stat -L -c %i "/run/netns/$PODA")
bctl get-property org.igmpd1 "$PA" org.igmpd1.Link NamespaceId | grep -qx "t $INO" || fail "NamespaceId of $PA is not $INO"
bctl call org.igmpd1 /org/igmpd1 org.igmpd1.Manager ListLinks | grep -q "\"$PODB/eth0\"" || fail "ListLinks lacks $PODB/eth0"
bctl call org.igmpd1 /org/igmpd1 org.freedesktop.DBus.ObjectManager GetManagedObjects | grep -q "$PB" ||
        fail "GetManagedObjects lacks $PB"
expect_dbus_error org.igmpd1.Error.NoSuchLink /org/igmpd1 org.igmpd1.Manager.GetLinkByName string:"zns-none/eth0"
expect_dbus_error org.igmpd1.Error.InvalidArgument /org/igmpd1 org.igmpd1.Manager.GetLinkByName string:"../eth0"

bctl --json=short call org.igmpd1 /org/igmpd1 org.igmpd1.Manager Describe | jq -r '.data[0]' > "$T_TMP/describe.json"
jq -e --arg ns "$PODA" '[.links[] | select(.netns == $ns and .name == "eth0")] | length == 1' "$T_TMP/describe.json" > /dev/null ||
        fail "Describe() lacks $PODA's eth0 with its netns"
jq -e '[.links[] | select(.netns == null)] | length >= 2' "$T_TMP/describe.json" > /dev/null ||
        fail "Describe(): igmpd's own links carry no netns key"

info "each followed namespace's igmp_qrv: on the bus and in igmpctl status"
bctl get-property org.igmpd1 /org/igmpd1 org.igmpd1.Manager IGMPRobustnessByNamespace > "$T_TMP/qrv"
grep -q "\"$PODA\" 4 4 \"[^\"]*25-qrv.conf\"" "$T_TMP/qrv" || fail "IGMPRobustnessByNamespace lacks $PODA's 4: $(cat "$T_TMP/qrv")"
grep -qE "\"$PODB\" [0-9]+ -1 \"\"" "$T_TMP/qrv" || fail "IGMPRobustnessByNamespace lacks $PODB: $(cat "$T_TMP/qrv")"
ctl status > "$T_TMP/status"
grep -qE "$PODA: 4 from .*25-qrv.conf" "$T_TMP/status" || fail "igmpctl status lacks $PODA's igmp_qrv: $(cat "$T_TMP/status")"
grep -q "1 other followed namespace: no file sets igmp_qrv" "$T_TMP/status" || fail "igmpctl status does not count $PODB: $(cat "$T_TMP/status")"

info "igmpctl list: a NETNS column; --netns shows one namespace"
ctl list > "$T_TMP/list"
head -1 "$T_TMP/list" | grep -q "NETNS" || fail "no NETNS column: $(cat "$T_TMP/list")"
grep -qE "\.host +eth0" "$T_TMP/list" || fail "own eth0 not listed as .host: $(cat "$T_TMP/list")"
grep -qE "$PODA +eth0" "$T_TMP/list" || fail "$PODA eth0 not listed"
ctl --netns "$PODB" list > "$T_TMP/list-b"
grep -q "$PODA" "$T_TMP/list-b" && fail "--netns $PODB lists $PODA"
grep -qE "$PODB +eth0" "$T_TMP/list-b" || fail "--netns $PODB does not list its eth0"
ctl --json=short list | jq -e "map(select(.netns == \"$PODA\" and .name == \"eth0\")) | length == 1" > /dev/null ||
        fail "JSON list lacks netns"

info "igmpctl status NETNS/IFNAME and --netns NAME IFNAME"
ctl status "$PODA/eth0" | grep -q "150" || fail "status $PODA/eth0 does not show 150"
ctl status "$PODA/eth0" | head -1 | grep -q ": $PODA/eth0\$" || fail "status does not name $PODA/eth0: $(ctl status "$PODA/eth0" | head -1)"
ctl --netns "$PODA" status eth0 | grep -q "150" || fail "--netns status does not show 150"

info "a runtime override is the pod's link's only"
ctl --netns "$PODA" link eth0 --v3-interval 90
expect_knob "$PODA" ipv4 eth0 $V3 90
expect_knob "$PODB" ipv4 eth0 $V3 150
expect_knob "$HOST" ipv4 eth0 $V3 1000
[ -f "$T_ROOT/run/igmpd/runtime.d/netns/$PODA/eth0.conf" ] || fail "no runtime file for $PODA/eth0"
[ ! -e "$T_ROOT/run/igmpd/runtime.d/eth0.conf" ] || fail "the override went to the own namespace's file"
ctl reload >/dev/null || true
expect_knob "$PODA" ipv4 eth0 $V3 90
ctl link "$PODA/eth0" --revert
expect_knob "$PODA" ipv4 eth0 $V3 150
ctl reconfigure "$PODB/eth0"

info "bash completion: namespace names for --netns, NETNS/IFNAME for links"
(
        set +eu +o pipefail
        # shellcheck source=/dev/null
        . "$SRCDIR/data/bash-completion/igmpctl"
        igmpctl() { "$IGMPCTL" "$@"; }
        comp() {
                COMP_WORDS=("$@")
                COMP_CWORD=$(($# - 1))
                COMPREPLY=()
                _igmpctl
                printf '%s\n' "${COMPREPLY[@]}"
        }
        comp igmpctl --netns "" | grep -qx "$PODA" || exit 1
        comp igmpctl --netns "" | grep -qx ".host" || exit 2
        comp igmpctl status "" | grep -qx "$PODB/eth0" || exit 3
        comp igmpctl status "" | grep -qx "eth0" || exit 4
        [ "$(comp igmpctl --netns "$PODA" status "" | sort | tr '\n' ' ')" = "eth0 lo peer0 " ] || exit 5
) || fail "bash completion check $? failed"

info "a deleted namespace's links leave the bus"
ip netns del "$PODB"
wait_until "! bctl call org.igmpd1 /org/igmpd1 org.igmpd1.Manager ListLinks | grep -q '$PODB/'" ||
        fail "$PODB's links still listed"
expect_dbus_error org.freedesktop.DBus.Error.UnknownObject "$PB" org.freedesktop.DBus.Properties.Get \
        string:org.igmpd1.Link string:Name
igmpd_alive
echo "PASS: $T_NAME"
