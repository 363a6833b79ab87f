#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Authorization and hostile input. An unprivileged caller (nobody) can read everything but
# every mutating call is denied when polkit is absent and changes nothing; with a (fake)
# polkit the answer decides, and the call resumes after it; root never asks polkit. Only root
# may own org.igmpd1. Wrong types, huge arrays, path-like and 300-character names, bad flags
# and ranges get errors naming the field, change nothing, and the daemon stays up.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
command -v setpriv > /dev/null || skip "setpriv (util-linux) is not installed"
[ -x "${FAKE_POLKIT:-}" ] || FAKE_POLKIT=$(dirname "$IGMPD")/../../tests/integration/fake-polkit
[ -x "$FAKE_POLKIT" ] || fail "fake-polkit helper not found (FAKE_POLKIT)"
dbus_start

NS=$(ns_new sec)
veth_add "$NS" v0 v1
conf_put 10-site.conf <<'CONF'
[Match]
Name=v0

[IGMP]
V3UnsolicitedReportInterval=300
CONF
igmpd_start "$NS"
igmpd_wait_bus
IDX=$(ifindex_of "$NS" v0)
P=$(link_path "$IDX")
V3=igmpv3_unsolicited_report_interval
M=(org.igmpd1 /org/igmpd1 org.igmpd1.Manager)
L=(org.igmpd1 "$P" org.igmpd1.Link)
RUNTIME_DIRS=("$T_ROOT/run/igmpd/runtime.d" "$T_ROOT/etc/igmpd/runtime.d")

nothing_changed() {
        [ "$(knob_get "$NS" ipv4 v0 $V3)" = "${1:-300}" ] || fail "$V3 changed to $(knob_get "$NS" ipv4 v0 $V3)"
        [ -z "$(find "${RUNTIME_DIRS[@]}" -type f 2>/dev/null)" ] ||
                fail "runtime files appeared: $(find "${RUNTIME_DIRS[@]}" -type f)"
}

info "the socket is reachable for nobody"
as_nobody busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus GetId > /dev/null ||
        fail "nobody cannot reach the private bus"

info "reads are open to everyone"
expect_out "$IDX \"v0\" \"$P\"" as_nobody busctl --system call "${M[@]}" ListLinks
expect_out "^io $IDX " as_nobody busctl --system call "${M[@]}" GetLinkByName s v0
expect_out '^so "v0"' as_nobody busctl --system call "${M[@]}" GetLinkByIndex i "$IDX"
expect_out 'version.+kernel_features' as_nobody busctl --system call "${M[@]}" Describe
expect_out "\"$V3\" 300 300" as_nobody busctl --system get-property "${L[@]}" Knobs
expect_out '^a\{sb\} 6' as_nobody busctl --system get-property "${M[@]}" KernelFeatures
expect_out '^a\(tsussaisu\) 0$' as_nobody busctl --system call org.igmpd1 /org/igmpd1 org.igmpd1.Audit ListEvents
expect_out "\"$P\"" as_nobody busctl --system call org.igmpd1 /org/igmpd1 org.freedesktop.DBus.ObjectManager GetManagedObjects
expect_out 'org.igmpd1.Link' as_nobody busctl --system introspect org.igmpd1 "$P"
expect_out "configured" as_nobody "$IGMPCTL" status v0

info "without polkit every mutating call is denied for nobody and changes nothing"
D=org.freedesktop.DBus.Error.AccessDenied
expect_fail 'Access denied' as_nobody busctl --system call "${M[@]}" SetLinkKnobs 'ia{sv}u' "$IDX" 1 $V3 u 100 0
expect_fail 'Access denied' as_nobody busctl --system call "${M[@]}" SetLinkKnobs 'ia{sv}u' "$IDX" 1 $V3 u 100 1
expect_fail 'Access denied' as_nobody busctl --system call "${L[@]}" SetKnobs 'a{sv}u' 1 $V3 u 100 0
nothing_changed
expect_fail "^Error $D: Permission denied: run as root or authorize via polkit \(action org.igmpd1.set-link\)" \
        as_nobody dbus-send --system --print-reply --dest=org.igmpd1 /org/igmpd1 org.igmpd1.Manager.RevertLink int32:"$IDX" uint32:0
