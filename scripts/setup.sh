#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs what is missing (Debian 12, as root) and builds igmpd into build/ (or $BUILD_DIR).
# Idempotent and quick when everything is already there. Sourced or run by demo.sh and test.sh.
set -euo pipefail

SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$SRCDIR/build}

missing=()
while read -r pkg; do
        case "$pkg" in ''|'#'*) continue ;; esac
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done < "$SRCDIR/scripts/packages.txt"

if [ ${#missing[@]} -gt 0 ]; then
        if [ "$(id -u)" != 0 ]; then
                echo "Missing packages: ${missing[*]}; run this as root (or: sudo apt-get install ${missing[*]})." >&2
                exit 1
        fi
        echo "Installing: ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -f "$BUILD_DIR/build.ninja" ]; then
        meson setup "$BUILD_DIR" "$SRCDIR" ${MESON_ARGS:-} >/dev/null
fi
ninja -C "$BUILD_DIR" >/dev/null
