#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The main job, for real: installs what is missing, builds, then runs igmpd in a throwaway
# network namespace with a few veth links and the example policies from data/examples/,
# shows the values it applied (at start, on hot-plug and on rename), and cleans up.
#   --wait   keep igmpd running until Ctrl-C (try `ip netns exec igmpd-demo-$$ …` meanwhile)
set -euo pipefail

SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export BUILD_DIR=${BUILD_DIR:-$SRCDIR/build}
"$SRCDIR/scripts/setup.sh"

[ "$(id -u)" = 0 ] || { echo "The demo creates a network namespace: run it as root." >&2; exit 1; }

NS=igmpd-demo-$$
ROOT=$(mktemp -d /tmp/igmpd-demo.XXXXXX)
LOG=$ROOT/igmpd.log
PID=""

cleanup() {
        set +e
        [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
        ip netns del "$NS" 2>/dev/null
        rm -rf "$ROOT"
        echo "Cleaned up: namespace $NS and $ROOT removed."
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$ROOT/etc/igmpd/conf.d"
cp "$SRCDIR"/data/examples/*.conf "$ROOT/etc/igmpd/conf.d/"

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
                ip netns exec "$NS" sh -c "
                        r() { cat \$1 2>/dev/null || echo -; }
                        printf '%-8s %6sms %6sms %6s %6sms %6sms %6s\n' '$dev' \
                                \$(r $v4/igmpv2_unsolicited_report_interval) \$(r $v4/igmpv3_unsolicited_report_interval) \
                                \$(r $v4/force_igmp_version) \$(r $v6/mldv1_unsolicited_report_interval) \
                                \$(r $v6/mldv2_unsolicited_report_interval) \$(r $v6/force_mld_version)"
        done
}

echo "Policy (from data/examples/):"
for f in "$ROOT"/etc/igmpd/conf.d/*.conf; do
        echo "--- $(basename "$f")"
        grep -v '^#' "$f" | sed '/^$/d'
done

show "Kernel defaults before igmpd (stb1 has MTU 1200, so no IPv6 yet: '-')"

ip netns exec "$NS" "$BUILD_DIR/src/daemon/igmpd" --config-root "$ROOT" > "$LOG" 2>&1 &
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

echo
echo "igmpd log:"
sed 's/^/  /' "$LOG"

if [ "${1:-}" = "--wait" ]; then
        echo
        echo "igmpd keeps running in namespace $NS; press Ctrl-C to stop and clean up."
        wait "$PID"
fi
