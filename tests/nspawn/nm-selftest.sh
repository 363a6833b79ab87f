#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs inside the booted test container of test-nm-real.sh, as root, from igmpd-nm-selftest.service:
# igmpd.service and the real NetworkManager.service on the container's system bus; igmpctl nm
# edits the profile through NetworkManager's D-Bus API. One line per check goes to
# /igmpd-test/results (PASS/FAIL/SKIP NAME [reason]); the last line is DONE. A SKIP line says
# why the check could not run here.
# Observations (versions, nmcli output, igmpctl status) go to stdout → /igmpd-test/selftest.log.
set -uo pipefail

R=/igmpd-test/results
: > "$R"
pass() { echo "PASS $1" >> "$R"; echo "PASS $1"; }
fail() { echo "FAIL $1: $2" >> "$R"; echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2" >> "$R"; echo "SKIP $1: $2"; }
check() { # check NAME REASON-IF-FALSE COMMAND…
        local name=$1 why=$2
        shift 2
        if "$@"; then pass "$name"; else fail "$name" "$why"; fi
}
finish() {
        journalctl -b --no-pager -o short-monotonic > /igmpd-test/journal.txt 2>&1
        echo DONE >> "$R"
}
trap finish EXIT

wait_for() { # wait_for SECONDS COMMAND…: polls every 0.1 s
        local secs=$1 i
        shift
        for ((i = 0; i < secs * 10; i++)); do
                "$@" && return 0
                sleep 0.1
        done
        return 1
}
V3=igmpv3_unsolicited_report_interval
knob() { cat "/proc/sys/net/ipv4/conf/$1/$V3" 2>/dev/null; }
knob_is() { [ "$(knob "$1")" = "$2" ]; }
active() { [ "$(systemctl is-active "$1")" = active ]; }
status_has() { igmpctl status nmv0 2>&1 | grep -qF -- "$1"; }
ac_active() { nmcli -g GENERAL.STATE connection show iptv 2>/dev/null | grep -q activated; }
nm_ready() { nmcli -t general status > /dev/null 2>&1; }
journal_has() { journalctl -b -u igmpd.service --no-pager | grep -qF -- "$1"; }
journal_count() { journalctl -b -u igmpd.service --no-pager | grep -cF -- "$1"; }
journal_more() { [ "$(journal_count "$1")" -gt "$2" ]; } # journal_more TEXT N: more than N lines have TEXT
# reread: igmpd is asked to read NetworkManager again (igmpctl reconfigure) and has finished the read
# (its debug line; igmpd runs with SYSTEMD_LOG_LEVEL=debug here).
reread() {
        local n
        n=$(journal_count "NetworkManager: full read done")
        igmpctl reconfigure "$1" && wait_for 10 journal_more "NetworkManager: full read done" "$n"
}

echo "systemd $(systemctl --version | head -n1), kernel $(uname -r)"
echo "$(nmcli --version)"

cat > /etc/igmpd/conf.d/50-nm.conf <<'CONF'
[Match]
Name=nmv*

[IGMP]
V3UnsolicitedReportInterval=500
CONF

mkdir -p /etc/systemd/system/igmpd.service.d
printf '[Service]\nEnvironment=SYSTEMD_LOG_LEVEL=debug\n' > /etc/systemd/system/igmpd.service.d/debug.conf
systemctl daemon-reload
systemctl enable --now igmpd.service
check igmpd-active "igmpd.service is $(systemctl is-active igmpd.service)" wait_for 20 active igmpd.service
check networkmanager-active "NetworkManager.service is $(systemctl is-active NetworkManager.service)" \
        wait_for 30 active NetworkManager.service
wait_for 20 nm_ready || true
check igmpd-follows-nm "igmpd did not log that it follows NetworkManager" \
        wait_for 10 journal_has "NetworkManager is on the bus"

# A device NetworkManager manages but did not create, so it survives deactivation.
ip link add nmv0 type veth peer name nmv1
ip link set nmv1 up
check policy-first "nmv0 $V3 is '$(knob nmv0)', expected the policy's 500" wait_for 10 knob_is nmv0 500
wait_for 10 bash -c 'nmcli -g GENERAL.STATE device show nmv0 >/dev/null 2>&1' || true
nmcli device set nmv0 managed yes || true
echo "device: $(nmcli -g GENERAL.STATE device show nmv0 2>&1)"

# ---- the profile, and igmpctl nm editing it over NetworkManager's D-Bus API ----
NM=org.freedesktop.NetworkManager
K3=igmpd.$V3
# settings PATH: the profile's settings as busctl prints them, one token a line.
settings() { busctl --system call $NM "$1" $NM.Settings.Connection GetSettings | tr ' ' '\n'; }
applied() { busctl --system call $NM "$DEV" $NM.Device GetAppliedConnection u 0 | tr ' ' '\n'; }
user_part() { grep -A14 -xF '"user"' <<< "$1" | tr '\n' ' '; }
# has_pair TOKENS KEY VALUE: the a{ss} in TOKENS holds "KEY" "VALUE" (VALUE without spaces).
has_pair() { [ "$(grep -m1 -A1 -xF -- "\"$2\"" <<< "$1" | sed -n 2p)" = "\"$3\"" ]; }
no_igmpd_keys() { ! grep -q '^"igmpd\.' <<< "$1"; }
# The two keys another program put there, and only igmpd's keys changed.
others_kept() { has_pair "$1" other.app.key x && [ "$(grep -m1 -A1 -xF '"com.example.note"' <<< "$1" | sed -n 2p)" = '"hello' ]; }
# run CMD…: runs it once; its exit status in $RC, its output in /tmp/igmpctl.out and .err.
run() { RC=0; "$@" > /tmp/igmpctl.out 2> /tmp/igmpctl.err || RC=$?; echo "\$ $* → exit $RC $(head -c 300 /tmp/igmpctl.err)"; }
rc_is() { [ "$RC" = "$1" ]; }
err_has() { grep -qE -- "$1" /tmp/igmpctl.err; }
out_has() { grep -qE -- "$1" /tmp/igmpctl.out; }
rc_err() { rc_is "$1" && err_has "$2"; }
err() { head -c 400 /tmp/igmpctl.err; }

