#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# igmpctl nm against tests/helpers/fake-nm.py (NetworkManager's settings and device API, with
# 1.42's rules) on the private bus:
#   - NetworkManager not running: every nm command fails with its own exit status (3)
#   - list, show (by name, UUID, D-Bus path), --json; unknown profile (exit 4); ambiguous name
#   - set: the key lands in user.data as the daemon reads it; every other setting (all D-Bus
#     types), every other user-data key and the stored secret survive every edit; to disk by
#     default, in memory with --runtime; --clear removes igmpd's keys only
#   - bad values and option mistakes are usage errors (exit 2) that write nothing
#   - --reapply: refused without writing when the profile is not active; otherwise the device's
#     applied connection gets exactly the profile's igmpd keys (only "user" changes, version id
#     checked, external addresses preserved), and igmpd is told (NetworkManager announces no
#     reapply); a plain save leaves the applied connection, and igmpd's value, alone
#   - NetworkManager's refusals (non-root caller) come through with the permission to ask for
#   - NetworkManager 1.44: an edit racing with another client's is redone, not lost; 1.40: no
#     Reapply flags
#   - igmpd follows the applied connection: the value reaches /proc/sys with source
#     NetworkManager:<profile> after activation or --reapply
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
. "$(dirname "$0")/nm-lib.sh"
need_jq
[ -x "$IGMPCTL" ] || fail "igmpctl not found at $IGMPCTL"

dbus_start
nm_bus_policy

V3=igmpv3_unsolicited_report_interval
K3=igmpd.$V3
ctl() { "$IGMPCTL" "$@"; }

# expect_rc N CMD…: CMD exits with N; its output is in $T_TMP/out and $T_TMP/err.
expect_rc() {
        local want=$1 rc=0
        shift
        "$@" > "$T_TMP/out" 2> "$T_TMP/err" || rc=$?
        [ "$rc" = "$want" ] || fail "'$*' exited $rc, expected $want (stdout: $(cat "$T_TMP/out"), stderr: $(cat "$T_TMP/err"))"
}
err_has() { grep -qE -- "$1" "$T_TMP/err" || fail "stderr of the last command lacks /$1/: $(cat "$T_TMP/err")"; }
out_has() { grep -qE -- "$1" "$T_TMP/out" || fail "stdout of the last command lacks /$1/: $(cat "$T_TMP/out")"; }

# user_data CONN: the profile's user.data as sorted KEY=VALUE lines (from the stand-in).
user_data() {
        busctl --system --json=short call org.freedesktop.NetworkManager /org/igmpd/FakeNM org.igmpd.FakeNM \
                UserData o "$1" | jq -r '.data[0] | to_entries[] | "\(.key)=\(.value)"' | sort
}
applied_user_data() {
        busctl --system --json=short call org.freedesktop.NetworkManager /org/igmpd/FakeNM org.igmpd.FakeNM \
                AppliedUserData o "$1" | jq -r '.data[0] | to_entries[] | "\(.key)=\(.value)"' | sort
}
expect_user_data() { # expect_user_data CONN KEY=VALUE…
        local want have
        want=$(printf '%s\n' "${@:2}" | sort)
        have=$(user_data "$1")
        [ "$have" = "$want" ] || fail "user.data is '$(echo $have)', expected '$(echo $want)'"
}
canon() { busctl --system --json=short call org.freedesktop.NetworkManager /org/igmpd/FakeNM org.igmpd.FakeNM Canon ob "$1" false | jq -r '.data[0]'; }
secret() { busctl --system --json=short call org.freedesktop.NetworkManager /org/igmpd/FakeNM org.igmpd.FakeNM Secret o "$1" | jq -r '.data[0]'; }
# last_update CONN: "COUNT FLAGS ARGS" of the stand-in's last Update2.
last_update() { busctl --system --json=short call org.freedesktop.NetworkManager /org/igmpd/FakeNM org.igmpd.FakeNM LastUpdate o "$1" | jq -r '.data | "\(.[0]) \(.[1]) \(.[2])"'; }
last_reapply() { busctl --system --json=short call org.freedesktop.NetworkManager /org/igmpd/FakeNM org.igmpd.FakeNM LastReapply o "$1" | jq -r '.data | "\(.[0]) \(.[1]) \(.[2]) \(.[3])"'; }
# Settings other than user.data (every setting, every D-Bus type) and the secret are unchanged.
expect_rest_kept() {
        [ "$(canon "$CONN")" = "$CANON0" ] || fail "settings other than user.data changed: $(canon "$CONN") vs $CANON0"
        [ "$(secret "$CONN")" = "$SECRET0" ] || fail "the stored secret was lost: '$(secret "$CONN")'"
}

