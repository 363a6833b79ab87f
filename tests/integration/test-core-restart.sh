#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A removed policy puts back the value found before igmpd changed the knob — also across a
# daemon restart and a crash: igmpd records those values (ROOT/run/igmpd/originals) before it
# writes, the next start reads them. Removed while igmpd was stopped or dead: undone at start.
# Still in force after the restart: undone on the reload that removes it. A knob someone else
# set while igmpd was not running is left alone; a file from another network namespace is
# ignored; a line torn by a crash is ignored; a link renamed while igmpd was dead keeps its
# originals (issue 24, item 5).
. "$(dirname "$0")/lib.sh"

NS=$(ns_new restart)
veth_add "$NS" v0 v1
ORIG=$T_ROOT/run/igmpd/originals
V2=igmpv2_unsolicited_report_interval
V3=igmpv3_unsolicited_report_interval
MLD=mldv2_unsolicited_report_interval
# Values set by someone else before igmpd ever starts: these must come back.
in_ns "$NS" sh -c "echo 4321 > /proc/sys/net/ipv4/conf/v0/$V2; echo 1234 > /proc/sys/net/ipv4/conf/v0/$V3"
in_ns "$NS" sh -c "echo 2000 > /proc/sys/net/ipv6/conf/v0/$MLD"
policy() {
        conf_put 20-v.conf <<'CONF'
[Match]
Name=v0

[IGMP]
V2UnsolicitedReportInterval=200
V3UnsolicitedReportInterval=300

[MLD]
V2UnsolicitedReportInterval=400
CONF
}

info "policy removed while igmpd is stopped: undone at the next start"
policy
igmpd_start "$NS"
expect_knob "$NS" ipv4 v0 $V3 300
expect_knob "$NS" ipv6 v0 $MLD 400
igmpd_stop
[ -f "$ORIG" ] || fail "no $ORIG after a clean stop"
grep -q "^[0-9]* v0 .*$V3=1234/300" "$ORIG" || fail "$ORIG lacks v0's $V3: $(cat "$ORIG")"
rm "$T_CONF/20-v.conf"
igmpd_start "$NS"
expect_knob "$NS" ipv4 v0 $V2 4321
expect_knob "$NS" ipv4 v0 $V3 1234
expect_knob "$NS" ipv6 v0 $MLD 2000
[ ! -e "$ORIG" ] || fail "$ORIG still there after the start read it"
igmpd_stop
[ ! -e "$ORIG" ] || fail "$ORIG written although igmpd changed nothing: $(cat "$ORIG")"

info "policy still in force after a restart: the reload that removes it undoes it"
policy
igmpd_start "$NS"
expect_knob "$NS" ipv4 v0 $V3 300
igmpd_stop
igmpd_start "$NS"            # nothing to write now: the originals come from the file
expect_knob "$NS" ipv4 v0 $V3 300
rm "$T_CONF/20-v.conf"
igmpd_reload
expect_knob "$NS" ipv4 v0 $V2 4321
expect_knob "$NS" ipv4 v0 $V3 1234
expect_knob "$NS" ipv6 v0 $MLD 2000
igmpd_stop

info "a knob someone else set while igmpd was stopped is left alone"
policy
igmpd_start "$NS"
expect_knob "$NS" ipv4 v0 $V3 300
igmpd_stop
in_ns "$NS" sh -c "echo 777 > /proc/sys/net/ipv4/conf/v0/$V3"
rm "$T_CONF/20-v.conf"
igmpd_start "$NS"
expect_knob "$NS" ipv4 v0 $V2 4321   # this one still held igmpd's value: restored
sleep 0.3
[ "$(knob_get "$NS" ipv4 v0 $V3)" = 777 ] || fail "$V3 is $(knob_get "$NS" ipv4 v0 $V3), not the 777 set while igmpd was stopped"
igmpd_stop

info "a file from another network namespace is ignored"
policy
igmpd_start "$NS"
expect_knob "$NS" ipv4 v0 $V3 300
igmpd_stop
sed -i '1s/.*/igmpd-originals 1 1:1/' "$ORIG"
rm "$T_CONF/20-v.conf"
igmpd_start "$NS"
sleep 0.3
[ "$(knob_get "$NS" ipv4 v0 $V3)" = 300 ] || fail "$V3 restored from another namespace's file"
igmpd_stop

info "bad lines are skipped, good ones used"
# The foreign file left 300 in place (nothing to restore it from): start over from 1234.
in_ns "$NS" sh -c "echo 1234 > /proc/sys/net/ipv4/conf/v0/$V3"
policy
igmpd_start "$NS"
expect_knob "$NS" ipv4 v0 $V3 300
igmpd_stop
printf 'garbage\n0 v0 %s=1/2\n5 ../x %s=1/2\n' $V3 $V3 >> "$ORIG"
rm "$T_CONF/20-v.conf"
igmpd_start "$NS"
expect_knob "$NS" ipv4 v0 $V3 1234
igmpd_stop

crash() { kill -KILL "$T_IGMPD_PID"; wait "$T_IGMPD_PID" 2>/dev/null || true; T_IGMPD_PID=""; }