# Created over D-Bus (AddConnection) with user data of another program, as a tool using libnm
# would leave it.
UUID=$(cat /proc/sys/kernel/random/uuid)
CONN=$(busctl --system call $NM /org/freedesktop/NetworkManager/Settings $NM.Settings AddConnection 'a{sa{sv}}' 4 \
        connection 5 id s iptv uuid s "$UUID" type s 802-3-ethernet interface-name s nmv0 autoconnect b false \
        ipv4 1 method s disabled ipv6 1 method s ignore \
        user 1 data 'a{ss}' 2 other.app.key x com.example.note "hello world" 2>&1 | awk '{ gsub(/"/, "", $2); print $2 }')
echo "profile iptv: $CONN ($UUID)"
check nm-profile-created "AddConnection over D-Bus failed: $CONN" has_pair "$(settings "$CONN")" other.app.key x
DEV=$(busctl --system call $NM /org/freedesktop/NetworkManager $NM GetDeviceByIpIface s nmv0 | awk '{ gsub(/"/, "", $2); print $2 }')
echo "device nmv0: $DEV"

run igmpctl nm
check nm-list-empty "igmpctl nm: $(cat /tmp/igmpctl.out)" out_has "^No NetworkManager profile has igmpd values"
run igmpctl nm iptv --v3-interval 200ms
check nm-set "exit $RC: $(err)" rc_is 0
s=$(settings "$CONN")
check nm-set-user-data "GetSettings lacks $K3=200ms: $(user_part "$s")" has_pair "$s" "$K3" 200ms
check nm-set-others-kept "another program's user data was lost: $(user_part "$s")" others_kept "$s"
FILE=$(nmcli -g FILENAME,UUID connection show | awk -F: -v u="$UUID" '$2 == u { print $1 }')
echo "keyfile $FILE:"; cat "$FILE"
check nm-set-on-disk "the keyfile lacks the key: $(cat "$FILE" 2>&1)" grep -qx "$K3=200ms" "$FILE"
run igmpctl nm
check nm-list "igmpctl nm does not list iptv: $(cat /tmp/igmpctl.out)" out_has "^iptv +$UUID +- +$V3 +200ms\$"
run igmpctl --json=short nm "$UUID"
check nm-show-json "igmpctl --json=short nm UUID: $(cat /tmp/igmpctl.out)" out_has "\"knobs\":\\{\"$V3\":200\\}"
igmpctl nm iptv