info "NetworkManager not running: exit status 3 and a message that says so"
expect_rc 3 ctl nm
err_has "NetworkManager is not running .*systemctl start NetworkManager"
expect_rc 3 ctl nm iptv --v3-interval 200
err_has "NetworkManager is not running"
expect_rc 3 ctl --json=short nm
[ ! -s "$T_TMP/out" ] || fail "--json printed something although NetworkManager is not running"

nm_start
info "no profile has igmpd values"
expect_rc 0 ctl nm
out_has "^No NetworkManager profile has igmpd values \(0 profiles looked at\)"
expect_rc 0 ctl --json=short nm
[ "$(cat "$T_TMP/out")" = "[]" ] || fail "--json nm without profiles: $(cat "$T_TMP/out")"

CONN=$(nmctl AddConnection 'sa{ss}' iptv 2 other.app.key x com.example.note "hello world")
OFFICE=$(nmctl AddConnection 'sa{ss}' office 0)
UUID=$(ctl --json=short nm "$CONN" | jq -r '.[0].uuid')
CANON0=$(canon "$CONN")
SECRET0=$(secret "$CONN")
[ -n "$SECRET0" ] || fail "the stand-in has no secret"
expect_rc 0 ctl nm
out_has "^No NetworkManager profile has igmpd values \(2 profiles looked at\)"

info "set a knob: user.data gets the key, everything else stays (to disk)"
expect_rc 0 ctl nm iptv --v3-interval 200ms
[ ! -s "$T_TMP/err" ] || fail "a quiet save printed: $(cat "$T_TMP/err")"
expect_user_data "$CONN" "$K3=200ms" other.app.key=x "com.example.note=hello world"
expect_rest_kept
[ "$(last_update "$CONN")" = '1 1 {}' ] || fail "Update2 was not one to-disk call without arguments: $(last_update "$CONN")"
[ "$(user_data "$OFFICE")" = "" ] || fail "another profile was changed"

info "list and show"
expect_rc 0 ctl nm
head -n1 "$T_TMP/out" | grep -qE '^PROFILE +UUID +DEVICE +KNOB +VALUE$' || fail "nm list header: $(cat "$T_TMP/out")"
out_has "^iptv +$UUID +- +$V3 +200ms$"
grep -q office "$T_TMP/out" && fail "a profile without igmpd values is listed"
tail -n1 "$T_TMP/out" | grep -qx '1 profile listed.' || fail "nm list legend: $(cat "$T_TMP/out")"
expect_rc 0 ctl --no-legend nm
[ "$(wc -l < "$T_TMP/out")" = 1 ] || fail "--no-legend nm: $(cat "$T_TMP/out")"
expect_rc 0 ctl nm iptv
out_has "^● iptv$"
out_has "^ +UUID: $UUID$"
out_has "^ +Device: - \(not active\)$"
out_has "^ +File: /etc/NetworkManager/system-connections/iptv.nmconnection$"
out_has "^ +Permissions: none \(a system profile\)$"
out_has "^ +D-Bus path: $CONN$"
out_has "^$V3 +200ms$"
cp "$T_TMP/out" "$T_TMP/show-name"
ctl nm "$UUID" > "$T_TMP/show-uuid" || fail "nm by UUID failed"
ctl nm "${UUID^^}" > "$T_TMP/show-UUID" || fail "nm by upper-case UUID failed"
ctl nm "$CONN" > "$T_TMP/show-path" || fail "nm by D-Bus path failed"
cmp -s "$T_TMP/show-name" "$T_TMP/show-uuid" && cmp -s "$T_TMP/show-name" "$T_TMP/show-path" &&
        cmp -s "$T_TMP/show-name" "$T_TMP/show-UUID" || fail "nm by name, UUID and path differ"
