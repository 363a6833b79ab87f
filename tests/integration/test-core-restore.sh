#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# igmpd --restore (what the Debian package's prerm runs on removal, after stopping the service):
# the values found before igmpd changed the knobs come back, from the record its last run kept
# (before its writes, so also after a crash); a knob someone else changed since, and a link
# renamed since, are left alone; the file is used once; no file is no error.
. "$(dirname "$0")/lib.sh"

NS=$(ns_new restore)
veth_add "$NS" v0 v1
veth_add "$NS" w0 w1
ORIG=$T_ROOT/run/igmpd/originals
V2=igmpv2_unsolicited_report_interval
V3=igmpv3_unsolicited_report_interval
MLD=mldv2_unsolicited_report_interval
in_ns "$NS" sh -c "echo 4321 > /proc/sys/net/ipv4/conf/v0/$V2; echo 1234 > /proc/sys/net/ipv4/conf/v0/$V3"
in_ns "$NS" sh -c "echo 2000 > /proc/sys/net/ipv6/conf/v0/$MLD"
conf_put 20-v.conf <<'CONF'
[Match]
Name=v0 w0

[IGMP]
V2UnsolicitedReportInterval=200
V3UnsolicitedReportInterval=300

[MLD]
V2UnsolicitedReportInterval=400
CONF

restore() { in_ns "$NS" "$IGMPD" --config-root "$T_ROOT" --restore > "$T_TMP/restore.out" 2>&1; }

info "no saved values: nothing to do, no error"
restore || fail "igmpd --restore without a saved file failed: $(cat "$T_TMP/restore.out")"
grep -q "^Restored 0 knob values" "$T_TMP/restore.out" || fail "unexpected output: $(cat "$T_TMP/restore.out")"

igmpd_start "$NS"
expect_knob "$NS" ipv4 v0 $V3 300
expect_knob "$NS" ipv6 v0 $MLD 400
expect_knob "$NS" ipv4 w0 $V3 300
igmpd_stop
[ -f "$ORIG" ] || fail "no $ORIG after a clean stop"
# The policy is still there: a stop alone undoes nothing (a restart must not flap the knobs).
[ "$(knob_get "$NS" ipv4 v0 $V3)" = 300 ] || fail "a plain stop changed $V3 on v0"

# Meanwhile someone else sets one knob, and w0 is renamed.
in_ns "$NS" sh -c "echo 777 > /proc/sys/net/ipv4/conf/v0/$V2"
ip -n "$NS" link set w0 name w0x

info "igmpd --restore"
restore || fail "igmpd --restore failed: $(cat "$T_TMP/restore.out")"
sed 's/^/# /' "$T_TMP/restore.out"
expect_knob "$NS" ipv4 v0 $V3 1234
expect_knob "$NS" ipv6 v0 $MLD 2000
[ "$(knob_get "$NS" ipv4 v0 $V2)" = 777 ] || fail "$V2 set by someone else was overwritten: $(knob_get "$NS" ipv4 v0 $V2)"
grep -q "v0: $V2 is 777, not the 200 igmpd had set" "$T_TMP/restore.out" || fail "no word about v0's $V2"
[ "$(knob_get "$NS" ipv4 w0x $V3)" = 300 ] || fail "renamed w0x's $V3 was changed: $(knob_get "$NS" ipv4 w0x $V3)"
grep -q "w0: gone or renamed" "$T_TMP/restore.out" || fail "no word about the renamed w0"
grep -q "^Restored 2 knob values" "$T_TMP/restore.out" || fail "expected 2 restored values"
[ ! -e "$ORIG" ] || fail "$ORIG still there after --restore"

info "used once: a second run changes nothing"
in_ns "$NS" sh -c "echo 300 > /proc/sys/net/ipv4/conf/v0/$V3"
restore || fail "second igmpd --restore failed"
[ "$(knob_get "$NS" ipv4 v0 $V3)" = 300 ] || fail "a second --restore wrote again"

info "after a crash: what igmpd recorded before it wrote, a value changed by a reload included"
in_ns "$NS" sh -c "echo 4321 > /proc/sys/net/ipv4/conf/v0/$V2; echo 1234 > /proc/sys/net/ipv4/conf/v0/$V3"
in_ns "$NS" sh -c "echo 2000 > /proc/sys/net/ipv6/conf/v0/$MLD"
igmpd_start "$NS"
expect_knob "$NS" ipv4 v0 $V3 300
sed -i 's/^V3UnsolicitedReportInterval=300$/V3UnsolicitedReportInterval=350/' "$T_CONF/20-v.conf"
igmpd_reload
expect_knob "$NS" ipv4 v0 $V3 350
kill -KILL "$T_IGMPD_PID"; wait "$T_IGMPD_PID" 2>/dev/null || true; T_IGMPD_PID=""
restore || fail "igmpd --restore after a crash failed: $(cat "$T_TMP/restore.out")"
sed 's/^/# /' "$T_TMP/restore.out"
expect_knob "$NS" ipv4 v0 $V3 1234
expect_knob "$NS" ipv4 v0 $V2 4321
expect_knob "$NS" ipv6 v0 $MLD 2000
grep -q "^Restored 3 knob values" "$T_TMP/restore.out" || fail "expected 3 restored values"
[ ! -e "$ORIG" ] || fail "$ORIG still there after --restore"

info "a failed write keeps the record, also when the link's IPv6 directory went meanwhile"
in_ns "$NS" sh -c "echo 4321 > /proc/sys/net/ipv4/conf/v0/$V2; echo 1234 > /proc/sys/net/ipv4/conf/v0/$V3"
igmpd_start "$NS"
expect_knob "$NS" ipv4 v0 $V3 350
igmpd_stop
# Below 1280 bytes the kernel drops the link's IPv6 device, its conf directory with it.
ip -n "$NS" link set v0 mtu 1200
in_ns "$NS" test ! -e /proc/sys/net/ipv6/conf/v0 || skip "v0's IPv6 directory stays below 1280 bytes of MTU"
# igmpv3_unsolicited_report_interval read-only for this run: its write back fails.
F=/proc/sys/net/ipv4/conf/v0/$V3
rc=0
in_ns "$NS" unshare -m sh -c 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"' sh "$F" \
        "$IGMPD" --config-root "$T_ROOT" --restore > "$T_TMP/restore.out" 2>&1 || rc=$?
sed 's/^/# /' "$T_TMP/restore.out"
grep -q "v0: failed to set $V3 back to 1234" "$T_TMP/restore.out" || fail "no word about the failed write"
[ $rc -ne 0 ] || fail "igmpd --restore exited 0 although a write failed"
[ -f "$ORIG" ] || fail "$ORIG removed although a write failed: the same command cannot be run again"
expect_knob "$NS" ipv4 v0 $V2 4321
grep -q "v0: no ipv6 directory now, its ipv6 knobs left as is" "$T_TMP/restore.out" || fail "no word about v0's IPv6 directory"
info "run again once the write can go through"
ip -n "$NS" link set v0 mtu 1500
restore || fail "the second igmpd --restore failed: $(cat "$T_TMP/restore.out")"
expect_knob "$NS" ipv4 v0 $V3 1234
[ ! -e "$ORIG" ] || fail "$ORIG still there after a --restore that went through"

info "bad usage"
rc=0
in_ns "$NS" "$IGMPD" --config-root "$T_ROOT" --restore --check > "$T_TMP/out" 2>&1 || rc=$?
[ $rc -eq 2 ] || fail "--restore --check: exit $rc, expected 2"
echo "PASS: $T_NAME"
