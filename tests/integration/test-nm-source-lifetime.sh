#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The source string of a NetworkManager value ("NetworkManager:<profile id>") outlives every
# change of NetworkManager's table (issue 14, item 2: valgrind saw an invalid read in the Knobs
# getter of a string freed with the old table). igmpd runs under valgrind memcheck (or is an
# ASan build, which stops at the first bad access) while, with tests/helpers/fake-nm.py:
#   - a netlink overrun can leave igmpd with a second link named as the real one, whose profile
#     is active (a queued RTM_NEWLINK of a link deleted meanwhile: issue 14, item 1); the binary
#     of commit 3ee925f, which keyed NetworkManager's values by name, gave both links the
#     profile's source and, when the table was replaced, reconfigured one of them only
#   - the profile is deactivated and re-activated with new values (the table is replaced), two
#     links with profiles swap names and back, NetworkManager goes away
#   - after every step every link's properties are read (GetAll per link, and at the end
#     GetManagedObjects and igmpctl status)
# Asserts no memory error, the right values in /proc/sys and the right sources on the bus.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
. "$(dirname "$0")/nm-lib.sh"

VG_LOG=""
if ! igmpd_linked_with libasan; then
        command -v valgrind >/dev/null || skip "valgrind is not installed (and igmpd is not an ASan build)"
        VG_LOG=$T_TMP/valgrind.log
        REAL_IGMPD=$IGMPD
        IGMPD=$T_TMP/igmpd-under-valgrind
        cat > "$IGMPD" <<WRAP
#!/bin/sh
exec valgrind --error-exitcode=99 --track-fds=no --leak-check=no --log-file="$VG_LOG" "$REAL_IGMPD" "\$@"
WRAP
        chmod +x "$IGMPD"
fi

dbus_start
nm_bus_policy
nm_start

NS=$(ns_new nmsrc)
mkdir -p "$T_ROOT/etc/igmpd"
# A small receive buffer, so that a burst of link messages while igmpd is stopped overruns it.
printf '[Daemon]\nNetlinkReceiveBufferSize=4K\n' > "$T_ROOT/etc/igmpd/igmpd.conf"
conf_put 10-site.conf <<'CONF'
[Match]
Name=z* y*

[IGMP]
V3UnsolicitedReportInterval=500
CONF
POLICY=$T_CONF/10-site.conf
V3=igmpv3_unsolicited_report_interval

# Every link's properties, Knobs included, as every reader gets them: one GetAll per object
# ListLinks names (a link that went away meanwhile may fail), then the whole tree.
read_all() {
        local p
        for p in $(bctl call org.igmpd1 /org/igmpd1 org.igmpd1.Manager ListLinks | grep -o '"/org/igmpd1/link/[^"]*"' | tr -d '"'); do
                bctl call org.igmpd1 "$p" org.freedesktop.DBus.Properties GetAll s org.igmpd1.Link > /dev/null 2>&1 || true
        done
        kill -0 "$T_IGMPD_PID" 2>/dev/null || fail "igmpd died"
        vg_check
}
# valgrind writes each error as it happens: fail at the first one, showing it.
vg_check() {
        if [ -n "$VG_LOG" ] && grep -qE '^==[0-9]+== (Invalid|Conditional|Use of uninit|Syscall param)' "$VG_LOG"; then
                sed -n '/^==[0-9]*== \(Invalid\|Conditional\|Use of uninit\|Syscall param\)/,+30p' "$VG_LOG" | head -n 60 >&2
                fail "valgrind found a memory error (above)"
        fi
}
read_tree() {
        bctl call org.igmpd1 /org/igmpd1 org.freedesktop.DBus.ObjectManager GetManagedObjects > /dev/null ||
                fail "GetManagedObjects failed"
        "$IGMPCTL" status > /dev/null || fail "igmpctl status failed"
        kill -0 "$T_IGMPD_PID" 2>/dev/null || fail "igmpd died"
}
knobs_of() {
        bctl get-property org.igmpd1 "$(link_path "$(ifindex_of "$NS" "$1")")" org.igmpd1.Link Knobs
}
expect_source() { # expect_source IF VALUE SOURCE
        local want="\"$V3\" $2 $2 \"$3\""
        WAIT_SECS=30 wait_until "knobs_of $1 | grep -qF '$want'" || fail "$1 Knobs is '$(knobs_of "$1")', expected $want"
}

WAIT_SECS=60 igmpd_start "$NS"
igmpd_wait_bus 30

info "profiles active on z1 and y1"
veth_add "$NS" z1 z2
veth_add "$NS" y1 y2
DZ=$(nmctl AddDevice su z1 "$(ifindex_of "$NS" z1)")
DY=$(nmctl AddDevice su y1 "$(ifindex_of "$NS" y1)")
CZ=$(nmctl AddConnection 'sa{ss}' iptv 1 igmpd.$V3 200)
CY=$(nmctl AddConnection 'sa{ss}' office 1 igmpd.$V3 300)
AZ=$(nmctl Activate oob "$CZ" "$DZ" false)
AY=$(nmctl Activate oob "$CY" "$DY" false)
WAIT_SECS=30 expect_knob "$NS" ipv4 z1 $V3 200
WAIT_SECS=30 expect_knob "$NS" ipv4 y1 $V3 300
expect_source z1 200 "NetworkManager:iptv"
expect_source y1 300 "NetworkManager:office"
read_all

