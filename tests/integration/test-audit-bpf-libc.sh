#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The BPF audit source "libc" (on by default): glibc ≥ 2.32 answers a legacy program's sysctl()
# (the compat symbol sysctl@GLIBC_2.2.5) with ENOSYS inside libc, no system call: only a uprobe
# on that symbol sees it.
#  1. A program linked against sysctl@GLIBC_2.2.5 asks for {3,5,16,-2,1}: a DeprecatedSysctl
#     signal and a ListEvents entry with source "libc", pid, comm, exe, the vector and
#     /proc/sys/net/ipv4/conf/all/forwarding.
#  2. The same through a second copy of libc (another inode) bind-mounted over the system's in
#     another mount namespace: the exec watch reports the new namespace, the helper finds and
#     probes the copy, and the call is seen. Just before, a short-lived namespace runs ten
#     programs and goes: the kernel gives its inode number to the caller's namespace at once
#     (checked; retried if another namespace took it), and the new namespace must not inherit
#     the gone one's reports (the binary before 2026-12-04 did, and never saw the copy when
#     parallel tests' `ip netns exec` namespaces had used the number up).
#  3. kill -9 igmpd: none of its BPF programs or links (uprobes included) is left.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"

CALL=$HELPERS/call-libc-sysctl
[ -x "$CALL" ] || fail "helper missing: $CALL"
bpf_require
command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"
LIBC=$("$CALL" 1 --print-libc | sed -n 's/^libc //p')
LIBC=$(readlink -f "$LIBC")
[ -f "$LIBC" ] || skip "cannot tell which libc the test program uses"
"$CALL" 1 | grep -q 'errno 38' || skip "this libc's sysctl@GLIBC_2.2.5 is not the ENOSYS compat stub (glibc < 2.32?)"
hostwide_lock

dbus_start
mkdir -p "$T_ROOT/etc/igmpd"
cat > "$T_ROOT/etc/igmpd/igmpd.conf" <<'CONF'
[Daemon]
NetworkManager=no
CONF

NS=$(ns_new l)
igmpd_start "$NS"
igmpd_wait_bus
WAIT_SECS=60 wait_until "grep -qE 'Audit source libc is (active|not active)' '$T_LOG'" ||
        fail "the libc source neither started nor failed"
grep -q 'Audit source libc is active' "$T_LOG" || fail "the libc source is not active: $(grep 'Audit source libc' "$T_LOG")"
AUD=(org.igmpd1 /org/igmpd1 org.igmpd1.Audit)
expect_out '"libc"' bctl get-property "${AUD[@]}" Sources
expect_out '"libc" "active" "uprobe on sysctl@GLIBC_2.2.5 in [1-9]' bctl get-property "${AUD[@]}" SourceStates

busctl --system monitor --match "type='signal',interface='org.igmpd1.Audit',member='DeprecatedSysctl'" \
        > "$T_TMP/signals" 2>&1 &
_T_PIDS+=($!)
sleep 0.5

# expect_event PID: the signal and the history entry for a call of {3,5,16,-2,1} by PID.
EXE=$(readlink -f "$CALL")
expect_event() {
        local pid=$1 t0=$2 t1
        WAIT_SECS=10 wait_until "grep -q 'UINT32 $pid;' '$T_TMP/signals'" ||
                fail "no DeprecatedSysctl signal for pid $pid: $(cat "$T_TMP/signals")"
        t1=$(date +%s%N)
        info "signal for pid $pid $(((t1 - t0) / 1000000)) ms after the call (as seen by polling busctl monitor)"
        expect_out "\"libc\" $pid \"call-libc-sysct\" \"$EXE\" 5 3 5 16 -2 1 \"/proc/sys/net/ipv4/conf/all/forwarding\" 1" \
                bctl call "${AUD[@]}" ListEvents
        grep -qE "Deprecated sysctl\(2\) call: process 'call-libc-sysct' \(pid $pid, exe $EXE\) used 3\.5\.16\.-2\.1\. = /proc/sys/net/ipv4/conf/all/forwarding \(source libc" "$T_LOG" ||
                fail "no journal line for pid $pid"
}

info "1. a compat sysctl() call through the system's libc ($LIBC)"
t0=$(date +%s%N)
out=$("$CALL" 3.5.16.-2.1)
pid=$(sed -n 's/^pid \([0-9]*\) .*/\1/p' <<< "$out")
grep -q 'errno 38' <<< "$out" || fail "call-libc-sysctl: $out"
expect_event "$pid" "$t0"