expect_fail "^Error $D" as_nobody dbus-send --system --print-reply --dest=org.igmpd1 "$P" org.igmpd1.Link.Revert uint32:0
in_ns "$NS" sh -c "echo 777 > /proc/sys/net/ipv4/conf/v0/$V3"   # drift that a reconfigure would fix
expect_fail "^Error $D" as_nobody dbus-send --system --print-reply --dest=org.igmpd1 /org/igmpd1 org.igmpd1.Manager.ReconfigureLink int32:"$IDX"
expect_fail "^Error $D" as_nobody dbus-send --system --print-reply --dest=org.igmpd1 "$P" org.igmpd1.Link.Reconfigure
nothing_changed 777
bctl call "${M[@]}" ReconfigureLink i "$IDX"
nothing_changed 300
conf_put 20-new.conf <<'CONF'
[Match]
Name=v1

[IGMP]
V3UnsolicitedReportInterval=123
CONF
expect_fail "^Error $D: Permission denied: run as root or authorize via polkit \(action org.igmpd1.reload\)" \
        as_nobody dbus-send --system --print-reply --dest=org.igmpd1 /org/igmpd1 org.igmpd1.Manager.Reload
sleep 0.2
[ "$(knob_get "$NS" ipv4 v1 $V3)" = 1000 ] || fail "a denied Reload was carried out"
expect_out '^as 1 ' bctl get-property "${M[@]}" ConfigFiles
rm "$T_CONF/20-new.conf"
expect_fail 'Permission denied: run as root or authorize via polkit' as_nobody "$IGMPCTL" link v0 --v3-interval 100
expect_fail 'Permission denied: run as root or authorize via polkit' as_nobody "$IGMPCTL" link v0 --revert
expect_fail 'Permission denied' as_nobody "$IGMPCTL" reconfigure v0
expect_fail 'Permission denied' as_nobody "$IGMPCTL" reload
nothing_changed

info "only root may own org.igmpd1 (bus policy)"
expect_fail 'Access denied|AccessDenied' as_nobody busctl --system call org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus RequestName su org.igmpd1 0

info "with polkit: its answer decides, the call resumes afterwards"
"$FAKE_POLKIT" org.igmpd1.set-link > "$T_TMP/polkit.log" 2>&1 &
_T_PIDS+=($!)
wait_until "grep -q ready '$T_TMP/polkit.log'" || fail "fake polkit did not start: $(cat "$T_TMP/polkit.log")"
as_nobody "$IGMPCTL" link v0 --v3-interval 100 || fail "polkit said yes, but the change was refused"
expect_knob "$NS" ipv4 v0 $V3 100
# No terminal, so igmpctl does not allow interactive authorization, and polkit is told so (flags=0).
grep -qE '^CheckAuthorization action=org.igmpd1.set-link subject=system-bus-name::[0-9.]+ flags=0 -> yes$' "$T_TMP/polkit.log" ||
        fail "polkit query not as expected: $(cat "$T_TMP/polkit.log")"
as_nobody busctl --system call "${L[@]}" Revert u 0 || fail "Link.Revert refused although polkit said yes"
expect_knob "$NS" ipv4 v0 $V3 300
expect_fail "^Error $D: Permission denied.*org.igmpd1.reload" \
        as_nobody dbus-send --system --print-reply --dest=org.igmpd1 /org/igmpd1 org.igmpd1.Manager.Reload
grep -q 'action=org.igmpd1.reload .* -> no' "$T_TMP/polkit.log" || fail "Reload did not ask polkit for org.igmpd1.reload"
n=$(grep -c CheckAuthorization "$T_TMP/polkit.log")
info "root and invalid calls never reach polkit"
"$IGMPCTL" link v0 --v3-interval 250
"$IGMPCTL" link v0 --revert
expect_fail 'out of range' as_nobody busctl --system call "${M[@]}" SetLinkKnobs 'ia{sv}u' "$IDX" 1 $V3 u 0 0
[ "$(grep -c CheckAuthorization "$T_TMP/polkit.log")" = "$n" ] || fail "polkit was asked for root or for an invalid call"
nothing_changed

