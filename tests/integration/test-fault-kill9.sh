#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# kill -9 in the middle of a storm, then restart: every link that exists afterwards is
# configured (including links created while no daemon ran), the runtime drop-ins in
# /run/igmpd/runtime.d and /etc/igmpd/runtime.d are byte-for-byte intact and still override
# the policy, and no temporary file is left behind in those directories.
. "$(dirname "$0")/lib.sh"

PAIRS=${PAIRS:-500}
NS=$(ns_new kill9)
export IGMPD_LOG_LEVEL=${IGMPD_LOG_LEVEL:-info}

conf_put 50-k.conf <<'CONF'
[Match]
Name=ka* kb*

[IGMP]
V3UnsolicitedReportInterval=444
V2UnsolicitedReportInterval=4444

[MLD]
V2UnsolicitedReportInterval=800
CONF
RUN_D=$T_ROOT/run/igmpd/runtime.d
ETC_D=$T_ROOT/etc/igmpd/runtime.d
mkdir -p "$RUN_D" "$ETC_D"
printf '[IGMP]\nV3UnsolicitedReportInterval=150\n' > "$RUN_D/ka7.conf"
printf '[IGMP]\nV3UnsolicitedReportInterval=160\n\n[MLD]\nV2UnsolicitedReportInterval=900\n' > "$ETC_D/kb9.conf"
printf '[IGMP]\nV2UnsolicitedReportInterval=1700\n' > "$ETC_D/ka7.conf"
sums_before=$(cd "$T_ROOT" && sha256sum run/igmpd/runtime.d/* etc/igmpd/runtime.d/*)

igmpd_start "$NS"

half=$((PAIRS / 2))
# The first half in chunks of 10 pairs, run one after the other in the background; igmpd is
# killed once 100 links exist, so the storm is really in progress.
for c in $(seq 0 $((half / 10 - 1))); do
        for i in $(seq $((c * 10 + 1)) $((c * 10 + 10))); do echo "link add ka$i type veth peer name kb$i"; done > "$T_TMP/c$c"
done
for i in $(seq $((half + 1)) "$PAIRS"); do echo "link add ka$i type veth peer name kb$i"; done > "$T_TMP/b2"
(
        for c in $(seq 0 $((half / 10 - 1))); do ip -n "$NS" -batch "$T_TMP/c$c" || exit 1; done
) &
batch_pid=$!
WAIT_SECS=30 wait_until "[ \$(in_ns $NS sh -c 'ls -d /proc/sys/net/ipv4/conf/k[ab][0-9]* 2>/dev/null | wc -l') -ge 100 ]" ||
        fail "the storm did not start"
kill -KILL "$T_IGMPD_PID"
wait "$T_IGMPD_PID" 2>/dev/null || true
at_kill=$(in_ns "$NS" sh -c 'ls -d /proc/sys/net/ipv4/conf/k[ab][0-9]* 2>/dev/null | wc -l')
done_at_kill=$(in_ns "$NS" sh -c 'grep -lx 444 /proc/sys/net/ipv4/conf/k[ab][0-9]*/igmpv3_unsolicited_report_interval 2>/dev/null | wc -l')
info "igmpd killed with SIGKILL during the storm: $at_kill links existed, $done_at_kill configured"
wait "$batch_pid" || fail "ip -batch failed"
# Links that appear while no daemon runs, and a rename of a configured link.
ip -n "$NS" -batch "$T_TMP/b2"
ip -n "$NS" link set ka1 name ka1x
ip -n "$NS" link set ka1x name ka1

igmpd_start "$NS"

n=$((PAIRS * 2))
check_all() {
        in_ns "$NS" sh -c '
                [ $(ls -d /proc/sys/net/ipv4/conf/k[ab][0-9]* | wc -l) -eq '"$n"' ] &&
                [ -z "$(ls /proc/sys/net/ipv4/conf/k[ab][0-9]*/igmpv3_unsolicited_report_interval | grep -v -e /ka7/ -e /kb9/ | xargs grep -Lx 444)" ] &&
                [ -z "$(ls /proc/sys/net/ipv4/conf/k[ab][0-9]*/igmpv2_unsolicited_report_interval | grep -v /ka7/ | xargs grep -Lx 4444)" ] &&
                [ -z "$(ls /proc/sys/net/ipv6/conf/k[ab][0-9]*/mldv2_unsolicited_report_interval | grep -v /kb9/ | xargs grep -Lx 800)" ]'
}
WAIT_SECS=60 wait_until check_all || fail "not every link configured after the restart"
# Runtime layer over policy: /run beats /etc key by key, both beat the policy file.
expect_knob "$NS" ipv4 ka7 igmpv3_unsolicited_report_interval 150
expect_knob "$NS" ipv4 ka7 igmpv2_unsolicited_report_interval 1700
expect_knob "$NS" ipv4 kb9 igmpv3_unsolicited_report_interval 160
expect_knob "$NS" ipv6 kb9 mldv2_unsolicited_report_interval 900
expect_knob "$NS" ipv4 kb9 igmpv2_unsolicited_report_interval 4444

sums_after=$(cd "$T_ROOT" && sha256sum run/igmpd/runtime.d/* etc/igmpd/runtime.d/*)
[ "$sums_before" = "$sums_after" ] || fail "runtime drop-ins changed: $sums_after"
extra=$(ls -A "$RUN_D" "$ETC_D" | grep -vE '^(ka7|kb9)\.conf$|^$|:$' || true)
[ -z "$extra" ] || fail "stray files in the runtime directories: $extra"
kill -0 "$T_IGMPD_PID" 2>/dev/null || fail "igmpd died"
echo "PASS: $T_NAME ($n links configured after kill -9 and restart, runtime drop-ins intact)"
