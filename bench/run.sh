#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# igmpd benchmarks, each next to its baselines measured in the same run, in throwaway network
# namespaces (nothing on the host is changed). Needs root. Prints a markdown table and, unless
# --out - is given, writes it into BENCHMARKS.md between the "bench:begin/end" markers.
#
#   bench/run.sh [--quick] [--links N] [--sizes "500 4000 8000"] [--repeat R] [--sample S]
#                [--idle SECS] [--tails] [--sections LIST] [--out FILE|-] [--build DIR]
#
#   --links N     links for hot-plug, memory, idle and D-Bus (default 4000 = 2000 veth pairs)
#   --sizes LIST  link counts for the cold-start section (default "500 4000 8000")
#   --repeat R    repetitions of every timed figure; medians are reported (default 5)
#   --cold-repeat R  repetitions of the cold-start section (default 9): its ratio has the
#                 tightest goal, and a start of 20-40 ms moves with the host by ±15 %
#   --sample S    links timed for the slow baselines (systemd-sysctl, sysctl -w), extrapolated
#                 per link (default 200)
#   --idle SECS   length of the idle window (default 30)
#   --tails       also run the channel-change joins held a real 30 s (about 1 more minute)
#   --channel-qrvs LIST    robustness values of the channel-change section (default "2 4"), each
#                 set by igmpd's [IGMP] Robustness= (net.ipv4.igmp_qrv of the namespace)
#   --channel-protos LIST  its protocols, of v3 mld v2 (default "v3 mld v2")
#   --sections    comma list of cold,hotplug,memory,idle,dbus,audit,channel,bpf,drift (default all)
#   --knob-writes N  writes per case and round in the drift section (default 20000)
#   --audit-calls N  sysctl(2) calls per audit flood (default 100000); the audit section runs an
#                 igmpd in the HOST network namespace (audit records exist only there) with no
#                 policy, and puts the host's audit state back as found (it fails if it cannot)
#   --quick       small everything (the CI smoke test): 200 links, 2 repeats, 2 s idle, …
#   BENCH_KEEP=1  keep the raw data (captures, logs) in /tmp/igmpd-bench.* after the run
#   IGMPD_WRAP    command put before igmpd where it runs in the background (hot-plug, memory,
#                 idle, D-Bus), e.g. IGMPD_WRAP="nice -n -10" to see what CPU contention costs
#   --build DIR   meson build dir (default $BUILD_DIR or SRCDIR/build); binaries can also be
#                 given as IGMPD, IGMPCTL, BENCH_BIN (dir with floor, notify-run, …), MCAST_JOIN,
#                 AUDIT_STATE (tests/helpers/audit-state, default next to MCAST_JOIN)
#   --old-build DIR  section 5 also measures the igmpd and igmpctl of DIR (or OLD_IGMPD and
#                 OLD_IGMPCTL), "the old path", in the same run: new and old take turns on the
#                 same links and bus, twice each (OLD_LABEL names it in the table)
#   BENCH_AUDIT_WITH_AUDITD=1  run the audit flood even though auditd runs (it logs every call)
set -uo pipefail

SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD_DIR:-$SRCDIR/build}
LINKS=4000 SIZES="500 4000 8000" REPEAT=5 COLD_REPEAT=9 SAMPLE=200 IDLE=30 TAILS=0 QUICK=0 AUDIT_CALLS=100000
SECTIONS="cold,hotplug,memory,idle,dbus,audit,channel,bpf,drift"
OLD_BUILD=""
KNOB_WRITES=20000
OUT=$SRCDIR/BENCHMARKS.md
CH_M=100 CH_ROUNDS_V2=3 CH_ROUNDS=8 CH_MAXROUNDS=40 CH_QRVS="2 4" CH_PROTOS="v3 mld v2"

while [ $# -gt 0 ]; do
        case $1 in
        --links) LINKS=$2; shift ;;
        --sizes) SIZES=$2; shift ;;
        --repeat) REPEAT=$2; shift ;;
        --cold-repeat) COLD_REPEAT=$2; shift ;;
        --sample) SAMPLE=$2; shift ;;
        --idle) IDLE=$2; shift ;;
        --tails) TAILS=1 ;;
        --channel-qrvs) CH_QRVS=$2; shift ;;
        --channel-protos) CH_PROTOS=$2; shift ;;
        --sections) SECTIONS=$2; shift ;;
        --audit-calls) AUDIT_CALLS=$2; shift ;;
        --knob-writes) KNOB_WRITES=$2; shift ;;
        --out) OUT=$2; shift ;;
        --build) BUILD=$2; shift ;;
        --old-build) OLD_BUILD=$2; shift ;;
        --quick)
                QUICK=1 LINKS=200 SIZES="200" REPEAT=2 COLD_REPEAT=2 SAMPLE=10 IDLE=2 AUDIT_CALLS=2000 KNOB_WRITES=1000
                CH_M=2 CH_ROUNDS_V2=1 CH_ROUNDS=1 CH_MAXROUNDS=2 CH_QRVS="2" CH_PROTOS="v3" ;;
        -h|--help) sed -n '2,37p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        esac
        shift
done

IGMPD=${IGMPD:-$BUILD/src/daemon/igmpd}
IGMPCTL=${IGMPCTL:-$BUILD/src/client/igmpctl}
BENCH_BIN=${BENCH_BIN:-$BUILD/bench}
MCAST_JOIN=${MCAST_JOIN:-$BUILD/tests/helpers/mcast-join}
BUS_LOOP=${BUS_LOOP:-$(dirname "$MCAST_JOIN")/bus-loop}   # section 5's CPU per bulk read
IGMPD_BPF_HELPER=${IGMPD_BPF_HELPER:-$BUILD/src/bpf-helper/igmpd-bpf}
OLD_IGMPD=${OLD_IGMPD:-${OLD_BUILD:+$OLD_BUILD/src/daemon/igmpd}}
OLD_IGMPCTL=${OLD_IGMPCTL:-${OLD_BUILD:+$OLD_BUILD/src/client/igmpctl}}
SYSTEMD_SYSCTL=${SYSTEMD_SYSCTL:-/lib/systemd/systemd-sysctl}

die() { echo "run.sh: $*" >&2; exit 1; }
log() { echo "# $*" >&2; }
has() { [[ ",$SECTIONS," == *",$1,"* ]]; }

[ "$(id -u)" = 0 ] || die "needs root (network namespaces)"
[ -z "$OLD_IGMPD" ] || [ -x "$OLD_IGMPD" ] || die "$OLD_IGMPD (the old igmpd) not found"
[ -z "$OLD_IGMPD" ] || [ -x "${OLD_IGMPCTL:-}" ] || die "the old igmpctl not found (OLD_IGMPCTL or --old-build)"
for b in "$IGMPD" "$BENCH_BIN/floor" "$BENCH_BIN/notify-run" "$BENCH_BIN/linkbench" "$BENCH_BIN/upstream"; do
        [ -x "$b" ] || die "$b not built (meson setup build && ninja -C build)"
done

