#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds (once) a root for the tests that need more than the minimal one: the cached Debian 12
# root of build-rootfs.sh plus PACKAGE… (without recommends), and prints its path. Cached beside
# it as rootfs-bookworm-NAME; rebuilt when the base root or the package list changed. Exit 77
# when it cannot be built for lack of debootstrap, systemd-nspawn or a reachable mirror, 1 on
# any other failure.
#
#   build-rootfs-extra.sh nm network-manager   -> /var/cache/igmpd-tests/rootfs-bookworm-nm
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${IGMPD_ROOTFS_CACHE:-/var/cache/igmpd-tests}
[ $# -ge 2 ] || { echo "usage: $0 NAME PACKAGE…" >&2; exit 1; }
NAME=$1
shift
PACKAGES="$*"

rc=0
BASE=$("$HERE/build-rootfs.sh") || rc=$?
[ $rc -eq 0 ] || exit $rc
ROOT=$BASE-$NAME
STAMP="$(cat "$BASE/.igmpd-rootfs") + $PACKAGES v1"

fresh() { [ -f "$ROOT/.igmpd-rootfs" ] && [ "$(cat "$ROOT/.igmpd-rootfs")" = "$STAMP" ]; }
if fresh; then
        echo "$ROOT"
        exit 0
fi
# Runs may start side by side: one builds, the others wait for it and reuse its result.
exec 8> "$ROOT.lock"
flock 8
if fresh; then
        echo "$ROOT"
        exit 0
fi
command -v systemd-nspawn >/dev/null || { echo "systemd-nspawn is not installed" >&2; exit 77; }

tmp=$ROOT.tmp.$$
trap 'rm -rf "$tmp"' EXIT
echo "Adding $PACKAGES to a copy of $BASE (once; takes a minute or two)…" >&2
cp -a "$BASE" "$tmp"
# apt inside the root, with the host's network (no --private-network) and resolver.
if ! systemd-nspawn --quiet --register=no --keep-unit -D "$tmp" --resolv-conf=copy-host \
        --setenv=DEBIAN_FRONTEND=noninteractive \
        sh -c "apt-get update -q && apt-get install -y -q --no-install-recommends $PACKAGES" \
        > "$CACHE/apt-$NAME.log" 2>&1; then
        tail -n 20 "$CACHE/apt-$NAME.log" >&2
        if grep -qiE "Temporary failure|Could not resolve|Connection (refused|timed out)|Unable to fetch|Network is unreachable" "$CACHE/apt-$NAME.log"; then
                echo "cannot reach the Debian mirror" >&2
                exit 77
        fi
        echo "installing $PACKAGES failed (log: $CACHE/apt-$NAME.log)" >&2
        exit 1
fi
rm -rf "$tmp"/var/cache/apt/archives/*.deb "$tmp"/var/lib/apt/lists/*
echo "$STAMP" > "$tmp/.igmpd-rootfs"
rm -rf "$ROOT"
mv "$tmp" "$ROOT"
trap - EXIT
echo "$ROOT"
