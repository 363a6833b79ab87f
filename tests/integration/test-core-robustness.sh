#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# [IGMP]/[MLD] Robustness= (issue 25, item 3), in a throwaway network namespace (never the
# host's: igmpd runs in it, so net.ipv6.mld_qrv does not exist there and the host's is never
# written):
#  - igmp_qrv: the namespace's value found (4, not the kernel default) is replaced by the file's,
#    shown with its source by igmpd --check (which writes nothing), D-Bus IGMPRobustness,
#    Describe() and igmpctl status; written back when no file sets it any more (reload) and at
#    the stop;
#  - Robustness= in a file whose [Match] names links: a problem (--check, the log, ConfigProblems,
#    igmpctl reload and status), the rest of that file applies;
#  - [MLD] Robustness= outside the initial namespace: a problem, nothing written, MLDRobustness
#    says unavailable;
#  - another process's write, without the drift watch: put back after a read asks for a refresh;
#  - kill -9: ROOT/run/igmpd/namespace-originals keeps the value found for the next start and
#    for igmpd --restore.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"

# This test's namespaces carry the prefix zqrv (removed at exit by lib.sh's cleanup).
zqrv_ns() {
        local ns="zqrv-$$-$1"
        echo "$ns" >> "$T_TMP/.namespaces"
        ip netns add "$ns" >&2 || fail "cannot create network namespace $ns"
        ip -n "$ns" link set lo up >&2
        echo "$ns"
}

qrv() { in_ns "$NS" cat /proc/sys/net/ipv4/igmp_qrv; }
expect_qrv() {
        wait_until "[ \"\$(qrv)\" = '$1' ]" || fail "${2:-igmp_qrv}: is $(qrv), expected $1"
}

dbus_start
NS=$(zqrv_ns a)
veth_add "$NS" v0 v1
in_ns "$NS" sh -c 'echo 4 > /proc/sys/net/ipv4/igmp_qrv'
in_ns "$NS" test ! -e /proc/sys/net/ipv6/mld_qrv || skip "net.ipv6.mld_qrv exists in a new network namespace here"
NSCONF=$T_CONF/10-ns.conf
conf_put 10-ns.conf <<'CONF'
[IGMP]
Robustness=3

[MLD]
Robustness=5
CONF
conf_put 20-v0.conf <<'CONF'
[Match]
Name=v0

[IGMP]
Robustness=6
V3UnsolicitedReportInterval=200
CONF
PROBLEM_LINK="$T_CONF/20-v0.conf:5: Robustness= in \\[IGMP\\] sets net.ipv4.igmp_qrv, one value per network namespace: not allowed in a file whose \\[Match\\] names links"
PROBLEM_MLD="$NSCONF:5: Robustness= in \\[MLD\\] sets net.ipv6.mld_qrv, one value for the whole host, which only the host's initial network namespace has"

info "igmpd --check: both problems, the namespace table, nothing written"
rc=0
in_ns "$NS" "$IGMPD" --config-root "$T_ROOT" --check > "$T_TMP/check.out" 2> "$T_TMP/check.err" || rc=$?
[ "$rc" = 1 ] || fail "igmpd --check exited $rc, expected 1: $(cat "$T_TMP/check.err")"
grep -qE "$PROBLEM_LINK" "$T_TMP/check.err" || fail "--check did not report the link file's Robustness=: $(cat "$T_TMP/check.err")"
grep -qE "$PROBLEM_MLD" "$T_TMP/check.err" || fail "--check did not report [MLD] Robustness=: $(cat "$T_TMP/check.err")"
grep -qE "^    net\.ipv4\.igmp_qrv +4 +3  $NSCONF\$" "$T_TMP/check.out" || fail "--check's igmp_qrv line: $(cat "$T_TMP/check.out")"
grep -qE "^    net\.ipv6\.mld_qrv +unavailable +-  none\$" "$T_TMP/check.out" || fail "--check's mld_qrv line: $(cat "$T_TMP/check.out")"
grep -qE "^    igmpv3_unsolicited_report_interval +1000ms +200ms  $T_CONF/20-v0.conf\$" "$T_TMP/check.out" ||
        fail "--check: the rest of the link file does not apply: $(cat "$T_TMP/check.out")"
