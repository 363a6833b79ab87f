# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/helpers/fake-nm.py on the private bus, for the NetworkManager tests. Source it after
# lib.sh and dbus-lib.sh, then call nm_bus_policy once after dbus_start:
#
#   nm_bus_policy      lets root own org.freedesktop.NetworkManager on the private bus
#   nm_start, nm_stop  start and stop the stand-in (waits for its name to come and go)
#   nmctl METHOD SIG ARGS…   drives it (org.igmpd.FakeNM); prints a returned object path

# Debian's python3-dbus and python3-gi live in the system interpreter, not in a pyenv or venv one.
PYTHON=${PYTHON:-/usr/bin/python3}
[ -x "$PYTHON" ] || PYTHON=$(command -v python3) || skip "python3 is not installed (needed for the NetworkManager stand-in)"
"$PYTHON" -c 'import dbus, dbus.mainloop.glib, gi.repository.GLib' 2>/dev/null ||
        skip "python3-dbus and python3-gi are needed for the NetworkManager stand-in"
FAKE_NM=$SRCDIR/tests/helpers/fake-nm.py

# The private bus lets root own only the names its config lists: add NetworkManager's, the way
# NetworkManager's own policy file does on a real system, and reload the bus configuration.
nm_bus_policy() {
        cat > "$T_BUS_DIR/nm-policy.conf" <<'EOC'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <policy user="root">
    <allow own="org.freedesktop.NetworkManager"/>
  </policy>
  <policy context="default">
    <allow send_destination="org.freedesktop.NetworkManager"/>
  </policy>
</busconfig>
EOC
        sed -i "s|</busconfig>\$|  <include>$T_BUS_DIR/nm-policy.conf</include>\n</busconfig>|" "$T_BUS_DIR/system.conf"
        # Only the last </busconfig> (the main file's) is at the start of a line.
        grep -q "nm-policy.conf" "$T_BUS_DIR/system.conf" || fail "could not add the NetworkManager bus policy"
        busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig >/dev/null ||
                fail "the private bus did not reload its configuration"
}

T_NM_PID=""
nm_start() {
        "$PYTHON" "$FAKE_NM" >> "$T_TMP/fake-nm.log" 2>&1 &
        T_NM_PID=$!
        _T_PIDS+=("$T_NM_PID")
        WAIT_SECS=10 wait_until "bus_has_owner org.freedesktop.NetworkManager" ||
                fail "the NetworkManager stand-in did not start: $(tail -5 "$T_TMP/fake-nm.log")"
}

nm_stop() {
        kill -TERM "$T_NM_PID"
        wait "$T_NM_PID" 2>/dev/null || true
        WAIT_SECS=10 wait_until "! bus_has_owner org.freedesktop.NetworkManager" || fail "stand-in did not stop"
}

# nmctl METHOD SIGNATURE ARGS…: drives the stand-in; prints the returned object path, if any.
nmctl() {
        local out
        out=$(busctl --system call org.freedesktop.NetworkManager /org/igmpd/FakeNM org.igmpd.FakeNM "$@") ||
                fail "stand-in call $1 failed"
        [ -z "$out" ] || awk '{ gsub(/"/, "", $2); print $2 }' <<< "$out"
}
