#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# igmpctl -H over ssh, for real: a booted Debian 12 container with the igmpd package and
# openssh-server, reachable only through a veth between two throwaway network namespaces (the
# container's and the client's; nothing leaves this machine). The build's igmpctl talks to the
# container's system bus through ssh and systemd-stdio-bridge, with a key made by this test and
# an ssh configuration of its own (see nspawn_ssh_setup in nspawn-lib.sh). Output, errors and exit codes must be those of igmpctl run on
# the host itself; a write as a non-root user must be denied cleanly.
# igmpctl -M (sd-bus's machine transport) is not tested against a container: see the SKIP line it
# prints; its errors are checked in test-dbus-igmpctl.sh.
# Exit 77 (skip) when this machine cannot boot a container, build the root or the package.
set -euo pipefail

T_NAME=remote
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILDDIR=${BUILDDIR:-$SRCDIR/build}
HERE=$SRCDIR/tests/nspawn
IGMPCTL=${IGMPCTL:-$BUILDDIR/src/client/igmpctl}
BOOT_TIMEOUT=${IGMPD_NSPAWN_TIMEOUT:-300}

skip() { echo "SKIP: $T_NAME: $*"; exit 77; }
fail() {
        echo "FAIL: $T_NAME: $*" >&2
        if [ -n "${CONTAINER_UP:-}" ]; then
                echo "---- igmpd's journal in the container ----" >&2
                client ssh "root@$HOST" journalctl -b -u igmpd.service --no-pager -o short-monotonic 2>&1 | tail -n 40 >&2
        fi
        exit 1
}
info() { echo "# $*"; }
. "$HERE/nspawn-lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root (overlay mounts, network namespaces, systemd-nspawn)"
command -v systemd-nspawn >/dev/null || skip "systemd-nspawn is not installed (package systemd-container)"
command -v jq >/dev/null || skip "jq is not installed"
[ -x "$IGMPCTL" ] || fail "igmpctl not found at $IGMPCTL"

T_TMP=$(mktemp -d /tmp/igmpd-nspawn-remote.XXXXXX)
ROOT=$T_TMP/root
NSPAWN_NETNS=()
trap nspawn_cleanup EXIT
trap 'exit 130' INT TERM
start=$(date +%s)

rc=0
LOWER=$("$HERE/build-rootfs-pkg.sh") || rc=$?
[ $rc -eq 77 ] && skip "cannot build the Debian root (no debootstrap, nspawn or mirror)"
[ $rc -eq 0 ] || fail "building the Debian root failed"
nspawn_debs

# 1. The client namespace, key and ssh configuration (nspawn-lib.sh).
nspawn_ssh_setup
client() { nspawn_client "$@"; }
HOST=192.168.213.2

# 2. The root: the package installed (without booting: the postinst creates the user and enables
# the unit), a policy, root's and a plain user's authorized key.
nspawn_overlay "$LOWER" "$ROOT"
nspawn_probe "$ROOT"
mkdir -p "$ROOT/igmpd-test"
cp "$DEB" "$ROOT/igmpd-test/igmpd.deb"
cp "$T_TMP/id.pub" "$ROOT/igmpd-test/key.pub"
systemd-nspawn --quiet --register=no --keep-unit --private-network -D "$ROOT" \
        --setenv=DEBIAN_FRONTEND=noninteractive sh -c '
        set -e
        apt-get install -y -q /igmpd-test/igmpd.deb
        useradd -m -s /bin/bash igmpuser
        install -d -m 0700 -o igmpuser -g igmpuser /home/igmpuser/.ssh
        install -m 0600 -o igmpuser -g igmpuser /igmpd-test/key.pub /home/igmpuser/.ssh/authorized_keys' \
        < /dev/null > "$T_TMP/install.log" 2>&1 ||
        { tail -n 30 "$T_TMP/install.log" >&2; fail "installing the package in the root failed"; }
nspawn_ssh_root "$ROOT" "$HOST"
cat > "$ROOT/etc/igmpd/conf.d/50-remote.conf" <<'CONF'
[Match]
Name=vt*

[IGMP]
V3UnsolicitedReportInterval=300
CONF

# 3. Boot.
info "booting the container ($(( $(date +%s) - start )) s so far)"
nspawn_boot_veth "$ROOT" "igmpd-remote-$$" c0 192.168.213.1
nspawn_wait_ssh "$HOST"
CONTAINER_UP=yes
info "container up, igmpd active ($(( $(date +%s) - start )) s so far)"
client ssh "root@$HOST" ip link add vt0 type veth peer name vt1 || fail "cannot add vt0 in the container"
knob() { client ssh "root@$HOST" cat "/proc/sys/net/ipv4/conf/$1/igmpv3_unsolicited_report_interval"; }
for _ in $(seq 20); do [ "$(knob vt0)" = 300 ] && break; sleep 0.5; done
[ "$(knob vt0)" = 300 ] || fail "the container's igmpd did not apply the policy to vt0: $(knob vt0)"