[ "$(qrv)" = 4 ] || fail "igmpd --check wrote igmp_qrv: $(qrv)"

info "start: igmp_qrv 3 from the namespace file, the link file's other key applies"
igmpd_start "$NS"
igmpd_wait_bus
expect_qrv 3
expect_knob "$NS" ipv4 v0 igmpv3_unsolicited_report_interval 200
grep -qE "$PROBLEM_LINK" "$T_LOG" || fail "the daemon did not log the link file's Robustness="
grep -qE "$PROBLEM_MLD" "$T_LOG" || fail "the daemon did not log [MLD] Robustness="
grep -q "Set net.ipv4.igmp_qrv to 3 (from $NSCONF), was 4." "$T_LOG" || fail "no log line for the write of igmp_qrv"
[ ! -e /proc/sys/net/ipv6/mld_qrv ] || host_mld=$(cat /proc/sys/net/ipv6/mld_qrv)

M=(org.igmpd1 /org/igmpd1 org.igmpd1.Manager)
expect_out "^\\(iis\\) 3 3 \"$NSCONF\"\$" bctl get-property "${M[@]}" IGMPRobustness
expect_out '^\(iis\) -1 -1 ""$' bctl get-property "${M[@]}" MLDRobustness
problems=$(bctl get-property "${M[@]}" ConfigProblems)
grep -q '"'"$T_CONF"'/20-v0.conf" 5 "Robustness= in \[IGMP\]' <<< "$problems" || fail "ConfigProblems lacks the link file's line: $problems"
grep -q '"'"$NSCONF"'" 5 "Robustness= in \[MLD\]' <<< "$problems" || fail "ConfigProblems lacks [MLD] Robustness=: $problems"
bctl call "${M[@]}" Describe --json=short | python3 -c '
import json, sys
d = json.loads(json.load(sys.stdin)["data"][0])["namespace"]
assert d["igmp_qrv"] == {"kernel": 3, "wanted": 3, "source": sys.argv[1]}, d
assert d["mld_qrv"] == {"kernel": None, "wanted": None, "source": None}, d
' "$NSCONF" || fail "Describe()'s namespace object is wrong"

"$IGMPCTL" --no-pager status > "$T_TMP/status.out" 2>&1 || fail "igmpctl status failed: $(cat "$T_TMP/status.out")"
grep -qE "^ *IGMP robustness: 3 from $NSCONF\$" "$T_TMP/status.out" || fail "igmpctl status: $(cat "$T_TMP/status.out")"
grep -qE '^ *MLD robustness: unavailable \(net\.ipv6\.mld_qrv exists only in the host.s initial network namespace\)$' \
        "$T_TMP/status.out" || fail "igmpctl status (MLD): $(cat "$T_TMP/status.out")"
grep -qE '^ *Problems: 2 in the configuration' "$T_TMP/status.out" || fail "igmpctl status shows no problems: $(cat "$T_TMP/status.out")"

info "another process writes igmp_qrv (no drift watch): a read's refresh puts igmpd's value back"
in_ns "$NS" sh -c 'echo 6 > /proc/sys/net/ipv4/igmp_qrv'
expect_out "^\\(iis\\) 6 3 \"$NSCONF\"\$" bctl get-property "${M[@]}" IGMPRobustness
"$IGMPCTL" --no-pager status > "$T_TMP/status.out" 2>&1 || true
grep -qE "^ *IGMP robustness: 6\\* \\(igmpd's value is 3 from $NSCONF: another process changed it\\)\$" "$T_TMP/status.out" ||
        grep -qE "^ *IGMP robustness: 3 from" "$T_TMP/status.out" || fail "igmpctl status after the write: $(cat "$T_TMP/status.out")"
