# SPDX-License-Identifier: LGPL-2.1-or-later
# Steps shared by the booted-systemd tests. Source after lib.sh; needs SRCDIR, BUILDDIR, T_TMP.

# A build of igmpd as a distribution would configure it (--prefix=/usr --sysconfdir=/etc), kept
# beside the main build so later runs only recompile what changed. Sets USRBUILD.
nspawn_usr_build() {
        USRBUILD=$BUILDDIR/tests/nspawn/build-usr
        if [ ! -f "$USRBUILD/build.ninja" ]; then
                info "configuring $USRBUILD (--prefix=/usr --sysconfdir=/etc)"
                meson setup "$USRBUILD" "$SRCDIR" --prefix=/usr --sysconfdir=/etc --localstatedir=/var \
                        --buildtype=debugoptimized > "$T_TMP/setup.log" 2>&1 ||
                        { tail -n 30 "$T_TMP/setup.log" >&2; fail "meson setup of the /usr build failed"; }
        fi
        ninja -C "$USRBUILD" > "$T_TMP/build.log" 2>&1 ||
                { tail -n 30 "$T_TMP/build.log" >&2; fail "building the /usr build failed"; }
}

# nspawn_overlay LOWER ROOT [DIR]: a throwaway root, an overlay on the cached one (a full copy
# where overlayfs is unavailable), its changes in DIR/upper (default $T_TMP). The caller's
# cleanup unmounts ROOT.
nspawn_overlay() {
        local d=${3:-$T_TMP}
        mkdir -p "$2" "$d/upper" "$d/work"
        if ! mount -t overlay overlay -o "lowerdir=$1,upperdir=$d/upper,workdir=$d/work" "$2" 2>/dev/null; then
                info "overlayfs unavailable, copying the root"
                cp -a "$1/." "$2/"
        fi
}

# The EXIT trap of a booted-systemd test: stops the container (NSPAWN_PID), unmounts ROOT and
# removes T_TMP, keeping it when KEEP_TMP asks.
# Tests with several containers list them in NSPAWN_PIDS and NSPAWN_ROOTS, and the network
# namespaces they made (ip netns add) in NSPAWN_NETNS.
nspawn_cleanup() {
        local rc=$? pid root ns
        set +e
        for pid in ${NSPAWN_PID:-} ${NSPAWN_PIDS[@]+"${NSPAWN_PIDS[@]}"}; do
                kill -0 "$pid" 2>/dev/null && kill -TERM "$pid"
        done
        for pid in ${NSPAWN_PID:-} ${NSPAWN_PIDS[@]+"${NSPAWN_PIDS[@]}"}; do
                for _ in $(seq 20); do
                        kill -0 "$pid" 2>/dev/null || break
                        sleep 0.1
                done
                kill -KILL "$pid" 2>/dev/null
                wait "$pid" 2>/dev/null
        done
        # (Removing the tree below never touches the cached root: overlayfs writes to upper/ only.)
        for root in ${ROOT:-} ${NSPAWN_ROOTS[@]+"${NSPAWN_ROOTS[@]}"}; do
                mountpoint -q "$root" && { umount "$root" || umount -l "$root"; }
        done
        for ns in ${NSPAWN_NETNS[@]+"${NSPAWN_NETNS[@]}"}; do
                ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
                ip netns del "$ns" 2>/dev/null
        done
        # KEEP_TMP=1 keeps a failed run's files (upper/ holds the container's changes: selftest log,
        # results, journal; console.log the boot); KEEP_TMP=always keeps any run's.
        if { [ $rc -ne 0 ] && [ $rc -ne 77 ] && [ -n "${KEEP_TMP:-}" ]; } || [ "${KEEP_TMP:-}" = always ]; then
                echo "kept $T_TMP" >&2
        else
                rm -rf "$T_TMP"
        fi
        exit $rc
}

