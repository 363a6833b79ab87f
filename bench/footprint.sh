#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Footprint of igmpd per target (BENCHMARKS.md, "Footprint"): stripped sizes of igmpd, igmpctl
# and igmpd-bpf, their shared library closure, and igmpd's memory with N links on a private bus.
# Needs root (network namespaces). Prints markdown.
#
#   bench/footprint.sh [--links "8 1000"] [BUILD_DIR...]   (default: build build-arm64 build-armhf)
#
# A build of this machine's architecture runs natively: VmRSS, RssAnon, RssFile and Pss of igmpd.
# An arm build runs under qemu-user, and the qemu process's own memory (emulator, translated
# code: ≈ 11 MiB) is not igmpd's: qemu is told to put all guest memory in one window of its
# address space (-B base, and -R 4 GiB for a 64-bit guest; a 32-bit one gets 4 GiB anyway), and
# only the mappings inside that window are summed. Guest code pages count when qemu has read
# them to translate them, which is close to the pages a native run executes.
#
# igmpd runs with one policy file for every link (two knobs), DriftWatch=no, AuditSources=none
# (no BPF under qemu; the audit history is not link memory), in a throwaway namespace with N
# links (veth pairs), on its own dbus-daemon; memory is read once it owns org.igmpd1 and has
# settled. ARMHF_SYSROOT: the armhf sysroot (default: scripts/cross-build.sh's).
set -euo pipefail

SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LINKS="8 1000"
ARMHF_SYSROOT=${ARMHF_SYSROOT:-/var/cache/igmpd-cross/armhf/sysroot}
GUEST_BASE=0x100000000000
GUEST_SIZE=0x100000000
builds=()
while [ $# -gt 0 ]; do
        case $1 in
        --links) LINKS=$2; shift ;;
        -h|--help) sed -n '3,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) builds+=("$1") ;;
        esac
        shift
done
if [ ${#builds[@]} -eq 0 ]; then
        for b in build build-arm64 build-armhf; do
                [ -x "$SRCDIR/$b/src/daemon/igmpd" ] && builds+=("$SRCDIR/$b")
        done
fi
[ "$(id -u)" = 0 ] || { echo "footprint.sh: needs root (network namespaces)" >&2; exit 1; }

. "$SRCDIR/scripts/private-bus.sh"
TMP=$(mktemp -d /tmp/igmpd-footprint.XXXXXX)
NS=""
PIDS=()
cleanup() {
        for p in "${PIDS[@]}"; do kill "$p" 2> /dev/null || true; done
        for p in "${PIDS[@]}"; do wait "$p" 2> /dev/null || true; done
        [ -z "$NS" ] || ip netns del "$NS" 2> /dev/null || true
        rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# What a build is: "x86_64", "aarch64" or "arm" (from igmpd's ELF header).
arch_of() {
        case $(readelf -h "$1" | sed -n 's/^ *Machine: *//p') in
        *X86-64*) echo x86_64 ;;
        AArch64) echo aarch64 ;;
        ARM) echo arm ;;
        *) echo unknown ;;
        esac
}

# binutils for ARCH: tool_for ARCH strip|size
tool_for() {
        case $1 in
        aarch64) echo "aarch64-linux-gnu-$2" ;;
        arm) echo "arm-linux-gnueabihf-$2" ;;
        *) echo "$2" ;;
        esac
}

# The command that runs a program of ARCH here (empty: natively), and for the memory window.
runner() {
        case $1 in
        aarch64) echo "qemu-aarch64-static -B $GUEST_BASE -R $GUEST_SIZE" ;;
        arm) echo "qemu-arm-static -L $ARMHF_SYSROOT -B $GUEST_BASE" ;;
        *) echo "" ;;
        esac
}

# The dynamic loader's own list of a program's libraries (ld.so --list, which ldd runs).
closure() {
        local arch=$1 bin=$2
        case $arch in
        aarch64) qemu-aarch64-static /lib/ld-linux-aarch64.so.1 --list "$bin" ;;
        arm) qemu-arm-static -L "$ARMHF_SYSROOT" "$ARMHF_SYSROOT/lib/ld-linux-armhf.so.3" --list "$bin" ;;
        *) ldd "$bin" ;;
        esac | awk '{print $1}' | grep -vE '^(linux-vdso|/lib.*ld-linux|\()' | sed 's/\.so\..*//' | sort | paste -sd' '
}

kib() { echo $(( ($1 + 512) / 1024 )); }

# mem PID ARCH: "rss anon file pss" in KiB (for arm: of the guest window only).
mem() {
        python3 - "$1" "$2" "$GUEST_BASE" "$GUEST_SIZE" <<'PY'
import re, sys
pid, arch, base, size = sys.argv[1], sys.argv[2], int(sys.argv[3], 16), int(sys.argv[4], 16)
native = arch not in ("aarch64", "arm")
tot = {"rss": 0, "anon": 0, "file": 0, "pss": 0}
inside = path = None
for line in open(f"/proc/{pid}/smaps"):
    m = re.match(r"^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \d+\s*(.*)$", line)
    if m:
        start = int(m.group(1), 16)
        inside = native or base <= start < base + size
        path = m.group(3).strip()
        continue
    if not inside:
        continue
    k, v = line.split()[0].rstrip(":"), line.split()[1]
    if k == "Rss":
        tot["rss"] += int(v)
        tot["file" if path.startswith("/") else "anon"] += int(v)
    elif k == "Pss":
        tot["pss"] += int(v)
print(tot["rss"], tot["anon"], tot["file"], tot["pss"])
PY
}

