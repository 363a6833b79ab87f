#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# igmpd.service under a booted systemd. Builds (once, cached) a minimal Debian 12 root, lays an
# overlay over it, installs igmpd into it with `meson install --destdir` from a build configured
# with --prefix=/usr --sysconfdir=/etc, and boots it with systemd-nspawn in its own network
# namespace. In there a oneshot unit runs selftest.sh (enable --now, policy on a new veth,
# igmpctl over the system bus, reload, restart, D-Bus activation, watchdog, sandbox, security
# score), writes one PASS/FAIL/SKIP line per check, and powers the container off.
# Exit 77 (skip) when this machine cannot boot a container or cannot build the root.
set -euo pipefail

T_NAME=systemd-service
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

T_TMP=$(mktemp -d /tmp/igmpd-nspawn.XXXXXX)
ROOT=$T_TMP/root
trap nspawn_cleanup EXIT
trap 'exit 130' INT TERM

# 1. The cached Debian root.
rc=0
LOWER=$("$HERE/build-rootfs.sh") || rc=$?
[ $rc -eq 77 ] && skip "cannot build the Debian root (no debootstrap or no mirror reachable)"
[ $rc -eq 0 ] || fail "building the Debian root failed"

# 2. A build of igmpd as a distribution would configure it.
nspawn_usr_build

# 3. A throwaway root: overlay on the cached one (a full copy where overlayfs is unavailable).
nspawn_overlay "$LOWER" "$ROOT"
# igmpd is staged in /igmpd-test/stage and installed by the self-test on the running system
# (files first, then data/systemd/postinstall.sh, as a plain `meson install` does): the user
# does `systemctl enable --now igmpd` right after installing, without a reboot.
STAGE=$ROOT/igmpd-test/stage
DESTDIR=$STAGE meson install -C "$USRBUILD" --no-rebuild --quiet > "$T_TMP/install.log" 2>&1 ||
        { tail -n 30 "$T_TMP/install.log" >&2; fail "meson install --destdir failed"; }
for f in usr/sbin/igmpd lib/systemd/system/igmpd.service usr/lib/sysusers.d/igmpd.conf \
         usr/lib/tmpfiles.d/igmpd.conf etc/igmpd/conf.d etc/igmpd/runtime.d \
         usr/share/doc/igmpd/examples/10-site.conf usr/share/doc/igmpd/examples/50-iptv.conf; do
        [ -e "$STAGE/$f" ] || fail "meson install did not install /$f"
done
info "installed: $(cd "$STAGE" && find . ! -type d | sort | tr '\n' ' ')"
install -m 0755 "$SRCDIR/data/systemd/postinstall.sh" "$ROOT/igmpd-test/postinstall.sh"
# BPF: with IGMPD_NSPAWN_BPF=no the container lacks CAP_BPF/CAP_PERFMON (the libc audit source
# must then say it is inactive and why, and nothing else change); by default it has them.
BPF_MODE=none
if [ -e "$STAGE/usr/libexec/igmpd/igmpd-bpf" ]; then
        BPF_MODE=bpf
        [ "${IGMPD_NSPAWN_BPF:-yes}" = no ] && BPF_MODE=nobpf
        install -m 0755 "$BUILDDIR/tests/helpers/call-libc-sysctl" "$ROOT/igmpd-test/call-libc-sysctl"
elif [ "${IGMPD_NSPAWN_BPF:-yes}" = no ]; then
        skip "this build has no BPF helper (nothing to test without the capabilities)"
fi
echo "$BPF_MODE" > "$ROOT/igmpd-test/bpf-mode"
info "BPF mode: $BPF_MODE"

# The self-test and the unit that runs it once the system is up, then powers off.
install -m 0755 "$HERE/selftest.sh" "$ROOT/igmpd-test/selftest.sh"
cat > "$ROOT/etc/systemd/system/igmpd-selftest.service" <<'UNIT'
[Unit]
Description=igmpd self-test under a booted systemd
After=multi-user.target dbus.service
Wants=dbus.service

[Service]
Type=oneshot
ExecStart=/igmpd-test/selftest.sh
StandardOutput=append:/igmpd-test/selftest.log
StandardError=append:/igmpd-test/selftest.log
TimeoutStartSec=240
# (SuccessAction=poweroff does not fire for this oneshot under systemd 252 in nspawn; this does.)
ExecStopPost=/bin/systemctl poweroff --no-block

[Install]
WantedBy=multi-user.target
UNIT
ln -sf /etc/systemd/system/igmpd-selftest.service \
        "$ROOT/etc/systemd/system/multi-user.target.wants/igmpd-selftest.service"

# The container's drift watch attaches a BPF program at the cgroup2 root, which is the host's
# (the container's cgroup namespace starts there): host-wide state, under the lock the
# integration tests take for it (tests/integration/lib.sh: hostwide_lock).
exec 8> /run/lock/igmpd-tests-hostwide.lock
flock 8

# 4. Boot. --register=no --keep-unit: PID 1 of this machine is not systemd, so nspawn must not
# ask it for a scope or a machine registration. First a plain run of /bin/true: if even that
# fails, this machine cannot run containers at all (skip); a failure after it is a real one.
if ! timeout 60 systemd-nspawn --quiet --register=no --keep-unit --private-network -D "$ROOT" \
        /bin/true < /dev/null > "$T_TMP/probe.log" 2>&1; then
        cat "$T_TMP/probe.log"
        skip "systemd-nspawn cannot run a container on this machine: $(tail -n 1 "$T_TMP/probe.log")"
fi
info "booting the container"
start=$(date +%s)
# The host's /dev/kmsg goes in read-only with CAP_SYSLOG (nspawn drops it by default), so the
# unit's /dev/kmsg access and its kmsg audit source can be checked.
kmsg=()
[ -c /dev/kmsg ] && kmsg=(--bind-ro=/dev/kmsg --capability=CAP_SYSLOG)
# nspawn's default set has CAP_SYS_ADMIN and CAP_SYS_PTRACE but not these, and its system call
# filter lets bpf() and perf_event_open() through only when asked.
[ "$BPF_MODE" = bpf ] && kmsg+=(--capability=CAP_BPF,CAP_PERFMON --system-call-filter='bpf perf_event_open')
timeout --kill-after=10 "$BOOT_TIMEOUT" systemd-nspawn --quiet -b --register=no --keep-unit \
        --private-network "${kmsg[@]}" -M "igmpd-nspawn-$$" -D "$ROOT" --console=pipe \
        < /dev/null > "$T_TMP/console.log" 2>&1 &
NSPAWN_PID=$!
rc=0
wait "$NSPAWN_PID" || rc=$?
NSPAWN_PID=""
info "container ran $(( $(date +%s) - start )) s, nspawn exit $rc"

if [ ! -f "$ROOT/igmpd-test/results" ]; then
        tail -n 40 "$T_TMP/console.log" >&2
        [ -f "$ROOT/igmpd-test/selftest.log" ] && tail -n 40 "$ROOT/igmpd-test/selftest.log" >&2
        fail "the self-test never ran (nspawn exit $rc)"
fi

grep -aE '^(systemd [0-9]|MainPID|systemd-analyze|igmpctl|igmptester|nobody|Audit Sources|Audit SourceStates|call-libc|DriftWatch|cgroup file systems|journal: )' \
        "$ROOT/igmpd-test/selftest.log" | sed 's/^/# /'
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