info "hostile input as root (authorized, so only validation stands between it and the kernel)"
expect_fail 'Invalid arguments' bctl call "${M[@]}" SetLinkKnobs 'sa{sv}u' v0 1 $V3 u 100 0
expect_fail 'Invalid arguments' bctl call "${M[@]}" GetLinkByIndex s 3
expect_fail 'Invalid arguments' bctl call "${M[@]}" SetLinkKnobs 'ia{su}u' "$IDX" 1 $V3 100 0
args=()
for i in $(seq 1 5000); do args+=("k$i" u "$i"); done
expect_fail 'knobs: more than 6 entries' bctl call "${M[@]}" SetLinkKnobs 'ia{sv}u' "$IDX" 5000 "${args[@]}" 0
args=()
for i in $(seq 1 7); do args+=($V3 u 200); done
expect_fail 'knobs: more than 6 entries' bctl call "${M[@]}" SetLinkKnobs 'ia{sv}u' "$IDX" 7 "${args[@]}" 0
expect_fail "knobs\[$V3\]: expected a variant of type 'u'" bctl call "${M[@]}" SetLinkKnobs 'ia{sv}u' "$IDX" 1 $V3 as 2 a b 0
expect_fail "knobs\[$V3\]: expected a variant of type 'u'" bctl call "${M[@]}" SetLinkKnobs 'ia{sv}u' "$IDX" 1 $V3 v u 5 0
expect_fail "knobs\[$V3\]: expected a variant of type 'u'" bctl call "${M[@]}" SetLinkKnobs 'ia{sv}u' "$IDX" 1 $V3 t 200 0
expect_fail "knobs\[$V3\]: value 4294967295 out of range" bctl call "${M[@]}" SetLinkKnobs 'ia{sv}u' "$IDX" 1 $V3 u 4294967295 0
expect_fail "knobs\[$V3\]: negative value" bctl call "${M[@]}" SetLinkKnobs 'ia{sv}u' "$IDX" 1 $V3 i -- -5 0
expect_fail "flags: unknown bits 0xfffffffe" bctl call "${M[@]}" SetLinkKnobs 'ia{sv}u' "$IDX" 1 $V3 u 200 4294967295
expect_fail "flags: unknown bits" bctl call "${M[@]}" RevertLink iu "$IDX" 4294967295
LONG=$(printf 'A%.0s' $(seq 1 300))
expect_fail "unknown knob 'A{64}…'" bctl call "${M[@]}" SetLinkKnobs 'ia{sv}u' "$IDX" 1 "$LONG" u 200 0
expect_fail "unknown knob '../../etc/x'" bctl call "${M[@]}" SetLinkKnobs 'ia{sv}u' "$IDX" 1 ../../etc/x u 200 0
expect_dbus_error org.igmpd1.Error.InvalidArgument /org/igmpd1 org.igmpd1.Manager.GetLinkByName string:../../etc/x
expect_dbus_error org.igmpd1.Error.InvalidArgument /org/igmpd1 org.igmpd1.Manager.GetLinkByName string:"$LONG"
expect_dbus_error org.igmpd1.Error.InvalidArgument /org/igmpd1 org.igmpd1.Manager.GetLinkByName string:..
expect_dbus_error org.igmpd1.Error.InvalidArgument /org/igmpd1 org.igmpd1.Manager.GetLinkByName string:
expect_dbus_error org.igmpd1.Error.InvalidArgument /org/igmpd1 org.igmpd1.Manager.GetLinkByName string:"a b"
expect_dbus_error org.igmpd1.Error.InvalidArgument /org/igmpd1 org.igmpd1.Manager.GetLinkByIndex int32:-1
expect_dbus_error org.igmpd1.Error.NoSuchLink /org/igmpd1 org.igmpd1.Manager.GetLinkByIndex int32:2147483647
expect_dbus_error org.igmpd1.Error.InvalidArgument /org/igmpd1 org.igmpd1.Manager.ReconfigureLink int32:-2147483648
expect_dbus_error org.freedesktop.DBus.Error.UnknownObject /org/igmpd1/link/_30 org.igmpd1.Link.Reconfigure
expect_dbus_error org.freedesktop.DBus.Error.UnknownObject /org/igmpd1/link/_2d1 org.igmpd1.Link.Reconfigure
expect_dbus_error org.freedesktop.DBus.Error.UnknownObject /org/igmpd1/link/_303 org.igmpd1.Link.Reconfigure
expect_dbus_error org.freedesktop.DBus.Error.UnknownObject /org/igmpd1/link/_399999999999 org.igmpd1.Link.Reconfigure
expect_dbus_error org.freedesktop.DBus.Error.UnknownMethod /org/igmpd1 org.igmpd1.Manager.DropTables
expect_fail 'Invalid arguments|read-only|not writable|Access denied|Property' \
        bctl set-property "${L[@]}" Name s evil
nothing_changed
igmpd_alive
[ "$(bctl get-property "${L[@]}" Name)" = 's "v0"' ] || fail "link name changed"

info "a burst of denied calls from nobody does not hurt"
pkill_pids=()
for i in $(seq 1 50); do
        as_nobody busctl --system call "${M[@]}" Reload > /dev/null 2>&1 &
        pkill_pids+=($!)
done
for p in "${pkill_pids[@]}"; do wait "$p" || true; done
igmpd_alive
nothing_changed
grep -qiE 'segfault|assert|Aborted' "$T_LOG" && fail "the daemon log shows a crash"

echo "PASS: $T_NAME"
