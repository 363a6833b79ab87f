#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds igmpd for arm64 and armhf on this Debian 12 machine, installing what that needs first
# (idempotent: quick when everything is there). Each target gets its own build directory,
# configured with -Dwerror=true like CI:
#
#   scripts/cross-build.sh [--test] [--deb] [--no-install] [arm64|armhf|all]   (default: all)
#
#   arm64  cross/aarch64-linux-gnu.ini into build-arm64/: Debian's cross toolchain
#          (crossbuild-essential-arm64) and the arm64 -dev packages installed beside the native
#          ones (dpkg --add-architecture arm64; scripts/packages-cross-arm64.txt). BPF: the
#          drift watch (meson.build says why not the audit programs).
#   armhf  cross/arm-linux-gnueabihf.ini into build-armhf/: gcc-arm-linux-gnueabihf and a
#          sysroot of Debian armhf packages (scripts/packages-cross-armhf.txt, unpacked into
#          /var/cache/igmpd-cross/armhf/sysroot with apt's state kept apart from this machine's;
#          the cross file says why). No BPF.
#   --test        then run each target's unit tests and its smoke test (tests/cross) under
#                 qemu-user: meson test --suite unit --suite cross
#   --deb         arm64: then also the Debian package, scripts/deb.sh --arch arm64 (lintian
#                 errors fail), into build-deb-arm64/ (PREFIXdeb-arm64)
#   --no-install  install nothing; fail if something is missing
#
# Environment: CROSS_BUILD_PREFIX (default: SRCDIR/build-) names the build directories
# (PREFIXarm64, PREFIXarmhf); MESON_ARGS is added to meson setup; MESON_TEST_ARGS to meson test.
# Exit 0 when every build (and with --test every test, with --deb the package) succeeded.
set -euo pipefail

SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PREFIX=${CROSS_BUILD_PREFIX:-$SRCDIR/build-}
ARMHF_ROOT=/var/cache/igmpd-cross/armhf   # the sysroot path is also in cross/arm-linux-gnueabihf.ini
run_tests=""
build_deb=""
install=yes
targets=()

die() { echo "cross-build.sh: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
        case "$1" in
        --test) run_tests=yes ;;
        --deb) build_deb=yes ;;
        --no-install) install="" ;;
        arm64|armhf) targets+=("$1") ;;
        all) targets+=(arm64 armhf) ;;
        -h|--help) sed -n '3,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument '$1' (see scripts/cross-build.sh --help)" ;;
        esac
        shift
