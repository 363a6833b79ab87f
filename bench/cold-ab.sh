#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Cold start of two igmpd binaries side by side, interleaved with the floor: section 1 of
# bench/run.sh (same policy, same links, knobs reset before every start, notify-run timing
# exec → READY=1, the floor exec → exit), but A, B and the floor take turns within each
# repetition (order rotated), so that a busy machine slows all three alike. Also prints the CPU
# time each used up to that point: igmpd's from /proc/PID/schedstat read at READY=1, the
# floor's from perf stat (task-clock), when perf is there. Needs root; a throwaway namespace per
# size (igab<pid>-N); the config root is on /dev/shm (tmpfs, like /run: the originals record's
# fsync costs nothing there, as in bench/run.sh).
#
#   bench/cold-ab.sh [--repeat R] [--sizes "500 4000 8000"] [--build DIR] IGMPD_A IGMPD_B
#
# Prints per size the medians, "B / A", and the raw figures.
set -uo pipefail

SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD_DIR:-$SRCDIR/build}
REPEAT=9 SIZES="500 4000 8000"
while [ $# -gt 2 ]; do
        case $1 in
        --repeat) REPEAT=$2; shift 2 ;;
        --sizes) SIZES=$2; shift 2 ;;
        --build) BUILD=$2; shift 2 ;;
        *) echo "cold-ab.sh: unknown option $1" >&2; exit 2 ;;
        esac
done
[ $# = 2 ] || { sed -n '3,14p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
A=$(realpath "$1") B=$(realpath "$2")
BIN=$BUILD/bench
[ "$(id -u)" = 0 ] || { echo "cold-ab.sh: needs root" >&2; exit 1; }
for f in "$A" "$B" "$BIN/floor" "$BIN/notify-run" "$BIN/linkbench"; do
        [ -x "$f" ] || { echo "cold-ab.sh: $f not found" >&2; exit 1; }
done

TMP=$(mktemp -d /tmp/igmpd-cold-ab.XXXXXX)
ROOT=/dev/shm/igmpd-cold-ab-$$
NSP=igab$$
cleanup() {
        for ns in $(ip netns list | awk '{print $1}' | grep "^$NSP-"); do
                ip netns pids "$ns" 2> /dev/null | xargs -r kill -KILL 2> /dev/null
                ip netns del "$ns"
        done
        rm -rf "$TMP" "$ROOT"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/igmpd-cold-ab-$$-nobus/socket

# The policy of bench/run.sh: 2 IPv4 + 2 IPv6 knobs on every link, no drift watch.
mkdir -p "$ROOT/etc/igmpd/conf.d" "$ROOT/etc/igmpd/igmpd.conf.d"
printf '[Daemon]\nDriftWatch=no\n' > "$ROOT/etc/igmpd/igmpd.conf.d/00-bench.conf"
printf '[IGMP]\nV2UnsolicitedReportInterval=200\nV3UnsolicitedReportInterval=200\n[MLD]\nV1UnsolicitedReportInterval=200\nV2UnsolicitedReportInterval=200\n' \
        > "$ROOT/etc/igmpd/conf.d/50-bench.conf"
HAVE_PERF=0
command -v perf > /dev/null && perf stat -e task-clock -o /dev/null true 2> /dev/null && HAVE_PERF=1

echo "# $(date -u +%FT%TZ), kernel $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $REPEAT repetitions"
echo "# A = $A"
echo "# B = $B"
for N in $SIZES; do
        P=$((N / 2)) NS=$NSP-$N
        ip netns add "$NS" && ip -n "$NS" link set lo up || exit 1
        ip netns exec "$NS" "$BIN/linkbench" create c 0 "$P" > /dev/null || { echo "link creation failed" >&2; exit 1; }
        for ((i = 0; i < P; i++)); do echo "c${i}a"; echo "c${i}b"; done > "$TMP/names"
        rm -rf "$ROOT/run"
        reset_knobs() { ip netns exec "$NS" "$BIN/floor" -v 1000 "$TMP/names" > /dev/null; }
        # run_igmpd BIN: prints "WALL_US CPU_US". notify-run -k waits for READY=1 itself, reads
        # igmpd's CPU time and stops it: nothing polls while igmpd starts (a shell loop polling
        # for the ready line competed with igmpd for the 2 CPUs and skewed igmpd ÷ floor).
        run_igmpd() {
                local line us cpu
                ip netns exec "$NS" env -u WATCHDOG_USEC SYSTEMD_LOG_TARGET=console SYSTEMD_LOG_LEVEL=info \
                        "$BIN/notify-run" -k "$TMP/n.sock" "$1" --config-root "$ROOT" > "$TMP/out" 2> "$TMP/log"
                line=$(grep '^ready' "$TMP/out")
                read -r _ us _ cpu <<< "$line"
                [ -n "${cpu:-}" ] || { echo "cold-ab.sh: $1 did not become ready: $(tail -3 "$TMP/log")" >&2; exit 1; }
                grep -q "Configured $N of $N links" "$TMP/log" ||
                        echo "# warning: $1: $(grep Configured "$TMP/log")" >&2
                echo "$us ${cpu:-0}"
        }
        run_floor() {
                local cpu=0
                if [ $HAVE_PERF = 1 ]; then
                        ip netns exec "$NS" perf stat -x, -e task-clock -o "$TMP/perf" \
                                "$BIN/notify-run" -e "$TMP/n.sock" "$BIN/floor" "$TMP/names" > "$TMP/f.out"
                        cpu=$(awk -F, '/task-clock/{print int($1 * 1000)}' "$TMP/perf")
                else
                        ip netns exec "$NS" "$BIN/notify-run" -e "$TMP/n.sock" "$BIN/floor" "$TMP/names" > "$TMP/f.out"
                fi
                echo "$(awk '/^exit/{print $2}' "$TMP/f.out") $cpu"
        }
        # One start of each first: the later ones read the originals record the previous left,
        # as in bench/run.sh.
        reset_knobs; run_igmpd "$A" > /dev/null
        reset_knobs; run_igmpd "$B" > /dev/null
        : > "$TMP/res"
        for ((r = 0; r < REPEAT; r++)); do
                for k in 0 1 2; do
                        reset_knobs
                        case $(((k + r) % 3)) in
                        0) echo "floor $(run_floor)" ;;
                        1) echo "A $(run_igmpd "$A")" ;;
                        2) echo "B $(run_igmpd "$B")" ;;
                        esac >> "$TMP/res"
                done
        done
        python3 - "$N" "$TMP/res" "$HAVE_PERF" <<'PY'
