#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Link configuration never waits for the BPF helper, and the audit recovers from a helper that
# is hung, dead or starved of descriptors (issue 24):
#  1. hung (SIGSTOP) while it has a rescan to do: links matching a 200 ms policy are configured
#     (5 s bound); igmpd gives up on it after 20 s, kills it and starts a new one for a later
#     rescan; no stopped helper is left;
#  2. dead (SIGKILL): the same, without the wait;
#  3. igmpd short of descriptors (RLIMIT_NOFILE lowered under it to 60 above what it holds)
#     while root namespaces map 60 libc files (a fake libc, each with other content): the
#     helper's replies are refused with a clear message, igmpd takes no descriptor more (not
#     even for a moment: the count is taken while refused replies keep coming), also after a
#     reload offers all of them in one reply; links are configured.
# The binary before this test (37a5c0a) never started a new helper (1, 2: "cannot rescan or
# restart until igmpd is restarted"), left the stopped one behind, and took descriptors up to
# the limit (3: links were then left unconfigured). The binary before bpf_protocol_recv_room
# took a refused reply's descriptors in and closed them at once: a count taken meanwhile showed
# them (test-bpf-helper-client.c shows it every time).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
. "$(dirname "$0")/adversary-lib.sh"

adv_start
LIBC=$(readlink -f "$("$HELPERS/call-libc-sysctl" 1 --print-libc | sed -n 's/^libc //p')")
[ -f "$LIBC" ] || skip "cannot tell which libc the test program uses"
n_copy=0

# A fresh copy of libc in a new root namespace: the exec watch asks for a rescan. Its process
# is the last line of $ADV_PIDS.
new_copy() {
        n_copy=$((n_copy + 1))
        cp "$LIBC" "$T_TMP/libc-$n_copy.so.6"
        adv_bg unshare -m --propagation private sh -c 'mount --bind "$1" "$2" && exec sleep 600' sh \
                "$T_TMP/libc-$n_copy.so.6" "$LIBC"
}

# Until a copy is probed: the helper (a new one if need be) answers again. Another copy every 5 s
# (a rescan that fails is not retried by itself: the next namespace asks again).
expect_rescans() {
        local i pid
        for i in $(seq 12); do
                new_copy
                pid=$(tail -n 1 "$ADV_PIDS")
                WAIT_SECS=5 wait_until "grep -qE 'probing sysctl@GLIBC_2.2.5 in .*\\((root of|mapped by) pid $pid\\)' '$T_LOG'" &&
                        return 0
        done
        fail "$1: no rescan works any more: $(grep -E 'BPF helper|Audit source libc' "$T_LOG" | tail -n 5)"
}

info "1. the helper hung with a rescan to do"
h1=$(adv_helper)
[ -n "$h1" ] || fail "igmpd has no helper child"
kill -STOP "$h1"
new_copy
t0=$SECONDS
for i in 1 2 3; do
        info "link adv$i configured in $(adv_link "adv$i") ms while the helper is stopped"
done
WAIT_SECS=40 wait_until "grep -q 'did not answer within 20 s' '$T_LOG'" || fail "igmpd still waits for the stopped helper"
info "igmpd gave up on the stopped helper after about $((SECONDS - t0)) s"
WAIT_SECS=10 wait_until "! kill -0 $h1 2>/dev/null" || fail "the stopped helper (pid $h1) is still there"
expect_rescans "after a hung helper"
h2=$(adv_helper)
info "a new helper (pid $h2) answers: $(grep -m1 'Started a new BPF helper' "$T_LOG")"

info "2. the helper killed"
kill -KILL "$h2"
WAIT_SECS=10 wait_until "grep -q 'BPF helper (pid $h2) was killed by signal 9' '$T_LOG'" || fail "igmpd did not notice the helper's death"
info "link adv4 configured in $(adv_link adv4) ms with the helper dead"
expect_rescans "after a killed helper"

info "3. igmpd short of descriptors"
adv_fake_libc "$T_TMP/fake.so"
fds=$(adv_fds)
limit=$((fds + 60))
check_fds() {
        local now
        now=$(adv_fds)
        [ "$now" -le $((fds + 2)) ] || fail "igmpd holds $now descriptors $1 (limit $limit, $fds before): $(adv_fd_list)"
}
prlimit --pid "$T_IGMPD_PID" --nofile="$limit:$limit"
for g in 1 2 3 4 5 6; do
        p=""
        for i in $(seq 10); do
                mkdir -p "$T_TMP/fd/$g/$i"
                cp "$T_TMP/fake.so" "$T_TMP/fd/$g/$i/libc.so.6"
                printf '%d' "$g$i" >> "$T_TMP/fd/$g/$i/libc.so.6" # another content each
                p="$p $T_TMP/fd/$g/$i/libc.so.6"
        done
        adv_bg unshare -m env LD_PRELOAD="$p" sleep 600
done
WAIT_SECS=30 wait_until "grep -q 'short of file descriptors' '$T_LOG'" || fail "igmpd did not refuse a reply: $(adv_note)"
info "$(grep -m1 'short of file descriptors' "$T_LOG")"
check_fds "after the first refusal"
# A sweep offers every file in one reply (8 a process, 48 descriptors).
adv_sweep
check_fds "after the sweep"
for i in 5 6 7; do
        info "link adv$i configured in $(adv_link "adv$i") ms with $(adv_fds) of $limit descriptors in use"
        check_fds "after link adv$i"
done
echo "PASS: $T_NAME"