COLUMNS=80 ctl nm | sed 's/…/./g' | awk '{ if (length($0) > 80) { print; bad = 1 } } END { exit bad }' ||
        fail "igmpctl nm is wider than 80 columns"

info "--json"
ctl --json=short nm > "$T_TMP/list.json"
[ "$(wc -l < "$T_TMP/list.json")" = 1 ] || fail "--json=short is not one line"
jq_true "$T_TMP/list.json" "length == 1 and .[0].name == \"iptv\" and .[0].uuid == \"$UUID\" and .[0].path == \"$CONN\""
jq_true "$T_TMP/list.json" ".[0] | keys == [\"devices\", \"filename\", \"knobs\", \"name\", \"path\", \"permissions\", \"type\", \"unsaved\", \"user_data\", \"uuid\"]"
jq_true "$T_TMP/list.json" ".[0].knobs == {\"$V3\": 200} and .[0].user_data == {\"$K3\": \"200ms\"}"
jq_true "$T_TMP/list.json" '.[0].devices == [] and .[0].permissions == [] and .[0].unsaved == false and .[0].type == "802-3-ethernet"'
ctl --json=pretty nm iptv > "$T_TMP/show.json"
[ "$(jq -c . "$T_TMP/show.json")" = "$(jq -c . "$T_TMP/list.json")" ] || fail "nm PROFILE --json differs from the list entry"

info "more knobs: the others are kept; values written as the daemon reads them"
expect_rc 0 ctl nm iptv --mld-v2-interval 1.5s --igmp-version auto --mld-version 2
expect_user_data "$CONN" "$K3=200ms" igmpd.mldv2_unsolicited_report_interval=1500ms \
        igmpd.force_igmp_version=auto igmpd.force_mld_version=2 other.app.key=x "com.example.note=hello world"
expect_rest_kept
jq_true <(ctl --json=short nm iptv) ".[0].knobs == {\"igmpv3_unsolicited_report_interval\": 200, \"force_igmp_version\": 0, \"mldv2_unsolicited_report_interval\": 1500, \"force_mld_version\": 2}"

info "--runtime: in memory"
expect_rc 0 ctl nm iptv --runtime --v2-interval 300
[ "$(last_update "$CONN" | cut -d' ' -f2)" = 2 ] || fail "--runtime was not an in-memory Update2: $(last_update "$CONN")"
grep -qx "igmpd.igmpv2_unsolicited_report_interval=300ms" <(user_data "$CONN") || fail "--runtime did not set the value"
expect_rc 0 ctl nm iptv
out_has "^ +File: /etc/NetworkManager/system-connections/iptv.nmconnection \(changed in memory, not saved\)$"
jq_true <(ctl --json=short nm iptv) '.[0].unsaved == true'

info "--clear: igmpd's keys go, nothing else (to disk again)"
expect_rc 0 ctl nm iptv --clear
expect_user_data "$CONN" other.app.key=x "com.example.note=hello world"
expect_rest_kept
[ "$(last_update "$CONN" | cut -d' ' -f2)" = 1 ] || fail "--clear was not a to-disk Update2"
jq_true <(ctl --json=short nm iptv) '.[0].unsaved == false and .[0].knobs == {} and .[0].user_data == {}'
expect_rc 0 ctl nm iptv
out_has "^No igmpd values. Set them with igmpctl nm iptv --v3-interval 200ms.$"
expect_rc 0 ctl nm iptv --v2-interval 400 --mld-version 1
expect_rc 0 ctl nm iptv --clear --v3-interval 250
expect_user_data "$CONN" "$K3=250ms" other.app.key=x "com.example.note=hello world"
expect_rest_kept

