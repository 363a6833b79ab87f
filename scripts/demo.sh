#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The main job, for real: installs what is missing (scripts/packages-demo.txt), builds, then
# runs igmpd in a throwaway network namespace with a few veth links and the example policies
# from data/examples/, on a private bus configured like the system bus (scripts/private-bus.sh).
# It shows the values igmpd applied (at start, on hot-plug and on rename), then igmpctl at work
# (list, status, a runtime change), then another program's sysctl -w of a knob igmpd manages and
# what the drift watch does about it, and cleans up.
#   --wait   keep igmpd and the bus running until Ctrl-C, and print the igmpctl and igmpd --check
#            lines to try
set -euo pipefail

SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export BUILD_DIR=${BUILD_DIR:-$SRCDIR/build}
WAIT=""
case "${1:-}" in
"") ;;
--wait) WAIT=1 ;;
*) echo "Usage: $0 [--wait]" >&2; exit 2 ;;
esac

[ "$(id -u)" = 0 ] || { echo "The demo creates a network namespace: run it as root." >&2; exit 1; }
"$SRCDIR/scripts/setup.sh" demo
# shellcheck source=private-bus.sh
. "$SRCDIR/scripts/private-bus.sh"

IGMPD=$BUILD_DIR/src/daemon/igmpd
IGMPCTL=$BUILD_DIR/src/client/igmpctl
NS=igmpd-demo-$$
ROOT=$(mktemp -d /tmp/igmpd-demo.XXXXXX)
LOG=$ROOT/igmpd.log
PID=""
BUS_PID=""

