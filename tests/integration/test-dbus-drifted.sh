#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A link whose value someone else changed is not "configured" (igmpctl(1): every available knob
# has its intended value): without the drift watch, after another process's sysctl -w of a knob
# igmpd sets, the link is "drifted" in igmpctl status (its KERNEL cell marked, a footnote),
# igmpctl list, both JSON outputs and the Link's State property, until igmpctl reconfigure puts
# igmpd's value back. A knob no source sets, changed, is not drift; nor is an MLD interval that
# reads back rounded up to the kernel's tick (250 → 252 at HZ=250).
# The old binary stays "configured" throughout.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
need_jq
dbus_start

NS=$(ns_new drift)
veth_add "$NS" v0 v1
conf_put 10-v.conf <<'CONF'
[Match]
Name=v0

[IGMP]
V3UnsolicitedReportInterval=200
[MLD]
V2UnsolicitedReportInterval=250
CONF
igmpd_start "$NS"
igmpd_wait_bus
V3=igmpv3_unsolicited_report_interval
expect_knob "$NS" ipv4 v0 $V3 200
P=$(link_path "$(ifindex_of "$NS" v0)")
state() { bctl get-property org.igmpd1 "$P" org.igmpd1.Link State; }

[ "$(state)" = 's "configured"' ] || fail "v0 is $(state) before anything changed"
info "a knob no source sets, changed by another process: still configured"
in_ns "$NS" sysctl -q -w net.ipv4.conf.v0.igmpv2_unsolicited_report_interval=3000
wait_until "\"$IGMPCTL\" status v0 | grep -qE '^igmpv2_unsolicited_report_interval +3000ms '" ||
        fail "status v0 never showed the unmanaged knob's new value: $("$IGMPCTL" status v0)"
[ "$(state)" = 's "configured"' ] || fail "an unmanaged knob's change made v0 $(state)"
"$IGMPCTL" status v0 | grep -q '\*' && fail "a KERNEL cell marked for an unmanaged knob: $("$IGMPCTL" status v0)"

info "another process writes 7000 over igmpd's 200: drifted everywhere"
in_ns "$NS" sysctl -q -w net.ipv4.conf.v0.$V3=7000
wait_until "\"$IGMPCTL\" status v0 | grep -qE '^ +State: drifted$'" || fail "igmpctl status v0: $("$IGMPCTL" status v0)"
out=$("$IGMPCTL" status v0)
grep -qE "^$V3 +7000ms\\* +200ms " <<< "$out" || fail "the KERNEL cell of $V3 is not marked: $out"
grep -q "^\\* Another process changed it" <<< "$out" || fail "no footnote for the marked cell: $out"
grep -qE '^mldv2_unsolicited_report_interval +25[0-9]ms +250ms ' <<< "$out" || fail "MLDv2 row: $out"
grep -qE '^mldv2_unsolicited_report_interval +25[0-9]ms\*' <<< "$out" && fail "MLDv2's tick rounding marked as drift: $out"
[ "$(state)" = 's "drifted"' ] || fail "the State property is $(state)"
wait_until "\"$IGMPCTL\" list | grep -qE '^ +[0-9]+ +v0 +veth +drifted$'" || fail "igmpctl list: $("$IGMPCTL" list)"
"$IGMPCTL" --json=short list > "$T_TMP/list.json"
jq_true "$T_TMP/list.json" '.[] | select(.name == "v0") | .state == "drifted"'
"$IGMPCTL" --json=short status v0 > "$T_TMP/status.json"
jq_true "$T_TMP/status.json" ".[0].state == \"drifted\" and .[0].knobs.$V3.drifted == true and
        .[0].knobs.$V3.kernel == 7000 and .[0].knobs.mldv2_unsolicited_report_interval.drifted == false and
        .[0].knobs.igmpv2_unsolicited_report_interval.drifted == false"
bctl --json=short call org.igmpd1 /org/igmpd1 org.igmpd1.Manager Describe | jq -r '.data[0]' > "$T_TMP/describe.json"
jq_true "$T_TMP/describe.json" '.links[] | select(.name == "v0") | .state == "drifted"'
[ "$(knob_get "$NS" ipv4 v0 $V3)" = 7000 ] || fail "a read put igmpd's value back"

info "igmpctl reconfigure puts igmpd's value back: configured again"
"$IGMPCTL" reconfigure v0 || fail "igmpctl reconfigure v0 failed"
expect_knob "$NS" ipv4 v0 $V3 200
[ "$(state)" = 's "configured"' ] || fail "v0 is $(state) after reconfigure"
"$IGMPCTL" status v0 | grep -qE '^ +State: configured$' || fail "status after reconfigure: $("$IGMPCTL" status v0)"
echo "PASS: $T_NAME"