info "mistakes are usage errors and write nothing"
n_updates=$(last_update "$CONN" | cut -d' ' -f1)
expect_rc 2 ctl nm iptv --v3-interval 0
err_has "Invalid value for --v3-interval: '0'"
expect_rc 2 ctl nm iptv --igmp-version 4
expect_rc 2 ctl nm iptv --v3-interval 2s5
expect_rc 2 ctl nm --v3-interval 200
err_has "need a PROFILE"
expect_rc 2 ctl nm --clear
expect_rc 2 ctl nm iptv office
err_has "at most one PROFILE"
expect_rc 2 ctl nm iptv --runtime
err_has "--runtime goes with knob options or --clear"
expect_rc 2 ctl nm iptv --persistent --v3-interval 200
expect_rc 2 ctl nm iptv --revert
expect_rc 2 ctl link lo --clear
expect_rc 2 ctl link lo --reapply
[ "$(last_update "$CONN" | cut -d' ' -f1)" = "$n_updates" ] || fail "a refused command wrote the profile"

info "unknown and ambiguous profiles"
expect_rc 4 ctl nm no-such-profile
err_has "No NetworkManager profile 'no-such-profile' \(looked for a name, UUID or D-Bus path"
expect_rc 4 ctl nm no-such-profile --v3-interval 200
expect_rc 4 ctl nm /org/freedesktop/NetworkManager/Settings/999
expect_rc 4 ctl nm '/not a path'
D1=$(nmctl AddConnectionWith 'ssasa{ss}' dup 11111111-2222-3333-4444-555555555555 0 0)
D2=$(nmctl AddConnectionWith 'ssasa{ss}' dup 66666666-7777-8888-9999-000000000000 0 0)
expect_rc 1 ctl nm dup --v3-interval 200
err_has "^2 NetworkManager profiles are named 'dup'; name one by its UUID:"
err_has "^  11111111-2222-3333-4444-555555555555  802-3-ethernet$"
err_has "^  66666666-7777-8888-9999-000000000000  802-3-ethernet$"
[ "$(user_data "$D1")$(user_data "$D2")" = "" ] || fail "an ambiguous name wrote a profile"
expect_rc 0 ctl nm 66666666-7777-8888-9999-000000000000 --v3-interval 200
[ "$(user_data "$D2")" = "$K3=200ms" ] && [ "$(user_data "$D1")" = "" ] || fail "the UUID did not pick the right profile"

info "keys written by hand that igmpd ignores are shown as such"
nmctl UpdateConnection 'oa{ss}' "$OFFICE" 3 igmpd.force_igmp_version bogus igmpd.no_such_knob 1 "$K3" 300
expect_rc 0 ctl nm office
out_has "^force_igmp_version +bogus \(invalid value, ignored\)$"
out_has "^no_such_knob +1 \(unknown knob, ignored\)$"
out_has "^$V3 +300$"
jq_true <(ctl --json=short nm office) ".[0].knobs == {\"$V3\": 300} and (.[0].user_data | length) == 3"

info "--reapply on a profile that is not active: refused, nothing written"
n_updates=$(last_update "$CONN" | cut -d' ' -f1)
expect_rc 1 ctl nm iptv --v3-interval 220 --reapply
err_has "profile 'iptv' is not active on any device, so there is nothing to reapply; nothing was changed"
[ "$(last_update "$CONN" | cut -d' ' -f1)" = "$n_updates" ] || fail "--reapply on an inactive profile wrote it"
expect_rc 1 ctl nm iptv --reapply

info "NetworkManager's refusals come through (a caller that is not root): exit 6, permission denied"
as_nobody "$IGMPCTL" nm iptv > /dev/null || fail "reading a profile as nobody failed"
expect_rc 6 as_nobody "$IGMPCTL" nm iptv --v3-interval 100
err_has "Failed to update NetworkManager profile 'iptv': NetworkManager refused: Insufficient privileges"
err_has "org.freedesktop.NetworkManager.settings.modify.system"
[ "$(last_update "$CONN" | cut -d' ' -f1)" = "$n_updates" ] || fail "a refused update changed the profile"

info "active profile, with igmpd following the stand-in"
NS=$(ns_new nmc)
veth_add "$NS" nmc0 nmc1
conf_put 10-site.conf <<'CONF'
[Match]
Name=nmc*

[IGMP]
V3UnsolicitedReportInterval=500
CONF
igmpd_start "$NS"
igmpd_wait_bus
expect_knob "$NS" ipv4 nmc0 $V3 500
DEV=$(nmctl AddDevice su nmc0 "$(ifindex_of "$NS" nmc0)")
AC=$(nmctl Activate oob "$CONN" "$DEV" false)
expect_knob "$NS" ipv4 nmc0 $V3 250
expect_rc 0 ctl nm
out_has "^iptv +$UUID +nmc0 +$V3 +250ms$"
jq_true <(ctl --json=short nm iptv) '.[0].devices == ["nmc0"]'