TMP=$(mktemp -d /tmp/igmpd-bench.XXXXXX)
# igmpd never talks to the host's system bus here: a bus address nothing listens on, unless a
# section starts its own private bus. While igmpd waits for a bus, sd-bus watches every
# directory on the way to the socket, so it sits where the real one does, below /run (watched:
# /, /run and its own directory), not in /tmp or /dev/shm, where the files other programs create
# all the time would wake igmpd during the idle section.
mkdir -p "/run/igmpd-bench-$$-nobus"
NO_BUS="unix:path=/run/igmpd-bench-$$-nobus/system_bus_socket"
export DBUS_SYSTEM_BUS_ADDRESS=$NO_BUS
RES=$TMP/results
NSP="${BENCH_NS_PREFIX:-igb}$$" # BENCH_NS_PREFIX: another prefix for the namespaces
PIDS=()
cleanup() {
        set +e
        declare -F audit_restore > /dev/null && audit_restore   # first: igmpd must remove its rule
        for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
        sleep 0.2
        for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
        for ns in $(ip netns list | awk '{print $1}' | grep "^$NSP-"); do
                ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
                ip netns del "$ns"
        done
        for ns in $(ip netns list | awk '{print $1}' | grep "^igflood-$$-"); do
                ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
                ip netns del "$ns"
        done
        rm -rf /dev/shm/igmpd-bench-$$ /dev/shm/igmpd-bench-$$-quiet /run/igmpd-bench-$$-nobus
        if [ -n "${BENCH_KEEP:-}" ]; then echo "kept $TMP" >&2; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

res() { echo "$*" >> "$RES"; }
# The host-wide lock of tests/integration/lib.sh (hostwide_lock), taken once and held until exit:
# opening it again would drop the hold of this open file while a child (a private bus) still
# holds it — and then wait for it forever.
HOSTWIDE_LOCKED=0
hostwide_lock() {
        [ "$HOSTWIDE_LOCKED" = 1 ] && return 0
        exec 8> /run/lock/igmpd-tests-hostwide.lock
        flock 8
        HOSTWIDE_LOCKED=1
}
now_us() { local t=${EPOCHREALTIME/./}; echo "$t"; }

ns_new() {
        local ns="$NSP-$1"
        ip netns add "$ns" || die "cannot create namespace $ns"
        ip -n "$ns" link set lo up
        echo "$ns"
}
ns_del() { ip netns pids "$1" 2>/dev/null | xargs -r kill -KILL 2>/dev/null; ip netns del "$1"; }

# The benchmark policy: 2 IPv4 + 2 IPv6 knobs on every link.
ROOT=/dev/shm/igmpd-bench-$$   # config root on tmpfs, like /run
mkdir -p "$ROOT/etc/igmpd/conf.d"
# The other sections measure igmpd without the drift watch (a BPF program on the host's cgroup2 root:
# host-wide state, attached only by section 9, under the host-wide lock).
mkdir -p "$ROOT/etc/igmpd/igmpd.conf.d"
printf '[Daemon]\nDriftWatch=no\n' > "$ROOT/etc/igmpd/igmpd.conf.d/00-bench.conf"
cat > "$ROOT/etc/igmpd/conf.d/50-bench.conf" <<EOC
[IGMP]
V2UnsolicitedReportInterval=200
V3UnsolicitedReportInterval=200
[MLD]
V1UnsolicitedReportInterval=200
V2UnsolicitedReportInterval=200
EOC

# The same policy without the kernel-log audit source (which wakes igmpd for every kernel log
# record on the host), for the idle figure "no bus, no audit source".
ROOT_QUIET=$ROOT-quiet
mkdir -p "$ROOT_QUIET/etc/igmpd"
cp -r "$ROOT/etc/igmpd/conf.d" "$ROOT/etc/igmpd/igmpd.conf.d" "$ROOT_QUIET/etc/igmpd/"
printf '[Daemon]\nAuditSources=none\n' > "$ROOT_QUIET/etc/igmpd/igmpd.conf"

# igmpd_start NS NAME [env…]: runs igmpd under notify-run in NS, waits for READY=1, sets IPID
# (igmpd's pid) and READY_US (exec → READY). Log level info: debug logging is not benchmarked.
igmpd_start() {
        local ns=$1 name=$2
        shift 2
        ip netns exec "$ns" env -u WATCHDOG_USEC -u WATCHDOG_PID SYSTEMD_LOG_TARGET=console \
                SYSTEMD_LOG_LEVEL=info "$@" "$BENCH_BIN/notify-run" "$TMP/$name.sock" \
                ${IGMPD_WRAP:-} "$IGMPD" --config-root "${IGMPD_ROOT:-$ROOT}" > "$TMP/$name.out" 2> "$TMP/$name.log" &
        PIDS+=($!)
        for _ in $(seq 600); do
                grep -q '^ready' "$TMP/$name.out" 2>/dev/null && break
                kill -0 $! 2>/dev/null || break
                sleep 0.05
        done
        read -r _ READY_US IPID < <(grep '^ready' "$TMP/$name.out") || die "igmpd did not become ready: $(tail -5 "$TMP/$name.log")"
}
rss_kb() { awk '/^VmRSS/{print $2}' "/proc/$1/status"; }
rssanon_kb() { awk '/^RssAnon/{print $2}' "/proc/$1/status"; }
ctxt() { cat /proc/"$1"/task/*/status | awk '/ctxt_switches/{s+=$2} END{print s}'; }
# CPU time (user + system) of a process so far, in ms (clock ticks: 10 ms at USER_HZ 100).
cpu_ms() { awk -v t="$(getconf CLK_TCK)" '{sub(/.*\) /, ""); print int(($12 + $13) * 1000 / t)}' "/proc/$1/stat"; }

# private_bus DIR: a dbus-daemon configured like the system bus (deny by default; igmpd's shipped
# policy file included; monitoring allowed, for busctl monitor) on DIR/socket. Sets
# PRIVATE_BUS_PID; fails if the socket does not appear within 5 s.
private_bus() {
        local dir=$1
        mkdir -p "$dir"
        cat > "$dir/system.conf" <<EOC
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$dir/socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Monitoring"/>
  </policy>
  <include>$SRCDIR/data/dbus/org.igmpd1.conf</include>
</busconfig>
EOC
        dbus-daemon --config-file="$dir/system.conf" --nofork --nopidfile --nosyslog > "$dir/log" 2>&1 &
        PRIVATE_BUS_PID=$!
        PIDS+=($!)
        for _ in $(seq 100); do [ -S "$dir/socket" ] && return 0; sleep 0.05; done
        return 1
}

names_file() { # names_file PFX PAIRS FILE
        local i
        for ((i = 0; i < $2; i++)); do echo "$1${i}a"; echo "$1${i}b"; done > "$3"
}

res "meta date $(date -u +%Y-%m-%dT%H:%MZ)"
res "meta kernel $(uname -r)"
res "meta cpus $(nproc)"
res "meta load_start $(cut -d' ' -f1-3 /proc/loadavg)"
res "meta links $LINKS"
res "meta repeat $REPEAT"
res "meta cold_repeat $COLD_REPEAT"
res "meta sample $SAMPLE"
res "meta quick $QUICK"
[ -z "$OLD_IGMPD" ] || res "meta old ${OLD_LABEL:-$OLD_IGMPD}"

# ---- 1. cold start ----------------------------------------------------------------------------
if has cold; then
        printf 'net.ipv4.conf.*.igmpv2_unsolicited_report_interval = 200\nnet.ipv4.conf.*.igmpv3_unsolicited_report_interval = 200\nnet.ipv6.conf.*.mldv1_unsolicited_report_interval = 200\nnet.ipv6.conf.*.mldv2_unsolicited_report_interval = 200\n' > "$TMP/50-bench-sysctl.conf"
        # The udev way: what 99-systemd.rules runs for every new link, one process per link. Its
        # config sits in a private /etc/sysctl.d (a tmpfs in a private mount namespace).
        cat > "$TMP/udev-loop.sh" <<'EOS'
mount -t tmpfs bench /etc/sysctl.d || exit 1
cp "$1" /etc/sysctl.d/50-bench.conf
shift
t0=${EPOCHREALTIME/./}
for IF in "$@"; do
        "$SYSTEMD_SYSCTL" --prefix=/net/ipv4/conf/$IF --prefix=/net/ipv4/neigh/$IF \
                --prefix=/net/ipv6/conf/$IF --prefix=/net/ipv6/neigh/$IF
done
echo $(( ${EPOCHREALTIME/./} - t0 ))
EOS
        cat > "$TMP/sysctl-loop.sh" <<'EOS'
t0=${EPOCHREALTIME/./}
for IF in "$@"; do
        sysctl -q -w net.ipv4.conf.$IF.igmpv2_unsolicited_report_interval=200 \
                net.ipv4.conf.$IF.igmpv3_unsolicited_report_interval=200 \
                net.ipv6.conf.$IF.mldv1_unsolicited_report_interval=200 \
                net.ipv6.conf.$IF.mldv2_unsolicited_report_interval=200
done
echo $(( ${EPOCHREALTIME/./} - t0 ))
EOS
        for N in $SIZES; do
                P=$((N / 2))
                log "cold start, $N links ($COLD_REPEAT repeats)"
                NS=$(ns_new cold)
                ip netns exec "$NS" "$BENCH_BIN/linkbench" create c 0 "$P" > /dev/null || die "link creation failed"
                names_file c "$P" "$TMP/names"
                S=$((SAMPLE < P ? SAMPLE : P))
                mapfile -t sample < <(head -n "$S" "$TMP/names")
                reset_knobs() { ip netns exec "$NS" "$BENCH_BIN/floor" -v 1000 "$TMP/names" > /dev/null; }
                for ((r = 0; r < COLD_REPEAT; r++)); do
                        reset_knobs
                        ip netns exec "$NS" "$BENCH_BIN/notify-run" -e "$TMP/n.sock" "$BENCH_BIN/floor" "$TMP/names" > "$TMP/floor.out"
                        res "cold $N floor_exec_us $(awk '/^exit/{print $2}' "$TMP/floor.out")"
                        res "cold $N floor_inner_us $(awk '/^floor/{print $5}' "$TMP/floor.out")"
                        reset_knobs
                        ip netns exec "$NS" env -u WATCHDOG_USEC SYSTEMD_LOG_TARGET=console SYSTEMD_LOG_LEVEL=info \
                                "$BENCH_BIN/notify-run" -k "$TMP/n.sock" "$IGMPD" --config-root "$ROOT" \
                                > "$TMP/igmpd-cold.out" 2> "$TMP/igmpd-cold.log"
                        res "cold $N igmpd_us $(awk '/^ready/{print $2}' "$TMP/igmpd-cold.out")"
                        grep -q "Configured $N of $N links" "$TMP/igmpd-cold.log" ||
                                log "warning: igmpd did not report $N configured links: $(grep Configured "$TMP/igmpd-cold.log")"
                        ip netns exec "$NS" "$BENCH_BIN/linkbench" wait c 0 "$P" 200 1000 > /dev/null ||
                                res "cold $N igmpd_incomplete 1"
                        if [ -x "$SYSTEMD_SYSCTL" ] && command -v unshare > /dev/null; then
                                reset_knobs
                                us=$(ip netns exec "$NS" unshare -m env SYSTEMD_SYSCTL="$SYSTEMD_SYSCTL" bash "$TMP/udev-loop.sh" \
                                        "$TMP/50-bench-sysctl.conf" "${sample[@]}")
                                res "cold $N udev_per_link_us $((us / S))"
                                [ "$(ip netns exec "$NS" cat "/proc/sys/net/ipv6/conf/${sample[0]}/mldv2_unsolicited_report_interval")" = 200 ] ||
                                        log "warning: systemd-sysctl did not set the knobs"
                        elif [ $r = 0 ]; then
                                log "no $SYSTEMD_SYSCTL (systemd) or unshare: udev baseline not measured"
                        fi
                        reset_knobs
                        us=$(ip netns exec "$NS" bash "$TMP/sysctl-loop.sh" "${sample[@]}")
                        res "cold $N sysctlw_per_link_us $((us / S))"
                done
                ns_del "$NS"
        done
fi

# ---- 2. hot-plug --------------------------------------------------------------------------------
if has hotplug; then
        P=$((LINKS / 2))
        SINGLE=$((SAMPLE < P ? SAMPLE : P))
        log "hot-plug: $SINGLE pairs one at a time, then a burst of $P pairs ($REPEAT repeats)"
        NS=$(ns_new hot)
        igmpd_start "$NS" igmpd-hot
        for ((r = 0; r < REPEAT; r++)); do
                res "hot single $(ip netns exec "$NS" env LINKBENCH_GROUP=11 "$BENCH_BIN/linkbench" single s 0 "$SINGLE" 200 5)"
                ip netns exec "$NS" "$BENCH_BIN/linkbench" delgroup - 11 1 > /dev/null
                res "hot burst $(ip netns exec "$NS" env LINKBENCH_GROUP=11 "$BENCH_BIN/linkbench" burst b 0 "$P" 200)"
                ip netns exec "$NS" "$BENCH_BIN/linkbench" delgroup - 11 1 > /dev/null
                sleep 0.5
        done
        kill -TERM "$IPID"
        ns_del "$NS"
fi

# ---- 3. memory ----------------------------------------------------------------------------------
NOBUS_NS="" NOBUS_PID=""
if has memory || has idle; then
        P=$((LINKS / 2))
        log "memory: RSS at 0, $LINKS and $((2 * LINKS)) links, then 10 rounds of +/- $LINKS links"
        NS=$(ns_new mem)
        # This igmpd is also the idle section's "no bus" one: it gets a /run of its own (a tmpfs in
        # the mount namespace ip netns exec makes), so what other programs create in the host's
        # /run — other benchmark runs' directories — does not wake it while it waits for the bus.
        printf '#!/bin/sh\nmount -t tmpfs -o mode=0755 igmpd-bench-run /run && exec "$@"\n' > "$TMP/private-run"
        chmod +x "$TMP/private-run"
        IGMPD_WRAP="$TMP/private-run ${IGMPD_WRAP:-}" IGMPD_ROOT=$ROOT_QUIET igmpd_start "$NS" igmpd-mem
        sleep 0.2
        res "mem rss 0 $(rss_kb "$IPID") $(rssanon_kb "$IPID")"
        ip netns exec "$NS" env LINKBENCH_GROUP=12 "$BENCH_BIN/linkbench" create m 0 "$P" > /dev/null
        ip netns exec "$NS" "$BENCH_BIN/linkbench" wait m 0 "$P" 200 30000 > /dev/null
        res "mem rss $LINKS $(rss_kb "$IPID") $(rssanon_kb "$IPID")"
        ip netns exec "$NS" env LINKBENCH_GROUP=12 "$BENCH_BIN/linkbench" create m "$P" "$P" > /dev/null
        ip netns exec "$NS" "$BENCH_BIN/linkbench" wait m "$P" "$P" 200 30000 > /dev/null
        res "mem rss $((2 * LINKS)) $(rss_kb "$IPID") $(rssanon_kb "$IPID")"
        ip netns exec "$NS" "$BENCH_BIN/linkbench" delgroup - 12 1 > /dev/null
        sleep 0.5
        res "mem rss deleted $(rss_kb "$IPID") $(rssanon_kb "$IPID")"
        for ((round = 1; round <= 10; round++)); do
                ip netns exec "$NS" env LINKBENCH_GROUP=12 "$BENCH_BIN/linkbench" create m 0 "$P" > /dev/null
                ip netns exec "$NS" "$BENCH_BIN/linkbench" wait m 0 "$P" 200 30000 > /dev/null
                full=$(rss_kb "$IPID")
                ip netns exec "$NS" "$BENCH_BIN/linkbench" delgroup - 12 1 > /dev/null
                sleep 0.3
                res "mem round $round $full $(rss_kb "$IPID") $(rssanon_kb "$IPID")"
        done
        # Left running with N links and no bus, for the idle section.
        ip netns exec "$NS" env LINKBENCH_GROUP=12 "$BENCH_BIN/linkbench" create m 0 "$P" > /dev/null
        ip netns exec "$NS" "$BENCH_BIN/linkbench" wait m 0 "$P" 200 30000 > /dev/null
        NOBUS_NS=$NS NOBUS_PID=$IPID
fi

# dbus_measure TAG IGMPCTL: section 5's figures of the igmpd on the private bus (BUS_PID) and
# that igmpctl, recorded as "TAG …": igmpctl status/list, GetManagedObjects, ListLinksState
# (if that igmpd has it), SetLinkKnobs; and where the time goes: CPU of igmpd and dbus-daemon
# per bulk read (calls back to back for 3 s; with the igmpd of issue 14 this includes the at
# most one refresh dump a second that reads ask for) and igmpctl status's own CPU.
dbus_measure() {
        local tag=$1 ctl=$2 r t t0 t1 a0 b0
        if [ -x "$ctl" ] && "$ctl" list > /dev/null 2>&1; then
                for ((r = 0; r < REPEAT; r++)); do
                        t0=$(now_us); "$ctl" status > /dev/null; t1=$(now_us)
                        res "$tag igmpctl_status_us $((t1 - t0))"
                        t0=$(now_us); "$ctl" list > /dev/null; t1=$(now_us)
                        res "$tag igmpctl_list_us $((t1 - t0))"
                        t0=$(now_us); "$ctl" --version > /dev/null; t1=$(now_us)
                        res "$tag igmpctl_version_us $((t1 - t0))"
                        t0=$(now_us)
                        busctl --system call org.igmpd1 /org/igmpd1 org.freedesktop.DBus.ObjectManager \
                                GetManagedObjects > /dev/null
                        t1=$(now_us)
                        res "$tag busctl_objects_us $((t1 - t0))"
                        t0=$(now_us)
                        busctl --system call org.igmpd1 /org/igmpd1 org.freedesktop.DBus.Peer Ping > /dev/null
                        t1=$(now_us)
                        res "$tag busctl_ping_us $((t1 - t0))"
                done
                for ((r = 0; r < REPEAT; r++)); do
                        t=$( { TIMEFORMAT='%3U %3S'; time "$ctl" status > /dev/null; } 2>&1 )
                        res "$tag igmpctl_status_cpu_ms $(awk '{print int(($1 + $2) * 1000)}' <<< "$t")"
                done
        else
                res "$tag igmpctl_missing 1"
        fi
        # CPU per bulk read: calls back to back for 3 s from one in-process client
        # (tests/helpers/bus-loop), so that the caller's own start-up does not space them out.
        local kind n
        for kind in objects state; do
                [ $kind = state ] &&
                        ! busctl --system call org.igmpd1 /org/igmpd1 org.igmpd1.Manager ListLinksState > /dev/null 2>&1 &&
                        continue   # an igmpd without it
                a0=$(cpu_ms "$BUS_PID") b0=$(cpu_ms "$BUSD_PID")
                if [ -x "$BUS_LOOP" ]; then
                        n=$("$BUS_LOOP" $kind 3) || n=0
                else
                        n=10
                        for _ in $(seq $n); do
                                busctl --system call org.igmpd1 /org/igmpd1 org.freedesktop.DBus.ObjectManager \
                                        GetManagedObjects > /dev/null
                        done
                fi
                [ "$n" -gt 0 ] &&
                        res "$tag ${kind}_cpu_ms igmpd=$(( $(cpu_ms "$BUS_PID") - a0 )) dbus-daemon=$(( $(cpu_ms "$BUSD_PID") - b0 )) calls=$n"
        done
        if [ -x "$BENCH_BIN/dbus-rtt" ]; then
                "$BENCH_BIN/dbus-rtt" d0a 200 > "$TMP/dbus-rtt.out" 2>&1 || log "dbus-rtt: $(cat "$TMP/dbus-rtt.out")"
                while read -r line; do res "$tag rtt $line"; done < <(grep 'n=' "$TMP/dbus-rtt.out")
        fi
}

# dbus_swap IGMPD NAME: stops the igmpd on the private bus and starts that binary in its place
# (same links, same policy; the knobs are already set, so it writes nothing).
dbus_swap() {
        local bin=$1 name=$2
        kill -TERM "$BUS_PID"
        for _ in $(seq 200); do kill -0 "$BUS_PID" 2> /dev/null || break; sleep 0.05; done
        for _ in $(seq 200); do busctl --system status org.igmpd1 > /dev/null 2>&1 || break; sleep 0.05; done
        IGMPD=$bin igmpd_start "$BUS_NS" "$name" DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS"
        BUS_PID=$IPID
        for _ in $(seq 200); do
                busctl --system status org.igmpd1 > /dev/null 2>&1 && break
                sleep 0.05
        done
}

# ---- 5. D-Bus (and the igmpd for the idle section's "with a bus" case) ----------------------------
BUS_PID="" BUS_NS="" BUSD_PID=""
if (has dbus || has idle) && command -v dbus-daemon > /dev/null; then
        P=$((LINKS / 2))
        private_bus "$TMP/bus" || die "the private bus did not start: $(cat "$TMP/bus/log")"
        BUSD_PID=$PRIVATE_BUS_PID
        export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$TMP/bus/socket"
        BUS_NS=$(ns_new bus)
        ip netns exec "$BUS_NS" "$BENCH_BIN/linkbench" create d 0 "$P" > /dev/null
        igmpd_start "$BUS_NS" igmpd-bus DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS"
        BUS_PID=$IPID
        for _ in $(seq 200); do
                busctl --system status org.igmpd1 > /dev/null 2>&1 && break
                sleep 0.05
        done
        if has dbus; then
                log "D-Bus: igmpctl status, GetManagedObjects, ListLinksState, SetLinkKnobs with $LINKS links"
                # The kernel's link dump alone, as igmpd (or a refresh) asks for it.
                res "dbus $(ip netns exec "$BUS_NS" "$BENCH_BIN/linkbench" dump - 0 $((REPEAT * 2 + 1)))"
                if [ -n "$OLD_IGMPD" ]; then
                        # The old path in the same run: new and old take turns, twice each.
                        for round in 1 2; do
                                dbus_measure dbus "$IGMPCTL"
                                dbus_swap "$OLD_IGMPD" igmpd-bus-old
                                dbus_measure dbusold "$OLD_IGMPCTL"
                                dbus_swap "$IGMPD" igmpd-bus
                        done
                else
                        dbus_measure dbus "$IGMPCTL"
                fi
        fi
fi

# ---- 4. idle ------------------------------------------------------------------------------------
if has idle; then
        log "idle: ${IDLE} s without events (context switches, then strace -c)"
        # The D-Bus section's last reads leave a refresh waiting for its turn (at most one a
        # second, manager-refresh.c): its timer and dump are that section's tail, not idleness.
        sleep 2
        for which in bus nobus; do
                pid=$([ $which = bus ] && echo "$BUS_PID" || echo "$NOBUS_PID")
                [ -n "$pid" ] && declare "c0_$which=$(ctxt "$pid")"
        done
        sleep "$IDLE"
        for which in bus nobus; do
                pid=$([ $which = bus ] && echo "$BUS_PID" || echo "$NOBUS_PID")
                [ -n "$pid" ] || continue
                c0=c0_$which
                res "idle $which ctxt $(( $(ctxt "$pid") - ${!c0} )) $IDLE"
        done
        if command -v strace > /dev/null; then
                spids=()
                for which in bus nobus; do
                        pid=$([ $which = bus ] && echo "$BUS_PID" || echo "$NOBUS_PID")
                        [ -n "$pid" ] || continue
                        timeout -s INT "$IDLE" strace -c -f -p "$pid" -o "$TMP/strace.$which" 2> /dev/null &
                        spids+=($!)
                done
                wait "${spids[@]}"
                for which in bus nobus; do
                        [ -f "$TMP/strace.$which" ] || continue
                        # strace -c columns: % time, seconds, usecs/call, calls, [errors,] syscall
                        calls=$(awk '$NF=="total"{print $4}' "$TMP/strace.$which")
                        res "idle $which syscalls ${calls:-0} $IDLE $(awk 'NR>2 && $NF!="total" && $1 !~ /^-/ {printf "%s:%s,", $NF, $4}' "$TMP/strace.$which")"
                done
        fi
fi
[ -n "$BUS_PID" ] && kill -TERM "$BUS_PID" 2>/dev/null
[ -n "$NOBUS_PID" ] && kill -TERM "$NOBUS_PID" 2>/dev/null
[ -n "$BUS_NS" ] && { sleep 0.2; ns_del "$BUS_NS"; }
[ -n "$NOBUS_NS" ] && { sleep 0.2; ns_del "$NOBUS_NS"; }
export DBUS_SYSTEM_BUS_ADDRESS=$NO_BUS   # the private bus was for section 5

# ---- 6. audit flood -----------------------------------------------------------------------------
# sysctl-flood calls sysctl(2) AUDIT_CALLS times as fast as it can: first with the host's audit
# state as found (baseline), then REPEAT times with an igmpd whose audit source is on
# (AuditSources=audit, AuditRule=yes: it loads the rule on syscall 156 and enables auditing, and
# undoes both on exit). The kernel multicasts audit records only in the initial network
# namespace, so that igmpd runs in the HOST's; its config root holds no policy file (and
# NetworkManager=no), so it has nothing to write there: the host's knobs are compared before and
# after, and its log must hold no write. The host's audit state (enabled flag and rule list, byte
# for byte, via tests/helpers/audit-state) is compared before and after too; if it differs, it is
# put back and the run fails. Hot-plug latency needs links created, which the host must not get:
# a second igmpd with the bench policy runs in a throwaway namespace, and linkbench times pairs
# created there with and without a flood running (the flood's CPU contention is what it sees).
# The audit igmpd's own event loop is timed with D-Bus Pings (bus-ping) during the floods.
AF_PID="" AF_NR="" AF_BEFORE="" AF_FAILED=""
AF_NS="igflood-$$-hot"
AUDIT_STATE=${AUDIT_STATE:-$(dirname "$MCAST_JOIN")/audit-state}
audit_skip_reason() {
        local st rc=0
        [ -x "$BENCH_BIN/sysctl-flood" ] || { echo "$BENCH_BIN/sysctl-flood not built"; return; }
        [ -x "$AUDIT_STATE" ] || { echo "$AUDIT_STATE (tests/helpers) not built"; return; }
        [ "$(cat /proc/2/comm 2>/dev/null)" = kthreadd ] &&
                [ "$(stat -L -c %i /proc/self/ns/net)" = "$(stat -L -c %i /proc/2/ns/net)" ] ||
                { echo "not in the initial network namespace, the only one that gets audit records"; return; }
        st=$("$BENCH_BIN/sysctl-flood" status 2>&1) || rc=$?
        [ $rc = 77 ] && { echo "no audit subsystem here ($st)"; return; }
        [ $rc = 0 ] || { echo "cannot read the audit status ($st)"; return; }
        [[ $st == *" enabled=2 "* ]] && { echo "the host's audit configuration is locked (enabled=2)"; return; }
        if [[ $st != *" pid=0 "* ]] && [ "${BENCH_AUDIT_WITH_AUDITD:-0}" != 1 ]; then
                echo "auditd is running (pid $(af_field pid "$st")): the flood would write every call into the host's" \
                        "audit log; BENCH_AUDIT_WITH_AUDITD=1 runs it anyway"
                return
        fi
        "$BENCH_BIN/sysctl-flood" 1 > /dev/null 2>&1 || echo "sysctl(2) has no known number on $(uname -m)"
}
af_status() { "$BENCH_BIN/sysctl-flood" status | sed 's/^status //'; }
af_field() { sed -n "s/.*\\b$1=\\([0-9]*\\).*/\\1/p" <<< "$2"; }
kmsg_seq() { # the sequence number of the last kernel log record
        python3 -c 'import os
fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK); last = -1
while True:
    try: last = int(os.read(fd, 8192).split(b",")[1])
    except (BlockingIOError, OSError): break
print(last)'
}
kmsg_audit_since() { # kmsg_audit_since SEQ: audit lines (records, suppression notes) logged after SEQ
        python3 -c 'import os, sys
fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK); n = 0
while True:
    try: rec = os.read(fd, 8192)
    except BlockingIOError: break
    except OSError: continue
    seq, msg = int(rec.split(b",")[1]), rec.split(b";", 1)[-1]
    n += seq > int(sys.argv[1]) and (b"audit" in msg)
print(n)' "$1"
}
host_knobs() {
        local f
        for f in /proc/sys/net/ipv4/conf/*/{igmpv2_unsolicited_report_interval,igmpv3_unsolicited_report_interval,force_igmp_version} \
                 /proc/sys/net/ipv6/conf/*/{mldv1_unsolicited_report_interval,mldv2_unsolicited_report_interval,force_mld_version}; do
                [ -e "$f" ] && echo "$f $(cat "$f")"
        done
}
# Stops the audit igmpd (it removes its rule and switches auditing back), then checks the host's
# audit state against the snapshot and puts back what differs. Also run by cleanup on any exit.
audit_restore() {
        local keys_before
        [ -n "$AF_BEFORE" ] || return 0
        if [ -n "$AF_PID" ]; then
                kill -TERM "$AF_PID" 2>/dev/null
                for _ in $(seq 100); do kill -0 "$AF_PID" 2>/dev/null || break; sleep 0.05; done
                kill -KILL "$AF_PID" 2>/dev/null
                wait "$AF_NR" 2>/dev/null
                AF_PID=""
        elif [ -n "$AF_NR" ]; then # igmpd never became ready
                pkill -TERM -P "$AF_NR"
                sleep 1
        fi
        "$AUDIT_STATE" show > "$TMP/audit-after"
        if ! cmp -s "$AF_BEFORE" "$TMP/audit-after"; then
                AF_FAILED="audit state differs from before: $(tr '\n' ' ' < "$AF_BEFORE")→ $(tr '\n' ' ' < "$TMP/audit-after")"
                echo "run.sh: AUDIT: $AF_FAILED; restoring it" >&2
                keys_before=$(cat "$TMP/audit-keys-before")
                [ "$keys_before" = 0 ] && "$AUDIT_STATE" del-key igmpd-sysctl
                "$AUDIT_STATE" set-enabled "$(sed -n 's/^enabled //p' "$AF_BEFORE")"
                "$AUDIT_STATE" show > "$TMP/audit-after"
                cmp -s "$AF_BEFORE" "$TMP/audit-after" ||
                        echo "run.sh: AUDIT: COULD NOT RESTORE the host's audit state; was $(tr '\n' ' ' < "$AF_BEFORE")," \
                                "is $(tr '\n' ' ' < "$TMP/audit-after") — fix by hand (auditctl -D / -e)" >&2
        fi
        AF_BEFORE=""
        [ -z "$AF_FAILED" ]
}
af_events() { # af_events PID END_REALTIME_US: signals and log lines of igmpd about PID
        python3 - "$1" "$2" "$TMP/audit-signals" "$TMP/igmpd-audit.log" <<'EOP'
import json, re, sys
pid, end, sigs, log = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
t = []
for line in open(sigs, errors="replace"):
    try:
        m = json.loads(line)
    except ValueError:
        continue
    d = m.get("payload", {}).get("data", [])
    if m.get("member") == "DeprecatedSysctl" and len(d) == 8 and d[2] == pid:
        t.append((m.get("timestamp-realtime", d[0]), d[7]))  # when the bus passed it on
logged = [int(m.group(1)) for m in re.finditer(r"\(pid %d, .*\(source audit, (\d+) calls?\)" % pid, open(log, errors="replace").read())]
gaps = [b[0] - a[0] for a, b in zip(t, t[1:])]
print("signals=%d signal_calls=%d logged=%d counted=%d min_gap_us=%d last_after_us=%d"
      % (len(t), sum(r for _, r in t), len(logged), sum(logged), min(gaps) if gaps else -1,
         t[-1][0] - end if t else -1))
EOP
}
if has audit; then
        reason=$(audit_skip_reason)
        if [ -n "$reason" ]; then
                log "audit flood: skipped: $reason"
                res "audit skipped $reason"
        else
                # The same host-wide lock as tests/integration/lib.sh's hostwide_lock: a test run from
                # another checkout must not change the audit state under the flood.
                hostwide_lock
                log "audit flood: $AUDIT_CALLS sysctl(2) calls, baseline then igmpd's audit source on ($REPEAT repeats)"
                res "audit calls $AUDIT_CALLS"
                AF_BEFORE=$TMP/audit-before
                "$AUDIT_STATE" show > "$AF_BEFORE" || die "audit-state show failed"
                "$AUDIT_STATE" count-key igmpd-sysctl > "$TMP/audit-keys-before"
                command -v auditctl > /dev/null && { auditctl -l > "$TMP/auditctl-l-before" 2>&1; auditctl -s > "$TMP/auditctl-s-before" 2>&1; }
                st0=$(af_status)
                res "audit status_before $st0"
                res "audit found enabled=$(af_field enabled "$st0") rules=$(($(wc -l < "$AF_BEFORE") - 1)) igmpd_rules=$(cat "$TMP/audit-keys-before") auditd=$(af_field pid "$st0") auditctl=$(command -v auditctl > /dev/null && echo 1 || echo 0)"
                host_knobs > "$TMP/knobs-before"
                kseq=$(kmsg_seq)

                # The link side: igmpd with the bench policy in a throwaway namespace, no bus.
                ip netns add "$AF_NS" || die "cannot create namespace $AF_NS"
                ip -n "$AF_NS" link set lo up
                IGMPD_ROOT=$ROOT_QUIET igmpd_start "$AF_NS" igmpd-audit-links DBUS_SYSTEM_BUS_ADDRESS="$NO_BUS"
                AF_LPID=$IPID
                P=$((LINKS / 2))
                K=$((SAMPLE < P ? SAMPLE : P))
                res "audit link idle $(ip netns exec "$AF_NS" env LINKBENCH_GROUP=13 "$BENCH_BIN/linkbench" single f 0 "$K" 200 5)"
                ip netns exec "$AF_NS" "$BENCH_BIN/linkbench" delgroup - 13 1 > /dev/null

                for ((r = 0; r < REPEAT; r++)); do
                        res "audit flood off $("$BENCH_BIN/sysctl-flood" "$AUDIT_CALLS")"
                done

                # A private bus for the audit igmpd's signals and Pings.
                AF_BUS=""
                if command -v dbus-daemon > /dev/null && command -v busctl > /dev/null; then
                        private_bus "$TMP/abus" && AF_BUS="unix:path=$TMP/abus/socket"
                fi

                # The audit igmpd, in the host's network namespace, with no policy.
                mkdir -p "$TMP/audit-root/etc/igmpd"
                printf '[Daemon]\nAuditSources=audit\nAuditRule=yes\nNetworkManager=no\nAuditHistory=65536\nDriftWatch=no\n' \
                        > "$TMP/audit-root/etc/igmpd/igmpd.conf"
                [ -z "$(find "$TMP/audit-root" -path '*conf.d*' -name '*.conf')" ] || die "the audit igmpd must have no policy"
                env -u WATCHDOG_USEC -u WATCHDOG_PID SYSTEMD_LOG_TARGET=console SYSTEMD_LOG_LEVEL=info \
                        DBUS_SYSTEM_BUS_ADDRESS="${AF_BUS:-$NO_BUS}" "$BENCH_BIN/notify-run" "$TMP/igmpd-audit.sock" \
                        ${IGMPD_WRAP:-} "$IGMPD" --config-root "$TMP/audit-root" > "$TMP/igmpd-audit.out" 2> "$TMP/igmpd-audit.log" &
                AF_NR=$!
                PIDS+=($AF_NR)
                for _ in $(seq 600); do
                        grep -q '^ready' "$TMP/igmpd-audit.out" 2>/dev/null && break
                        kill -0 "$AF_NR" 2>/dev/null || break
                        sleep 0.05
                done
                read -r _ _ AF_PID < <(grep '^ready' "$TMP/igmpd-audit.out") ||
                        die "the audit igmpd did not become ready: $(tail -5 "$TMP/igmpd-audit.log")"
                [ "$("$AUDIT_STATE" enabled)" = 1 ] && [ "$("$AUDIT_STATE" count-key igmpd-sysctl)" -ge 1 ] ||
                        die "igmpd did not load its audit rule: $(grep -i audit "$TMP/igmpd-audit.log")"
                if [ -n "$AF_BUS" ]; then
                        for _ in $(seq 100); do
                                DBUS_SYSTEM_BUS_ADDRESS=$AF_BUS busctl --system status org.igmpd1 > /dev/null 2>&1 && break
                                sleep 0.05
                        done
                        DBUS_SYSTEM_BUS_ADDRESS=$AF_BUS busctl --system monitor --json=short \
                                --match "type='signal',interface='org.igmpd1.Audit',member='DeprecatedSysctl'" \
                                > "$TMP/audit-signals" 2> /dev/null &
                        PIDS+=($!)
                        AF_MON=$!
                        res "audit ping idle $(DBUS_SYSTEM_BUS_ADDRESS=$AF_BUS "$BENCH_BIN/bus-ping" 2 500)"
                else
                        : > "$TMP/audit-signals"
                fi
                sleep 0.5
                st1=$(af_status)
                rss0=$(rss_kb "$AF_PID") cpu0=$(cpu_ms "$AF_PID")
                kpid=$(pgrep -x kauditd | head -1)
                kcpu0=$([ -n "$kpid" ] && cpu_ms "$kpid" || echo 0)
                # Sampler: igmpd's RSS and the kernel's audit backlog, every 50 ms.
                ( while :; do echo "$(rss_kb "$AF_PID") $(af_field backlog "$(af_status)")"; sleep 0.05; done ) > "$TMP/audit-samples" 2> /dev/null &
                AF_SAMPLER=$!
                PIDS+=($AF_SAMPLER)
                if [ -n "$AF_BUS" ]; then
                        DBUS_SYSTEM_BUS_ADDRESS=$AF_BUS "$BENCH_BIN/bus-ping" 2 > "$TMP/audit-ping" &
                        AF_PING=$!
                        PIDS+=($AF_PING)
                fi
                for ((r = 0; r < REPEAT; r++)); do
                        out=$("$BENCH_BIN/sysctl-flood" "$AUDIT_CALLS")
                        res "audit flood on $out end_realtime_us=$(now_us)"
                done
                [ -n "$AF_BUS" ] && { kill -TERM "$AF_PING"; wait "$AF_PING"; res "audit ping flood $(cat "$TMP/audit-ping")"; }

                # A link created mid-flood (the flood runs until stopped, audit on).
                "$BENCH_BIN/sysctl-flood" 0 > "$TMP/audit-bgflood" &
                bgf=$!
                PIDS+=($bgf)
                sleep 0.2
                res "audit link flood $(ip netns exec "$AF_NS" env LINKBENCH_GROUP=13 "$BENCH_BIN/linkbench" single f 0 "$K" 200 5)"
                kill -TERM "$bgf"
                wait "$bgf"
                res "audit flood bg $(cat "$TMP/audit-bgflood") end_realtime_us=$(now_us)"
                ip netns exec "$AF_NS" "$BENCH_BIN/linkbench" delgroup - 13 1 > /dev/null
                kill -TERM "$AF_LPID"

                # Let the last coalesced events out (1 s window), then read what igmpd made of it.
                sleep 1.5
                kill -TERM "$AF_SAMPLER"; wait "$AF_SAMPLER" 2>/dev/null
                st2=$(af_status)
                res "audit rss before=$rss0 max=$(awk 'NF==2 && $1>m{m=$1} END{print m+0}' "$TMP/audit-samples") after=$(rss_kb "$AF_PID")"
                res "audit cpu igmpd_ms=$(($(cpu_ms "$AF_PID") - cpu0)) kauditd_ms=$(( $([ -n "$kpid" ] && cpu_ms "$kpid" || echo 0) - kcpu0))"
                res "audit backlog max=$(awk 'NF==2 && $2>m{m=$2} END{print m+0}' "$TMP/audit-samples") limit=$(af_field backlog_limit "$st1") lost_before=$(af_field lost "$st1") lost_after=$(af_field lost "$st2") wait_jiffies=$(($(af_field backlog_wait_time_actual "$st2") - $(af_field backlog_wait_time_actual "$st1"))) wait_limit_jiffies=$(af_field backlog_wait_time "$st1")"
                sleep 0.3
                while read -r line; do
                        fpid=$(af_field pid "$line")
                        res "audit events $fpid $(af_events "$fpid" "$(af_field end_realtime_us "$line")")"
                done < <(grep '^audit flood \(on\|bg\) ' "$RES")
                res "audit dropped_warnings $(grep -c 'Audit records were dropped' "$TMP/igmpd-audit.log")"
                [ -n "$AF_BUS" ] && kill -TERM "$AF_MON"

                # Stop igmpd, check the host's audit state and knobs.
                audit_restore || die "the host's audit state was not as found after the run ($AF_FAILED); restored"
                res "audit restored enabled=$(sed -n 's/^enabled //p' "$TMP/audit-after") rules=$(($(wc -l < "$TMP/audit-after") - 1))"
                if command -v auditctl > /dev/null; then
                        auditctl -l > "$TMP/auditctl-l-after" 2>&1
                        cmp -s "$TMP/auditctl-l-before" "$TMP/auditctl-l-after" || die "auditctl -l differs after the run"
                fi
                host_knobs > "$TMP/knobs-after"
                cmp -s "$TMP/knobs-before" "$TMP/knobs-after" ||
                        die "the audit igmpd changed host knobs: $(diff "$TMP/knobs-before" "$TMP/knobs-after")"
                ! grep -qE ': Set [a-z0-9_]+=' "$TMP/igmpd-audit.log" || die "the audit igmpd wrote a knob on the host"
                res "audit host_knobs_unchanged $(wc -l < "$TMP/knobs-before")"
                res "audit kmsg_lines $(kmsg_audit_since "$kseq")"
                ns_del "$AF_NS"
        fi
