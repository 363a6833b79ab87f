#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Without the drift watch: igmpd runs (as root) without CAP_SYS_ADMIN, CAP_BPF and CAP_PERFMON,
# so it cannot start its BPF helper, and no igmpd-bpf.socket exists. The watch reports itself
# inactive and why (log, the DriftWatch property, igmpctl kernel); drift is still seen as before,
# in link messages: a sysctl -w is corrected when the link goes up, and an RTM_SETLINK on a link
# that is up at once — both reported with the writer unknown. Reads ask for refresh dumps, as
# without the watch. DriftWatch=no says "off".
# Nothing is attached anywhere, so no host-wide lock.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"

SET_INET_CONF=$HELPERS/set-inet-conf
[ -x "$SET_INET_CONF" ] || fail "helper missing: $SET_INET_CONF"
command -v setpriv > /dev/null || skip "setpriv (util-linux) is not installed"

dbus_start
printf '[Daemon]\nDriftWatch=yes\nNetworkManager=no\n' > "$T_ROOT/etc/igmpd/igmpd.conf.d/50-drift.conf"
conf_put 50-v0.conf <<'CONF'
[Match]
Name=v0
[IGMP]
V3UnsolicitedReportInterval=200
CONF
# igmpd as root, but without the capabilities to start its BPF helper.
REAL_IGMPD=$IGMPD
IGMPD=$T_TMP/igmpd-without-bpf-caps
cat > "$IGMPD" <<EOF
#!/bin/sh
exec setpriv --bounding-set=-sys_admin,-bpf,-perfmon --inh-caps=-sys_admin,-bpf,-perfmon -- "$REAL_IGMPD" "\$@"
EOF
chmod +x "$IGMPD"

NS=$(ns_new f)
veth_add "$NS" v0 v1
K3=/proc/sys/net/ipv4/conf/v0/igmpv3_unsolicited_report_interval
igmpd_start "$NS"
igmpd_wait_bus
capeff=$((16#$(awk '/^CapEff:/ { print $2 }' /proc/"$T_IGMPD_PID"/status)))
[ $((capeff & (1 << 21))) -eq 0 ] || fail "igmpd still has CAP_SYS_ADMIN (CapEff $(printf %x $capeff))"
expect_knob "$NS" ipv4 v0 igmpv3_unsolicited_report_interval 200

WAIT_SECS=20 wait_until "grep -q 'Drift watch is not active' '$T_LOG'" || fail "no log line saying the watch is inactive"
grep -q "Drift watch is not active: no BPF helper: .* igmpd lacks CAP_SYS_ADMIN, CAP_BPF and CAP_PERFMON" "$T_LOG" ||
        fail "the log does not say why: $(grep 'Drift watch' "$T_LOG")"
# The libc audit source (on by default) needs the same helper, and says the same reason.
grep -q "Audit source libc is not active: .*igmpd lacks CAP_SYS_ADMIN, CAP_BPF and CAP_PERFMON" "$T_LOG" ||
        fail "the libc audit source does not say why it is not active: $(grep 'Audit source' "$T_LOG")"
out=$(bctl get-property org.igmpd1 /org/igmpd1 org.igmpd1.Manager DriftWatch)
grep -q '^(ss) "inactive" "no BPF helper: .*; foreign writes are seen only in link messages"$' <<< "$out" ||
        fail "DriftWatch: $out"
out=$(COLUMNS=80 "$IGMPCTL" kernel)
grep -q '^Drift watch: inactive, DriftAction=revert$' <<< "$out" || fail "igmpctl kernel: $out"
# The reason, word-wrapped below it.
grep -q '^ no BPF helper: .* igmpd lacks CAP_SYS_ADMIN, CAP_BPF and CAP_PERFMON to start .*; foreign writes are seen only in link messages $' <<< "$(sed -n '/^Drift watch:/,$p' <<< "$out" | tail -n +2 | tr '\n' ' ' | tr -s ' ')" ||
        fail "igmpctl kernel does not say why: $out"
grep -q '"drift_watch":{"state":"inactive","note":"no BPF helper: ' <<< "$("$IGMPCTL" --json=short kernel)" ||
        fail "igmpctl --json kernel: $("$IGMPCTL" --json=short kernel)"

info "the watch inactive: a read asks for a refresh dump (the cache may be stale)"
refreshes0=$(log_count 'Refreshing the kernel values')
bctl call org.igmpd1 /org/igmpd1 org.igmpd1.Manager Describe > /dev/null || fail "Describe failed"
WAIT_SECS=10 wait_until "[ \$(log_count 'Refreshing the kernel values') -gt $refreshes0 ]" ||
        fail "a read with the drift watch inactive asked for no refresh"

busctl --system monitor --match "type='signal',sender='org.igmpd1',member='KnobOverridden'" > "$T_TMP/signals" 2>&1 &
_T_PIDS+=($!)
sleep 0.5

info "sysctl -w while the link is down: seen when it comes up (a link message), writer unknown"
in_ns "$NS" sh -c "echo 1000 > $K3"
ip -n "$NS" link set v0 up
expect_knob "$NS" ipv4 v0 igmpv3_unsolicited_report_interval 200
WAIT_SECS=10 wait_until "grep -q 'igmpv3_unsolicited_report_interval changed from 200 to 1000 by another process (unseen by the drift watch' '$T_LOG'" ||
        fail "the correction at link up was not reported: $(grep -E 'changed|drift' "$T_LOG")"

info "RTM_SETLINK on a link that is up: corrected from the link message at once"
sleep 1.1   # reports are limited to one a second per knob and writer, and this one is unknown too
in_ns "$NS" "$SET_INET_CONF" v0 igmpv3_unsolicited_report_interval 555 || fail "set-inet-conf failed"
expect_knob "$NS" ipv4 v0 igmpv3_unsolicited_report_interval 200
WAIT_SECS=10 wait_until "grep -q 'changed from 200 to 555 by another process' '$T_LOG'" || fail "the netlink write was not reported"
WAIT_SECS=10 wait_until "[ \$(grep -c 'Member=KnobOverridden' '$T_TMP/signals') -ge 2 ]" ||
        fail "KnobOverridden signals: $(cat "$T_TMP/signals")"
grep -q 'INT32 200; INT32 555; INT32 200; UINT32 0; STRING ""; STRING "reverted";' <<< \
        "$(grep -A10 'Member=KnobOverridden' "$T_TMP/signals" | tr '\n' ' ' | tr -s ' ')" ||
        fail "KnobOverridden arguments: $(cat "$T_TMP/signals")"

info "DriftWatch=no: off"
printf '[Daemon]\nDriftWatch=no\nNetworkManager=no\n' > "$T_ROOT/etc/igmpd/igmpd.conf.d/50-drift.conf"
igmpd_reload
WAIT_SECS=10 wait_until "[[ \$(bctl get-property org.igmpd1 /org/igmpd1 org.igmpd1.Manager DriftWatch) == *'\"off\" \"DriftWatch=no'* ]]" ||
        fail "DriftWatch after DriftWatch=no: $(bctl get-property org.igmpd1 /org/igmpd1 org.igmpd1.Manager DriftWatch)"
grep -q 'Drift watch: off, DriftAction=revert   *DriftWatch=no: foreign writes are seen only in link messages' <<< "$("$IGMPCTL" kernel | tr '\n' ' ')" ||
        fail "igmpctl kernel: $("$IGMPCTL" kernel)"
echo "PASS: $T_NAME"
