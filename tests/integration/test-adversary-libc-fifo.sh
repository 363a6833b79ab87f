#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 24, item 2: no file a process shows the helper may hang it. After each of these the
# helper still answers (a copy of libc bind-mounted in a new root namespace is probed) without
# having been killed for not answering, and a link matching a 200 ms policy is configured:
#  1. nobody, in `unshare -Urm`, mounts a directory with a FIFO named libc.so.6 over /usr/lib64
#     (the exec watch leaves that namespace out altogether);
#  2. root does the same in `unshare -m` (a namespace of the initial user namespace, which the
#     helper does look at): the FIFO is refused unopened (O_PATH, not a regular file);
#  3. root runs a program chrooted into a directory whose lib/x86_64-linux-gnu/libc.so.6 is an
#     absolute symlink to a FIFO that exists only outside it: resolved inside the chroot
#     (RESOLVE_IN_ROOT), it leads nowhere.
# The binary before this test (37a5c0a) opened the FIFO with open() and hung for good at 1.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
. "$(dirname "$0")/adversary-lib.sh"

adv_start
helper0=$(adv_helper)
LIBC=$(readlink -f "$("$HELPERS/call-libc-sysctl" 1 --print-libc | sed -n 's/^libc //p')")
[ -f "$LIBC" ] || skip "cannot tell which libc the test program uses"
LDSO=$(readlink -f /lib64/ld-linux-x86-64.so.2)
n_check=0

# The helper still answers: a fresh copy of libc in a new root namespace gets probed.
helper_answers() {
        local pid
        n_check=$((n_check + 1))
        cp "$LIBC" "$T_TMP/libc-$n_check.so.6"
        adv_bg unshare -m --propagation private sh -c 'mount --bind "$1" "$2" && exec sleep 600' sh \
                "$T_TMP/libc-$n_check.so.6" "$LIBC"
        pid=$(tail -n 1 "$ADV_PIDS")
        WAIT_SECS=40 wait_until "grep -qE 'probing sysctl@GLIBC_2.2.5 in .*libc.so.6 \\((root of|mapped by) pid $pid\\)' '$T_LOG'" ||
                fail "$1: the helper no longer answers (a libc copy in a new namespace is not probed): $(adv_note)"
        grep -q 'did not answer within' "$T_LOG" && fail "$1: the helper had to be killed: $(grep 'did not answer' "$T_LOG")"
        info "$1: the helper (pid $(adv_helper), first $helper0) still answers; link configured in $(adv_link "adv$n_check") ms"
}

# A directory to mount over /usr/lib64: the dynamic loader (so that programs still start) and
# a FIFO named libc.so.6.
mkdir -p "$ADV_DIR/lib64"
ln -s "$LDSO" "$ADV_DIR/lib64/ld-linux-x86-64.so.2"
mkfifo "$ADV_DIR/lib64/libc.so.6"
chmod 0666 "$ADV_DIR/lib64/libc.so.6"

info "1. nobody: a FIFO named libc.so.6 mounted over /usr/lib64 in a user namespace"
as_nobody sh -c 'unshare -Urm sh -c "mount --bind \"\$1\" /usr/lib64 && exec sleep 600" sh "$1" & echo $! >> "$2"' \
        sh "$ADV_DIR/lib64" "$ADV_PIDS"
pid=$(tail -n 1 "$ADV_PIDS")
WAIT_SECS=10 wait_until "[ -p /proc/$pid/root/usr/lib64/libc.so.6 ]" || fail "nobody's namespace did not get the FIFO"
helper_answers "1 (nobody)"

info "2. root: the same in a namespace of the initial user namespace"
adv_bg unshare -m --propagation private sh -c 'mount --bind "$1" /usr/lib64 && exec sleep 600' sh "$ADV_DIR/lib64"
pid=$(tail -n 1 "$ADV_PIDS")
WAIT_SECS=30 wait_until "grep -q 'Not reading /lib64/libc.so.6 (root of pid $pid): not a regular file' '$T_LOG'" ||
        fail "the helper did not refuse the FIFO in pid $pid's namespace: $(adv_note)"
helper_answers "2 (root, FIFO)"

info "3. root: a chroot whose libc.so.6 is an absolute symlink to a FIFO outside it"
mkfifo "$T_TMP/outside-fifo"
mkdir -p "$T_TMP/chroot/lib/x86_64-linux-gnu"
ln -s "$T_TMP/outside-fifo" "$T_TMP/chroot/lib/x86_64-linux-gnu/libc.so.6"
printf '#include <unistd.h>\nint main(void) { pause(); return 0; }\n' > "$T_TMP/pause.c"
gcc -static -o "$T_TMP/chroot/pause" "$T_TMP/pause.c" || skip "cannot link a static program (libc6-dev's libc.a)"
adv_bg chroot "$T_TMP/chroot" /pause
pid=$(tail -n 1 "$ADV_PIDS")
WAIT_SECS=30 wait_until "grep -q 'pid $pid started in a new root' '$T_LOG'" || fail "the chroot was not reported"
helper_answers "3 (root, chroot)"
[ "$(adv_helper)" = "$helper0" ] || fail "the helper was replaced ($helper0, now $(adv_helper))"
echo "PASS: $T_NAME"