fi

# ---- 8. BPF audit sources -----------------------------------------------------------------------
# libc: a legacy program calls libc's compat sysctl@GLIBC_2.2.5 AUDIT_CALLS times in a row, first
# with nothing attached (baseline), then REPEAT times under igmpd's libc uprobe (igmpd in a
# throwaway namespace, its helper as a child); igmpd's log gives the events and the calls they
# count (coalesced: one event per process and name per second). The private page: a process that
# maps libc before the probe, its libc text mapping's Private_Dirty before and after.
# syscall: getpid() AUDIT_CALLS times, without and with the syscall source, interleaved REPEAT
# times (medians). Both sources attach host-wide (uprobe on the host's libc inode, sys_enter).
CALL_LIBC=${CALL_LIBC:-$(dirname "$MCAST_JOIN")/call-libc-sysctl}
bpf_skip_reason() {
        [ -x "$IGMPD_BPF_HELPER" ] || { echo "igmpd was built without BPF ($IGMPD_BPF_HELPER missing)"; return; }
        [ -x "$CALL_LIBC" ] || { echo "$CALL_LIBC (tests/helpers) not built"; return; }
        [ -x "$BENCH_BIN/syscall-loop" ] || { echo "$BENCH_BIN/syscall-loop not built"; return; }
        [ -r /sys/kernel/btf/vmlinux ] || { echo "this kernel has no BTF"; return; }
        "$CALL_LIBC" 1 2> /dev/null | grep -q 'errno 38' || echo "this libc has no ENOSYS compat sysctl (glibc < 2.32)"
}
# bpf_igmpd NAME SOURCES: igmpd with AuditSources=SOURCES in namespace $BPF_NS; waits until the
# source says it is active (or not); sets BPF_IPID and BPF_ACTIVE_MS (exec → active).
bpf_igmpd() {
        local name=$1 sources=$2 t0
        mkdir -p "$TMP/$name-root/etc/igmpd"
        printf '[Daemon]\nAuditSources=%s\nNetworkManager=no\nAuditHistory=65536\nDriftWatch=no\n' "$sources" \
                > "$TMP/$name-root/etc/igmpd/igmpd.conf"
        t0=$(now_us)
        ip netns exec "$BPF_NS" env -u WATCHDOG_USEC -u WATCHDOG_PID SYSTEMD_LOG_TARGET=console SYSTEMD_LOG_LEVEL=info \
                IGMPD_BPF_HELPER="$IGMPD_BPF_HELPER" IGMPD_BPF_SOCKET="$TMP/no-bpf.sock" \
                "$IGMPD" --config-root "$TMP/$name-root" > "$TMP/$name.log" 2>&1 &
        BPF_IPID=$!
        PIDS+=($BPF_IPID)
        for _ in $(seq 1200); do
                grep -qE "Audit source $sources is (active|not active)" "$TMP/$name.log" && break
                sleep 0.05
        done
        BPF_ACTIVE_MS=$((($(now_us) - t0) / 1000))
        grep -q "Audit source $sources is active" "$TMP/$name.log" ||
                die "the $sources source did not start: $(grep 'Audit source' "$TMP/$name.log")"
}
bpf_stop() { kill -TERM "$BPF_IPID"; wait "$BPF_IPID" 2>/dev/null; BPF_IPID=""; }
libc_private_dirty() { # libc_private_dirty PID: kB of private dirty pages in its libc text mapping
        awk '/^[0-9a-f]+-[0-9a-f]+ r-xp .*\/libc[.-]/ { m = 1; next } /^[0-9a-f]+-[0-9a-f]+ / { m = 0 }
             m && /^Private_Dirty:/ { s += $2 } END { print s + 0 }' "/proc/$1/smaps"
}
if has bpf; then
        reason=$(bpf_skip_reason)
        if [ -n "$reason" ]; then
                log "bpf: skipped: $reason"
                res "bpf skipped $reason"
        else
                hostwide_lock
                log "bpf: libc source, $AUDIT_CALLS compat sysctl() calls ($REPEAT floods); syscall source on getpid()"
                res "bpf calls $AUDIT_CALLS"
                BPF_NS=$(ns_new bpf)
                for ((r = 0; r < REPEAT; r++)); do
                        res "bpf libc off $(tr '\n' ' ' < <("$CALL_LIBC" 3.5.16.-2.1 "$AUDIT_CALLS"))"
                done
                sleep 600 & holder=$!
                PIDS+=($holder)
                sleep 0.2
                dirty0=$(libc_private_dirty "$holder")
                bpf_igmpd bpf-libc libc
                res "bpf libc attach_ms $BPF_ACTIVE_MS $(grep -o 'in [0-9]* libc cop[a-z]*' "$TMP/bpf-libc.log" | head -n 1)"
                res "bpf libc page before_kb=$dirty0 after_kb=$(libc_private_dirty "$holder")"
                kill "$holder"
                cpu0=$(cpu_ms "$BPF_IPID")
                for ((r = 0; r < REPEAT; r++)); do
                        res "bpf libc on $(tr '\n' ' ' < <("$CALL_LIBC" 3.5.16.-2.1 "$AUDIT_CALLS"))"
                done
                sleep 1.5 # the last coalesced events fall due after 1 s
                res "bpf libc cpu igmpd_ms=$(($(cpu_ms "$BPF_IPID") - cpu0))"
                bpf_stop
                while read -r line; do
                        fpid=$(sed -n 's/.*pid \([0-9]*\) result.*/\1/p' <<< "$line")
                        python3 - "$fpid" "$TMP/bpf-libc.log" <<'EOP' | { read -r out; res "bpf libc events $fpid $out"; }
