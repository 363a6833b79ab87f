#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The test library's own answers must not depend on the machine's load. igmpd_linked_with used
# to be `ldd … | grep -q libasan` under pipefail, which fails whenever grep exits before ldd's
# last write: in an ASan build (scripts/test-sanitizers.sh) 47 of 300 calls said "not ASan" on a
# loaded machine, and the soak then compared RSS under ASan's quarantine ("RSS grew by 70444
# KiB"). Asks 50 times and wants the same answer every time, while a busy loop loads a CPU.
. "$(dirname "$0")/lib.sh"

libs=$(ldd "$IGMPD" 2>/dev/null) || true
want=no
[[ $libs == *libasan* ]] && want=yes
for _ in 1; do
        ( while :; do :; done ) &
        _T_PIDS+=("$!")
done
for i in $(seq 50); do
        got=no
        igmpd_linked_with libasan && got=yes
        [ "$got" = "$want" ] || fail "igmpd_linked_with libasan said $got on call $i, ldd says $want"
done
echo "PASS: $T_NAME (ASan build: $want; 50 calls agreed)"
