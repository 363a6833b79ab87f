# SPDX-License-Identifier: LGPL-2.1-or-later
# Shared helpers for integration tests. Source it first thing in a test script:
#
#   . "$(dirname "$0")/lib.sh"
#
# Environment (set by meson test; defaults work from a build dir named "build"):
#   IGMPD     path to the built igmpd
#   IGMPCTL   path to the built igmpctl
#   HELPERS   directory holding the built test helper programs
#   SRCDIR    source tree root
#   IGMPD_BPF_HELPER  the built igmpd-bpf, when BPF is built (bpf_require skips otherwise)
#
# Every namespace, process and temporary directory made through these helpers is removed
# when the script exits, whatever the reason. Exit 77 means "skipped" (meson convention).

set -euo pipefail

SRCDIR=${SRCDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
IGMPD=${IGMPD:-$SRCDIR/build/src/daemon/igmpd}
IGMPCTL=${IGMPCTL:-$SRCDIR/build/src/client/igmpctl}
HELPERS=${HELPERS:-$SRCDIR/build/tests/helpers}
T_NAME=$(basename "$0" .sh)

_T_NAMESPACES=()
_T_PIDS=()
T_TMP=""

skip() {
        echo "SKIP: $T_NAME: $*"
        exit 77
}

fail() {
        echo "FAIL: $T_NAME: $*" >&2
        if [ -n "${T_LOG:-}" ] && [ -f "$T_LOG" ]; then
                echo "---- last lines of igmpd log ($T_LOG) ----" >&2
                tail -n 40 "$T_LOG" >&2 || true
        fi
        exit 1
}

info() {
        echo "# $*"
}

_t_cleanup() {
        local rc=$?
        set +e
        for pid in "${_T_PIDS[@]}"; do
                kill -TERM "$pid" 2>/dev/null
        done
        for pid in "${_T_PIDS[@]}"; do
                for _ in $(seq 50); do
                        kill -0 "$pid" 2>/dev/null || break
                        sleep 0.05
                done
                kill -KILL "$pid" 2>/dev/null
                wait "$pid" 2>/dev/null
        done
        # ns_new may run in a subshell ($(ns_new x)); it records names in a file too.
        if [ -n "$T_TMP" ] && [ -f "$T_TMP/.namespaces" ]; then
                mapfile -t -O "${#_T_NAMESPACES[@]}" _T_NAMESPACES < "$T_TMP/.namespaces"
        fi
        for ns in "${_T_NAMESPACES[@]}"; do
                # Kill anything still running inside before removing it.
                ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
                ip netns del "$ns" 2>/dev/null
        done
        if [ -n "$T_TMP" ] && [ -d "$T_TMP" ]; then
                if [ $rc -ne 0 ] && [ $rc -ne 77 ] && [ -n "${KEEP_TMP:-}" ]; then
                        echo "kept $T_TMP" >&2
                else
                        rm -rf "$T_TMP"
                fi
        fi
        exit $rc
}
trap _t_cleanup EXIT
trap 'exit 130' INT TERM

[ "$(id -u)" = 0 ] || skip "needs root for network namespaces"
command -v ip >/dev/null || skip "iproute2 (ip) is not installed"
[ -x "$IGMPD" ] || fail "igmpd binary not found at $IGMPD"

T_TMP=$(mktemp -d "/tmp/igmpd-test-$T_NAME.XXXXXX")
T_ROOT=$T_TMP/root                  # --config-root for the daemon
T_CONF=$T_ROOT/etc/igmpd/conf.d     # where tests drop policy files
T_LOG=$T_TMP/igmpd.log
# The drift watch attaches a BPF program at the host's cgroup2 root: host-wide state, which only
# the drift tests (under hostwide_lock) turn on, with a drop-in that sorts after this one.
# (Written before conf.d exists: some tests look for files newer than conf.d.)
mkdir -p "$T_ROOT/etc/igmpd/igmpd.conf.d"
printf '[Daemon]\nDriftWatch=no\n' > "$T_ROOT/etc/igmpd/igmpd.conf.d/00-tests.conf"
mkdir -p "$T_CONF"
# No test talks to the host's system bus: igmpd gets a bus address of its own that nothing
# listens on (it waits for the socket there); dbus-lib.sh's dbus_prepare points it at a
# private bus instead.
mkdir -p "$T_TMP/no-bus"
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$T_TMP/no-bus/system_bus_socket"
# Nor does a test use an installed igmpd-bpf.socket: igmpd (root here) starts the BPF helper it
# was built with ($IGMPD_BPF_HELPER) as its own child. Tests of the socket path set this.
export IGMPD_BPF_SOCKET="$T_TMP/no-bpf-helper.sock"

# Short, unique namespace names: igt-<test>-<pid>-<suffix>. Prints the name; safe to call as
# NS=$(ns_new a): the name is recorded in a file the cleanup reads.
ns_new() {
        local ns="igt-${T_NAME:0:12}-$$-$1"
        echo "$ns" >> "$T_TMP/.namespaces"
        ip netns add "$ns" >&2 || fail "cannot create network namespace $ns"
        _T_NAMESPACES+=("$ns")
        ip -n "$ns" link set lo up >&2
        echo "$ns"
}

# Serialises tests that use or inspect host-wide state (the audit subsystem, the cgroup2 root's
# BPF programs, `bpftool prog`/`link` listings): test runs from several checkouts may share one
# machine. Held until the script exits.
# Idempotent: a second `exec 8>` would close the shell's fd while a daemon it started still holds
# the lock through the inherited fd, and the second flock would then wait forever.
hostwide_lock() {
        [ -n "${_T_HOSTWIDE_LOCKED:-}" ] && return 0
        exec 8> /run/lock/igmpd-tests-hostwide.lock
        flock 8
        _T_HOSTWIDE_LOCKED=1
}

# igmpd_linked_with LIB…: true when the igmpd binary links one of the libraries (libasan,
# libubsan…). Reads ldd's whole output first: `ldd … | grep -q` under pipefail fails whenever grep
# exits before ldd's last write (SIGPIPE), and a loaded machine makes that likely (seen: 47 of
# 300 calls), which once made the soak compare RSS in an ASan build.
igmpd_linked_with() {
        local libs lib
        libs=$(ldd "$IGMPD" 2>/dev/null) || true
        for lib in "$@"; do
                [[ $libs == *"$lib"* ]] && return 0
        done
        return 1
}

# Skips unless the BPF audit sources can run here: built with BPF, x86_64, kernel BTF, bpftool.
bpf_require() {
        [ -n "${IGMPD_BPF_HELPER:-}" ] && [ -x "$IGMPD_BPF_HELPER" ] || skip "igmpd was built without BPF (meson -Dbpf)"
        [ "$(uname -m)" = x86_64 ] || skip "the BPF audit sources are x86_64 only"
        [ -r /sys/kernel/btf/vmlinux ] || skip "this kernel has no BTF (/sys/kernel/btf/vmlinux)"
        command -v bpftool >/dev/null || skip "bpftool is not installed"
}

# IDs of the BPF programs and links held by process PID (from its fds' fdinfo: bpftool's pids
# column needs a bpftool built with skeletons), one "prog ID" or "link ID" per line.
bpf_objects_of() {
        local pid=$1 f
        for f in /proc/"$pid"/fdinfo/*; do
                sed -n -e 's/^prog_id:[[:space:]]*\([0-9]*\)$/prog \1/p' -e 's/^link_id:[[:space:]]*\([0-9]*\)$/link \1/p' "$f" 2>/dev/null
        done | sort -u
}

# Whether any of the "prog ID"/"link ID" lines on stdin still exists.
bpf_objects_exist() {
        local kind id
        while read -r kind id; do
                bpftool "$kind" show id "$id" >/dev/null 2>&1 && return 0
        done
        return 1
}

# Runs a command in a namespace.
in_ns() {
        local ns=$1
        shift
        ip netns exec "$ns" "$@"
}

# veth_add NS NAME PEER [extra ip args…]: a veth pair inside NS.
veth_add() {
        local ns=$1 a=$2 b=$3
        shift 3
        ip -n "$ns" link add "$a" "$@" type veth peer name "$b"
}

# Writes a policy file: conf_put NAME <<EOF … EOF (into $T_CONF unless a dir is given as $2).
conf_put() {
        local dir=${2:-$T_CONF}
        mkdir -p "$dir"
        cat > "$dir/$1"
}

# Reads a knob: knob_get NS ipv4|ipv6 IF KNOB
knob_get() {
        in_ns "$1" cat "/proc/sys/net/$2/conf/$3/$4"
}

# Polls a shell condition until true, up to $WAIT_SECS (default 10) seconds.
# It tries $WAIT_SECS × 20 times, 50 ms apart (which takes longer on a loaded machine), but never
# for more than 3 × $WAIT_SECS seconds of wall time: a condition that is expensive to evaluate
# (globbing 4000 links' files) must not turn a failure into a wait of many minutes that ends in
# the test runner's SIGKILL, which leaves the test's namespaces behind.
wait_until() {
        local secs=${WAIT_SECS:-10} i deadline
        deadline=$((SECONDS + 3 * secs + 1))
        for ((i = 0; i < secs * 20 && SECONDS < deadline; i++)); do
                if eval "$1"; then
                        return 0
                fi
                sleep 0.05
        done
        return 1
}

# expect_knob NS FAMILY IF KNOB VALUE: waits until the kernel value is VALUE, fails otherwise.
expect_knob() {
        local ns=$1 fam=$2 ifn=$3 knob=$4 want=$5
        if ! wait_until "[ \"\$(knob_get $ns $fam $ifn $knob 2>/dev/null)\" = '$want' ]"; then
                fail "$fam/conf/$ifn/$knob is '$(knob_get "$ns" "$fam" "$ifn" "$knob" 2>&1)', expected '$want'"
        fi
}

# Starts igmpd inside NS with $T_ROOT as config root; extra args are passed on. All its output
# goes to $T_LOG (appended across restarts). Waits until the daemon logs that its first
# configuration pass is done ("Configured N links, ready."). $IGMPD_WRAP, if set, is a command
# put before igmpd (inside the namespace; word-split).
igmpd_start() {
        local ns=$1 before
        shift
        touch "$T_LOG"
        before=$(grep -c 'links, ready' "$T_LOG" || true)
        # shellcheck disable=SC2086
        ip netns exec "$ns" ${IGMPD_WRAP:-} env SYSTEMD_LOG_TARGET=console SYSTEMD_LOG_LEVEL=${IGMPD_LOG_LEVEL:-debug} \
                "$IGMPD" --config-root "$T_ROOT" "$@" >> "$T_LOG" 2>&1 &
        T_IGMPD_PID=$!
        _T_PIDS+=("$T_IGMPD_PID")
        wait_until "[ \$(grep -c 'links, ready' '$T_LOG' || true) -gt $before ] || ! kill -0 $T_IGMPD_PID 2>/dev/null" ||
                fail "igmpd did not become ready"
        kill -0 "$T_IGMPD_PID" 2>/dev/null || fail "igmpd exited during start-up"
}

# Fails if igmpd holds a knob file open: once a pass is over, each one it opened is closed (the
# first pass closes a batch's files together, with close_range(2)).
expect_no_knob_fds() {
        local open
        open=$(ls -l "/proc/$T_IGMPD_PID/fd" | grep -cE '/proc/sys/net/ipv[46]/conf/[^/]+/' || true)
        [ "$open" -eq 0 ] || fail "igmpd holds $open knob files open: $(ls -l "/proc/$T_IGMPD_PID/fd" |
                grep -E '/proc/sys/net/ipv[46]/conf/[^/]+/' | head -n 3 | awk '{print $NF}' | tr '\n' ' ')"
}

# Counts log lines matching a pattern (grep -E).
log_count() {
        grep -cE "$1" "$T_LOG" || true
}

igmpd_stop() {
        [ -n "${T_IGMPD_PID:-}" ] || return 0
        kill -TERM "$T_IGMPD_PID" 2>/dev/null || true
        wait "$T_IGMPD_PID" 2>/dev/null || true
        T_IGMPD_PID=""
}

igmpd_reload() {
        kill -HUP "$T_IGMPD_PID"
}