import re, sys
pid, log = int(sys.argv[1]), open(sys.argv[2], errors="replace").read()
n = [int(m.group(1)) for m in re.finditer(r"\(pid %d, .*\(source libc, (\d+) calls?\)" % pid, log)]
print("events=%d counted=%d" % (len(n), sum(n)))
EOP
                done < <(grep '^bpf libc on ' "$RES")
                res "bpf libc lost_warnings $(grep -c 'lost [0-9]* deprecated sysctl' "$TMP/bpf-libc.log")"

                for ((r = 0; r < REPEAT; r++)); do
                        res "bpf syscall off $("$BENCH_BIN/syscall-loop" "$((AUDIT_CALLS * 10))")"
                        bpf_igmpd bpf-syscall syscall
                        res "bpf syscall on $("$BENCH_BIN/syscall-loop" "$((AUDIT_CALLS * 10))")"
                        bpf_stop
                done
                res "bpf syscall attach_ms $BPF_ACTIVE_MS"
                ns_del "$BPF_NS"
        fi
fi

# ---- 7. channel change after a lost join --------------------------------------------------------
# channel_run PROTO QRV HOLD_OVERRIDE_MS: M interfaces per (policy, p) cell; d<K> keep kernel
# defaults, p<K> get igmpd's 200 ms policy; upstream drops reports of interface K with
# probability PROBS[K mod 3].
PROBS="0.1,0.3,0.5"
channel_run() {
        local proto=$1 qrv=$2 hold_override=${3:-} fam=-4 def_ms i k dir up down
        case $proto in
        v2) def_ms=10000 ;;
        v3) def_ms=1000 ;;
        mld) def_ms=1000 fam=-6 ;;
        esac
        local K=$((3 * CH_M))
        if [ $proto = mld ] && [ "$qrv" != 2 ] && [ ! -e /proc/sys/net/ipv6/conf/default/mld_qrv ]; then
                # Linux has net.ipv4.igmp_qrv (per namespace) but no sysctl for MLD's robustness
                # variable: it is fixed at 2 (MLD_QRV_DEFAULT) until a query says otherwise.
                log "channel change: mld, qrv $qrv: not possible, this kernel has no mld_qrv sysctl"
                res "channel_note mld_qrv_fixed"
                return 0
        fi
        dir=$TMP/ch-$proto-$qrv-${hold_override:-x}
        mkdir -p "$dir"
        down=$(ns_new chd) up=$(ns_new chu)
        # igmp_qrv comes from igmpd's [IGMP] Robustness= (checked below), before any veth exists:
        # the kernel reads it when a device is created.
        ip netns exec "$down" sh -c "
                [ -e /proc/sys/net/ipv6/conf/default/mld_qrv ] && echo $qrv > /proc/sys/net/ipv6/conf/default/mld_qrv
                echo 0 > /proc/sys/net/ipv6/conf/default/accept_dad
                [ $proto = v2 ] && echo 2 > /proc/sys/net/ipv4/conf/default/force_igmp_version
                true"
        ip netns exec "$up" sh -c "echo 0 > /proc/sys/net/ipv6/conf/default/accept_dad"
        mkdir -p "$dir/root/etc/igmpd/conf.d"
        printf '[Daemon]\nDriftWatch=no\n' > "$dir/root/etc/igmpd/igmpd.conf"
        cat > "$dir/root/etc/igmpd/conf.d/50-iptv.conf" <<EOC
