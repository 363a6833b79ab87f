#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds (once) the root for the package, remote and Ansible tests and prints its path: the
# cached minimal Debian 12 root plus openssh-server (igmpctl -H, Ansible's transport), python3
# and python3-apt (Ansible's modules on the managed host). Everything else the igmpd package
# needs (systemd, dbus, polkitd, libsystemd0) is already in the minimal root, so
# `apt install ./igmpd_*.deb` works offline in it. See build-rootfs-extra.sh.
exec "$(dirname "$0")/build-rootfs-extra.sh" pkg openssh-server python3 python3-apt