# 4. igmpctl -H USER@HOST ARGS… against igmpctl ARGS… run on the host over plain ssh: same
# stdout, stderr and exit code. Sets OUT, ERR, RC (of -H).
n_checks=0
compare() { # compare NAME USER ARGS…
        local name=$1 user=$2 lout lerr lrc=0
        shift 2
        RC=0
        client timeout 60 "$IGMPCTL" -H "$user@$HOST" "$@" > "$T_TMP/out" 2> "$T_TMP/err" || RC=$?
        OUT=$(cat "$T_TMP/out")
        ERR=$(cat "$T_TMP/err")
        client ssh "$user@$HOST" igmpctl "$@" > "$T_TMP/lout" 2> "$T_TMP/lerr" || lrc=$?
        lout=$(cat "$T_TMP/lout")
        lerr=$(cat "$T_TMP/lerr")
        echo "## igmpctl -H $user@$HOST $* -> rc $RC"
        [ -z "$OUT" ] || sed 's/^/#   /' <<< "$OUT"
        [ -z "$ERR" ] || sed 's/^/#   (stderr) /' <<< "$ERR"
        [ "$RC" = "$lrc" ] || fail "$name: exit code $RC over -H, $lrc on the host"
        [ "$OUT" = "$lout" ] || fail "$name: output differs from the host's: $(diff <(echo "$lout") <(echo "$OUT"))"
        [ "$ERR" = "$lerr" ] || fail "$name: errors differ from the host's: $(diff <(echo "$lerr") <(echo "$ERR"))"
        n_checks=$((n_checks + 1))
}

compare list root list
[ "$RC" = 0 ] && grep -q 'vt0' <<< "$OUT" || fail "list: vt0 missing (rc $RC)"
compare status root status vt0
grep -qE 'igmpv3_unsolicited_report_interval +300ms +300ms +/etc/igmpd/conf.d/50-remote.conf' <<< "$OUT" ||
        fail "status vt0 does not show the policy"
compare json root --json=short status vt0
[ "$(jq -r '.[0].knobs.igmpv3_unsolicited_report_interval.source' <<< "$OUT")" = /etc/igmpd/conf.d/50-remote.conf ] ||
        fail "--json=short status vt0: unexpected source"
compare no-such-link root status nosuch0
[ "$RC" = 7 ] && grep -q "No such link: nosuch0" <<< "$ERR" || fail "status nosuch0: rc $RC, '$ERR'"
compare bad-value root link vt0 --v3-interval 0
[ "$RC" = 2 ] || fail "link --v3-interval 0: rc $RC, expected 2"

# A write: only -H (run on the host it would change the host).
client timeout 60 "$IGMPCTL" -H "root@$HOST" link vt0 --v3-interval 200 > "$T_TMP/out" 2>&1 ||
        fail "igmpctl -H root@$HOST link vt0 --v3-interval 200 failed: $(cat "$T_TMP/out")"
[ "$(knob vt0)" = 200 ] || fail "vt0 is $(knob vt0) after igmpctl -H … link, expected 200"
compare status-after-link root status vt0
grep -qE 'igmpv3_unsolicited_report_interval +200ms +200ms +runtime' <<< "$OUT" || fail "status vt0 does not show the runtime change"
client timeout 60 "$IGMPCTL" -H "root@$HOST" link 99999 --v3-interval 200 > "$T_TMP/out" 2>&1 && fail "link 99999 succeeded"
grep -q "No such link: 99999" "$T_TMP/out" || fail "link 99999: $(cat "$T_TMP/out")"

# A user without authorization: reads work, a write is denied by polkit, cleanly.
compare user-status igmpuser status vt0
[ "$RC" = 0 ] || fail "status as igmpuser: rc $RC"
compare user-write igmpuser link vt0 --v3-interval 150
[ "$RC" = 6 ] && grep -q "Permission denied" <<< "$ERR" || fail "write as igmpuser: rc $RC, '$ERR'"
[ "$(knob vt0)" = 200 ] || fail "vt0 is $(knob vt0) after a denied write, expected 200"

# Unreachable: a key the host does not accept, and an address nobody answers on.
RC=0
client timeout 60 "$IGMPCTL" -H "nobody@$HOST" list > "$T_TMP/out" 2> "$T_TMP/err" || RC=$?
echo "## igmpctl -H nobody@$HOST list -> rc $RC: $(tr '\n' ' ' < "$T_TMP/err")"
[ "$RC" = 5 ] && [ -s "$T_TMP/err" ] && [ ! -s "$T_TMP/out" ] || fail "-H with a refused key: rc $RC"
grep -q "Failed to list links: no connection to the system bus on nobody@$HOST" "$T_TMP/err" ||
        fail "-H with a refused key: igmpctl's message does not say that the ssh connection failed: $(cat "$T_TMP/err")"
RC=0
client timeout 60 "$IGMPCTL" -H "root@192.168.213.3" list > "$T_TMP/out" 2> "$T_TMP/err" || RC=$?
echo "## igmpctl -H root@192.168.213.3 list -> rc $RC: $(tr '\n' ' ' < "$T_TMP/err")"
[ "$RC" = 5 ] && grep -q "no connection to the system bus on root@192.168.213.3" "$T_TMP/err" ||
        fail "-H to an unreachable host: rc $RC: $(cat "$T_TMP/err")"

# igmpctl -M: sd-bus's machine transport finds a container through systemd-machined (the
# leader PID it registered), which needs systemd as PID 1 with a system bus.
if [ -d /run/systemd/system ] && [ -S /run/dbus/system_bus_socket ]; then
        echo "SKIP machine-transport: the containers here run with --register=no (no systemd-machined" \
                "registration); igmpctl -M's own errors are checked in test-dbus-igmpctl.sh"
else
        echo "SKIP machine-transport: PID 1 here is '$(cat /proc/1/comm)', not systemd: no machined to register" \
                "the container with (nspawn runs with --register=no)"
fi

info "$n_checks comparisons, $(( $(date +%s) - start )) s in all"
echo "PASS: $T_NAME"
