# SPDX-License-Identifier: LGPL-2.1-or-later
# Shared by the test-adversary-*.sh scripts: the reproductions of issue 24, run the way a hostile
# local user would (nobody, in user namespaces it makes itself), against igmpd with its libc
# audit source and the BPF helper it starts as its child. Source after lib.sh and dbus-lib.sh.
#
#   adv_start              skips unless BPF, unshare and gcc work here; takes hostwide_lock (the
#                          exec watch and the uprobes are host-wide); starts a private bus and
#                          igmpd with a 200 ms policy for links named adv*; waits for the libc source
#   adv_fake_libc FILE     writes a 14 KB library with a hidden sysctl@GLIBC_2.2.5 (the helper
#                          probes it like a real glibc ≥ 2.32) to FILE
#   adv_bg CMD…            runs CMD in the background (stdout to /dev/null), killed when the test
#                          ends (the processes a nobody script starts go in $ADV_PIDS the same way)
#   adv_note               the libc source's description (igmpctl kernel's line)
#   adv_rescans            the number of rescans in it
#   adv_fds                igmpd's open file descriptors
#   adv_fd_list            the same, one "fd -> target" each (for a failure message)
#   adv_sweep              `igmpctl reload`, then waits until the rescan of every process that it
#                          asks for has ended (the log names the rescan by its number)
#   adv_helper             the pid of igmpd's BPF helper child ("" if none)
#   adv_link NAME          adds a veth NAME (matching the policy); prints the milliseconds from
#                          `ip link add` until its IGMPv3 interval reads 200 (and how long ip
#                          itself took), fails after 5 s

ADV_DIR=""
ADV_PIDS=""

_adv_cleanup() {
        local pid
        [ -n "$ADV_PIDS" ] && [ -f "$ADV_PIDS" ] || return 0
        while read -r pid; do
                kill -KILL "$pid" 2>/dev/null
        done < "$ADV_PIDS"
}
trap 'rc=$?; set +e; _adv_cleanup; (exit $rc); _t_cleanup' EXIT

adv_start() {
        bpf_require
        command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"
        command -v gcc >/dev/null || skip "gcc is not installed (it builds the fake libc)"
        as_nobody unshare -Urm true 2>/dev/null || skip "unprivileged user namespaces are not allowed here"
        hostwide_lock
        ADV_DIR=$T_TMP/adv
        mkdir -p "$ADV_DIR"
        chmod 0755 "$T_TMP"
        chown nobody "$ADV_DIR"
        ADV_PIDS=$ADV_DIR/pids
        : > "$ADV_PIDS"
        chmod 0666 "$ADV_PIDS"
        dbus_start
        mkdir -p "$T_ROOT/etc/igmpd"
        printf '[Daemon]\nNetworkManager=no\n' > "$T_ROOT/etc/igmpd/igmpd.conf"
        conf_put 50-adv.conf <<'CONF'
[Match]
Name=adv*

[IGMP]
V3UnsolicitedReportInterval=200
CONF
        ADV_NS=$(ns_new a)
        igmpd_start "$ADV_NS" "$@"
        igmpd_wait_bus
        WAIT_SECS=60 wait_until "grep -qE 'Audit source libc is (active|not active)' '$T_LOG'" ||
                fail "the libc source neither started nor failed"
        grep -q 'Audit source libc is active' "$T_LOG" || skip "the libc source cannot run here: $(grep 'Audit source libc' "$T_LOG")"
}

adv_fake_libc() {
        printf 'int f(void) { return -1; }\n__asm__(".symver f,sysctl@GLIBC_2.2.5");\n' > "$T_TMP/fake.c"
        echo 'GLIBC_2.2.5 { };' > "$T_TMP/fake.map"
        gcc -shared -fPIC -nostdlib -Wl,--version-script="$T_TMP/fake.map" -o "$1" "$T_TMP/fake.c" ||
                fail "cannot build the fake libc"
}

adv_bg() {
        "$@" > /dev/null 8>&- &
        echo $! >> "$ADV_PIDS"
}

adv_note() {
        bctl get-property org.igmpd1 /org/igmpd1 org.igmpd1.Audit SourceStates | grep -o '"libc" "[a-z]*" "[^"]*"'
}

adv_rescans() {
        adv_note | sed -n 's/.* \([0-9]*\) rescans\{0,1\}.*/\1/p'
}

adv_fds() {
        ls "/proc/$T_IGMPD_PID/fd" | wc -l
}

adv_fd_list() {
        local f
        for f in /proc/"$T_IGMPD_PID"/fd/*; do
                printf '%s -> %s; ' "${f##*/}" "$(readlink "$f" 2>/dev/null)"
        done
}

# Any sweep that starts after the reload request is logged looks at what exists by then. Its
# number: the counter of rescans reaches it when it ends (one rescan runs at a time).
adv_sweep() {
        local from n
        from=$(($(wc -l < "$T_LOG") + 1))
        "$IGMPCTL" reload > /dev/null || fail "igmpctl reload failed"
        WAIT_SECS=60 wait_until "tail -n +$from '$T_LOG' | grep -qE 'Audit source libc: rescan [0-9]+ looks at every process'" ||
                fail "the reload started no rescan of every process: $(adv_note)"
        n=$(tail -n +"$from" "$T_LOG" | sed -n 's/.*Audit source libc: rescan \([0-9]*\) looks at every process.*/\1/p' | head -n 1)
        WAIT_SECS=60 wait_until "[ \"\$(adv_rescans)\" -ge $n ]" || fail "rescan $n (of every process) did not end: $(adv_note)"
}

adv_helper() {
        ps --ppid "$T_IGMPD_PID" -o pid= | tr -d ' '
}

# The whole wait runs inside the namespace (one `ip netns exec` per sample, not per poll), in
# bash: $EPOCHREALTIME and `read` cost no fork, so the poll is fine-grained.
adv_link() {
        local ms
        ms=$(in_ns "$ADV_NS" bash -c '
                knob=/proc/sys/net/ipv4/conf/$1/igmpv3_unsolicited_report_interval v=""
                t0=${EPOCHREALTIME/./}
                ip link add "$1" type veth peer name "$1p" || exit 1
                ip=$(( ${EPOCHREALTIME/./} - t0 ))
                while [ "$v" != 200 ]; do
                        [ $(( ${EPOCHREALTIME/./} - t0 )) -lt 5000000 ] || { echo "timeout (value ${v:-none})"; exit 1; }
                        read -r v < "$knob" 2>/dev/null || v=""
                done
                t=$(( ${EPOCHREALTIME/./} - t0 ))
                printf "%d.%d (ip link add itself: %d.%d)" $((t / 1000)) $((t % 1000 / 100)) $((ip / 1000)) $((ip % 1000 / 100))' sh "$1") ||
                fail "link $1 matching a 200 ms policy was not configured within 5 s: $ms"
        echo "$ms"
}