info "--reapply: the device's applied connection gets the profile's igmpd keys, nothing else changes"
expect_rc 0 ctl nm iptv --v3-interval 200ms --reapply
[ ! -s "$T_TMP/err" ] || fail "--reapply printed: $(cat "$T_TMP/err")"
[ "$(applied_user_data "$DEV")" = "$(printf '%s\n' "$K3=200ms" "com.example.note=hello world" other.app.key=x | sort)" ] ||
        fail "applied user data: $(applied_user_data "$DEV")"
read -r n flags version changed <<< "$(last_reapply "$DEV")"
[ "$n" = 1 ] && [ "$flags" = 1 ] && [ "$version" != 0 ] && [ "$changed" = user ] ||
        fail "Reapply was not one call with preserve-external-ip, a version id, changing user only: $(last_reapply "$DEV")"
expect_knob "$NS" ipv4 nmc0 $V3 200
wait_until "bctl get-property org.igmpd1 $(link_path "$(ifindex_of "$NS" nmc0)") org.igmpd1.Link Knobs | grep -qF '\"$V3\" 200 200 \"NetworkManager:iptv\"'" ||
        fail "the source is not NetworkManager:iptv"
expect_rest_kept

info "a plain save leaves the applied connection alone and says how to apply it"
expect_rc 0 ctl nm iptv --v3-interval 230
err_has "^Profile 'iptv' changed. NetworkManager applies it on nmc0 at the next activation, or now with: igmpctl nm iptv --reapply$"
grep -qx "$K3=200ms" <(applied_user_data "$DEV") || fail "a plain save changed the applied connection: $(applied_user_data "$DEV")"
# igmpd follows the applied connection: the saved value waits, even when igmpd re-reads.
n=$(log_count 'NetworkManager: full read done')
expect_rc 0 ctl reconfigure nmc0
wait_until "[ \$(log_count 'NetworkManager: full read done') -gt $n ]" || fail "igmpd did not re-read NetworkManager"
expect_knob "$NS" ipv4 nmc0 $V3 200
expect_rc 0 ctl nm iptv --reapply
[ ! -s "$T_TMP/err" ] || fail "--reapply printed: $(cat "$T_TMP/err")"
grep -qx "$K3=230ms" <(applied_user_data "$DEV") || fail "--reapply alone did not apply the saved value"
# NetworkManager announces no reapply: igmpctl told igmpd.
expect_knob "$NS" ipv4 nmc0 $V3 230
n=$(last_reapply "$DEV" | cut -d' ' -f1)
expect_rc 0 ctl nm iptv --reapply
[ "$(last_reapply "$DEV" | cut -d' ' -f1)" = "$n" ] || fail "a reapply that changes nothing was sent"

info "--reapply returns with the value in force, also when NetworkManager answers slowly"
nmctl SetAppliedDelay u 700
expect_rc 0 ctl nm iptv --v3-interval 210 --reapply
# No waiting here: igmpd replied to ReconfigureLink after it had read NetworkManager again.
[ "$(knob_get "$NS" ipv4 nmc0 $V3)" = 210 ] ||
        fail "igmpctl nm --reapply returned before the value was in force: $(knob_get "$NS" ipv4 nmc0 $V3)"
bctl get-property org.igmpd1 "$(link_path "$(ifindex_of "$NS" nmc0)")" org.igmpd1.Link Knobs |
        grep -qF "\"$V3\" 210 210 \"NetworkManager:iptv\"" || fail "the source is not NetworkManager:iptv at once"