[Match]
Name=p*

[IGMP]
V2UnsolicitedReportInterval=200
V3UnsolicitedReportInterval=200

[MLD]
V1UnsolicitedReportInterval=200
V2UnsolicitedReportInterval=200
EOC
        printf '[IGMP]\nRobustness=%s\n' "$qrv" > "$dir/root/etc/igmpd/conf.d/05-robustness.conf"
        ip netns exec "$down" env -u WATCHDOG_USEC SYSTEMD_LOG_TARGET=console SYSTEMD_LOG_LEVEL=info \
                "$BENCH_BIN/notify-run" "$dir/n.sock" "$IGMPD" --config-root "$dir/root" > "$dir/igmpd.out" 2> "$dir/igmpd.log" &
        local npid=$!
        PIDS+=($npid)
        for _ in $(seq 200); do grep -q '^ready' "$dir/igmpd.out" 2> /dev/null && break; sleep 0.05; done
        [ "$(ip netns exec "$down" cat /proc/sys/net/ipv4/igmp_qrv)" = "$qrv" ] ||
                die "channel: igmpd did not set igmp_qrv to $qrv ([IGMP] Robustness=): $(tail -n 5 "$dir/igmpd.log")"
        for pol in d p; do
                for ((k = 0; k < K; k++)); do
                        echo "link add $pol$k type veth peer name u$pol$k netns $up"
                done
        done > "$dir/batch"
        ip -n "$down" -batch "$dir/batch" || die "channel: veth creation failed"
        for pol in d p; do for ((k = 0; k < K; k++)); do echo "link set $pol$k up"; done; done > "$dir/up-down"
        for pol in d p; do for ((k = 0; k < K; k++)); do echo "link set u$pol$k up"; done; done > "$dir/up-up"
        # igmpd configures each p* link as it appears; wait for the last one before bringing up.
        local last="/proc/sys/net/ipv4/conf/p$((K - 1))/igmpv3_unsolicited_report_interval"
        for _ in $(seq 200); do [ "$(ip netns exec "$down" cat "$last")" = 200 ] && break; sleep 0.05; done
        ip -n "$up" -batch "$dir/up-up"
        ip -n "$down" -batch "$dir/up-down"
        # Link-up joins (IPv6 solicited-node groups) send their own reports; let them finish.
        sleep $([ $proto = mld ] && echo "$((qrv + 1))" || echo 1)

        # Hold each join until every report it can ever send is out: with no querier upstream a
        # join sends exactly qrv reports within (qrv-1) intervals, so a join that is not accepted by
        # then never is (--tails holds a real 30 s to show it).
        local hold_d hold_p pause_d pause_p rounds_d rounds_p
        hold_d=$(((qrv - 1) * def_ms + 200)); hold_p=$(((qrv - 1) * 200 + 200))
        [ $hold_d -gt 30000 ] && hold_d=30000
        if [ -n "$hold_override" ]; then hold_d=$hold_override hold_p=$hold_override; fi
        if [ $proto = v2 ]; then pause_d=50 pause_p=50; else pause_d=$(((qrv - 1) * def_ms + 200)) pause_p=$(((qrv - 1) * 200 + 200)); fi
        rounds_d=$([ $proto = v2 ] && echo "$CH_ROUNDS_V2" || echo "$CH_ROUNDS")
        [ $proto = v2 ] && [ "$qrv" -gt 2 ] && rounds_d=1
        [ -n "$hold_override" ] && rounds_d=1
        rounds_p=$((rounds_d * (hold_d + pause_d) / (hold_p + pause_p)))
        [ $rounds_p -gt $CH_MAXROUNDS ] && rounds_p=$CH_MAXROUNDS
        [ $rounds_p -lt 1 ] && rounds_p=1
        log "channel change: $proto, qrv $qrv, $K+$K links, kernel default $rounds_d x ${hold_d} ms holds, igmpd $rounds_p x ${hold_p} ms"
        ip netns exec "$up" "$BENCH_BIN/upstream" -s 42 -p "$PROBS" > "$dir/up.out" 2> "$dir/up.err" &
        local upid=$!
        PIDS+=($upid)
        sleep 0.3
        local idx=0 g
        : > "$dir/joins.sh"
        for pol in d p; do
                for ((k = 0; k < K; k++)); do
                        idx=$((idx + 1))
                        if [ $fam = -4 ]; then g="239.$((idx / 256 + 1)).$((idx % 256)).0"; else g=$(printf 'ff15::%x:0' "$idx"); fi
                        if [ $pol = d ]; then
                                echo "'$MCAST_JOIN' $fam $pol$k $g $rounds_d $hold_d $pause_d > '$dir/join.$pol$k' &"
                        else
                                echo "'$MCAST_JOIN' $fam $pol$k $g $rounds_p $hold_p $pause_p > '$dir/join.$pol$k' &"
                        fi
                done
        done >> "$dir/joins.sh"
        echo wait >> "$dir/joins.sh"
        ip netns exec "$down" sh "$dir/joins.sh"
        sleep 0.2
        kill -TERM "$upid"
        wait "$upid" 2>/dev/null
        kill -TERM "$(awk '/^ready/{print $3}' "$dir/igmpd.out")" 2>/dev/null
        wait "$npid" 2>/dev/null
        python3 "$SRCDIR/bench/channel.py" "$proto" "$qrv${hold_override:+/hold${hold_override}}" "$PROBS" "$dir" >> "$RES" ||
                log "channel analysis failed"
        ns_del "$down"
        ns_del "$up"
}
if has channel; then
        [ -x "$MCAST_JOIN" ] || die "$MCAST_JOIN not built"
        for qrv in $CH_QRVS; do
                for proto in $CH_PROTOS; do
                        channel_run "$proto" "$qrv"
                done
        done
        if [ "$TAILS" = 1 ]; then
                channel_run v3 2 30000
                channel_run mld 2 30000
        fi
