# SPDX-License-Identifier: LGPL-2.1-or-later
# A private bus for D-Bus tests. Source it after lib.sh:
#
#   . "$(dirname "$0")/lib.sh"
#   . "$(dirname "$0")/dbus-lib.sh"
#   dbus_start
#
# dbus_start runs a dbus-daemon configured like the system bus (scripts/private-bus.sh, shared
# with the demo: deny by default, method calls only where a policy file punches a hole,
# igmpd's shipped policy file data/dbus/org.igmpd1.conf included; here also root may monitor
# and own the fake polkit's name), listening on a unix socket in $T_TMP, and exports
# DBUS_SYSTEM_BUS_ADDRESS so igmpd, igmpctl and busctl all use it. The bus runs in the host
# network namespace: its socket is a filesystem path, reachable from any namespace. The daemon
# is stopped by lib.sh's cleanup with everything else.

# shellcheck source=../../scripts/private-bus.sh
. "$SRCDIR/scripts/private-bus.sh"

T_BUS_DIR=""
T_DBUS_PID=""
NOBODY_UID=$(id -u nobody 2>/dev/null || echo 65534)
NOBODY_GID=$(getent group nogroup 2>/dev/null | cut -d: -f3)
NOBODY_GID=${NOBODY_GID:-65534}

# Picks the socket path and exports DBUS_SYSTEM_BUS_ADDRESS without starting the bus (for
# tests that start igmpd first). dbus_start calls it too.
dbus_prepare() {
        command -v dbus-daemon >/dev/null || skip "dbus-daemon is not installed"
        command -v busctl >/dev/null || skip "busctl is not installed"

        T_BUS_DIR=$T_TMP/bus
        mkdir -p "$T_BUS_DIR"
        # Unprivileged callers must reach the socket: the path must be searchable.
        chmod 711 "$T_TMP"
        chmod 755 "$T_BUS_DIR"
        export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$T_BUS_DIR/system_bus_socket"
}

dbus_start() {
        dbus_prepare

        private_bus_config "$T_BUS_DIR/system_bus_socket" '
  <policy user="root">
    <!-- Monitoring (busctl monitor) as root, as on the real system bus. -->
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Monitoring"/>
    <!-- Stands in for polkit'"'"'s own policy file, for tests that run a fake polkit. -->
    <allow own="org.freedesktop.PolicyKit1"/>
  </policy>
  <policy context="default">
    <allow send_destination="org.freedesktop.PolicyKit1"/>
  </policy>' > "$T_BUS_DIR/system.conf"
        rm -f "$T_BUS_DIR/system_bus_socket"
        dbus-daemon --config-file="$T_BUS_DIR/system.conf" --nofork --nopidfile --nosyslog \
                >> "$T_TMP/dbus-daemon.log" 2>&1 &
        T_DBUS_PID=$!
        _T_PIDS+=("$T_DBUS_PID")
        WAIT_SECS=10 wait_until "[ -S '$T_BUS_DIR/system_bus_socket' ]" ||
                fail "private dbus-daemon did not start: $(cat "$T_TMP/dbus-daemon.log")"
        info "private system bus at $DBUS_SYSTEM_BUS_ADDRESS"
}

dbus_stop() {
        [ -n "$T_DBUS_PID" ] || return 0
        kill -TERM "$T_DBUS_PID" 2>/dev/null || true
        wait "$T_DBUS_PID" 2>/dev/null || true
        T_DBUS_PID=""
        rm -f "$T_BUS_DIR/system_bus_socket"
}

# Whether a name has an owner on the private bus.
bus_has_owner() {
        [ "$(busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
                NameHasOwner s "$1" 2>/dev/null)" = "b true" ]
}

# Waits until igmpd owns org.igmpd1.
igmpd_wait_bus() {
        WAIT_SECS=${1:-10} wait_until "bus_has_owner org.igmpd1" || fail "igmpd did not take org.igmpd1 on the bus"
}

# Runs a command as nobody:nogroup without supplementary groups (environment kept).
# fd 8 (hostwide_lock) is not passed on: a process of nobody's that outlives a killed test must
# not hold the host-wide lock, and every later test with it.
as_nobody() {
        setpriv --reuid "$NOBODY_UID" --regid "$NOBODY_GID" --clear-groups -- "$@" 8>&-
}

# busctl against igmpd: bctl call|get-property|… ARGS (object paths and interfaces spelled out).
bctl() {
        busctl --system "$@"
}

# Object path of a link's D-Bus object, from its ifindex (sd_bus_path_encode of the decimal).
# Only the leading digit is escaped: 3 → _33, 12 → _312.
link_path() {
        local idx=$1
        echo "/org/igmpd1/link/$(printf '_%02x' "'${idx:0:1}")${idx:1}"
}

# ifindex of IF inside NS.
ifindex_of() {
        in_ns "$1" cat "/sys/class/net/$2/ifindex"
}

# expect_fail REGEX CMD…: CMD must fail and its output (stdout+stderr) match REGEX (grep -E).
expect_fail() {
        local pat=$1 out rc=0
        shift
        out=$("$@" 2>&1) || rc=$?
        [ "$rc" -ne 0 ] || fail "expected failure, but it succeeded: $* → $out"
        grep -qE -- "$pat" <<< "$out" || fail "'$*' failed with '$out', expected /$pat/"
        T_LAST_RC=$rc
}

# expect_out REGEX CMD…: CMD must succeed and its stdout match REGEX (grep -E).
expect_out() {
        local pat=$1 out
        shift
        out=$("$@") || fail "failed: $*"
        grep -qE -- "$pat" <<< "$out" || fail "'$*' printed '$out', expected /$pat/"
}

# expect_dbus_error ERROR-NAME dbus-send-args…: a call through dbus-send (which shows the error
# name, unlike busctl) must fail with that D-Bus error.
expect_dbus_error() {
        local name=$1
        shift
        expect_fail "^Error $name" dbus-send --system --print-reply --dest=org.igmpd1 "$@"
}

need_jq() {
        command -v jq >/dev/null || skip "jq is not installed (needed to check JSON output)"
}

# jq_true FILE FILTER: the JSON in FILE satisfies FILTER (jq -e).
jq_true() {
        jq -e "$2" "$1" > /dev/null || fail "JSON check '$2' failed on $(head -c 2000 "$1")"
}

# The daemon still answers on the bus.
igmpd_alive() {
        kill -0 "$T_IGMPD_PID" 2>/dev/null || fail "igmpd died"
        busctl --system call org.igmpd1 /org/igmpd1 org.igmpd1.Manager ListLinks > /dev/null ||
                fail "igmpd does not answer on the bus"
}