done
[ ${#targets[@]} -gt 0 ] || targets=(arm64 armhf)

# The packages of a list (comments and blank lines left out), each with SUFFIX appended.
list() {
        local name=$1 suffix=${2:-}
        sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' -e "s/\$/$suffix/" "$SRCDIR/scripts/packages-$name.txt"
}

installed() {
        dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

apt_install() {
        export DEBIAN_FRONTEND=noninteractive
        # Another engineer's apt may hold the lock: wait for it rather than fail.
        apt-get -o DPkg::Lock::Timeout=600 update -qq || echo "cross-build.sh: apt-get update reported errors; trying with the lists it has" >&2
        # Never let a foreign-architecture package push a native one out (libcriterion-dev:arm64
        # would remove the native Criterion): refuse any plan that removes something.
        local removed
        removed=$(apt-get -s -o DPkg::Lock::Timeout=600 install --no-install-recommends "$@" 2>&1 | sed -n 's/^Remv \([^ ]*\).*/\1/p')
        [ -z "$removed" ] || die "installing $* would remove ${removed//$'\n'/ }; not doing that"
        apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "$@" > /dev/null
}

install_packages() {
        local missing=() pkg
        for pkg in $(list cross); do
                installed "$pkg" || missing+=("$pkg")
        done
        if [[ " ${targets[*]} " == *" arm64 "* ]]; then
                if ! dpkg --print-foreign-architectures | grep -qx arm64; then
                        [ -n "$install" ] || die "arm64 is not a dpkg architecture here (dpkg --add-architecture arm64)"
                        echo "Adding the dpkg architecture arm64"
                        dpkg --add-architecture arm64
                fi
                for pkg in $(list cross-arm64 :arm64); do
                        installed "$pkg" || missing+=("$pkg")
                done
        fi
        [ ${#missing[@]} -gt 0 ] || return 0
        [ -n "$install" ] || die "missing packages: ${missing[*]} (run without --no-install, as root)"
        [ "$(id -u)" = 0 ] || die "missing packages: ${missing[*]}; run this as root"
        echo "Installing: ${missing[*]}"
        apt_install "${missing[@]}"
}

# The armhf sysroot: the packages of packages-cross-armhf.txt and everything they depend on,
# as apt resolves it for an armhf system that has nothing installed, unpacked (not installed:
# no maintainer script runs). Remade when the list changes. apt runs with its own lists, cache
# and (empty) status under ARMHF_ROOT/apt, and this machine's sources: the bookworm-security
# armhf index that does not match its Release file only costs that suite (apt drops it and
# keeps the others).
make_armhf_sysroot() {
        local want have apt_opts
        want=$(list cross-armhf | sha256sum | cut -d' ' -f1)
        have=$(cat "$ARMHF_ROOT/sysroot/.igmpd-packages" 2>/dev/null || true)
        [ "$want" != "$have" ] || return 0
        [ -n "$install" ] || die "the armhf sysroot $ARMHF_ROOT/sysroot is missing or out of date"
        [ "$(id -u)" = 0 ] || die "the armhf sysroot $ARMHF_ROOT/sysroot is missing or out of date; run this as root"
        echo "Making the armhf sysroot in $ARMHF_ROOT/sysroot"
        apt_opts=(-o APT::Architecture=armhf -o APT::Architectures=armhf
                  -o Dir::State="$ARMHF_ROOT/apt/state" -o Dir::State::status="$ARMHF_ROOT/apt/status"
                  -o Dir::Cache="$ARMHF_ROOT/apt/cache" -o Debug::NoLocking=1 -o Acquire::Languages=none)
        rm -rf "$ARMHF_ROOT/apt" "$ARMHF_ROOT/sysroot.new"
        mkdir -p "$ARMHF_ROOT/apt/state/lists/partial" "$ARMHF_ROOT/apt/cache/archives/partial" "$ARMHF_ROOT/sysroot.new"
        : > "$ARMHF_ROOT/apt/status"
        apt-get "${apt_opts[@]}" update -qq 2>&1 | grep -v '^ ' | grep -E '^(E|W):' >&2 || true
        # shellcheck disable=SC2046 # one package a word
        apt-get "${apt_opts[@]}" install -y -qq --download-only --no-install-recommends $(list cross-armhf) > /dev/null ||
                die "cannot download the armhf packages for the sysroot"
        for deb in "$ARMHF_ROOT"/apt/cache/archives/*.deb; do
                dpkg-deb -x "$deb" "$ARMHF_ROOT/sysroot.new"
        done
        echo "$want" > "$ARMHF_ROOT/sysroot.new/.igmpd-packages"
        rm -rf "$ARMHF_ROOT/sysroot" "$ARMHF_ROOT/apt/cache/archives"
        mv "$ARMHF_ROOT/sysroot.new" "$ARMHF_ROOT/sysroot"
}

mkdir -p "$(dirname "$ARMHF_ROOT")"
# Two runs at once (two checkouts' CI) would race on dpkg's architecture list and the sysroot.
exec 9> "$(dirname "$ARMHF_ROOT")/.lock"
flock 9
install_packages
[[ " ${targets[*]} " != *" armhf "* ]] || make_armhf_sysroot
flock -u 9

rc=0
declare -A cross_file=([arm64]=aarch64-linux-gnu.ini [armhf]=arm-linux-gnueabihf.ini)
for t in "${targets[@]}"; do
        dir=$PREFIX$t
        echo "== $t: $dir"
        if [ ! -f "$dir/build.ninja" ]; then
                # shellcheck disable=SC2086 # MESON_ARGS is a list of options
                out=$(meson setup "$dir" "$SRCDIR" --cross-file "$SRCDIR/cross/${cross_file[$t]}" -Dwerror=true ${MESON_ARGS:-} 2>&1) ||
                        { echo "$out" >&2; die "meson setup for $t failed"; }
        fi
        ninja -C "$dir" > /dev/null || { ninja -C "$dir" >&2 || true; die "the $t build failed"; }
        file -b "$dir/src/daemon/igmpd" | cut -d, -f1-2 | sed "s|^|$t: igmpd: |"
        if [ -n "$run_tests" ]; then
                # shellcheck disable=SC2086
                meson test -C "$dir" --no-rebuild --print-errorlogs --suite unit --suite cross ${MESON_TEST_ARGS:-} || rc=1
        fi
done
if [ -n "$build_deb" ]; then
        if [[ " ${targets[*]} " == *" arm64 "* ]]; then
                "$SRCDIR/scripts/deb.sh" --arch arm64 --outdir "${PREFIX}deb-arm64" || rc=1
        else
                echo "--deb builds the arm64 package: add arm64 to the targets" >&2
        fi
fi
exit $rc