info "a NetworkManager that does not answer in 5 s: igmpctl returns, the value follows the answer"
nmctl SetAppliedDelay u 6500
expect_rc 0 ctl nm iptv --v3-interval 215 --reapply
[ "$(log_count 'NetworkManager did not answer within 5 s')" -ge 1 ] || fail "no log line about the late answer"
WAIT_SECS=10 expect_knob "$NS" ipv4 nmc0 $V3 215
nmctl SetAppliedDelay u 0
expect_rc 0 ctl nm iptv --v3-interval 230 --reapply
expect_knob "$NS" ipv4 nmc0 $V3 230
expect_rc 0 ctl nm iptv --v3-interval 235
expect_rc 6 as_nobody "$IGMPCTL" nm iptv --reapply
err_has "Failed to reapply NetworkManager profile 'iptv' on nmc0: NetworkManager refused: Not authorized to control networking"
err_has "org.freedesktop.NetworkManager.network-control"

info "--clear --reapply: back to policy, other keys stay everywhere"
expect_rc 0 ctl nm iptv --clear --reapply
[ "$(applied_user_data "$DEV")" = "$(printf '%s\n' "com.example.note=hello world" other.app.key=x)" ] ||
        fail "applied user data after --clear --reapply: $(applied_user_data "$DEV")"
expect_user_data "$CONN" other.app.key=x "com.example.note=hello world"
expect_knob "$NS" ipv4 nmc0 $V3 500
expect_rest_kept

info "NetworkManager 1.40: Reapply without flags"
nmctl SetVersion s 1.40
expect_rc 0 ctl nm iptv --v3-interval 210 --reapply
grep -qx "$K3=210ms" <(applied_user_data "$DEV") || fail "no reapply on 1.40"
[ "$(last_reapply "$DEV" | cut -d' ' -f2)" = 0 ] || fail "flags sent to a NetworkManager that has none"

info "NetworkManager 1.44: an edit that races with another client's is redone on a fresh read"
nmctl SetVersion s 1.44
nmctl EditAfterNextRead oss "$CONN" other.concurrent yes
expect_rc 0 ctl nm iptv --v3-interval 240
expect_user_data "$CONN" "$K3=240ms" other.app.key=x "com.example.note=hello world" other.concurrent=yes
last_update "$CONN" | grep -qE '^[0-9]+ 1 \{"version-id": "[0-9]+"\}$' || fail "no version-id sent: $(last_update "$CONN")"
expect_rest_kept

info "bash completion: profile names (from nmcli, quoted where needed) and the nm options"
mkdir -p "$T_TMP/bin"
cat > "$T_TMP/bin/nmcli" <<'EOS'
#!/bin/sh
[ "$*" = "-g NAME connection show" ] || exit 1
printf '%s\n' iptv 'My Office' 'a\:b' iptv-backup
EOS
chmod +x "$T_TMP/bin/nmcli"
(
        set +eu
        PATH=$T_TMP/bin:$PATH
        # shellcheck source=/dev/null
        . "$SRCDIR/data/bash-completion/igmpctl"
        comp() {
                COMP_WORDS=("$@")
                COMP_CWORD=$(($# - 1))
                COMPREPLY=()
                _igmpctl
                printf '%s\n' "${COMPREPLY[@]}"
        }
        comp igmpctl n | grep -qx nm || exit 1
        [ "$(comp igmpctl nm "" | sort | tr '\n' '|')" = 'My\ Office|a:b|iptv|iptv-backup|' ] || exit 2
        [ "$(comp igmpctl nm ip | sort | tr '\n' '|')" = 'iptv|iptv-backup|' ] || exit 3
        [ "$(comp igmpctl nm 'My\ O')" = 'My\ Office' ] || exit 4
        [ "$(comp igmpctl nm My)" = 'My\ Office' ] || exit 5
        [ -z "$(comp igmpctl nm iptv "")" ] || exit 6  # one PROFILE only
        comp igmpctl nm iptv --re | grep -qx -- --reapply || exit 7
        comp igmpctl nm iptv --cl | grep -qx -- --clear || exit 8
        comp igmpctl nm iptv --v3 | grep -qx -- --v3-interval || exit 9
        comp igmpctl nm iptv --ru | grep -qx -- --runtime || exit 10
        ! comp igmpctl link v0 --re | grep -q -- --reapply || exit 11
) || fail "bash completion check $? failed"

info "NetworkManager goes away while igmpd runs"
nm_stop
expect_rc 3 ctl nm iptv
expect_rc 3 ctl nm iptv --clear --reapply
igmpd_alive

info "ok"
