#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# igmpd --check: reports FILE:LINE problems, lists the files it read (saying which it skipped
# and why, and which are masked), the effective value and source of each knob, ends with a
# summary ("N files read, no problems." or the count), writes nothing, and exits 1 when there
# was a problem (0 otherwise). A --config-root that does not exist is a problem; no policy
# file at all is a warning.
. "$(dirname "$0")/lib.sh"

NS=$(ns_new check)
veth_add "$NS" iptv0 eth0
cp "$SRCDIR"/data/examples/*.conf "$T_CONF/"

check() { in_ns "$NS" "$IGMPD" --config-root "${ROOT:-$T_ROOT}" --check; }

out=$(check 2>&1) || fail "--check failed on good files: $out"
# The words and formats of igmpctl status: KERNEL WANTED SOURCE, 1000ms, auto, none.
echo "$out" | grep -qE '^ +KNOB +KERNEL +WANTED +SOURCE$' || fail "--check has no column header: $out"
echo "$out" | grep -qE '^ +igmpv3_unsolicited_report_interval +1000ms +200ms +.*/50-iptv\.conf$' ||
        fail "--check does not show iptv0's effective value and source: $out"
echo "$out" | grep -qE '^ +force_igmp_version +auto +- +none$' || fail "--check does not show uncovered knobs: $out"
[ "$(knob_get "$NS" ipv4 iptv0 igmpv3_unsolicited_report_interval)" = 1000 ] || fail "--check changed a knob"
echo "$out" | grep -qx 'Configuration files read, in this order:' || fail "no list of files: $out"
# lib.sh's daemon drop-in (DriftWatch=no) is read first: it is a file read like the others.
echo "$out" | grep -qx "    $T_ROOT/etc/igmpd/igmpd.conf.d/00-tests.conf" || fail "00-tests.conf not listed: $out"
echo "$out" | grep -qx "    $T_CONF/10-site.conf" || fail "10-site.conf not listed: $out"
echo "$out" | grep -qx "    $T_CONF/50-iptv.conf" || fail "50-iptv.conf not listed: $out"
[ "$(echo "$out" | tail -n1)" = "3 files read, no problems." ] || fail "last line: $(echo "$out" | tail -n1)"

printf '[IGMP]\nVersion=7\nV3UnsolicitedReportInterval=1s\n' > "$T_CONF/90-bad.conf"
# A misspelt [Match] must not apply everywhere: the file is skipped, and the list says why.
printf '[Mtach]\nName=iptv0\n[IGMP]\nVersion=2\n' > "$T_CONF/95-widen.conf"
mkdir -p "$T_ROOT/usr/lib/igmpd/conf.d"
printf '[IGMP]\nVersion=1\n' > "$T_ROOT/usr/lib/igmpd/conf.d/20-vendor.conf"
ln -s /dev/null "$T_CONF/20-vendor.conf"
rc=0
check > "$T_TMP/out" 2> "$T_TMP/err" || rc=$?
out=$(cat "$T_TMP/out" "$T_TMP/err")
[ "$rc" = 1 ] || fail "--check exit status $rc with a bad file, expected 1"
grep -qF "$T_CONF/90-bad.conf:2: Version=7 is out of range (auto, 1, 2 or 3), ignoring." "$T_TMP/err" ||
        fail "no FILE:LINE message: $out"
grep -qx "    $T_CONF/90-bad.conf" "$T_TMP/out" || fail "90-bad.conf (used, one line ignored) not listed: $out"
grep -qx "    $T_CONF/95-widen.conf: SKIPPED, line 1: Unknown section \[Mtach\], file skipped." "$T_TMP/out" ||
        fail "skipped file not listed with its reason: $out"
grep -qx "    $T_CONF/20-vendor.conf: masked (empty or a link to /dev/null): no file of this name applies" "$T_TMP/out" ||
        fail "masked file not listed: $out"
! grep -q "usr/lib/igmpd/conf.d/20-vendor.conf" "$T_TMP/out" || fail "a masked file is listed as read: $out"
[ "$(tail -n1 "$T_TMP/err")" = "5 files read, 2 problems (see above); fix before reloading." ] ||
        fail "summary: $(tail -n1 "$T_TMP/err")"
# The summary comes last also when both streams go to one place.
[ "$(check 2>&1 | tail -n1)" = "5 files read, 2 problems (see above); fix before reloading." ] ||
        fail "summary is not the last line of the combined output: $(check 2>&1 | tail -n3)"
[ "$(knob_get "$NS" ipv4 iptv0 igmpv3_unsolicited_report_interval)" = 1000 ] || fail "--check changed a knob"
[ "$(knob_get "$NS" ipv4 iptv0 force_igmp_version)" = 0 ] || fail "--check changed a knob"

info "a file that matches no link present says so; Name=a,b is one name, and --check says that too"
rm -f "$T_CONF/90-bad.conf" "$T_CONF/95-widen.conf"
printf '[Match]\nName=iptv0,eth0\n[IGMP]\nVersion=2\n' > "$T_CONF/60-comma.conf"
printf '[Match]\nName=wlan*\n[IGMP]\nVersion=2\n' > "$T_CONF/70-wlan.conf"
rc=0
out=$(check 2>&1) || rc=$?
[ "$rc" = 0 ] || fail "--check exited $rc: files that match no link are no problem: $out"
grep -qx "    $T_CONF/60-comma.conf: matches no link present now; Name=iptv0,eth0 is one name with a comma in it: Name= takes names separated by spaces" <<< "$out" ||
        fail "no word on the comma in Name=: $out"
grep -qx "    $T_CONF/70-wlan.conf: matches no link present now" <<< "$out" || fail "no word on 70-wlan.conf: $out"
grep -qx "    $T_CONF/50-iptv.conf" <<< "$out" || fail "50-iptv.conf (matching iptv0) has a note: $out"
[ "$(tail -n1 <<< "$out")" = "5 files read, no problems; 2 match no link present now (see the files above)." ] ||
        fail "summary: $(tail -n1 <<< "$out")"
rm -f "$T_CONF/60-comma.conf" "$T_CONF/70-wlan.conf"

info "a --config-root that does not exist is a problem, not 'no problems'"
rc=0
out=$(ROOT=$T_TMP/no-such-root check 2>&1) || rc=$?
[ "$rc" = 1 ] || fail "--check with a missing --config-root exited $rc: $out"
echo "$out" | grep -qF -- "--config-root $T_TMP/no-such-root: No such file or directory; no configuration below it can be read." ||
        fail "no message about the missing root: $out"
[ "$(echo "$out" | tail -n1)" = "0 files read, 1 problem (see above); fix before reloading." ] ||
        fail "summary with a missing root: $(echo "$out" | tail -n1)"

info "no policy file at all: a warning that says where igmpd looked"
mkdir -p "$T_TMP/empty-root"
rc=0
out=$(ROOT=$T_TMP/empty-root check 2>&1) || rc=$?
[ "$rc" = 0 ] || fail "--check of an empty root exited $rc: $out"
echo "$out" | grep -qF "No policy file found (looked in $T_TMP/empty-root/etc/igmpd/conf.d, $T_TMP/empty-root/run/igmpd/conf.d," ||
        fail "no warning about finding no policy file: $out"
[ "$(echo "$out" | tail -n1)" = "0 files read, no problems." ] || fail "summary of an empty root: $(echo "$out" | tail -n1)"
echo "PASS: $T_NAME"
