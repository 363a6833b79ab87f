#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# igmpd --check and the NetworkManager layer ([Daemon] NetworkManager=auto, the default): the
# values and sources it prints are what the daemon would apply now, profiles active in
# NetworkManager (tests/helpers/fake-nm.py) included; when it cannot read NetworkManager (no
# system bus) it says so; NetworkManager absent or NetworkManager=no are said too. --check
# never writes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
. "$(dirname "$0")/nm-lib.sh"

NS=$(ns_new nmc)
veth_add "$NS" nmc0 nmc1
conf_put 10-site.conf <<'CONF'
[Match]
Name=nmc*

[IGMP]
V3UnsolicitedReportInterval=500
CONF
V3=igmpv3_unsolicited_report_interval
check() { in_ns "$NS" "$IGMPD" --config-root "$T_ROOT" --check > "$T_TMP/check.out" 2>&1 || fail "--check failed: $(cat "$T_TMP/check.out")"; }
has() { grep -qE -- "$1" "$T_TMP/check.out" || fail "$2: --check printed $(cat "$T_TMP/check.out")"; }
# The knob lines of one link: from "N: IF" to the next link.
link_lines() { sed -n "/^[0-9]*: $1\\b/,/^[0-9]*: /p" "$T_TMP/check.out"; }

info "no system bus: the NetworkManager layer is said to be missing"
check
has '^NetworkManager profiles: NOT included: cannot reach the system bus' "no word that NetworkManager is left out"

dbus_start
nm_bus_policy
info "NetworkManager not on the bus"
check
has '^NetworkManager profiles: included: NetworkManager is not on the bus' "NetworkManager's absence not said"

info "a profile with igmpd user data active on nmc0: its value and source"
nm_start
DEV0=$(nmctl AddDevice su nmc0 "$(ifindex_of "$NS" nmc0)")
nmctl AddDevice su nmc1 "$(ifindex_of "$NS" nmc1)" > /dev/null
CONN=$(nmctl AddConnection 'sa{ss}' iptv 1 igmpd.$V3 200)
nmctl Activate oob "$CONN" "$DEV0" false > /dev/null
check
has '^NetworkManager profiles: included: the profiles active now' "NetworkManager's layer not said to be included"
link_lines nmc0 | grep -qE "^ +$V3 +1000ms +200ms +NetworkManager:iptv$" ||
        fail "nmc0 does not show the profile's value: $(cat "$T_TMP/check.out")"
link_lines nmc1 | grep -qE "^ +$V3 +1000ms +500ms +$T_CONF/10-site.conf$" ||
        fail "nmc1 does not show the policy value: $(cat "$T_TMP/check.out")"
[ "$(knob_get "$NS" ipv4 nmc0 $V3)" = 1000 ] || fail "--check wrote a knob"

info "[Daemon] NetworkManager=no: not used"
mkdir -p "$T_ROOT/etc/igmpd"
printf '[Daemon]\nNetworkManager=no\n' > "$T_ROOT/etc/igmpd/igmpd.conf"
check
has '^NetworkManager profiles: not used \(\[Daemon\] NetworkManager=no\)' "NetworkManager=no not said"
link_lines nmc0 | grep -qE "^ +$V3 +1000ms +500ms +$T_CONF/10-site.conf$" ||
        fail "with NetworkManager=no nmc0 should show the policy value: $(cat "$T_TMP/check.out")"
echo "PASS: $T_NAME"
