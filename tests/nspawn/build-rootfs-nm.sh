#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds (once) the root for the real-NetworkManager test: the cached minimal Debian 12 root
# plus network-manager, and prints its path (see build-rootfs-extra.sh).
exec "$(dirname "$0")/build-rootfs-extra.sh" nm network-manager
