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

# What meson's optional lookups (-Dbpf=auto: clang, bpftool, libbpf; scdoc for the man pages;
# criterion for the unit tests, …) can find now: the versions of every package the lists name,
# whether installed or not, the programs on PATH, and the options. A build dir configured before
# any of it changed (the demo's build/ before test.sh installed clang) is configured again, or
# it would stay without BPF or man pages for good: meson decides "auto" once, at setup.
features() {
        cat "$SRCDIR"/scripts/packages-*.txt | sed -e 's/#.*//' -e '/^[[:space:]]*$/d' | sort -u |
                xargs dpkg-query -W -f='${Package}=${Version} ${db:Status-Status}\n' 2>/dev/null || true
        for prog in cc clang bpftool scdoc pkg-config; do
                echo "$prog: $(command -v "$prog" || true)"
        done
        echo "options: ${MESON_ARGS:-}"
}
STAMP=$BUILD_DIR/.setup-features
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
        meson setup "$BUILD_DIR" "$SRCDIR" ${MESON_ARGS:-} >/dev/null
elif ! features | cmp -s - "$STAMP"; then
        echo "Configuring $BUILD_DIR again: the installed packages or options changed since it was set up."
        meson setup --reconfigure "$BUILD_DIR" "$SRCDIR" ${MESON_ARGS:-} >/dev/null
fi
features > "$STAMP"
ninja -C "$BUILD_DIR" >/dev/null