cleanup() {
        set +e
        [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
        [ -n "$BUS_PID" ] && kill "$BUS_PID" 2>/dev/null && wait "$BUS_PID" 2>/dev/null
        ip netns del "$NS" 2>/dev/null
        rm -rf "$ROOT"
        echo "Cleaned up: namespace $NS, the private bus and $ROOT removed."
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$ROOT/etc/igmpd/conf.d"
cp "$SRCDIR"/data/examples/*.conf "$ROOT/etc/igmpd/conf.d/"

# The bus: a socket in $ROOT, reachable from every namespace; people may use igmpctl on it.
chmod 755 "$ROOT"
mkdir -p "$ROOT/bus"
private_bus_config "$ROOT/bus/system_bus_socket" > "$ROOT/bus/system.conf"
dbus-daemon --config-file="$ROOT/bus/system.conf" --nofork --nopidfile --nosyslog > "$ROOT/bus/log" 2>&1 &
BUS_PID=$!
for _ in $(seq 100); do [ -S "$ROOT/bus/system_bus_socket" ] && break; sleep 0.05; done
[ -S "$ROOT/bus/system_bus_socket" ] || { cat "$ROOT/bus/log"; echo "the private bus did not start" >&2; exit 1; }
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$ROOT/bus/system_bus_socket

ip netns add "$NS"
ip -n "$NS" link set lo up
ip -n "$NS" link add iptv0 type veth peer name eth0
ip -n "$NS" link add stb1 mtu 1200 type veth peer name eth1

show() {
        echo
        echo "== $1"
        printf '%-8s %8s %8s %6s %8s %8s %6s\n' LINK IGMPv2 IGMPv3 IGMPv MLDv1 MLDv2 MLDv
        for dev in $(ip netns exec "$NS" ls /proc/sys/net/ipv4/conf | grep -vxE 'all|default|lo'); do
                v4=/proc/sys/net/ipv4/conf/$dev v6=/proc/sys/net/ipv6/conf/$dev
                # A knob whose file does not exist (yet) is "-", an interval gets its unit.
                ip netns exec "$NS" sh -c "
                        r() { cat \$1 2>/dev/null || echo -; }
                        ms() { v=\$(cat \$1 2>/dev/null) && echo \${v}ms || echo -; }
                        printf '%-8s %8s %8s %6s %8s %8s %6s\n' '$dev' \
                                \$(ms $v4/igmpv2_unsolicited_report_interval) \$(ms $v4/igmpv3_unsolicited_report_interval) \
                                \$(r $v4/force_igmp_version) \$(ms $v6/mldv1_unsolicited_report_interval) \
                                \$(ms $v6/mldv2_unsolicited_report_interval) \$(r $v6/force_mld_version)"
        done
}

# Runs igmpctl and shows it as typed.
ctl() {
        echo
        echo "\$ igmpctl $*"
        "$IGMPCTL" "$@"
}

echo "Policy (from data/examples/):"
for f in "$ROOT"/etc/igmpd/conf.d/*.conf; do
        echo "--- $(basename "$f")"
        grep -v '^#' "$f" | sed '/^$/d'
done

show "Kernel defaults before igmpd (stb1 has MTU 1200, so no IPv6 yet: '-')"

# The drift watch's BPF helper: the one built here, as igmpd's child (no igmpd-bpf.socket of an
# installed igmpd is used). It attaches at the host's cgroup2 root but reports only writes in
# igmpd's namespace, and is gone when igmpd exits.
IGMPD_BPF_HELPER=$BUILD_DIR/src/bpf-helper/igmpd-bpf IGMPD_BPF_SOCKET=$ROOT/no-bpf-helper.sock \
        ip netns exec "$NS" "$IGMPD" --config-root "$ROOT" > "$LOG" 2>&1 &
PID=$!
for _ in $(seq 100); do grep -q 'links, ready' "$LOG" && break; sleep 0.05; done
grep -q 'links, ready' "$LOG" || { cat "$LOG"; echo "igmpd did not start" >&2; exit 1; }
show "igmpd running: every link configured as it was found"

ip -n "$NS" link add iptv2 type veth peer name eth2
ip -n "$NS" link set stb1 mtu 1500
sleep 0.2
show "Hot-plug: iptv2/eth2 created, stb1 MTU raised to 1500 (its MLD knobs appear and are set)"

ip -n "$NS" link set eth2 name iptv3
sleep 0.2
show "Rename: eth2 became iptv3 and now matches 50-iptv.conf"

for _ in $(seq 100); do "$IGMPCTL" list > /dev/null 2>&1 && break; sleep 0.05; done
echo
echo "== igmpctl, over the private bus ($DBUS_SYSTEM_BUS_ADDRESS)"
ctl list
ctl status iptv0
ctl link eth0 --v3-interval 200
echo "(no output: done; igmpd stored it in $ROOT/run/igmpd/runtime.d/eth0.conf)"
show "After igmpctl link eth0 --v3-interval 200"

# Another program writes a knob igmpd manages. With the drift watch (BPF) igmpd sees the write,
# names the writer and puts its value back; without it, igmpctl shows the link drifted.
for _ in $(seq 600); do grep -q 'Drift watch is' "$LOG" && break; sleep 0.05; done
KNOB=net.ipv4.conf.iptv0.igmpv3_unsolicited_report_interval
echo
echo "== Another program writes a knob igmpd manages: sysctl -w $KNOB=7000 (in the demo namespace)"
ip netns exec "$NS" sysctl -q -w "$KNOB=7000"
if grep -q 'Drift watch is active' "$LOG"; then
        for _ in $(seq 100); do
                [ "$(ip netns exec "$NS" sysctl -n "$KNOB")" = 200 ] && grep -q 'changed from 200 to 7000' "$LOG" && break
                sleep 0.05
        done
        echo "The drift watch saw it; igmpd's log:"
        grep 'changed from 200 to 7000' "$LOG" | sed 's/^/  /'
        show "After sysctl -w $KNOB=7000: igmpd put its 200ms back"
else
        echo "The drift watch is not active here ($(sed -n 's/.*Drift watch is not active: \([^.]*\).*/\1/p' "$LOG")):"
        echo "igmpd keeps the value until it next configures iptv0, and says so:"
        ctl status iptv0
fi

echo
echo "igmpd log:"
sed 's/^/  /' "$LOG"

if [ -n "$WAIT" ]; then
        echo
        echo "igmpd keeps running in namespace $NS; try, in another shell:"
        echo
        echo "  DBUS_SYSTEM_BUS_ADDRESS=$DBUS_SYSTEM_BUS_ADDRESS $IGMPCTL status"
        echo "  ip netns exec $NS $IGMPD --check --config-root $ROOT"
        echo "  ip netns exec $NS ip link add iptv9 type veth peer name eth9"
        echo "  ip netns exec $NS sysctl -w $KNOB=7000"
        echo
        echo "The policy files are in $ROOT/etc/igmpd/conf.d/; after editing them, check with the"
        echo "igmpd --check line above, then reload:"
        echo
        echo "  DBUS_SYSTEM_BUS_ADDRESS=$DBUS_SYSTEM_BUS_ADDRESS $IGMPCTL reload"
        echo
        echo "Press Ctrl-C to stop and clean up."
        wait "$PID"
fi