# While igmpd is stopped, z1 steps aside for a second z1 that comes and goes within a burst that
# overflows igmpd's receive buffer, then takes its name back. The kernel keeps the first messages
# (z1 renamed, the second z1 added) and drops the rest: after its re-dump igmpd still reads
# the second z1's RTM_NEWLINK, for an ifindex that no longer exists.
info "overrun: a second z1 comes and goes while igmpd is stopped"
for i in $(seq 1 60); do echo "link add x$i type veth peer name w$i"; done > "$T_TMP/burst"
kill -STOP "$T_IGMPD_PID"
ip -n "$NS" link set z1 name zb
veth_add "$NS" z1 z3
ip -n "$NS" -batch "$T_TMP/burst"
ip -n "$NS" link del z1
ip -n "$NS" link set zb name z1
kill -CONT "$T_IGMPD_PID"
WAIT_SECS=60 wait_until "[ \$(log_count 'ENOBUFS') -ge 1 ]" || fail "the netlink buffer never overflowed"
WAIT_SECS=60 expect_knob "$NS" ipv4 x60 $V3 1000
read_all
# (Where overrun handling keeps it, igmpd lists a z1 the kernel no longer has.)
info "igmpd lists: $(bctl call org.igmpd1 /org/igmpd1 org.igmpd1.Manager ListLinks | grep -oE '[0-9]+ "[zy][0-9b]"' | tr '\n' ' ')"
WAIT_SECS=30 expect_knob "$NS" ipv4 z1 $V3 200
expect_source z1 200 "NetworkManager:iptv"
read_all

info "re-activated with new values: the table is replaced"
n=$(log_count 'no NetworkManager profile values any more')
nmctl Deactivate o "$AZ"
WAIT_SECS=30 wait_until "[ \$(log_count 'no NetworkManager profile values any more') -gt $n ]" || fail "igmpd did not see the deactivation"
read_all
WAIT_SECS=30 expect_knob "$NS" ipv4 z1 $V3 500
nmctl UpdateConnection 'oa{ss}' "$CZ" 1 igmpd.$V3 210
AZ=$(nmctl Activate oob "$CZ" "$DZ" false)
WAIT_SECS=30 expect_knob "$NS" ipv4 z1 $V3 210
expect_source z1 210 "NetworkManager:iptv"
read_all

# NetworkManager's devices follow their links' names (the stand-in is told so).
swap_names() {
        ip -n "$NS" link set z1 name ztmp
        ip -n "$NS" link set y1 name z1
        ip -n "$NS" link set ztmp name y1
        nmctl RenameDevice os "$DZ" "$1"
        nmctl RenameDevice os "$DY" "$2"
}
info "z1 and y1 swap names; the values stay with each link (its ifindex)"
IZ=$(ifindex_of "$NS" z1)
IY=$(ifindex_of "$NS" y1)
swap_names y1 z1
read_all
WAIT_SECS=30 expect_knob "$NS" ipv4 y1 $V3 210
WAIT_SECS=30 expect_knob "$NS" ipv4 z1 $V3 300
n=$(log_count 'no NetworkManager profile values any more')
nmctl Deactivate o "$AY"
WAIT_SECS=30 wait_until "[ \$(log_count 'no NetworkManager profile values any more') -gt $n ]" || fail "igmpd did not see the deactivation"
read_all
WAIT_SECS=30 expect_knob "$NS" ipv4 z1 $V3 500
nmctl UpdateConnection 'oa{ss}' "$CY" 1 igmpd.$V3 320
AY=$(nmctl Activate oob "$CY" "$DY" false)
WAIT_SECS=30 expect_knob "$NS" ipv4 z1 $V3 320
read_all
swap_names z1 y1
[ "$(ifindex_of "$NS" z1)" = "$IZ" ] && [ "$(ifindex_of "$NS" y1)" = "$IY" ] || fail "the names did not swap back"
WAIT_SECS=30 expect_knob "$NS" ipv4 z1 $V3 210
WAIT_SECS=30 expect_knob "$NS" ipv4 y1 $V3 320
expect_source z1 210 "NetworkManager:iptv"
expect_source y1 320 "NetworkManager:office"
read_all

info "deactivation and NetworkManager going away: back to policy"
nmctl Deactivate o "$AZ"
WAIT_SECS=30 expect_knob "$NS" ipv4 z1 $V3 500
expect_source z1 500 "$POLICY"
read_all
nm_stop
WAIT_SECS=30 expect_knob "$NS" ipv4 y1 $V3 500
expect_source y1 500 "$POLICY"
read_all
read_tree

kill -TERM "$T_IGMPD_PID"
rc=0
wait "$T_IGMPD_PID" || rc=$?
T_IGMPD_PID=""
if [ -n "$VG_LOG" ]; then
        grep -E 'ERROR SUMMARY' "$VG_LOG" | sed 's/^/# /'
        if [ "$rc" -ne 0 ] || ! grep -q 'ERROR SUMMARY: 0 errors' "$VG_LOG"; then
                sed -n '1,120p' "$VG_LOG" >&2
                fail "igmpd under valgrind exited $rc (99: memory errors, above)"
        fi
else
        [ "$rc" -eq 0 ] || fail "igmpd (ASan) exited $rc"
fi
echo "PASS: $T_NAME"