WAIT_SECS=20 wait_until "bctl call ${M[*]} Describe > /dev/null; [ \"\$(qrv)\" = 3 ]" ||
        fail "igmp_qrv written by another process was not put back: $(qrv)"
grep -q "net.ipv4.igmp_qrv changed from 3 to 6 by another process (unseen by the drift watch); igmpd's value is 3 (from $NSCONF): reverted." "$T_LOG" ||
        fail "no log line for the revert: $(grep igmp_qrv "$T_LOG")"

info "igmpctl reload: the problems again; a file without Robustness= gives the value found back"
rc=0
"$IGMPCTL" reload > "$T_TMP/reload.out" 2>&1 || rc=$?
[ "$rc" = 10 ] || fail "igmpctl reload exited $rc (expected 10: problems): $(cat "$T_TMP/reload.out")"
grep -qE "$PROBLEM_LINK" "$T_TMP/reload.out" || fail "igmpctl reload does not show the link file's line: $(cat "$T_TMP/reload.out")"
expect_qrv 3
rm "$NSCONF"
igmpd_reload
expect_qrv 4 "igmp_qrv after its file went"
expect_out '^\(iis\) 4 -1 ""$' bctl get-property "${M[@]}" IGMPRobustness
expect_knob "$NS" ipv4 v0 igmpv3_unsolicited_report_interval 200
conf_put 10-ns.conf <<'CONF'
[Match]
[IGMP]
Robustness=7
CONF
igmpd_reload
expect_qrv 7 "igmp_qrv from a file with an empty [Match]"

info "stop: the value found comes back"
igmpd_stop
[ "$(qrv)" = 4 ] || fail "igmp_qrv after the stop is $(qrv), expected 4 (the value found)"
grep -q "Set net.ipv4.igmp_qrv back to 4, the value found." "$T_LOG" || fail "no log line for the restore at the stop"
[ ! -e "$T_ROOT/run/igmpd/namespace-originals" ] || fail "a clean stop left the record: $(cat "$T_ROOT/run/igmpd/namespace-originals")"

info "kill -9: the record keeps the value found; the next start takes it, the stop gives it back"
igmpd_start "$NS"
expect_qrv 7
grep -qx "igmp_qrv=4/7" "$T_ROOT/run/igmpd/namespace-originals" ||
        fail "no record of the value found: $(cat "$T_ROOT/run/igmpd/namespace-originals" 2>&1)"
kill -KILL "$T_IGMPD_PID"
wait "$T_IGMPD_PID" 2>/dev/null || true
T_IGMPD_PID=""
igmpd_start "$NS"
grep -q "net.ipv4.igmp_qrv: 7 was written by igmpd's last run, which found 4." "$T_LOG" || fail "the record was not taken back"
igmpd_stop
[ "$(qrv)" = 4 ] || fail "igmp_qrv after a crash and a stop is $(qrv), expected 4 (the value found before the crash)"

info "kill -9, then igmpd --restore (package removal) gives the value found back"
igmpd_start "$NS"
expect_qrv 7
kill -KILL "$T_IGMPD_PID"
wait "$T_IGMPD_PID" 2>/dev/null || true
T_IGMPD_PID=""
in_ns "$NS" "$IGMPD" --config-root "$T_ROOT" --restore > "$T_TMP/restore.out" 2>&1 || fail "igmpd --restore failed: $(cat "$T_TMP/restore.out")"
[ "$(qrv)" = 4 ] || fail "igmp_qrv after igmpd --restore is $(qrv), expected 4"
grep -q "^Set net.ipv4.igmp_qrv back to 4, the value found.$" "$T_TMP/restore.out" &&
        grep -q "^Restored 2 knob values.$" "$T_TMP/restore.out" || fail "igmpd --restore: $(cat "$T_TMP/restore.out")"
[ ! -e "$T_ROOT/run/igmpd/namespace-originals" ] || fail "igmpd --restore left the record"

if [ -n "${host_mld:-}" ]; then
        [ "$(cat /proc/sys/net/ipv6/mld_qrv)" = "$host_mld" ] || fail "the host's mld_qrv changed"
fi
info "ok"