echo "| target | igmpd | igmpctl | igmpd-bpf |"
echo "|---|---|---|---|"
for b in "${builds[@]}"; do
        arch=$(arch_of "$b/src/daemon/igmpd")
        row="| $arch ($(basename "$b"))"
        for p in src/daemon/igmpd src/client/igmpctl src/bpf-helper/igmpd-bpf; do
                if [ -x "$b/$p" ]; then
                        "$(tool_for "$arch" strip)" -o "$TMP/s" "$b/$p"
                        row+=" | $(kib "$(stat -c %s "$TMP/s")") KiB ($("$(tool_for "$arch" size)" "$TMP/s" | awk 'NR == 2 {print int(($1 + $2) / 1024 + 0.5)}') KiB text+data)"
                else
                        row+=" | not built"
                fi
        done
        echo "$row |"
done
echo
echo "| target | program | shared libraries (ld.so --list) |"
echo "|---|---|---|"
for b in "${builds[@]}"; do
        arch=$(arch_of "$b/src/daemon/igmpd")
        for p in src/daemon/igmpd src/client/igmpctl src/bpf-helper/igmpd-bpf; do
                [ -x "$b/$p" ] || continue
                echo "| $arch | $(basename "$p") | $(closure "$arch" "$b/$p") |"
        done
done
echo

# The links and the bus, made once for every build and size.
NS=igfp-$$
ip netns add "$NS"
ip -n "$NS" link set lo up
mkdir -p "$TMP/bus" "$TMP/root/etc/igmpd/conf.d" "$TMP/root/etc/igmpd/igmpd.conf.d"
private_bus_config "$TMP/bus/system_bus_socket" > "$TMP/bus/system.conf"
dbus-daemon --config-file="$TMP/bus/system.conf" --nofork --nopidfile --nosyslog > "$TMP/bus/log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do [ -S "$TMP/bus/system_bus_socket" ] && break; sleep 0.1; done
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$TMP/bus/system_bus_socket
printf '[Daemon]\nDriftWatch=no\nAuditSources=none\n' > "$TMP/root/etc/igmpd/igmpd.conf.d/50-footprint.conf"
printf '[Match]\nName=*\n\n[IGMP]\nV3UnsolicitedReportInterval=200\nVersion=3\n' > "$TMP/root/etc/igmpd/conf.d/50-all.conf"

have=0
echo "| target | links | VmRSS | anonymous | file-backed | Pss |"
echo "|---|---|---|---|---|---|"
for n in $LINKS; do
        # veth pairs up to n links (plus lo)
        want=$(( n / 2 ))
        if [ "$want" -gt "$have" ]; then
                for i in $(seq $((have + 1)) "$want"); do echo "link add fa$i type veth peer name fb$i"; done > "$TMP/batch"
                ip -n "$NS" -batch "$TMP/batch"
                have=$want
        fi
        for b in "${builds[@]}"; do
                arch=$(arch_of "$b/src/daemon/igmpd")
                log=$TMP/igmpd-$arch-$n.log
                : > "$log"
                # shellcheck disable=SC2046 # the runner is a command line
                ip netns exec "$NS" env SYSTEMD_LOG_TARGET=console SYSTEMD_LOG_LEVEL=info $(runner "$arch") \
                        "$b/src/daemon/igmpd" --config-root "$TMP/root" > "$log" 2>&1 &
                pid=$!
                PIDS+=("$pid")
                for _ in $(seq 1200); do
                        grep -q 'Connected to the system bus as org.igmpd1' "$log" && grep -q 'links, ready' "$log" && break
                        kill -0 "$pid" 2> /dev/null || { cat "$log" >&2; exit 1; }
                        sleep 0.1
                done
                sleep 2 # whatever the bus and the first refresh still allocate
                read -r rss anon file pss < <(mem "$pid" "$arch")
                label="$arch ($(basename "$b"))"
                if [ -n "$(runner "$arch")" ]; then
                        # Pss = Rss there: nothing else maps qemu's copies of the guest's libraries.
                        label+=", qemu-user (guest memory only)"
                        pss="–"
                else
                        pss="$pss KiB"
                fi
                echo "| $label | $n | $rss KiB | $anon KiB | $file KiB | $pss |"
                if [ "$n" = "${LINKS%% *}" ]; then
                        # Where the file-backed pages are, for the smallest size.
                        python3 - "$pid" "$arch" "$GUEST_BASE" "$GUEST_SIZE" > "$TMP/libs-$(basename "$b")" <<'PY'
import collections, re, sys
pid, arch, base, size = sys.argv[1], sys.argv[2], int(sys.argv[3], 16), int(sys.argv[4], 16)
native = arch not in ("aarch64", "arm")
by = collections.Counter()
inside = path = None
for line in open(f"/proc/{pid}/smaps"):
    m = re.match(r"^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \d+\s*(.*)$", line)
    if m:
        inside = native or base <= int(m.group(1), 16) < base + size
        path = m.group(3).strip() or "[anon]"
        continue
    if inside and line.startswith("Rss:"):
        name = path.rsplit("/", 1)[-1]
        by[re.sub(r"\.so\..*", "", name)] += int(line.split()[1])
print(", ".join(f"{k} {v}" for k, v in by.most_common() if v))
PY
                fi
                kill "$pid"
                wait "$pid" 2> /dev/null || true
        done
done
echo
echo "RSS by mapping at ${LINKS%% *} links (KiB):"
echo
for f in "$TMP"/libs-*; do
        echo "- ${f##*/libs-}: $(cat "$f")"
done