fi

# ---- 9. drift watch: cost per knob write, revert latency ----------------------------------------
# A writer (bench/knob-writes: open/write/close, as sysctl -w and scripts do) rewrites one knob
# KNOB_WRITES times per case. One igmpd runs throughout; each of the REPEAT rounds first reloads
# it with DriftWatch=no (the program detached) and then with DriftWatch=yes (attached again),
# so the cases of a round share the machine's state of the moment (ratios per round, medians):
#   off         no drift watch attached;
#   filtered    attached, the writer in another network namespace: the path every write of the
#               six knobs that is not reported takes (igmpd's own writes too, plus one
#               pid-namespace lookup);
#   reported    attached, the writer in igmpd's namespace, a knob igmpd does not manage: a ring
#               buffer record per write, wake-ups batched, igmpd reads the knob back per batch;
#   martians    log_martians (not one of the six), off and attached.
# Then igmpd's CPU time and context switches over the reported writes, and the time from a
# foreign write of a managed knob to igmpd's value being back. The watch is attached at the
# host's cgroup2 root: host-wide, so under the same lock as the tests.
if has drift; then
        DRIFT_BPF=${IGMPD_BPF_HELPER:-$BUILD/src/bpf-helper/igmpd-bpf}
        if [ ! -x "$DRIFT_BPF" ] || [ ! -x "$BENCH_BIN/knob-writes" ]; then
                log "drift watch: skipped: igmpd-bpf or knob-writes not built (meson -Dbpf)"
                res "drift skipped not_built"
        else
                hostwide_lock
                DW=$(ns_new dw) DO=$(ns_new do)
                ip -n "$DW" link add dw0 type veth peer name dw1 || die "drift: veth creation failed"
                ip -n "$DO" link add dw0 type veth peer name dw1 || die "drift: veth creation failed"
                mkdir -p "$TMP/drift-root/etc/igmpd/conf.d"
                printf '[Match]\nName=dw0\n[IGMP]\nV3UnsolicitedReportInterval=200\n' > "$TMP/drift-root/etc/igmpd/conf.d/50-dw.conf"
                K2=/proc/sys/net/ipv4/conf/dw1/igmpv2_unsolicited_report_interval
                K3=/proc/sys/net/ipv4/conf/dw0/igmpv3_unsolicited_report_interval
                KM=/proc/sys/net/ipv4/conf/dw1/log_martians
                DLOG=$TMP/igmpd-drift.log
                kw() { ip netns exec "$1" "$BENCH_BIN/knob-writes" -n "$KNOB_WRITES" -r 1 "$2" "$3" | awk '/^median/ {print $2}'; }
                # drift_watch yes|no: reloads igmpd and waits until the watch is attached or detached.
                drift_watch() {
                        local pat n
                        [ "$1" = yes ] && pat='Drift watch is (active|not active)' || pat='Drift watch stopped'
                        n=$(grep -cE "$pat" "$DLOG")
                        printf '[Daemon]\nDriftWatch=%s\nNetworkManager=no\n' "$1" > "$TMP/drift-root/etc/igmpd/igmpd.conf"
                        kill -HUP "$DPID"
                        for _ in $(seq 400); do [ "$(grep -cE "$pat" "$DLOG")" -gt "$n" ] && return 0; sleep 0.05; done
                        die "drift: igmpd did not log '$pat' after DriftWatch=$1"
                }
                printf '[Daemon]\nDriftWatch=yes\nNetworkManager=no\n' > "$TMP/drift-root/etc/igmpd/igmpd.conf"
                # Not under notify-run: it stops reading after READY=1, and the notifications of
                # the reloads below would fill its socket until igmpd's sd_notify() blocks.
                ip netns exec "$DW" env -u WATCHDOG_USEC -u WATCHDOG_PID -u NOTIFY_SOCKET SYSTEMD_LOG_TARGET=console \
                        SYSTEMD_LOG_LEVEL=info IGMPD_BPF_SOCKET=/dev/null/none IGMPD_BPF_HELPER="$DRIFT_BPF" \
                        "$IGMPD" --config-root "$TMP/drift-root" 2> "$DLOG" &
                DPID=$!
                PIDS+=($DPID)
                for _ in $(seq 400); do grep -qE 'Drift watch is (active|not active)' "$DLOG" && break; sleep 0.05; done
                if ! grep -q 'Drift watch is active' "$DLOG"; then
                        log "drift watch: not active: $(grep 'Drift watch' "$DLOG")"
                        res "drift skipped inactive"
                else
                        log "drift watch: $REPEAT rounds of $KNOB_WRITES writes per case, watch detached and attached by reloads"
                        cpu=0 ctx=0
                        for ((r = 0; r < REPEAT; r++)); do
                                drift_watch no
                                off=$(kw "$DW" "$K2" 3000) offm=$(kw "$DW" "$KM" 0)
                                drift_watch yes
                                grep -q 'Drift watch is active' <(tail -n 5 "$DLOG") || die "drift: the watch did not come back"
                                filt=$(kw "$DO" "$K2" 3000)
                                c0=$(cpu_ms "$DPID") x0=$(ctxt "$DPID")
                                rep=$(kw "$DW" "$K2" 3000)
                                sleep 0.05  # the last batch
                                cpu=$((cpu + $(cpu_ms "$DPID") - c0)) ctx=$((ctx + $(ctxt "$DPID") - x0))
                                mart=$(kw "$DW" "$KM" 0)
                                res "drift round off=$off filtered=$filt reported=$rep off_martians=$offm martians=$mart"
                        done
                        res "drift cpu igmpd_ms=$cpu wakeups=$ctx writes=$((KNOB_WRITES * REPEAT))"
                        # Revert latency: write 1000 into the managed knob, poll until 200 is back.
                        for ((r = 0; r < REPEAT * 4; r++)); do
                                res "drift revert_us $(ip netns exec "$DW" bash -c '
                                        k=$1; t0=${EPOCHREALTIME/./}; echo 1000 > "$k"
                                        while read -r v < "$k"; [ "$v" != 200 ]; do
                                                [ $((${EPOCHREALTIME/./} - t0)) -lt 10000000 ] || { echo -1; exit; }
                                        done
                                        echo $((${EPOCHREALTIME/./} - t0))' sh "$K3")"
                                sleep 0.05
                        done
                fi
                # A clean stop (the watch detached by igmpd), not the KILL of ns_del.
                kill -TERM "$DPID"
                wait "$DPID" 2> /dev/null
                ns_del "$DW"
                ns_del "$DO"
        fi
fi

res "meta load_end $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$SRCDIR/bench/report.py" "$RES" "$OUT"