import statistics as st
import sys

n, path, have_perf = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
wall, cpu = {}, {}
for line in open(path):
    k, w, c = line.split()
    wall.setdefault(k, []).append(int(w) / 1000)
    cpu.setdefault(k, []).append(int(c) / 1000)
m = {k: st.median(v) for k, v in wall.items()}
c = {k: st.median(v) for k, v in cpu.items()}
print(f"{n} links, wall (median of {len(wall['floor'])}): floor {m['floor']:.1f} ms, "
      f"A {m['A']:.1f} ms = {m['A'] / m['floor']:.2f}x, B {m['B']:.1f} ms = {m['B'] / m['floor']:.2f}x, "
      f"B/A {m['B'] / m['A']:.3f}")
if have_perf:
    print(f"{n} links, CPU: floor {c['floor']:.1f} ms, A {c['A']:.1f} ms = {c['A'] / c['floor']:.2f}x, "
          f"B {c['B']:.1f} ms = {c['B'] / c['floor']:.2f}x, B/A {c['B'] / c['A']:.3f}")
for k in ("floor", "A", "B"):
    print(f"  {k:5} wall " + " ".join(f"{x:.0f}" for x in wall[k]) + " | cpu " + " ".join(f"{x:.0f}" for x in cpu[k]))
PY
        ip netns pids "$NS" | xargs -r kill -KILL 2> /dev/null
        ip netns del "$NS"
done
echo "# end $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
