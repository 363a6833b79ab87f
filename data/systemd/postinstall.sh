#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Run by `meson install` with the installed sysusers.d and tmpfiles.d files as arguments. On the
# live system (no DESTDIR) it does what a package's postinst would: creates the igmpd user,
# gives it /etc/igmpd/runtime.d, rebuilds the journal's message catalog (journalctl -x), and has dbus-daemon re-read its policy — which it loaded when
# the policy file appeared, before the user existed, so igmpd could not own org.igmpd1. With
# DESTDIR, the target system's own boot does the first two and dbus-daemon starts after them.
set -e
if [ -n "${DESTDIR:-}" ]; then
        exit 0
fi
if command -v systemd-sysusers >/dev/null 2>&1; then
        systemd-sysusers "$1" || echo "igmpd: could not create the igmpd user (run systemd-sysusers as root)" >&2
fi
if command -v systemd-tmpfiles >/dev/null 2>&1; then
        systemd-tmpfiles --create "$2" || echo "igmpd: could not set up /etc/igmpd/runtime.d (run systemd-tmpfiles --create as root)" >&2
fi
if command -v journalctl >/dev/null 2>&1; then
        journalctl --update-catalog ||
                echo "igmpd: could not update the journal's message catalog (run journalctl --update-catalog as root)" >&2
fi
if [ -S /run/dbus/system_bus_socket ] && command -v busctl >/dev/null 2>&1; then
        busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig >/dev/null 2>&1 ||
                echo "igmpd: could not reload the D-Bus configuration (run: systemctl reload dbus)" >&2
fi
exit 0