nmcli connection up iptv
check nm-activated "the iptv profile did not activate: $(nmcli -g GENERAL.STATE connection show iptv 2>&1)" wait_for 30 ac_active
check nm-value-applied "nmv0 $V3 is '$(knob nmv0)' after activation, expected 200" wait_for 10 knob_is nmv0 200
check nm-source-shown "igmpctl status does not name NetworkManager:iptv: $(igmpctl status nmv0 2>&1 | head -n 20)" \
        wait_for 5 status_has "NetworkManager:iptv"
igmpctl status nmv0 || true
igmpctl nm || true

# Runtime changes stay stronger, and revert goes back to the profile.
igmpctl link nmv0 --v3-interval 150
check runtime-over-nm "nmv0 $V3 is '$(knob nmv0)', expected the runtime 150" wait_for 10 knob_is nmv0 150
igmpctl link nmv0 --revert
check revert-to-nm "nmv0 $V3 is '$(knob nmv0)' after --revert, expected 200" wait_for 10 knob_is nmv0 200

# --reapply: NetworkManager's applied connection on nmv0 gets the value, and igmpd uses it.
run igmpctl nm iptv --v3-interval 250 --reapply
check nm-reapply "exit $RC: $(err)" rc_is 0
a=$(applied)
check nm-reapply-applied "the applied connection lacks $K3=250ms: $(user_part "$a")" has_pair "$a" "$K3" 250ms
check nm-reapply-others-kept "the applied connection lost another program's keys: $(user_part "$a")" others_kept "$a"
check nm-profile-updated "nmv0 $V3 is '$(knob nmv0)' after igmpctl nm --reapply, expected 250" wait_for 10 knob_is nmv0 250
check nm-reapply-source "igmpctl status does not name NetworkManager:iptv after --reapply" status_has "NetworkManager:iptv"
check nm-reapply-still-active "the profile went down on reapply" ac_active

# A plain save changes the profile, not what NetworkManager applied on the device.
run igmpctl nm iptv --v3-interval 260
check nm-save "exit $RC: $(err)" rc_is 0
check nm-save-hint "no hint about --reapply: $(err)" err_has "igmpctl nm iptv --reapply"
a=$(applied)
check nm-save-not-applied "a plain save changed the applied connection: $(user_part "$a")" has_pair "$a" "$K3" 250ms
check nm-save-on-disk "the keyfile lacks 260ms: $(cat "$FILE")" grep -qx "$K3=260ms" "$FILE"
# igmpd follows the applied connection: the saved value waits for a reapply, even when igmpd
# reads NetworkManager again; NetworkManager 1.42 announces no reapply, so after nmcli's an
# admin tells igmpd (igmpctl reconfigure).
check nm-save-reread "igmpctl reconfigure nmv0 did not make igmpd read NetworkManager again" reread nmv0
check nm-save-waits-for-reapply "nmv0 $V3 is '$(knob nmv0)' after a plain save, expected 250 until a reapply" \
        knob_is nmv0 250
nmcli device reapply nmv0
check nm-nmcli-reapply-applied "the applied connection lacks 260ms after nmcli device reapply" has_pair "$(applied)" "$K3" 260ms
igmpctl reconfigure nmv0
check nm-nmcli-reapply-value "nmv0 $V3 is '$(knob nmv0)' after nmcli device reapply and igmpctl reconfigure, expected 260" \
        wait_for 10 knob_is nmv0 260
run igmpctl nm iptv --reapply
check nm-reapply-only "exit $RC: $(err)" rc_is 0
check nm-reapply-only-applied "the applied connection lacks 260ms after --reapply" has_pair "$(applied)" "$K3" 260ms
check nm-reapply-only-value "nmv0 $V3 is '$(knob nmv0)', expected 260" wait_for 10 knob_is nmv0 260

# --runtime: in NetworkManager's memory, the file stays.
run igmpctl nm iptv --runtime --v2-interval 300
check nm-runtime "exit $RC: $(err)" rc_is 0
check nm-runtime-set "GetSettings lacks the --runtime value" has_pair "$(settings "$CONN")" igmpd.igmpv2_unsolicited_report_interval 300ms
check nm-runtime-not-on-disk "--runtime wrote the keyfile: $(cat "$FILE")" bash -c "! grep -q igmpv2 '$FILE'"
run igmpctl --json=short nm iptv
check nm-runtime-unsaved "igmpctl nm does not show the profile as unsaved: $(cat /tmp/igmpctl.out)" out_has '"unsaved":true'

