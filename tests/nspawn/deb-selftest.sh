#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs inside the booted test container (tests/nspawn/test-deb.sh), as root, from
# igmpd-deb-selftest.service: installs, upgrades, removes and purges the igmpd package with apt,
# offline. One line per check goes to /igmpd-test/results: PASS/FAIL NAME [reason]; the last
# line is DONE. The journal is saved to /igmpd-test/journal.txt.
set -uo pipefail

R=/igmpd-test/results
: > "$R"
pass() { echo "PASS $1" >> "$R"; echo "PASS $1"; }
fail() { echo "FAIL $1: $2" >> "$R"; echo "FAIL $1: $2"; }
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

# wait_for SECONDS COMMAND…: polls every 0.1 s.
wait_for() {
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
state() { systemctl is-active igmpd.service; }
is_active() { [ "$(state)" = active ]; }
main_pid() { systemctl show -P MainPID igmpd.service; }
version() { dpkg-query -W -f '${Version}' igmpd 2>/dev/null; }
bus_owned() { busctl status org.igmpd1 > /dev/null 2>&1; }
activatable() { busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
                        ListActivatableNames 2>/dev/null | grep -q '"org.igmpd1"'; }
not_activatable() { ! activatable; }
dpkg_status() { dpkg-query -W -f '${db:Status-Status}' igmpd 2>/dev/null; }
apt_get() { echo "+ apt-get $*"; apt-get -y -q -o Dpkg::Use-Pty=0 "$@" 2>&1; }

DEB=$(ls /igmpd-test/igmpd_*.deb | grep -v '+next1_')
DEB_NEXT=$(ls /igmpd-test/igmpd_*+next1_*.deb)
v1=$(dpkg-deb -f "$DEB" Version)
v2=$(dpkg-deb -f "$DEB_NEXT" Version)
echo "version $v1 then $v2; systemd $(systemctl --version | head -n1)"

# 0. Before igmpd: a link whose knob someone set (this value must come back on removal), and the
# administrator's policy, put in place before the package.
ip link add vtpre0 type veth peer name vtpre1
echo 1234 > /proc/sys/net/ipv4/conf/vtpre0/$V3
mkdir -p /etc/igmpd/conf.d
cat > /etc/igmpd/conf.d/50-admin.conf <<'CONF'
[Match]
Name=vt*

[IGMP]
V3UnsolicitedReportInterval=300
CONF
check no-user-before "user igmpd exists before the package" bash -c '! getent passwd igmpd'

# 1. apt install, offline: every dependency is in the root already.
out=$(apt_get install "$DEB"); rc=$?
echo "$out"
check install "apt-get install failed (rc $rc)" test $rc -eq 0
check install-version "installed version '$(version)', expected $v1" test "$(version)" = "$v1"
check install-enabled "igmpd.service is $(systemctl is-enabled igmpd.service)" \
        test "$(systemctl is-enabled igmpd.service)" = enabled
check install-active "igmpd.service is $(state) after install" wait_for 20 is_active
check install-user "no igmpd user" getent passwd igmpd
check install-user-nologin "igmpd's shell is $(getent passwd igmpd | cut -d: -f7)" \
        bash -c '[[ "$(getent passwd igmpd | cut -d: -f7)" == */nologin ]]'
check install-runtime-d "/etc/igmpd/runtime.d is owned by $(stat -c %U /etc/igmpd/runtime.d 2>&1)" \
        test "$(stat -c %U /etc/igmpd/runtime.d 2>/dev/null)" = igmpd
# The user appeared after dbus-daemon read the bus policy: the postinst has it re-read the
# policy before the service starts, or igmpd could not own its name.
check install-bus-name "org.igmpd1 has no owner after install" wait_for 20 bus_owned
# Built with BPF (amd64): the helper's socket comes with the service.
bpf=""
[ "$(dpkg-deb -c "$DEB" | grep -c '/igmpd-bpf.socket$')" -gt 0 ] && bpf=yes
if [ -n "$bpf" ]; then
        check install-bpf-socket "igmpd-bpf.socket is $(systemctl is-enabled igmpd-bpf.socket)/$(systemctl is-active igmpd-bpf.socket)" \
                test "$(systemctl is-enabled igmpd-bpf.socket)/$(systemctl is-active igmpd-bpf.socket)" = enabled/active
fi
check install-existing-link "vtpre0 $V3 is '$(knob vtpre0)', expected 300" wait_for 10 knob_is vtpre0 300
ip link add vt0 type veth peer name vt1
check install-hotplug "hot-plugged vt0 $V3 is '$(knob vt0)', expected 300" wait_for 10 knob_is vt0 300
out=$(igmpctl status vt0 2>&1); rc=$?
echo "igmpctl status vt0: rc $rc"; echo "$out"
check igmpctl-status "igmpctl status vt0 (rc $rc) does not show 300 from 50-admin.conf" \
        grep -qE "$V3 +300ms +300ms +/etc/igmpd/conf.d/50-admin.conf" <<< "$out"
igmpctl list
out=$(igmpctl link vt0 --v3-interval 200 2>&1) || echo "igmpctl link vt0: $out"
out=$(igmpctl link vt1 --v3-interval 250 --persistent 2>&1) || echo "igmpctl link vt1: $out"
check runtime-override "vt0 $V3 is '$(knob vt0)' after igmpctl link, expected 200" wait_for 10 knob_is vt0 200
check persistent-override "vt1 $V3 is '$(knob vt1)' after igmpctl link --persistent, expected 250" \
        wait_for 10 knob_is vt1 250
pid=$(main_pid)

# 2. A newer build: restarted, everything kept.
out=$(apt_get install "$DEB_NEXT"); rc=$?
echo "$out"
check upgrade "apt-get install of the newer build failed (rc $rc)" test $rc -eq 0
check upgrade-version "installed version '$(version)', expected $v2" test "$(version)" = "$v2"
check upgrade-restarted "MainPID $(main_pid) (was $pid), state $(state)" \
        wait_for 20 bash -c "[ \"\$(systemctl show -P MainPID igmpd.service)\" != $pid ] && [ \"\$(systemctl is-active igmpd.service)\" = active ]"
check upgrade-bus-name "org.igmpd1 has no owner after the upgrade" wait_for 20 bus_owned
check upgrade-keeps-runtime "vt0 $V3 is '$(knob vt0)' after the upgrade, expected 200" knob_is vt0 200
check upgrade-keeps-persistent "vt1 $V3 is '$(knob vt1)' after the upgrade, expected 250" knob_is vt1 250
out=$(igmpctl status vt0 2>&1)
check upgrade-runtime-source "igmpctl status vt0 does not name the runtime override: $out" \
        grep -qE "$V3 +200ms +200ms +runtime" <<< "$out"
# The overrides live on in files: a link re-created after the upgrade gets them again.
ip link del vt0
ip link add vt0 type veth peer name vt1
check upgrade-runtime-recreated "re-created vt0 $V3 is '$(knob vt0)', expected 200" wait_for 10 knob_is vt0 200
check upgrade-persistent-recreated "re-created vt1 $V3 is '$(knob vt1)', expected 250" wait_for 10 knob_is vt1 250

# 3. apt remove: stopped, and every knob igmpd changed is back at the value it found.
out=$(apt_get remove igmpd); rc=$?
echo "$out"
check remove "apt-get remove failed (rc $rc)" test $rc -eq 0
check remove-stopped "igmpd.service is $(state) after remove" bash -c '[ "$(systemctl is-active igmpd.service)" != active ]'
if [ -n "$bpf" ]; then
        check remove-bpf-socket-stopped "igmpd-bpf.socket is $(systemctl is-active igmpd-bpf.socket) after remove" \
                bash -c '[ "$(systemctl is-active igmpd-bpf.socket)" != active ] && ! test -e /run/igmpd-bpf.sock'
fi
check remove-restores-found-value "vtpre0 $V3 is '$(knob vtpre0)' after remove, expected 1234 (set before igmpd)" \
        knob_is vtpre0 1234
check remove-restores-default "vt0 $V3 is '$(knob vt0)' after remove, expected 1000" knob_is vt0 1000
check remove-restores-persistent "vt1 $V3 is '$(knob vt1)' after remove, expected 1000" knob_is vt1 1000
check remove-keeps-admin-policy "/etc/igmpd/conf.d/50-admin.conf is gone after remove" test -f /etc/igmpd/conf.d/50-admin.conf
check remove-config-files "dpkg status of igmpd is '$(dpkg_status)' after remove" test "$(dpkg_status)" = config-files
check remove-keeps-config "/etc/igmpd/runtime.d/vt1.conf is gone after remove (only purge removes it)" \
        test -f /etc/igmpd/runtime.d/vt1.conf

# 4. apt purge: nothing of the package left but the administrator's policy and the system user.
out=$(apt_get purge igmpd); rc=$?
echo "$out"
check purge "apt-get purge failed (rc $rc)" test $rc -eq 0
check purge-not-installed "dpkg status of igmpd is '$(dpkg_status)' after purge" \
        test -z "$(dpkg_status)" -o "$(dpkg_status)" = not-installed
check purge-no-unit "igmpd.service is still known: LoadState $(systemctl show -P LoadState igmpd.service)" \
        test "$(systemctl show -P LoadState igmpd.service)" = not-found
check purge-no-enablement "an enablement symlink is left: $(ls /etc/systemd/system/*.wants/ | grep -E '^igmpd(-bpf)?\.')" \
        bash -c '! ls /etc/systemd/system/*.wants/ | grep -qE "^igmpd(-bpf)?\."'
check purge-no-bus-policy "a D-Bus file is left: $(ls /usr/share/dbus-1/system.d/org.igmpd1.conf /usr/share/dbus-1/system-services/org.igmpd1.service 2>/dev/null)" \
        bash -c '! test -e /usr/share/dbus-1/system.d/org.igmpd1.conf && ! test -e /usr/share/dbus-1/system-services/org.igmpd1.service'
check purge-not-activatable "dbus-daemon still lists org.igmpd1 as activatable" wait_for 20 not_activatable
check purge-no-polkit-action "the polkit actions are left" bash -c '! test -e /usr/share/polkit-1/actions/org.igmpd1.policy'
check purge-no-state "left: $(ls -d /etc/igmpd/runtime.d /run/igmpd 2>/dev/null)" \
        bash -c '! test -e /etc/igmpd/runtime.d && ! test -e /run/igmpd'
check purge-keeps-admin-policy "/etc/igmpd/conf.d/50-admin.conf is gone after purge" test -f /etc/igmpd/conf.d/50-admin.conf
# Debian leaves system users behind on purge (files elsewhere may carry the uid); nothing of the
# package may still be owned by it or its group.
owned=$(find / /run -xdev \( -path /proc -o -path /sys \) -prune -o \( -user igmpd -o -group igmpd \) -print 2>/dev/null | head -n 5)
check purge-nothing-owned-by-igmpd "still owned by igmpd: $owned" test -z "$owned"
check purge-knobs-stay-restored "vtpre0 $V3 is '$(knob vtpre0)' after purge, expected 1234" knob_is vtpre0 1234

# 5. Installed again after the purge (the user exists this time).
out=$(apt_get install "$DEB"); rc=$?
echo "$out"
check reinstall "apt-get install after purge failed (rc $rc)" test $rc -eq 0
check reinstall-active "igmpd.service is $(state) after reinstall" wait_for 20 is_active
check reinstall-bus-name "org.igmpd1 has no owner after reinstall" wait_for 20 bus_owned
check reinstall-policy "vt0 $V3 is '$(knob vt0)' after reinstall, expected 300 (50-admin.conf)" wait_for 10 knob_is vt0 300
