#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The BPF audit source "syscall" (AuditSources=syscall): igmpd runs in one network namespace; a
# process in another namespace and in a child cgroup calls syscall(156, …) asking for
# {3,5,16,-2,1}. A DeprecatedSysctl signal and a ListEvents entry must name it with source
# "syscall", its pid, comm and exe, the vector and /proc/sys/net/ipv4/conf/all/forwarding —
# which the Linux audit source cannot give (no vector). igmpd holds no BPF capability: its
# helper (a child here, igmpd running as root) attaches and hands over the links. After kill -9
# of igmpd, none of the BPF programs or links it held is left, and the helper is gone.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"

CALL=$HELPERS/call-sysctl
[ -x "$CALL" ] || fail "helper missing: $CALL"
bpf_require
hostwide_lock

CG_ROOT=/sys/fs/cgroup/unified
[ "$(stat -f -c %T "$CG_ROOT" 2>/dev/null)" = cgroup2fs ] || CG_ROOT=/sys/fs/cgroup
[ "$(stat -f -c %T "$CG_ROOT" 2>/dev/null)" = cgroup2fs ] || skip "no cgroup2 hierarchy mounted"
CG=$CG_ROOT/igmpd-test-$$
mkdir "$CG" || skip "cannot create a child cgroup in $CG_ROOT"
trap '_rc=$?; set +e; rmdir "$CG" 2>/dev/null; (exit $_rc); _t_cleanup' EXIT

dbus_start
mkdir -p "$T_ROOT/etc/igmpd"
cat > "$T_ROOT/etc/igmpd/igmpd.conf" <<'CONF'
[Daemon]
AuditSources=syscall
NetworkManager=no
CONF

NS=$(ns_new d)
NS2=$(ns_new c)
igmpd_start "$NS"
igmpd_wait_bus
WAIT_SECS=60 wait_until "grep -qE 'Audit source syscall is (active|not active)' '$T_LOG'" ||
        fail "the syscall source neither started nor failed"
grep -q 'Audit source syscall is active' "$T_LOG" || fail "the syscall source is not active: $(grep 'Audit source syscall' "$T_LOG")"
AUD=(org.igmpd1 /org/igmpd1 org.igmpd1.Audit)
expect_out '^as 1 "syscall"$' bctl get-property "${AUD[@]}" Sources
expect_out '"syscall" "active" "tp_btf/sys_enter' bctl get-property "${AUD[@]}" SourceStates
"$IGMPCTL" kernel | grep -E '^syscall +active' || fail "igmpctl kernel: $("$IGMPCTL" kernel)"

# igmpd itself holds no capability for BPF; its helper child does the loading.
capeff=$((16#$(awk '/^CapEff:/ { print $2 }' /proc/"$T_IGMPD_PID"/status)))
info "igmpd CapEff $(printf %x $capeff)"

busctl --system monitor --match "type='signal',interface='org.igmpd1.Audit',member='DeprecatedSysctl'" \
        > "$T_TMP/signals" 2>&1 &
_T_PIDS+=($!)
sleep 0.5

info "syscall(156) from another network namespace, in a child cgroup"
out=$(sh -c 'echo $$ > "$1/cgroup.procs" && exec ip netns exec "$2" "$3" 3.5.16.-2.1' sh "$CG" "$NS2" "$CALL")
pid=$(sed -n 's/^pid \([0-9]*\) .*/\1/p' <<< "$out")
[ -n "$pid" ] || fail "call-sysctl printed '$out'"
WAIT_SECS=5 wait_until "grep -q 'UINT32 $pid;' '$T_TMP/signals'" ||
        fail "no DeprecatedSysctl signal for pid $pid: $(cat "$T_TMP/signals")"
EXE=$(readlink -f "$CALL")
expect_out "\"syscall\" $pid \"call-sysctl\" \"$EXE\" 5 3 5 16 -2 1 \"/proc/sys/net/ipv4/conf/all/forwarding\" 1" \
        bctl call "${AUD[@]}" ListEvents
grep -qE "Deprecated sysctl\(2\) call: process 'call-sysctl' \(pid $pid, exe $EXE\) used 3\.5\.16\.-2\.1\. = /proc/sys/net/ipv4/conf/all/forwarding \(source syscall" "$T_LOG" ||
        fail "no journal line for pid $pid"
info "event for pid $pid with the vector and the path"

info "kill -9 igmpd: nothing of its BPF programs and links is left"
bpf_objects_of "$T_IGMPD_PID" > "$T_TMP/objects"
[ -s "$T_TMP/objects" ] || fail "bpftool shows no BPF program or link held by igmpd (pid $T_IGMPD_PID)"
info "igmpd holds: $(tr '\n' ' ' < "$T_TMP/objects")"
helper=$(sed -n 's/.*BPF helper: child process \([0-9]*\) .*/\1/p' "$T_LOG" | head -n 1)
[ -n "$helper" ] || fail "the log does not name the helper child"
kill -KILL "$T_IGMPD_PID"
wait "$T_IGMPD_PID" 2>/dev/null || true
T_IGMPD_PID=""
WAIT_SECS=20 wait_until "! bpf_objects_exist < '$T_TMP/objects'" ||
        fail "still there after kill -9: $(while read -r k i; do bpftool "$k" show id "$i" 2>&1; done < "$T_TMP/objects")"
WAIT_SECS=20 wait_until "! kill -0 $helper 2>/dev/null" || fail "the BPF helper (pid $helper) outlived igmpd"
echo "PASS: $T_NAME"