# nspawn_debs: the Debian packages of this tree as it is (scripts/deb.sh --worktree, lintian
# included), built once per tree content and kept in $BUILDDIR/tests/nspawn/debs/TREE. Sets DEB
# (igmpd_VERSION_ARCH.deb) and DEB_NEXT (a newer build of the same tree, for upgrades). Skips
# where the package cannot be built here. IGMPD_TEST_DEBS=DIR uses the packages in DIR instead
# (for iterating on a test without rebuilding them at each edit).
nspawn_debs() {
        local tool tree dir v
        if [ -n "${IGMPD_TEST_DEBS:-}" ]; then
                DEB=$(ls "$IGMPD_TEST_DEBS"/igmpd_*.deb | grep -v '+next1_')
                DEB_NEXT=$(ls "$IGMPD_TEST_DEBS"/igmpd_*+next1_*.deb)
                return 0
        fi
        for tool in git dpkg-buildpackage dh; do
                command -v $tool >/dev/null || skip "$tool is not installed: cannot build the package (scripts/setup.sh)"
        done
        git -C "$SRCDIR" rev-parse --git-dir >/dev/null 2>&1 || skip "$SRCDIR is not a git checkout (scripts/deb.sh builds from git)"
        tree=$("$SRCDIR/scripts/deb.sh" --worktree --tree-id) || fail "scripts/deb.sh --tree-id failed"
        dir=$BUILDDIR/tests/nspawn/debs/$tree
        mkdir -p "$BUILDDIR/tests/nspawn/debs"
        # The other package tests of this run wait here and reuse the result.
        exec 7> "$BUILDDIR/tests/nspawn/debs/.lock"
        flock 7
        if [ ! -f "$dir/.built" ]; then
                find "$BUILDDIR/tests/nspawn/debs" -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} +
                v=$(dpkg-parsechangelog -l "$SRCDIR/debian/changelog" -S Version)
                info "building the packages $v and $v+next1 (scripts/deb.sh --worktree)"
                "$SRCDIR/scripts/deb.sh" --worktree --next-version "$v+next1" --outdir "$dir" > "$T_TMP/deb.log" 2>&1 ||
                        { tail -n 40 "$T_TMP/deb.log" >&2; fail "scripts/deb.sh failed (build or lintian errors; see $dir/)"; }
                grep -E '^(lintian|[EW]:)' "$T_TMP/deb.log" | sed 's/^/# /'
                touch "$dir/.built"
        fi
        exec 7>&-
        DEB=$(ls "$dir"/igmpd_*.deb | grep -v '+next1_')
        DEB_NEXT=$(ls "$dir"/igmpd_*+next1_*.deb)
}

# Containers reached over ssh (test-remote.sh, test-ansible.sh). Each is booted with
# nspawn_boot_veth, its veth's host end in the client namespace NSPAWN_CLIENT_NS (made by
# nspawn_ssh_setup), so nothing touches this machine's own network: the client side runs in there
# (nspawn_client). The key is made here; the ssh configuration is this test's own (-F, through a
# wrapper named ssh first in PATH, since sd-bus runs "ssh"): the host's ~/.ssh is never used.
# (--network-namespace-path= instead would leave /proc/sys/net read-only in the container under
# this nspawn, 252.)

# nspawn_ssh_setup: the client namespace, the key and the ssh configuration in $T_TMP.
nspawn_ssh_setup() {
        command -v ssh >/dev/null && command -v ssh-keygen >/dev/null || skip "ssh is not installed (package openssh-client)"
        NSPAWN_CLIENT_NS=igmpd-$T_NAME-$$
        ip netns add "$NSPAWN_CLIENT_NS" || fail "cannot create network namespace $NSPAWN_CLIENT_NS"
        NSPAWN_NETNS+=("$NSPAWN_CLIENT_NS")
        ip -n "$NSPAWN_CLIENT_NS" link set lo up
        ssh-keygen -q -t ed25519 -N '' -C "igmpd-test-$$" -f "$T_TMP/id"
        : > "$T_TMP/known_hosts"
        cat > "$T_TMP/ssh_config" <<EOF
Host *
        IdentityFile $T_TMP/id
        IdentitiesOnly yes
        UserKnownHostsFile $T_TMP/known_hosts
        GlobalKnownHostsFile /dev/null
        StrictHostKeyChecking yes
        BatchMode yes
        ConnectTimeout 10
        LogLevel ERROR
EOF
        mkdir -p "$T_TMP/bin"
        printf '#!/bin/sh\nexec %s -F %s "$@"\n' "$(command -v ssh)" "$T_TMP/ssh_config" > "$T_TMP/bin/ssh"
        chmod +x "$T_TMP/bin/ssh"
}