info "2. the same through a copy of libc bind-mounted over it in another mount namespace"
mkdir "$T_TMP/copy"
cp "$LIBC" "$T_TMP/copy/libc.so.6"
[ "$(stat -c %i "$T_TMP/copy/libc.so.6")" != "$(stat -L -c %i "$LIBC")" ] || fail "the copy has the same inode"
# The caller maps the copy, says "ready", and calls only once $T_TMP/go exists.
reused=""
for attempt in 1 2 3 4 5; do
        # The exec watch reports a namespace's first 8 exec()s: these use them all up.
        gone=$(unshare -m --propagation private sh -c 'readlink /proc/self/ns/mnt; for i in 1 2 3 4 5 6 7 8 9; do true; /bin/true; done')
        t_ns=$(date +%s%N)
        unshare -m --propagation private sh -c 'mount --bind "$1" "$2" && exec "$3" 3.5.16.-2.1 --wait-for "$4" --print-libc' \
                sh "$T_TMP/copy/libc.so.6" "$LIBC" "$CALL" "$T_TMP/go" > "$T_TMP/copy.out" 2>&1 &
        COPY_PID=$!
        _T_PIDS+=("$COPY_PID")
        WAIT_SECS=20 wait_until "grep -q '^ready' '$T_TMP/copy.out'" || fail "the caller in the new namespace did not start: $(cat "$T_TMP/copy.out")"
        pid2=$(sed -n 's/^ready \([0-9]*\)$/\1/p' "$T_TMP/copy.out")
        [ "$(readlink "/proc/$pid2/ns/mnt")" = "$gone" ] && { reused=$gone; break; }
        [ "$attempt" = 5 ] && break # the rest of the section needs a live caller, reused or not
        kill "$COPY_PID"; wait "$COPY_PID" 2>/dev/null || true
done
[ -n "$reused" ] && info "the caller's namespace has the number of one gone a moment before ($reused, attempt $attempt)" ||
        info "the caller's namespace never got a gone one's number in 5 attempts (others took it): not exercised"
copy_ino=$(stat -c %i "$T_TMP/copy/libc.so.6")
awk -v ino="$copy_ino" '$5 == ino && $2 ~ /x/ { found = 1 } END { exit !found }' /proc/"$pid2"/maps ||
        fail "pid $pid2 does not map the copy (inode $copy_ino): $(grep libc /proc/"$pid2"/maps)"
WAIT_SECS=30 wait_until "grep -qE 'Audit source libc: probing sysctl@GLIBC_2.2.5 in .*(pid $pid2)' '$T_LOG'" ||
        fail "igmpd did not probe the copy mapped by pid $pid2: $(grep 'Audit source libc' "$T_LOG")"
info "the copy (inode $copy_ino) is probed $((($(date +%s%N) - t_ns) / 1000000)) ms after the namespace was made (polled): $(grep -E "probing .*pid $pid2" "$T_LOG" | head -n 1)"
t0=$(date +%s%N)
touch "$T_TMP/go"
wait "$COPY_PID" || fail "the caller in the new namespace failed: $(cat "$T_TMP/copy.out")"
grep -q "^pid $pid2 result -1 errno 38" "$T_TMP/copy.out" || fail "caller: $(cat "$T_TMP/copy.out")"
expect_event "$pid2" "$t0"

info "3. kill -9 igmpd: nothing of its BPF programs and links is left"
bpf_objects_of "$T_IGMPD_PID" > "$T_TMP/objects"
[ "$(grep -c '^link' "$T_TMP/objects")" -ge 3 ] ||
        fail "expected the exec watch and two uprobe links, igmpd holds: $(tr '\n' ' ' < "$T_TMP/objects")"
info "igmpd holds: $(tr '\n' ' ' < "$T_TMP/objects")"
helper=$(sed -n 's/.*BPF helper: child process \([0-9]*\) .*/\1/p' "$T_LOG" | head -n 1)
kill -KILL "$T_IGMPD_PID"
wait "$T_IGMPD_PID" 2>/dev/null || true
T_IGMPD_PID=""
WAIT_SECS=20 wait_until "! bpf_objects_exist < '$T_TMP/objects'" ||
        fail "still there after kill -9: $(while read -r k i; do bpftool "$k" show id "$i" 2>&1; done < "$T_TMP/objects")"
[ -z "$helper" ] || WAIT_SECS=20 wait_until "! kill -0 $helper 2>/dev/null" || fail "the BPF helper (pid $helper) outlived igmpd"
echo "PASS: $T_NAME"
