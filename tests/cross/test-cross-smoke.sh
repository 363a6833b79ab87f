#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The arm igmpd of a cross build, run by qemu-user on this machine's kernel: netlink (dump and
# RTM_NEWLINK), /proc/sys writes, sd-event (signalfd, timers) and sd-bus with peer credentials
# all go through qemu's system call translation. In a throwaway namespace, on a private bus:
# a veth link gets its knobs from a policy, a link renamed into the policy is re-matched, a link
# made later is configured, `igmpctl list` and `status` answer, a runtime change goes through
# the bus (a method call the daemon authorizes by the caller's uid), SIGHUP reloads.
#
# What qemu-user (Debian 12, 7.2) cannot translate, and what this test does about it:
# - bpf(2): "Unsupported syscall: 280", every call fails with ENOSYS; and before that, the
#   nsfs ioctl NS_GET_NSTYPE, by which igmpd-bpf checks the namespaces igmpd sends it (qemu
#   translates only the ioctls it knows: ENOSYS too). igmpd-bpf starts and answers, but the
#   drift watch cannot load: checked that igmpd says so, with that reason, and goes on.
# - execve of a target program: without binfmt_misc the kernel cannot run an arm ELF, so the
#   helper igmpd starts is a script that execs qemu (same pid: LISTEN_PID still matches).
#   This test registers no binfmt handler: that is host-wide state.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/../integration/dbus-lib.sh"

[ -n "${CROSS_WRAPPER:-}" ] || skip "no qemu-user for this target (\$CROSS_WRAPPER unset: not an arm cross build)"
# shellcheck disable=SC2086 # the wrapper is a command line
command -v ${CROSS_WRAPPER%% *} > /dev/null || skip "${CROSS_WRAPPER%% *} is not installed (qemu-user-static)"

# Wrappers that run the target's programs through qemu: what igmpd_start, igmpctl and igmpd's
# own fork+exec of the BPF helper call. (lib.sh has checked the real igmpd exists.)
mkdir -p "$T_TMP/bin"
wrap() {
        printf '#!/bin/sh\nexec %s %q "$@"\n' "$CROSS_WRAPPER" "$2" > "$T_TMP/bin/$1"
        chmod +x "$T_TMP/bin/$1"
}
wrap igmpd "$IGMPD"
wrap igmpctl "$IGMPCTL"
IGMPD=$T_TMP/bin/igmpd
IGMPCTL=$T_TMP/bin/igmpctl
if [ -n "${IGMPD_BPF_HELPER:-}" ]; then
        wrap igmpd-bpf "$IGMPD_BPF_HELPER"
        export IGMPD_BPF_HELPER=$T_TMP/bin/igmpd-bpf
fi
info "target: $("$T_TMP/bin/igmpd" --version 2>&1 | head -n 1), through $CROSS_WRAPPER"

# Emulation is slow, and the machine may be busy: wait for states, generously.
export WAIT_SECS=60
dbus_start
NS=$(ns_new smoke)
veth_add "$NS" armv0 peer0
conf_put 50-arm.conf <<'CONF'
[Match]
Name=armv*

[IGMP]
V3UnsolicitedReportInterval=200
Version=2
CONF
V3=igmpv3_unsolicited_report_interval

# The drift watch is asked for (igmpd's default) to see what the BPF helper does under qemu. A
# qemu that translated bpf(2) would let it attach at the host's cgroup2 root, host-wide state,
# which is then taken under hostwide_lock like the drift tests do; this qemu's is asked first
# (the lock can be held for minutes by other checkouts' tests).
if [ -n "${IGMPD_BPF_HELPER:-}" ]; then
        # shellcheck disable=SC2086
        if $CROSS_WRAPPER "$BPF_PROBE"; then
                hostwide_lock
        fi
        printf '[Daemon]\nDriftWatch=yes\n' > "$T_ROOT/etc/igmpd/igmpd.conf.d/50-smoke.conf"
fi

info "start: links present are configured"
igmpd_start "$NS"
expect_knob "$NS" ipv4 armv0 $V3 200
expect_knob "$NS" ipv4 armv0 force_igmp_version 2
expect_knob "$NS" ipv4 peer0 $V3 1000

info "a rename into the policy is re-matched"
ip -n "$NS" link set peer0 name armv1
expect_knob "$NS" ipv4 armv1 $V3 200

info "a link made later is configured"
veth_add "$NS" armv2 other2
expect_knob "$NS" ipv4 armv2 $V3 200
expect_knob "$NS" ipv4 other2 $V3 1000

info "igmpctl over the private bus"
igmpd_wait_bus 60
"$IGMPCTL" list > "$T_TMP/list" || fail "igmpctl list failed: $(cat "$T_TMP/list")"
for l in armv0 armv1 armv2; do
        grep -qE "^ *$(ifindex_of "$NS" $l) +$l +veth +configured$" "$T_TMP/list" || fail "igmpctl list lacks $l: $(cat "$T_TMP/list")"
done
grep -qE ' other2 +veth +unmanaged$' "$T_TMP/list" || fail "igmpctl list: other2 should be unmanaged: $(cat "$T_TMP/list")"
"$IGMPCTL" status armv1 > "$T_TMP/status" || fail "igmpctl status failed"
grep -qE "^$V3 +200ms +200ms +.*/50-arm\.conf$" "$T_TMP/status" || fail "igmpctl status armv1: $(cat "$T_TMP/status")"

info "a runtime change through the bus (authorized by the caller's credentials)"
"$IGMPCTL" link armv2 --v3-interval 300 || fail "igmpctl link failed"
expect_knob "$NS" ipv4 armv2 $V3 300

info "SIGHUP reloads the policy"
sed -i 's/=200$/=250/' "$T_CONF/50-arm.conf"
igmpd_reload
expect_knob "$NS" ipv4 armv0 $V3 250
expect_knob "$NS" ipv4 armv1 $V3 250
expect_knob "$NS" ipv4 armv2 $V3 300        # the runtime change outranks the policy

if [ -n "${IGMPD_BPF_HELPER:-}" ]; then
        info "drift watch through the BPF helper"
        wait_until "grep -qE 'Drift watch is (not )?active' '$T_LOG'" || fail "igmpd said nothing about the drift watch"
        if grep -q 'Drift watch is active' "$T_LOG"; then
                info "drift watch active: this qemu translates bpf(2)"
        else
                # The reason must come from the helper having run (not from failing to start it).
                grep -E 'Drift watch is not active' "$T_LOG" | grep -qiE 'Function not implemented|ENOSYS|not supported' ||
                        fail "the drift watch failed for another reason than qemu's missing bpf(2): $(grep 'Drift watch' "$T_LOG")"
                info "drift watch inactive as expected under qemu-user: $(grep -m1 'Drift watch is not active' "$T_LOG")"
        fi
fi

kill -0 "$T_IGMPD_PID" 2>/dev/null || fail "igmpd died"
igmpd_stop
grep -E 'Unsupported syscall' "$T_LOG" | sort | uniq -c | sed 's/^/# qemu: /' || true
echo "PASS: $T_NAME"