# nspawn_client COMMAND…: runs in the client namespace, with the ssh wrapper first in PATH.
nspawn_client() {
        nsenter --net="/run/netns/$NSPAWN_CLIENT_NS" env PATH="$T_TMP/bin:$PATH" "$@"
}

# nspawn_ssh_root ROOT ADDR: root's authorized key, ADDR/24 on the container's end (s0) of the
# veth at boot, and the container's host key as the only one known for ADDR.
nspawn_ssh_root() {
        local root=$1 addr=$2
        install -d -m 0700 "$root/root/.ssh"
        install -m 0600 "$T_TMP/id.pub" "$root/root/.ssh/authorized_keys"
        cat > "$root/etc/systemd/system/igmpd-test-net.service" <<UNIT
[Unit]
Description=Address of the test link
# (No udev in the container, so no .device unit to wait for: nspawn moved s0 in before boot.)
Before=ssh.service

[Service]
Type=oneshot
ExecStart=/bin/sh -c 'ip addr add $addr/24 dev s0 && ip link set s0 up'

[Install]
WantedBy=multi-user.target
UNIT
        ln -sf /etc/systemd/system/igmpd-test-net.service "$root/etc/systemd/system/multi-user.target.wants/"
        echo "$addr $(cut -d' ' -f1,2 "$root/etc/ssh/ssh_host_ed25519_key.pub")" >> "$T_TMP/known_hosts"
}

# nspawn_probe ROOT: skips when this machine cannot run a container at all.
nspawn_probe() {
        if ! timeout 60 systemd-nspawn --quiet --register=no --keep-unit --private-network -D "$1" \
                /bin/true < /dev/null > "$T_TMP/probe.log" 2>&1; then
                cat "$T_TMP/probe.log"
                skip "systemd-nspawn cannot run a container on this machine: $(tail -n 1 "$T_TMP/probe.log")"
        fi
}

# nspawn_boot_veth ROOT NAME HOSTIF HOSTADDR: boots ROOT as machine NAME in the background
# (added to NSPAWN_PIDS), its veth's host end HOSTIF with HOSTADDR/24 in the client namespace.
nspawn_boot_veth() {
        local root=$1 name=$2 hostif=$3 hostaddr=$4
        nsenter --net="/run/netns/$NSPAWN_CLIENT_NS" systemd-nspawn --quiet -b --register=no --keep-unit \
                --network-veth-extra="$hostif:s0" -M "$name" -D "$root" --console=pipe \
                < /dev/null > "$T_TMP/console-$name.log" 2>&1 &
        NSPAWN_PIDS+=($!)
        for _ in $(seq 100); do
                ip -n "$NSPAWN_CLIENT_NS" link show "$hostif" > /dev/null 2>&1 && break
                sleep 0.1
        done
        ip -n "$NSPAWN_CLIENT_NS" addr add "$hostaddr/24" dev "$hostif" ||
                { cat "$T_TMP/console-$name.log" >&2; fail "nspawn made no $hostif for $name"; }
        ip -n "$NSPAWN_CLIENT_NS" link set "$hostif" up
}

# nspawn_wait_ssh ADDR [any]: waits (up to BOOT_TIMEOUT s) until root@ADDR answers over ssh and
# its igmpd.service is active or, with "any", until ssh works at all.
nspawn_wait_ssh() {
        local addr=$1 want=${2:-active} i state
        for ((i = 0; i < ${BOOT_TIMEOUT:-300}; i++)); do
                state=$(nspawn_client ssh "root@$addr" systemctl is-active igmpd.service 2>/dev/null) || true
                if { [ "$want" = any ] && [ -n "$state" ]; } || [ "$state" = active ]; then
                        return 0
                fi
                sleep 1
        done
        fail "no ssh to root@$addr with igmpd.service $want within ${BOOT_TIMEOUT:-300} s"
}
