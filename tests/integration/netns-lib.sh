# SPDX-License-Identifier: LGPL-2.1-or-later
# Namespaces=named tests: source after lib.sh.
#
# igmpd follows every namespace under /run/netns, and other tests on this machine make theirs
# there too. So each of these tests runs in a mount namespace of its own with a private tmpfs on
# /run/netns: the namespaces it makes (zns-PID-…) are the only ones its igmpd sees, and nobody
# else sees them. The script re-executes itself under unshare(1) for that; everything it makes
# dies with it (lib.sh's cleanup deletes the namespaces, and the mount namespace goes at exit).

if [ -z "${_ZNS_PRIVATE:-}" ]; then
        [ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
        command -v unshare >/dev/null || { echo "SKIP: unshare(1) is not installed"; exit 77; }
        mkdir -p /run/netns
        export _ZNS_PRIVATE=1
        # lib.sh's temp dir of this first process: exec leaves no one to run its EXIT trap.
        rm -rf "$T_TMP"
        exec unshare --mount --propagation private "$0" "$@"
fi
mount -t tmpfs -o mode=0755,size=1m zns-netns /run/netns || fail "cannot mount a private /run/netns"

# zns_add SUFFIX: a named namespace, removed at exit. Prints its name: zns-PID-SUFFIX, or with
# ZNS_PREFIX set, ZNS_PREFIX-PID-SUFFIX.
zns_add() {
        local ns="${ZNS_PREFIX:-zns}-$$-$1"
        echo "$ns" >> "$T_TMP/.namespaces"
        ip netns add "$ns" >&2 || fail "cannot create network namespace $ns"
        _T_NAMESPACES+=("$ns")
        echo "$ns"
}

# named_conf: [Daemon] Namespaces=named for igmpd.
named_conf() {
        printf '[Daemon]\nNamespaces=named\n' > "$T_ROOT/etc/igmpd/igmpd.conf.d/50-named.conf"
}

# pods_conf: 20-pods.conf, V3UnsolicitedReportInterval=150 on eth0 of every zns-PID-pod-*.
pods_conf() {
        conf_put 20-pods.conf <<C
[Match]
Namespace=zns-$$-pod-*
Name=eth0
[IGMP]
V3UnsolicitedReportInterval=150
C
}
