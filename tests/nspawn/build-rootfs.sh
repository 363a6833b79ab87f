#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds (once) the minimal Debian 12 root that the booted-systemd tests run in, and prints its
# path. Cached in $IGMPD_ROOTFS_CACHE (default /var/cache/igmpd-tests): rebuilt only when it is
# missing or the package list below changed. Exit 77 when it cannot be built for lack of
# debootstrap or of a reachable mirror, 1 on any other failure.
#
#   build-rootfs.sh            -> prints /var/cache/igmpd-tests/rootfs-bookworm
set -euo pipefail

CACHE=${IGMPD_ROOTFS_CACHE:-/var/cache/igmpd-tests}
SUITE=bookworm
ROOT=$CACHE/rootfs-$SUITE
# What igmpd and the test need at run time, besides minbase (bash, coreutils, grep, sed…);
# polkitd (with libpam-systemd, its logind provider, which debootstrap does not pick itself) so
# that igmpctl calls from a non-root user go through real polkit.
PACKAGES=systemd,systemd-sysv,dbus,polkitd,libpam-systemd,iproute2,libsystemd0
STAMP="$SUITE $PACKAGES v1"

fresh() { [ -f "$ROOT/.igmpd-rootfs" ] && [ "$(cat "$ROOT/.igmpd-rootfs")" = "$STAMP" ]; }
if fresh; then
        echo "$ROOT"
        exit 0
fi

# Test runs may start side by side: one builds, the others wait for it and reuse its result.
mkdir -p "$CACHE"
exec 9> "$CACHE/.rootfs-$SUITE.lock"
flock 9
if fresh; then
        echo "$ROOT"
        exit 0
fi

command -v debootstrap >/dev/null || { echo "debootstrap is not installed" >&2; exit 77; }

# The Debian mirror apt already uses (deb822 "URIs:" or one-line "deb URL suite"), so the test
# works wherever apt does.
mirror=""
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        mirror=$(sed -n -E 's,^URIs:[[:space:]]*([^[:space:]]*/debian)/?([[:space:]].*)?$,\1,p;
                           s,^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]*/debian)/?[[:space:]].*,\2,p' "$f" | head -n1)
        [ -n "$mirror" ] && break
done
mirror=${mirror:-http://deb.debian.org/debian}

tmp=$ROOT.tmp.$$
log=$CACHE/debootstrap-$SUITE.log
trap 'rm -rf "$tmp"' EXIT
echo "Building the $SUITE root in $ROOT from $mirror (once; takes a few minutes)…" >&2
if ! debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$tmp" "$mirror" > "$log" 2>&1; then
        [ -f "$tmp/debootstrap/debootstrap.log" ] && cp "$tmp/debootstrap/debootstrap.log" "$log.inner"
        grep -v '^[[:space:]]*$' "$log" | tail -n 20 >&2
        if grep -qiE "Failed getting release file|Temporary failure|Could not resolve|Connection (refused|timed out)|unable to (fetch|connect)|Network is unreachable" "$log"; then
                echo "debootstrap cannot reach $mirror" >&2
                exit 77
        fi
        echo "debootstrap failed (logs: $log, $log.inner)" >&2
        exit 1
fi
# Keep the image small and the boots quiet and quick.
rm -rf "$tmp"/var/cache/apt/archives/*.deb "$tmp"/var/lib/apt/lists/*
echo "igmpd-test" > "$tmp/etc/hostname"
# No login prompt on the console: the tests drive everything through units.
ln -sf /dev/null "$tmp/etc/systemd/system/console-getty.service"
ln -sf /dev/null "$tmp/etc/systemd/system/getty@.service"
echo "$STAMP" > "$tmp/.igmpd-rootfs"
rm -rf "$ROOT"
mv "$tmp" "$ROOT"
trap - EXIT
echo "$ROOT"
