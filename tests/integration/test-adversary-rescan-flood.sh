#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 24, item 3: a local user must not be able to start privileged rescans. nobody runs
# `unshare -Urm true` in a loop for 10 s: the exec watch reports none of those namespaces
# (owned by a user namespace other than the initial one), so igmpd asks the helper about none of
# their processes, and rescans stay within the global rate (one a second: other tests' root
# namespaces may cause some). The binary before this test (37a5c0a) made 43 helper runs in 10 s.
# Meanwhile a link matching a 200 ms policy is configured (5 s bound). Then a root namespace
# is still looked at (a copy of libc bind-mounted over the system's is probed).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
. "$(dirname "$0")/adversary-lib.sh"

adv_start
r0=$(adv_rescans)
info "before the flood: $(adv_note)"
as_nobody sh -c 'end=$(($(date +%s) + 10)); while [ "$(date +%s)" -lt "$end" ]; do unshare -Urm sh -c "echo \$\$" ; done' \
        > "$ADV_DIR/flood" 2>&1 &
flood=$!
echo "$flood" >> "$ADV_PIDS"
for i in 1 2 3; do
        sleep 1
        info "link adv$i configured in $(adv_link "adv$i") ms during the flood"
done
wait "$flood" || true
sleep 2 # a rescan the flood started would end now
r1=$(adv_rescans)
n=$(wc -l < "$ADV_DIR/flood")
info "the flood made $n user namespaces; rescans during it: $((r1 - r0)); $(adv_note)"
[ "$n" -ge 20 ] || fail "the flood ran only $n times: $(tail -n 3 "$ADV_DIR/flood")"
hits=0
while read -r pid; do
        grep -q "pid $pid started in a new root" "$T_LOG" && hits=$((hits + 1))
done < <(grep -E '^[0-9]+$' "$ADV_DIR/flood")
[ "$hits" -eq 0 ] || fail "igmpd asked the helper about $hits of the $n processes in nobody's namespaces"
[ $((r1 - r0)) -le 13 ] || fail "$((r1 - r0)) rescans in about 12 s: more than one a second"

info "a root namespace is still looked at"
LIBC=$(readlink -f "$("$HELPERS/call-libc-sysctl" 1 --print-libc | sed -n 's/^libc //p')")
cp "$LIBC" "$T_TMP/libc.so.6"
adv_bg unshare -m --propagation private sh -c 'mount --bind "$1" "$2" && exec sleep 600' sh "$T_TMP/libc.so.6" "$LIBC"
pid=$(tail -n 1 "$ADV_PIDS")
WAIT_SECS=30 wait_until "grep -qE 'probing sysctl@GLIBC_2.2.5 in .*libc.so.6 \((root of|mapped by) pid $pid\)' '$T_LOG'" ||
        fail "the copy in a root namespace was not probed: $(adv_note)"
echo "PASS: $T_NAME"