# --clear: igmpd's keys go, others stay; with --reapply the link goes back to its policy.
run igmpctl nm iptv --clear --reapply
check nm-clear "exit $RC: $(err)" rc_is 0
s=$(settings "$CONN")
check nm-clear-removed "igmpd keys left after --clear: $(user_part "$s")" no_igmpd_keys "$s"
check nm-clear-others-kept "--clear removed another program's keys: $(user_part "$s")" others_kept "$s"
check nm-clear-on-disk "igmpd keys left in the keyfile: $(cat "$FILE")" bash -c "! grep -q '^igmpd\\.' '$FILE'"
check nm-clear-others-on-disk "the keyfile lost another program's key: $(cat "$FILE")" grep -qx "other.app.key=x" "$FILE"
a=$(applied)
check nm-clear-applied "igmpd keys left in the applied connection: $(user_part "$a")" no_igmpd_keys "$a"
check nm-clear-applied-others "the applied connection lost another program's keys" others_kept "$a"
check nm-clear-fallback "nmv0 $V3 is '$(knob nmv0)' after --clear --reapply, expected the policy's 500" wait_for 10 knob_is nmv0 500
run igmpctl nm iptv --v3-interval 250 --reapply
check nm-set-again "exit $RC: $(err)" rc_is 0

# Secrets: GetSettings does not send them, and an Update2 without secrets keeps the stored ones.
nmcli connection add type ethernet con-name sec ifname nmv9 autoconnect no ipv4.method disabled ipv6.method ignore \
        802-1x.eap peap 802-1x.phase2-auth mschapv2 802-1x.identity settop 802-1x.password s3cret-pw > /dev/null
run igmpctl nm sec --v3-interval 200
check nm-secret-profile "exit $RC: $(err)" rc_is 0
check nm-secret-kept "802-1x.password is '$(nmcli -s -g 802-1x.password connection show sec 2>&1)' after igmpctl nm" \
        [ "$(nmcli -s -g 802-1x.password connection show sec)" = s3cret-pw ]
run igmpctl nm sec --v3-interval 300 --reapply
check nm-reapply-inactive "exit $RC: $(err)" rc_err 1 "not active on any device"
check nm-reapply-inactive-unchanged "a refused --reapply wrote the profile" bash -c "igmpctl nm sec | grep -qE '^$V3 +200ms\$'"

# Names: unknown (exit 4), ambiguous (exit 1, UUIDs listed).
run igmpctl nm no-such
check nm-unknown-profile "exit $RC: $(err)" rc_err 4 "No NetworkManager profile 'no-such'"
nmcli connection add type ethernet con-name dup ifname nmv8 autoconnect no > /dev/null
nmcli connection add type ethernet con-name dup ifname nmv7 autoconnect no > /dev/null
run igmpctl nm dup --v3-interval 200
check nm-ambiguous "exit $RC: $(err)" rc_err 1 "^2 NetworkManager profiles are named 'dup'"
check nm-ambiguous-uuids "the UUIDs are not listed: $(err)" [ "$(grep -cE '^  [0-9a-f-]{36}  802-3-ethernet' /tmp/igmpctl.err)" = 2 ]

# NetworkManager authorizes: a user without the polkit permission is refused, with the reason.
run setpriv --reuid 65534 --regid 65534 --clear-groups igmpctl nm iptv --v3-interval 100
check nm-denied "exit $RC: $(err)" rc_err 6 "NetworkManager refused"
check nm-denied-permission "the permission to ask for is not named: $(err)" err_has "settings.modify.system"
check nm-denied-unchanged "a refused edit changed the profile" has_pair "$(settings "$CONN")" "$K3" 250ms
# A user's profile (connection.permissions user:alice) carrying igmpd keys: ignored, with one
# log line naming the reason, and igmpctl status shows it. NetworkManager refuses igmpd's own
# user the applied connection of such a profile (PermissionDenied), which says whose it is.
useradd -M -s /usr/sbin/nologin alice 2>/dev/null || true
ip link add nmv5 type veth peer name nmv6
ip link set nmv6 up
check user-policy-first "nmv5 $V3 is '$(knob nmv5)', expected the policy's 500" wait_for 10 knob_is nmv5 500
wait_for 10 bash -c 'nmcli -g GENERAL.STATE device show nmv5 >/dev/null 2>&1' || true
nmcli device set nmv5 managed yes || true
UCONN=$(busctl --system call $NM /org/freedesktop/NetworkManager/Settings $NM.Settings AddConnection 'a{sa{sv}}' 4 \
        connection 5 id s alice-iptv type s 802-3-ethernet interface-name s nmv5 autoconnect b false \
        permissions as 1 "user:alice:" \
        ipv4 1 method s disabled ipv6 1 method s ignore \
        user 1 data 'a{ss}' 2 "$K3" 111ms other.app.key y 2>&1 | awk '{ gsub(/"/, "", $2); print $2 }')
