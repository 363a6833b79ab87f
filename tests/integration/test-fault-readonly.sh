#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Persisting a runtime change when /run or /etc is read-only or full: `igmpctl link` fails with
# a message saying why (read-only / no space), exits non-zero, the knob keeps its value, the
# runtime file already there keeps its content, and no temporary file is left behind. After the
# fault is gone the same command works. A --persistent change that reaches /etc but cannot take
# the same knob out of a read-only /run says exactly that, not "nothing was changed". The mounts
# live in a private mount namespace of this script (unshare -m), so nothing is left mounted on
# the host whatever happens.
if [ -z "${_IGMPD_TEST_MNTNS:-}" ] && [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
        _IGMPD_TEST_MNTNS=1 exec unshare -m --propagation private "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
[ -n "${_IGMPD_TEST_MNTNS:-}" ] || skip "unshare (util-linux) is needed for a private mount namespace"
[ -x "$IGMPCTL" ] || skip "igmpctl not built"
# $T_ROOT becomes a shared mount point in this private namespace, so the mounts below reach the
# daemon (ip netns exec gives it a slave copy of this namespace). Unmounted before cleanup.
mount --bind "$T_ROOT" "$T_ROOT"
mount --make-rshared "$T_ROOT"
trap 'rc=$?; set +e; igmpd_stop; umount -R -l "$T_ROOT" "$T_TMP"/stage-* 2>/dev/null; (exit $rc); _t_cleanup' EXIT
dbus_start

NS=$(ns_new rofs)
veth_add "$NS" v0 v1
conf_put 10-site.conf <<'CONF'
[Match]
Name=v*

[IGMP]
V3UnsolicitedReportInterval=300
CONF
RUN_D=$T_ROOT/run/igmpd/runtime.d
ETC_D=$T_ROOT/etc/igmpd/runtime.d
mkdir -p "$RUN_D" "$ETC_D"
printf '[IGMP]\nV3UnsolicitedReportInterval=150ms\n' > "$RUN_D/v0.conf"
printf '[IGMP]\nV2UnsolicitedReportInterval=1700ms\n' > "$ETC_D/v0.conf"
igmpd_start "$NS"
igmpd_wait_bus
expect_knob "$NS" ipv4 v0 igmpv3_unsolicited_report_interval 150
expect_knob "$NS" ipv4 v0 igmpv2_unsolicited_report_interval 1700
expect_knob "$NS" ipv4 v1 igmpv3_unsolicited_report_interval 300
sums=$(sha256sum "$RUN_D/v0.conf" "$ETC_D/v0.conf")

ctl() { "$IGMPCTL" "$@"; }

unchanged() {
        local what=$1
        [ "$(knob_get "$NS" ipv4 v0 igmpv3_unsolicited_report_interval)" = 150 ] || fail "$what: v0 v3 changed"
        [ "$(knob_get "$NS" ipv4 v0 igmpv2_unsolicited_report_interval)" = 1700 ] || fail "$what: v0 v2 changed"
        [ "$(knob_get "$NS" ipv4 v1 igmpv3_unsolicited_report_interval)" = 300 ] || fail "$what: v1 v3 changed"
        [ "$(sha256sum "$RUN_D/v0.conf" "$ETC_D/v0.conf")" = "$sums" ] || fail "$what: runtime files changed"
        [ ! -e "$RUN_D/v1.conf" ] && [ ! -e "$ETC_D/v1.conf" ] || fail "$what: a runtime file for v1 appeared"
        local junk
        junk=$(ls -A "$RUN_D" "$ETC_D" 2>/dev/null | grep -vE '^(v0\.conf)?$|:$' || true)
        [ -z "$junk" ] || fail "$what: files left behind: $junk"
        igmpd_alive
}

# Makes DIR read-only for the daemon too. A remount's flags do not propagate to other mount
# namespaces, a new mount does: so the read-only bind is made aside, then bound over DIR.
ro_bind() {
        local stage=$T_TMP/stage-$(basename "$1")
        mkdir -p "$stage"
        mount --bind "$1" "$stage"
        mount -o remount,bind,ro "$stage"
        mount --bind "$stage" "$1"
        in_ns "$NS" touch "$1/.probe" 2>/dev/null && fail "$1 is still writable from the namespace"
        return 0
}
ro_unbind() {
        umount "$1"
        umount "$T_TMP/stage-$(basename "$1")"
}

# try WHAT REGEX ARGS…: the igmpctl call must fail with a message matching REGEX.
try() {
        local what=$1 pat=$2
        shift 2
        local out rc=0
        out=$(ctl "$@" 2>&1) || rc=$?
        info "$what: exit $rc: $out"
        [ "$rc" -ne 0 ] || fail "$what: igmpctl $* succeeded"
        grep -qiE "$pat" <<< "$out" || fail "$what: message '$out' does not say /$pat/"
        unchanged "$what"
}

info "read-only /run"
ro_bind "$T_ROOT/run"
try "ro /run, existing file" 'read-only' link v0 --v3-interval 200
try "ro /run, new file" 'read-only' link v1 --v3-interval 200
ro_unbind "$T_ROOT/run"

info "read-only /etc"
ro_bind "$T_ROOT/etc"
try "ro /etc, existing file" 'read-only' link v0 --v2-interval 2500 --persistent
try "ro /etc, new file" 'read-only' link v1 --v2-interval 2500 --persistent
ro_unbind "$T_ROOT/etc"

info "full /run (a 64 KiB tmpfs with no space left)"
cp -a "$RUN_D" "$T_TMP/run-save"
mount -t tmpfs -o size=64k,mode=755 tmpfs "$T_ROOT/run"
mkdir -p "$RUN_D"
cp -a "$T_TMP/run-save/." "$RUN_D/"
dd if=/dev/zero of="$T_ROOT/run/filler" bs=4k 2>/dev/null || true
try "full /run, existing file" 'space' link v0 --v3-interval 200
try "full /run, new file" 'space' link v1 --v3-interval 200
rm "$T_ROOT/run/filler"

info "with space again the same change works"
ctl link v1 --v3-interval 200 || fail "igmpctl failed after the fault was gone"
expect_knob "$NS" ipv4 v1 igmpv3_unsolicited_report_interval 200
grep -q 'V3UnsolicitedReportInterval=200' "$RUN_D/v1.conf" || fail "no runtime file written for v1"
umount "$T_ROOT/run"
igmpd_alive

info "--persistent with a read-only /run: /etc is written, the /run value stays in force — and it says so"
# v0 has V3=150 in /run; a persistent 250 goes to /etc and would take V3 out of the /run file.
ro_bind "$T_ROOT/run"
rc=0
out=$(ctl link v0 --v3-interval 250 --persistent 2>&1) || rc=$?
info "exit $rc: $out"
[ "$rc" = 1 ] || fail "--persistent with a read-only /run: exit $rc, expected 1"
grep -qF "Stored in $ETC_D/v0.conf" <<< "$out" || fail "the message does not say /etc was written: $out"
grep -qF "$RUN_D/v0.conf" <<< "$out" && grep -qi 'read-only' <<< "$out" ||
        fail "the message does not name the /run file and why: $out"
! grep -qi 'nothing was changed' <<< "$out" || fail "the message says nothing changed, but /etc did: $out"
grep -qx 'V3UnsolicitedReportInterval=250ms' "$ETC_D/v0.conf" || fail "/etc does not hold the change: $(cat "$ETC_D/v0.conf")"
grep -qx 'V3UnsolicitedReportInterval=150ms' "$RUN_D/v0.conf" || fail "the /run file changed: $(cat "$RUN_D/v0.conf")"
[ "$(knob_get "$NS" ipv4 v0 igmpv3_unsolicited_report_interval)" = 150 ] || fail "v0 v3 is not the /run value"
junk=$(ls -A "$RUN_D" "$ETC_D" 2>/dev/null | grep -vE '^(v[01]\.conf)?$|:$' || true)
[ -z "$junk" ] || fail "files left behind: $junk"
ro_unbind "$T_ROOT/run"
igmpd_alive
echo "PASS: $T_NAME (read-only and full /run and /etc: clear errors, nothing changed)"
