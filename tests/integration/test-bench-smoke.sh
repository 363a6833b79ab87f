#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Smoke test of the benchmark (bench/run.sh --quick): it must run to the end in its throwaway
# namespaces and print every section of the table. No timing is asserted — CI machines are
# noisy; the figures of a quick run mean nothing. What is asserted besides completion: igmpd
# configured every link (cold start, hot-plug), nothing is left behind (namespaces, temp dirs),
# counting only this run's namespaces: other benchmark runs may share the machine.
. "$(dirname "$0")/lib.sh"

BENCH_BIN=${BENCH_BIN:-$(dirname "$IGMPD")/../../bench}
[ -x "$BENCH_BIN/linkbench" ] || fail "benchmark programs not built in $BENCH_BIN"
[ -x "$HELPERS/mcast-join" ] || fail "mcast-join not built in $HELPERS"
command -v python3 > /dev/null || skip "python3 is not installed"

out=$T_TMP/table.md
# run.sh names its namespaces after its pid (igb<PID>-…, igflood-<PID>-…): only those are this
# run's. Other engineers' or CI jobs' benchmark runs may have theirs on the same machine.
BENCH_BIN=$BENCH_BIN MCAST_JOIN=$HELPERS/mcast-join IGMPD=$IGMPD IGMPCTL=$IGMPCTL \
        "$SRCDIR/bench/run.sh" --quick --out "$out" > "$T_TMP/stdout" 2> "$T_TMP/stderr" &
bench_pid=$!
# A namespace named like another run's, made while this one runs, must not count as this run's.
decoy="igb0$$-decoy"
echo "$decoy" >> "$T_TMP/.namespaces"
sleep 1
ip netns add "$decoy" || fail "cannot create the decoy namespace $decoy"
bench_rc=0
wait "$bench_pid" || bench_rc=$?
[ "$bench_rc" = 0 ] || { cat "$T_TMP/stderr" >&2; fail "bench/run.sh --quick failed (exit $bench_rc)"; }
cat "$T_TMP/stdout"

for section in "### 7. Channel change" "### 1. Cold start" "### 2. Hot-plug" "### 3. Memory" "### 4. Idle"; do
        grep -qF "$section" "$T_TMP/stdout" || fail "table has no '$section' section"
done
if command -v dbus-daemon > /dev/null; then
        grep -qF "### 5. D-Bus" "$T_TMP/stdout" || fail "table has no D-Bus section"
        # A measuring program that fails leaves its rows out; say which.
        if grep -q 'dbus-rtt: ' "$T_TMP/stdout" "$T_TMP/stderr"; then
                fail "dbus-rtt failed: $(grep -h 'dbus-rtt: ' "$T_TMP/stdout" "$T_TMP/stderr" | head -n 2)"
        fi
        grep -qF "ListLinksState (igmpctl's bulk read), until the reply is in" "$T_TMP/stdout" ||
                fail "the D-Bus section has no ListLinksState figure"
fi
grep -q 'bench:begin' "$out" || fail "run.sh did not write the table to --out"
grep -q 'NOT all configured' "$T_TMP/stdout" && fail "igmpd left links unconfigured at cold start"
grep -q 'wrong knob values after the run: 0\.' "$T_TMP/stdout" || fail "hot-plug left wrong knob values"
# Every channel-change cell holds joins (the upstream stand-in saw the reports).
grep -qE '^\| IGMPv3 \| 2 \| 0\.1 \| [1-9]' "$T_TMP/stdout" || fail "no channel-change joins were measured"
left=$(ip netns list | awk '{print $1}' | grep -E "^(igb$bench_pid-|igflood-$bench_pid-)" || true)
[ -z "$left" ] || fail "run.sh left network namespaces behind: $left"
info "benchmark smoke run complete"
