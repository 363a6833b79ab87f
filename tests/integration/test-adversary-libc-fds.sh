#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 24, item 1: a local user must not run igmpd out of file descriptors through the libc
# audit source (one uprobe link, one fd, per libc copy probed). igmpd runs with systemd's
# default soft limit of 1024 descriptors.
#  1. nobody maps 60 copies of a fake libc.so.6 (with a hidden sysctl@GLIBC_2.2.5) in each of
#     20 `unshare -Urm` namespaces, 1200 files, then a reload makes the helper look at every
#     process: none of those files is probed (not root's), igmpd's descriptors stay where they
#     were, and the libc source says how many files it refused. The binary before this test
#     (37a5c0a) probed them all and reached 1024 descriptors.
#     Meanwhile links matching a 200 ms policy are configured (5 s bound; the times are printed).
#  2. root (an image or container runtime) maps 40 copies of one content and 60 libc files that
#     differ, in namespaces of the initial user namespace: at most 64 uprobes, of which at most 32
#     on copies of an already probed content; one warning, and igmpctl kernel says the limit is
#     reached; a later distinct libc is still probed before the limit.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
. "$(dirname "$0")/adversary-lib.sh"

ulimit -S -n 1024
adv_start
adv_fake_libc "$ADV_DIR/fake.so"
chmod 0755 "$ADV_DIR/fake.so"
fds0=$(adv_fds)
info "igmpd holds $fds0 descriptors; $(adv_note)"

info "1. nobody: 20 user namespaces mapping 60 copies of a fake libc each"
as_nobody sh -c '
        for r in $(seq 20); do
                p=""
                for i in $(seq 60); do
                        mkdir -p "$1/n$r/$i" && cp "$1/fake.so" "$1/n$r/$i/libc.so.6" && p="$p $1/n$r/$i/libc.so.6"
                done
                unshare -Urm env LD_PRELOAD="$p" sleep 600 &
                echo $! >> "$2"
        done' sh "$ADV_DIR" "$ADV_PIDS"
last=$(tail -n 1 "$ADV_PIDS")
WAIT_SECS=30 wait_until "[ \$(grep -c '/n20/.*libc.so.6' /proc/$last/maps 2>/dev/null || echo 0) -ge 60 ]" ||
        fail "the last nobody process does not map its 60 copies"
for i in 1 2 3; do
        info "link adv$i configured in $(adv_link "adv$i") ms while the copies are mapped"
done
# Not "the count of rescans grew": rescans of other new namespaces (the test's own commands,
# under a slow sanitizer build) end meanwhile, one may have been under way before the reload.
adv_sweep
fds1=$(adv_fds)
info "after the sweep: $fds1 descriptors (before: $fds0); $(adv_note)"
grep -q 'probing sysctl@GLIBC_2.2.5 in .*/n[0-9]*/' "$T_LOG" && fail "igmpd probes a file nobody made: $(grep -m1 'probing .*/n[0-9]*/' "$T_LOG")"
[ "$fds1" -le $((fds0 + 4)) ] || fail "igmpd's descriptors grew from $fds0 to $fds1"
adv_note | grep -qE '[0-9]+ files refused unread' || fail "the refused files are not listed: $(adv_note)"
info "link adv4 configured in $(adv_link adv4) ms after the sweep"

info "2. root: 40 copies of one content, then 60 distinct libc files, in namespaces of the initial user namespace"
mkdir -p "$T_TMP/root"
for i in $(seq 100); do
        mkdir -p "$T_TMP/root/$i"
        cp "$ADV_DIR/fake.so" "$T_TMP/root/$i/libc.so.6"
        [ "$i" -le 40 ] || printf '%d' "$i" >> "$T_TMP/root/$i/libc.so.6" # another content
        chmod 0644 "$T_TMP/root/$i/libc.so.6"
done
# 8 files a process (the helper looks at up to 8 libc mappings of each).
for g in $(seq 0 12); do
        p=""
        for i in $(seq $((g * 8 + 1)) $((g * 8 + 8))); do
                [ "$i" -le 100 ] && p="$p $T_TMP/root/$i/libc.so.6"
        done
        adv_bg unshare -m env LD_PRELOAD="$p" sleep 600
done
WAIT_SECS=60 wait_until "adv_note | grep -q 'at its limit of 64'" || fail "the cap is not reported: $(adv_note)"
sleep 2 # rescans still under way would show more probes now
fds2=$(adv_fds)
probes=$(grep -c 'Audit source libc: probing sysctl' "$T_LOG")
copies=$(grep -cE 'probing sysctl@GLIBC_2.2.5 in .*/root/([1-9]|[1-3][0-9]|40)/libc' "$T_LOG" || true)
info "$probes probes ($copies of them on copies of one content), $fds2 descriptors; $(adv_note)"
[ "$probes" -eq 64 ] || fail "expected 64 uprobes (the cap), igmpd logged $probes"
[ "$copies" -le 33 ] || fail "copies of one content took $copies of the 64 uprobes (at most 32 + the first)"
[ "$fds2" -le $((fds0 + 64)) ] || fail "igmpd holds $fds2 descriptors, more than $fds0 + 64"
[ "$(grep -c 'its limit: further copies are not probed' "$T_LOG")" -eq 1 ] ||
        fail "expected one warning about the limit: $(grep -c 'its limit' "$T_LOG")"
"$IGMPCTL" kernel | grep -q 'at its limit of 64: further libc copies are not probed' ||
        fail "igmpctl kernel does not show the limit: $("$IGMPCTL" kernel)"
info "link adv5 configured in $(adv_link adv5) ms at the cap"
kill -0 "$T_IGMPD_PID" || fail "igmpd died"
echo "PASS: $T_NAME"