# A crash (SIGKILL, the OOM killer, a watchdog kill) skips the clean stop: the originals must
# have been recorded before igmpd's first write.
info "SIGKILL, then the policy removed by a reload after the restart: the originals come back"
# The foreign file above left igmpd's values in place, with nothing to restore them from.
in_ns "$NS" sh -c "echo 4321 > /proc/sys/net/ipv4/conf/v0/$V2; echo 1234 > /proc/sys/net/ipv4/conf/v0/$V3"
in_ns "$NS" sh -c "echo 2000 > /proc/sys/net/ipv6/conf/v0/$MLD"
policy
igmpd_start "$NS"
expect_knob "$NS" ipv4 v0 $V3 300
expect_knob "$NS" ipv6 v0 $MLD 400
crash
[ -f "$ORIG" ] || fail "no $ORIG after SIGKILL: the originals were not recorded before the writes"
igmpd_start "$NS"
expect_knob "$NS" ipv4 v0 $V3 300
rm "$T_CONF/20-v.conf"
igmpd_reload
expect_knob "$NS" ipv4 v0 $V2 4321
expect_knob "$NS" ipv4 v0 $V3 1234
expect_knob "$NS" ipv6 v0 $MLD 2000
igmpd_stop
[ ! -e "$ORIG" ] || fail "$ORIG left after a clean stop with nothing to undo: $(cat "$ORIG")"

info "SIGKILL, policy removed while igmpd was dead: undone at the next start"
policy
igmpd_start "$NS"
expect_knob "$NS" ipv4 v0 $V3 300
crash
rm "$T_CONF/20-v.conf"
igmpd_start "$NS"
expect_knob "$NS" ipv4 v0 $V2 4321
expect_knob "$NS" ipv4 v0 $V3 1234
expect_knob "$NS" ipv6 v0 $MLD 2000
igmpd_stop

info "SIGKILL after the policy changed the value again: the original is still the first one"
policy
igmpd_start "$NS"
expect_knob "$NS" ipv4 v0 $V3 300
sed -i 's/^V3UnsolicitedReportInterval=300$/V3UnsolicitedReportInterval=350/' "$T_CONF/20-v.conf"
igmpd_reload
expect_knob "$NS" ipv4 v0 $V3 350
crash
grep -q "^[0-9]* v0 .*$V3=1234/350" "$ORIG" || fail "$ORIG does not record 1234 and igmpd's 350: $(cat "$ORIG")"
rm "$T_CONF/20-v.conf"
igmpd_start "$NS"
expect_knob "$NS" ipv4 v0 $V3 1234
expect_knob "$NS" ipv4 v0 $V2 4321
igmpd_stop

info "SIGKILL, then someone else sets a knob: left alone"
policy
igmpd_start "$NS"
expect_knob "$NS" ipv4 v0 $V3 300
crash
in_ns "$NS" sh -c "echo 777 > /proc/sys/net/ipv4/conf/v0/$V3"
rm "$T_CONF/20-v.conf"
igmpd_start "$NS"
expect_knob "$NS" ipv4 v0 $V2 4321
sleep 0.3
[ "$(knob_get "$NS" ipv4 v0 $V3)" = 777 ] || fail "$V3 is $(knob_get "$NS" ipv4 v0 $V3), not the 777 set after the crash"
igmpd_stop

info "a line torn by a crash is ignored, the ones before it used"
in_ns "$NS" sh -c "echo 1234 > /proc/sys/net/ipv4/conf/v0/$V3"
policy
igmpd_start "$NS"
expect_knob "$NS" ipv4 v0 $V3 300
crash
idx=$(in_ns "$NS" cat /sys/class/net/v0/ifindex)
printf '%s v0 %s=1/2' "$idx" "$V3" >> "$ORIG"   # no newline: the write never finished
rm "$T_CONF/20-v.conf"
igmpd_start "$NS"
expect_knob "$NS" ipv4 v0 $V3 1234
igmpd_stop
info "SIGKILL, the link renamed while igmpd was dead, the policy removed after the restart: the originals come back"
# The record is by ifindex (not reused in a namespace): after the rename it is still this link's,
# and igmpd's own value must not become "the original".
conf_put 20-v.conf <<'CONF'
[Match]
Name=v0 w0

[IGMP]
V2UnsolicitedReportInterval=200
V3UnsolicitedReportInterval=300

[MLD]
V2UnsolicitedReportInterval=400
CONF
igmpd_start "$NS"
expect_knob "$NS" ipv4 v0 $V3 300
expect_knob "$NS" ipv4 v0 $V2 200
crash
ip -n "$NS" link set v0 name w0
igmpd_start "$NS"
expect_knob "$NS" ipv4 w0 $V3 300
rm "$T_CONF/20-v.conf"
igmpd_reload
expect_knob "$NS" ipv4 w0 $V2 4321
expect_knob "$NS" ipv4 w0 $V3 1234
expect_knob "$NS" ipv6 w0 $MLD 2000
igmpd_stop
echo "PASS: $T_NAME"
