#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The Debian package in a booted Debian 12 container. Builds (once per tree content) the package
# and a newer build of it with scripts/deb.sh (lintian errors fail the test), lays an overlay
# over the cached root of build-rootfs-pkg.sh (which already holds every dependency: apt works
# offline), and boots it with systemd-nspawn in its own network namespace. In there a oneshot
# unit runs deb-selftest.sh: apt install → service enabled and active, bus name owned, policy
# on a hot-plugged veth, igmpctl over the real bus; apt install of the newer build → restarted,
# runtime overrides still in force; apt remove → stopped, knobs back to their pre-igmpd values;
# apt purge → no unit, bus policy or state left, the admin's policy file kept.
# Exit 77 (skip) when this machine cannot boot a container, build the root or the package.
set -euo pipefail

T_NAME=deb
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILDDIR=${BUILDDIR:-$SRCDIR/build}
HERE=$SRCDIR/tests/nspawn
BOOT_TIMEOUT=${IGMPD_NSPAWN_TIMEOUT:-300}

skip() { echo "SKIP: $T_NAME: $*"; exit 77; }
fail() { echo "FAIL: $T_NAME: $*" >&2; exit 1; }
info() { echo "# $*"; }
. "$HERE/nspawn-lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root (debootstrap, overlay mounts, systemd-nspawn)"
command -v systemd-nspawn >/dev/null || skip "systemd-nspawn is not installed (package systemd-container)"

T_TMP=$(mktemp -d /tmp/igmpd-nspawn-deb.XXXXXX)
ROOT=$T_TMP/root
trap nspawn_cleanup EXIT
trap 'exit 130' INT TERM
start=$(date +%s)

# 1. The cached Debian root with openssh-server and python3 (the remote and Ansible tests share it).
rc=0
LOWER=$("$HERE/build-rootfs-pkg.sh") || rc=$?
[ $rc -eq 77 ] && skip "cannot build the Debian root (no debootstrap, nspawn or mirror)"
[ $rc -eq 0 ] || fail "building the Debian root failed"

# 2. The packages (cached per tree content: the other package tests reuse them).
nspawn_debs
info "packages: $(basename "$DEB") $(basename "$DEB_NEXT") ($(( $(date +%s) - start )) s so far)"

# 3. A throwaway root with the packages and the self-test.
nspawn_overlay "$LOWER" "$ROOT"
mkdir -p "$ROOT/igmpd-test"
cp "$DEB" "$ROOT/igmpd-test/"
cp "$DEB_NEXT" "$ROOT/igmpd-test/"
install -m 0755 "$HERE/deb-selftest.sh" "$ROOT/igmpd-test/deb-selftest.sh"
cat > "$ROOT/etc/systemd/system/igmpd-deb-selftest.service" <<'UNIT'
[Unit]
Description=igmpd Debian package self-test under a booted systemd
After=multi-user.target dbus.service
Wants=dbus.service

[Service]
Type=oneshot
Environment=DEBIAN_FRONTEND=noninteractive
ExecStart=/igmpd-test/deb-selftest.sh
StandardOutput=append:/igmpd-test/selftest.log
StandardError=append:/igmpd-test/selftest.log
TimeoutStartSec=300
ExecStopPost=/bin/systemctl poweroff --no-block

[Install]
WantedBy=multi-user.target
UNIT
ln -sf /etc/systemd/system/igmpd-deb-selftest.service \
        "$ROOT/etc/systemd/system/multi-user.target.wants/igmpd-deb-selftest.service"

# 4. Boot (--register=no --keep-unit: PID 1 of this machine is not systemd).
if ! timeout 60 systemd-nspawn --quiet --register=no --keep-unit --private-network -D "$ROOT" \
        /bin/true < /dev/null > "$T_TMP/probe.log" 2>&1; then
        cat "$T_TMP/probe.log"
        skip "systemd-nspawn cannot run a container on this machine: $(tail -n 1 "$T_TMP/probe.log")"
fi
info "booting the container"
boot=$(date +%s)
timeout --kill-after=10 "$BOOT_TIMEOUT" systemd-nspawn --quiet -b --register=no --keep-unit \
        --private-network -M "igmpd-deb-$$" -D "$ROOT" --console=pipe \
        < /dev/null > "$T_TMP/console.log" 2>&1 &
NSPAWN_PID=$!
rc=0
wait "$NSPAWN_PID" || rc=$?
NSPAWN_PID=""
info "container ran $(( $(date +%s) - boot )) s, nspawn exit $rc; $(( $(date +%s) - start )) s in all"

R=$ROOT/igmpd-test/results
if [ ! -f "$R" ]; then
        tail -n 40 "$T_TMP/console.log" >&2
        [ -f "$ROOT/igmpd-test/selftest.log" ] && tail -n 40 "$ROOT/igmpd-test/selftest.log" >&2
        fail "the self-test never ran (nspawn exit $rc)"
fi
grep -aE '^(\+ apt|igmpd:|Setting up|Removing|Purging|dpkg: warning|version|igmpctl)' \
        "$ROOT/igmpd-test/selftest.log" | sed 's/^/# /'
cat "$R"
n_pass=$(grep -c '^PASS' "$R" || true)
n_fail=$(grep -c '^FAIL' "$R" || true)
info "checks: $n_pass passed, $n_fail failed"
if [ "$n_fail" -gt 0 ] || ! grep -q '^DONE' "$R"; then
        echo "---- selftest.log ----" >&2
        tail -n 100 "$ROOT/igmpd-test/selftest.log" >&2
        [ -f "$ROOT/igmpd-test/journal.txt" ] &&
                { echo "---- journal ----" >&2; grep -E "igmpd|dbus" "$ROOT/igmpd-test/journal.txt" | tail -n 60 >&2; }
        fail "$n_fail check(s) failed"
fi
[ "$n_pass" -gt 0 ] || fail "no check ran"
echo "PASS: $T_NAME"