echo "profile alice-iptv: $UCONN: $(nmcli -g connection.permissions connection show alice-iptv 2>&1)"
nmcli connection up alice-iptv || true
uac_active() { nmcli -g GENERAL.STATE connection show alice-iptv 2>/dev/null | grep -q activated; }
if wait_for 30 uac_active; then
        check nm-user-profile-logged "igmpd did not log why it ignores alice-iptv" \
                wait_for 10 journal_has "nmv5: NetworkManager profile 'alice-iptv' ignored: it belongs to"
        check nm-user-profile-reread "igmpctl reconfigure nmv5 did not make igmpd read NetworkManager again" reread nmv5
        check nm-user-profile-ignored "nmv5 $V3 is '$(knob nmv5)' with alice's profile up, expected the policy's 500" \
                knob_is nmv5 500
        check nm-user-profile-logged-once "the ignored profile was logged $(journal_count "'alice-iptv' ignored") times" \
                [ "$(journal_count "'alice-iptv' ignored")" = 1 ]
        check nm-user-profile-status "igmpctl status nmv5 does not show the ignored profile: $(igmpctl status nmv5 2>&1 | head -n 12)" \
                bash -c "igmpctl status nmv5 | grep -qF 'Ignored sources: NetworkManager:alice-iptv: it belongs to'"
        igmpctl status nmv5 || true
        nmcli connection down alice-iptv || true
else
        skip nm-user-profile-ignored "NetworkManager did not activate alice's profile here: $(nmcli -g GENERAL.STATE connection show alice-iptv 2>&1)"
fi

# Deactivation: back to the policy.
nmcli connection down iptv
check nm-deactivated-fallback "nmv0 $V3 is '$(knob nmv0)' after down, expected the policy's 500" wait_for 10 knob_is nmv0 500

# NetworkManager restarts while the profile is up: values return once it is back.
nmcli connection up iptv
check nm-reactivated "nmv0 $V3 is '$(knob nmv0)' after up, expected 250" wait_for 30 knob_is nmv0 250
systemctl restart NetworkManager.service
wait_for 30 active NetworkManager.service || true
wait_for 20 nm_ready || true
if ! ac_active; then
        nmcli connection up iptv || true
fi
check nm-restart "nmv0 $V3 is '$(knob nmv0)' after NetworkManager restarted, expected 250" wait_for 30 knob_is nmv0 250
check nm-restart-noticed "igmpd did not notice NetworkManager leaving the bus" \
        journal_has "NetworkManager is not on the bus"
run igmpctl nm
check nm-after-restart "igmpctl nm after the restart: $(cat /tmp/igmpctl.out)" out_has "^iptv +$UUID +nmv0 +$V3 +250ms\$"

# NetworkManager stopped: igmpctl nm says so with its own exit status, and does not start it.
systemctl stop NetworkManager.service
run igmpctl nm
check nm-stopped "exit $RC: $(err)" rc_err 3 "NetworkManager is not running"
run igmpctl nm iptv --v3-interval 200
check nm-stopped-edit "exit $RC: $(err)" rc_err 3 "NetworkManager is not running"
check nm-not-started "igmpctl nm started NetworkManager" bash -c '! systemctl -q is-active NetworkManager.service'
check igmpd-still-active "igmpd.service is $(systemctl is-active igmpd.service)" active igmpd.service

echo "---- igmpd journal (NetworkManager lines) ----"
journalctl -b -u igmpd.service --no-pager | grep -E "NetworkManager|nmv0" | tail -n 40
