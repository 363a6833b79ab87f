#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runtime changes for links with odd names survive a daemon restart: `igmpctl link NAME …` is
# stored as runtime.d/NAME.conf, and after igmpd restarts and the link is re-created (kernel
# defaults again) the stored value is applied — also for names the kernel allows that start
# with a dot (".x1" → ".x1.conf") or hold glob characters, and the file stays inside runtime.d.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
[ -x "$IGMPCTL" ] || skip "igmpctl not built"
dbus_start

NS=$(ns_new ifnrt)
export IGMPD_LOG_LEVEL=${IGMPD_LOG_LEVEL:-info}
names=(".x1" 'v#*?[' "plain0")
peers=("p1" "p2" "p3")
create() {
        for i in "${!names[@]}"; do
                ip -n "$NS" link add "${names[i]}" type veth peer name "${peers[i]}"
        done
}
create
igmpd_start "$NS"
igmpd_wait_bus
for i in "${!names[@]}"; do
        "$IGMPCTL" link "${names[i]}" --v3-interval $((150 + i)) || fail "igmpctl link '${names[i]}' failed"
done
RUN_D=$T_ROOT/run/igmpd/runtime.d
for i in "${!names[@]}"; do
        [ -f "$RUN_D/${names[i]}.conf" ] || fail "no runtime file for '${names[i]}': $(ls -A "$RUN_D")"
done
# Besides runtime.d, igmpd writes only its own state files at fixed names: the kernel log
# position and the record of pre-igmpd values (written before igmpd's first change).
outside=$(find "$T_ROOT" -newer "$T_ROOT/etc/igmpd/conf.d" -type f ! -path "$RUN_D/*" ! -name kmsg-seq \
        ! -path "$T_ROOT/run/igmpd/originals")
[ -z "$outside" ] || fail "files written outside runtime.d: $outside"

info "restart igmpd and re-create the links (kernel defaults again)"
igmpd_stop
for n in "${names[@]}"; do ip -n "$NS" link del "$n"; done
create
igmpd_start "$NS"
bad=()
for i in "${!names[@]}"; do
        want=$((150 + i))
        ok=""
        for _ in $(seq 100); do
                [ "$(knob_get "$NS" ipv4 "${names[i]}" igmpv3_unsolicited_report_interval)" = "$want" ] && { ok=1; break; }
                sleep 0.05
        done
        [ -n "$ok" ] || bad+=("'${names[i]}'=$(knob_get "$NS" ipv4 "${names[i]}" igmpv3_unsolicited_report_interval) (want $want)")
done
[ ${#bad[@]} -eq 0 ] || fail "runtime changes lost after a restart: ${bad[*]} ($(grep -E 'runtime override' "$T_LOG" | tail -n 1))"
echo "PASS: $T_NAME (runtime changes of ${#names[@]} odd-named links survive a restart)"
