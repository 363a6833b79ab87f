#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs what is missing (Debian 12, as root) and builds igmpd into build/ (or $BUILD_DIR).
# Idempotent and quick when everything is already there. Run by demo.sh and test.sh:
#   setup.sh [LIST...]   the package lists scripts/packages-LIST.txt to install (default: demo;
#                        test.sh asks for "demo test")
set -euo pipefail

SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$SRCDIR/build}
[ "$#" -gt 0 ] || set -- demo

missing=()
for list in "$@"; do
        [ -f "$SRCDIR/scripts/packages-$list.txt" ] || { echo "setup.sh: no package list scripts/packages-$list.txt" >&2; exit 2; }
        while read -r pkg; do
                case "$pkg" in ''|'#'*) continue ;; esac
                dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
        done < "$SRCDIR/scripts/packages-$list.txt"
done

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
