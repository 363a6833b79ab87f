#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs inside the booted test container of test-nm-real.sh, as root, from igmpd-nm-selftest.service:
# igmpd.service and the real NetworkManager.service on the container's system bus. One line per
# check goes to /igmpd-test/results (PASS/FAIL/SKIP NAME [reason]); the last line is DONE.
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

echo "systemd $(systemctl --version | head -n1), kernel $(uname -r)"
echo "$(nmcli --version)"

cat > /etc/igmpd/conf.d/50-nm.conf <<'CONF'
[Match]
Name=nmv*

[IGMP]
V3UnsolicitedReportInterval=500
CONF

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

# The profile. nmcli of NetworkManager 1.42 has no "user" setting (Error: invalid or not allowed
# setting 'user'), so the user data goes into the profile's keyfile, [user] section, and
# NetworkManager re-reads it with "nmcli connection load".
out=$(nmcli connection add type ethernet con-name iptv ifname nmv0 autoconnect no \
        ipv4.method disabled ipv6.method ignore user.data igmpd.$V3=200 2>&1) && nmcli_user=yes || nmcli_user=no
echo "nmcli connection add … user.data igmpd.$V3=200: $out"
if [ "$nmcli_user" = no ]; then
        nmcli connection add type ethernet con-name iptv ifname nmv0 autoconnect no \
                ipv4.method disabled ipv6.method ignore
        f=$(nmcli -g FILENAME,NAME connection show | awk -F: '$2 == "iptv" { print $1 }')
        echo "keyfile: $f"
        printf '\n[user]\nigmpd.%s=200\n' "$V3" >> "$f"
        nmcli connection load "$f"
fi
echo "nmcli user.data support: $nmcli_user"
busctl --system call org.freedesktop.NetworkManager \
        "$(nmcli -g DBUS-PATH,NAME connection show | awk -F: '$2 == "iptv" { print $1 }' | sed 's/\\//g')" \
        org.freedesktop.NetworkManager.Settings.Connection GetSettings | tr ' ' '\n' | grep -A1 '"user"' | head -n 8

nmcli connection up iptv
check nm-activated "the iptv profile did not activate: $(nmcli -g GENERAL.STATE connection show iptv 2>&1)" wait_for 30 ac_active
check nm-value-applied "nmv0 $V3 is '$(knob nmv0)' after activation, expected 200" wait_for 10 knob_is nmv0 200
check nm-source-shown "igmpctl status does not name NetworkManager:iptv: $(igmpctl status nmv0 2>&1 | head -n 20)" \
        wait_for 5 status_has "NetworkManager:iptv"
igmpctl status nmv0 || true

# Runtime changes stay stronger, and revert goes back to the profile.
igmpctl link nmv0 --v3-interval 150
check runtime-over-nm "nmv0 $V3 is '$(knob nmv0)', expected the runtime 150" wait_for 10 knob_is nmv0 150
igmpctl link nmv0 --revert
check revert-to-nm "nmv0 $V3 is '$(knob nmv0)' after --revert, expected 200" wait_for 10 knob_is nmv0 200

# Profile edited while active: the Updated signal brings the new value.
f=$(nmcli -g FILENAME,NAME connection show | awk -F: '$2 == "iptv" { print $1 }')
sed -i "s/^igmpd.$V3=200\$/igmpd.$V3=250/" "$f"
nmcli connection load "$f"
check nm-profile-updated "nmv0 $V3 is '$(knob nmv0)' after the profile changed, expected 250" wait_for 10 knob_is nmv0 250

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
check igmpd-still-active "igmpd.service is $(systemctl is-active igmpd.service)" active igmpd.service

echo "---- igmpd journal (NetworkManager lines) ----"
journalctl -b -u igmpd.service --no-pager | grep -E "NetworkManager|nmv0" | tail -n 40
