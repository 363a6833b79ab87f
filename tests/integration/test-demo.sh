#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# scripts/demo.sh, the README's first command, shows what it promises: the kernel values
# ("-" for a knob whose file does not exist yet, never "-ms"), igmpctl list, status iptv0 and
# link eth0 --v3-interval 200 working over its private bus, then another program's sysctl -w of
# a managed knob put back by the drift watch (where BPF can run here; else igmpctl showing the
# link drifted), and with --wait the exact igmpctl and igmpd --check lines to try by hand, which
# work; afterwards nothing of it is left (namespace, bus, files).
. "$(dirname "$0")/lib.sh"
command -v dbus-daemon > /dev/null || skip "dbus-daemon is not installed"
while read -r pkg; do
        case "$pkg" in ''|'#'*) continue ;; esac
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
                skip "$pkg is not installed (the demo would install it; a test does not)"
done < "$SRCDIR/scripts/packages-demo.txt"
export BUILD_DIR
BUILD_DIR=$(cd "$(dirname "$IGMPD")/../.." && pwd)
[ -x "$BUILD_DIR/src/client/igmpctl" ] || fail "no igmpctl in $BUILD_DIR"
export LC_ALL=C.UTF-8
# The demo's drift watch attaches at the host's cgroup2 root.
hostwide_lock

# Nothing the demo leaves behind: its namespace, its bus, its directory.
left_over() {
        ip netns list | grep -q "^igmpd-demo-$1\\b" && echo "namespace igmpd-demo-$1"
        [ -e "$2" ] && echo "$2"
        pgrep -f "dbus-daemon --config-file=$2/bus/system.conf" > /dev/null && echo "dbus-daemon of $2"
        return 0
}

info "scripts/demo.sh"
"$SRCDIR/scripts/demo.sh" > "$T_TMP/demo.out" 2>&1 & DEMO=$!
rc=0
wait $DEMO || rc=$?
[ "$rc" = 0 ] || fail "demo.sh exited $rc: $(cat "$T_TMP/demo.out")"
out=$T_TMP/demo.out
grep -qE '^stb1 +10000ms +1000ms +0 +- +- +-$' "$out" || fail "no '-' for stb1's missing MLD knobs: $(cat "$out")"
! grep -q -- '-ms' "$out" || fail "'-ms' in the demo: $(grep -- '-ms' "$out")"
grep -qx '$ igmpctl list' "$out" && grep -qE '^ +3 +iptv0 +veth +configured$' "$out" || fail "igmpctl list: $(cat "$out")"
grep -qx '$ igmpctl status iptv0' "$out" && grep -qx '● 3: iptv0' "$out" &&
        grep -qE '^igmpv3_unsolicited_report_interval +200ms +200ms +/tmp/igmpd-demo\.[^/]+/etc/igmpd/conf\.d/50-iptv\.conf$' "$out" ||
        fail "igmpctl status iptv0: $(cat "$out")"
grep -qx '$ igmpctl link eth0 --v3-interval 200' "$out" || fail "no igmpctl link: $(cat "$out")"
sed -n '/^== After igmpctl link eth0/,/^$/p' "$out" | grep -qE '^eth0 +2000ms +200ms ' ||
        fail "eth0 not at 200ms after igmpctl link: $(cat "$out")"
knob=net.ipv4.conf.iptv0.igmpv3_unsolicited_report_interval
grep -qx "== Another program writes a knob igmpd manages: sysctl -w $knob=7000 (in the demo namespace)" "$out" ||
        fail "no foreign write in the demo: $(cat "$out")"
if [ -x "${IGMPD_BPF_HELPER:-}" ] && [ -r /sys/kernel/btf/vmlinux ]; then
        grep -q "^  iptv0: igmpv3_unsolicited_report_interval changed from 200 to 7000 by process 'sysctl' .*: reverted\.$" "$out" ||
                fail "the drift watch did not revert the foreign write in the demo: $(cat "$out")"
        sed -n "/^== After sysctl -w $knob=7000: igmpd put its 200ms back/,/^\$/p" "$out" | grep -qE '^iptv0 +2000ms +200ms ' ||
                fail "iptv0 not back at 200ms after the foreign write: $(cat "$out")"
else
        grep -qE '^ +State: drifted' "$out" || fail "no drifted state without the drift watch: $(cat "$out")"
fi
grep -q 'igmpd is not running\|Cannot reach' "$out" && fail "igmpctl failed in the demo: $(cat "$out")"
root=$(sed -nE 's/^Cleaned up: namespace igmpd-demo-[0-9]+, the private bus and (.*) removed\.$/\1/p' "$out")
[ -n "$root" ] || fail "no clean-up line: $(tail -n 3 "$out")"
[ -z "$(left_over "$DEMO" "$root")" ] || fail "left over: $(left_over "$DEMO" "$root")"

info "scripts/demo.sh --wait prints the igmpctl line to try, and it works"
"$SRCDIR/scripts/demo.sh" --wait > "$T_TMP/wait.out" 2>&1 & DEMO=$!
_T_PIDS+=("$DEMO")
WAIT_SECS=120 wait_until "grep -q 'Press Ctrl-C' '$T_TMP/wait.out' || ! kill -0 $DEMO 2>/dev/null" ||
        fail "demo.sh --wait did not get ready: $(cat "$T_TMP/wait.out")"
line=$(grep -E '^  DBUS_SYSTEM_BUS_ADDRESS=unix:path=\S+ \S+/igmpctl status$' "$T_TMP/wait.out") ||
        fail "no 'DBUS_SYSTEM_BUS_ADDRESS=… igmpctl status' line: $(cat "$T_TMP/wait.out")"
# Exactly as printed, as a person would paste it (no DBUS_SYSTEM_BUS_ADDRESS of ours).
env -u DBUS_SYSTEM_BUS_ADDRESS bash -c "$line" > "$T_TMP/try.out" 2>&1 || fail "'$line' failed: $(cat "$T_TMP/try.out")"
grep -qE '^● igmpd: [0-9]+ links$' "$T_TMP/try.out" || fail "'$line' printed: $(cat "$T_TMP/try.out")"
# The --check line checks the demo's configuration, in the demo's namespace (not the host's).
line=$(grep -E '^  ip netns exec igmpd-demo-[0-9]+ \S+/igmpd --check --config-root /tmp/igmpd-demo\.\S+$' "$T_TMP/wait.out") ||
        fail "no 'igmpd --check' line: $(cat "$T_TMP/wait.out")"
bash -c "$line" > "$T_TMP/check.out" 2>&1 || fail "'$line' failed: $(cat "$T_TMP/check.out")"
grep -q '/etc/igmpd/conf.d/50-iptv.conf$' "$T_TMP/check.out" && grep -qE '^[0-9]+: iptv0' "$T_TMP/check.out" ||
        fail "'$line' did not check the demo's files and links: $(cat "$T_TMP/check.out")"
root=$(sed -nE 's/^  DBUS_SYSTEM_BUS_ADDRESS=unix:path=(.*)\/bus\/system_bus_socket .*/\1/p' "$T_TMP/wait.out")
kill -TERM "$DEMO"
rc=0
wait "$DEMO" || rc=$?
[ "$rc" = 130 ] || fail "demo.sh --wait exited $rc on SIGTERM"
grep -q '^Cleaned up' "$T_TMP/wait.out" || fail "no clean-up on SIGTERM: $(tail -n 3 "$T_TMP/wait.out")"
[ -z "$(left_over "$DEMO" "$root")" ] || fail "left over after --wait: $(left_over "$DEMO" "$root")"
echo "PASS: $T_NAME"
