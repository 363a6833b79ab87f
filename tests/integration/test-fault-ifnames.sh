#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Interface names are untrusted input from the kernel (any local user with CAP_NET_ADMIN in a
# namespace chooses them). Every name the kernel accepts — UTF-8, a leading dot, shell glob
# characters, backslashes, 15 bytes — must be configured by a Name=* policy, written only under
# its own /proc/sys/net/*/conf/<name>/ directory, and a rename to a name that looks like a path
# trick (".x.conf", "a..b") must not disturb other links.
. "$(dirname "$0")/lib.sh"

NS=$(ns_new ifnames)
export IGMPD_LOG_LEVEL=${IGMPD_LOG_LEVEL:-info}
names=("vé0" ".x1" 'v#*?[' 'v\x01' "abcdefghijklmno" "a..b" "-dash" "ünï" "v'q\"")
for ((i = 0; i < ${#names[@]}; i += 2)); do
        peer=${names[i + 1]:-peer$i}
        ip -n "$NS" link add "${names[i]}" type veth peer name "$peer" || fail "kernel refused '${names[i]}' / '$peer'"
done
veth_add "$NS" bystander0 bystander1
in_ns "$NS" sh -c 'echo 7777 > /proc/sys/net/ipv4/conf/bystander0/igmpv3_unsolicited_report_interval'

conf_put 50-all.conf <<'CONF'
[Match]
Name=!bystander*

[IGMP]
V3UnsolicitedReportInterval=432
CONF
igmpd_start "$NS"
# Polls without eval: the names hold quotes.
knob_is() {
        local i
        for ((i = 0; i < 100; i++)); do
                [ "$(knob_get "$NS" ipv4 "$1" igmpv3_unsolicited_report_interval 2>/dev/null)" = "$2" ] && return 0
                sleep 0.05
        done
        return 1
}
bad=()
for n in "${names[@]}" peer8; do
        knob_is "$n" 432 || bad+=("'$n'=$(knob_get "$NS" ipv4 "$n" igmpv3_unsolicited_report_interval 2>&1)")
done
[ ${#bad[@]} -eq 0 ] || fail "links the kernel accepted but igmpd did not configure: ${bad[*]}"
[ "$(knob_get "$NS" ipv4 bystander0 igmpv3_unsolicited_report_interval)" = 7777 ] || fail "bystander0 was written"

info "renames to odd names"
ip -n "$NS" link set ".x1" name ".x.conf"
ip -n "$NS" link set "a..b" name "..."
knob_is ".x.conf" 432 || fail "'.x.conf' not configured after the rename"
knob_is "..." 432 || fail "'...' not configured after the rename"
[ "$(knob_get "$NS" ipv4 bystander0 igmpv3_unsolicited_report_interval)" = 7777 ] || fail "bystander0 was written"
kill -0 "$T_IGMPD_PID" 2>/dev/null || fail "igmpd died"
echo "PASS: $T_NAME (${#names[@]} odd names configured, bystander untouched)"
