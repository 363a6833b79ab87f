#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# igmpd with the real NetworkManager under a booted systemd. Builds (once, cached) the minimal
# Debian 12 root plus network-manager (build-rootfs-nm.sh), lays an overlay over it, installs
# igmpd into it with `meson install --destdir`, and boots it with systemd-nspawn in its own
# network namespace. In there a oneshot unit runs nm-selftest.sh: igmpd.service and
# NetworkManager.service on the container's system bus, a veth profile created over D-Bus with
# another program's user data, given igmpd.igmpv3_unsolicited_report_interval=200ms by
# `igmpctl nm`, activated with nmcli; the knob is checked in /proc/sys, the source in `igmpctl
# status`, then runtime precedence, `igmpctl nm --reapply` (NetworkManager's applied
# connection), a plain save, --runtime, --clear, a stored secret, unknown and ambiguous names,
# a refused non-root edit, deactivation, a NetworkManager restart and NetworkManager stopped.
# One PASS/FAIL/SKIP line per check.
# Exit 77 (skip) when this machine cannot boot a container or cannot build the root.
set -euo pipefail

T_NAME=nm-real

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
command -v meson >/dev/null || skip "meson is not installed"

T_TMP=$(mktemp -d /tmp/igmpd-nspawn-nm.XXXXXX)
ROOT=$T_TMP/root
trap nspawn_cleanup EXIT
trap 'exit 130' INT TERM

# 1. The cached Debian root.
rc=0
LOWER=$("$HERE/build-rootfs-nm.sh") || rc=$?
[ $rc -eq 77 ] && skip "cannot build the Debian root with NetworkManager (no debootstrap, nspawn or mirror)"
[ $rc -eq 0 ] || fail "building the Debian root failed"

# 2. A build of igmpd as a distribution would configure it.
nspawn_usr_build

# 3. A throwaway root: overlay on the cached one (a full copy where overlayfs is unavailable).
nspawn_overlay "$LOWER" "$ROOT"
DESTDIR=$ROOT meson install -C "$USRBUILD" --no-rebuild --quiet > "$T_TMP/install.log" 2>&1 ||
        { tail -n 30 "$T_TMP/install.log" >&2; fail "meson install --destdir failed"; }
for f in usr/sbin/igmpd lib/systemd/system/igmpd.service usr/lib/sysusers.d/igmpd.conf \
         usr/lib/tmpfiles.d/igmpd.conf etc/igmpd/conf.d etc/igmpd/runtime.d \
         usr/share/doc/igmpd/examples/10-site.conf; do
        [ -e "$ROOT/$f" ] || fail "meson install did not install /$f"
done
info "installed: $(cd "$ROOT" && ls -d usr/sbin/igmpd usr/bin/igmpctl lib/systemd/system/igmpd.service \
        usr/share/dbus-1/system.d/org.igmpd1.conf usr/share/dbus-1/system-services/org.igmpd1.service \
        usr/share/polkit-1/actions/org.igmpd1.policy 2>/dev/null | tr '\n' ' ')"

# The self-test and the unit that runs it once the system is up, then powers off.
mkdir -p "$ROOT/igmpd-test"
install -m 0755 "$HERE/nm-selftest.sh" "$ROOT/igmpd-test/nm-selftest.sh"
cat > "$ROOT/etc/systemd/system/igmpd-nm-selftest.service" <<'UNIT'
[Unit]
Description=igmpd with NetworkManager, self-test under a booted systemd
After=multi-user.target dbus.service NetworkManager.service
Wants=dbus.service NetworkManager.service
# [Unit] options: in [Service] systemd ignores them and the container never powers off.
SuccessAction=poweroff
FailureAction=poweroff

[Service]
Type=oneshot
ExecStart=/igmpd-test/nm-selftest.sh
StandardOutput=append:/igmpd-test/selftest.log
StandardError=append:/igmpd-test/selftest.log
TimeoutStartSec=300

[Install]
WantedBy=multi-user.target
UNIT
ln -sf /etc/systemd/system/igmpd-nm-selftest.service \
        "$ROOT/etc/systemd/system/multi-user.target.wants/igmpd-nm-selftest.service"

# 4. Boot. --register=no --keep-unit: PID 1 of this machine is not systemd, so nspawn must not
# ask it for a scope or a machine registration.
info "booting the container"
start=$(date +%s)
timeout --kill-after=10 "$BOOT_TIMEOUT" systemd-nspawn --quiet -b --register=no --keep-unit \
        --private-network -M "igmpd-nspawn-nm-$$" -D "$ROOT" --console=pipe \
        < /dev/null > "$T_TMP/console.log" 2>&1 &
NSPAWN_PID=$!
rc=0
wait "$NSPAWN_PID" || rc=$?
NSPAWN_PID=""
info "container ran $(( $(date +%s) - start )) s, nspawn exit $rc"

if [ ! -f "$ROOT/igmpd-test/results" ]; then
        tail -n 40 "$T_TMP/console.log" >&2
        if grep -qiE "Failed to (mount|create|allocate|set up|move).*(cgroup|namespace)|Operation not permitted" "$T_TMP/console.log" &&
           ! grep -q "Welcome to" "$T_TMP/console.log"; then
                skip "systemd-nspawn cannot boot a container on this machine (see above)"
        fi
        [ -f "$ROOT/igmpd-test/selftest.log" ] && tail -n 40 "$ROOT/igmpd-test/selftest.log" >&2
        fail "the self-test never ran (nspawn exit $rc)"
fi

cat "$ROOT/igmpd-test/results"
n_pass=$(grep -c '^PASS' "$ROOT/igmpd-test/results" || true)
n_fail=$(grep -c '^FAIL' "$ROOT/igmpd-test/results" || true)
n_skip=$(grep -c '^SKIP' "$ROOT/igmpd-test/results" || true)
info "checks: $n_pass passed, $n_fail failed, $n_skip skipped"
if [ "$n_fail" -gt 0 ] || ! grep -q '^DONE' "$ROOT/igmpd-test/results"; then
        echo "---- selftest.log ----" >&2
        tail -n 80 "$ROOT/igmpd-test/selftest.log" >&2
        [ -f "$ROOT/igmpd-test/journal.txt" ] && { echo "---- igmpd journal ----" >&2; grep -E "igmpd|dbus" "$ROOT/igmpd-test/journal.txt" | tail -n 60 >&2; }
        fail "$n_fail check(s) failed under the booted systemd"
fi
[ "$n_pass" -gt 0 ] || fail "no check ran"
echo "PASS: $T_NAME"
