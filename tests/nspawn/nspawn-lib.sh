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

# nspawn_overlay LOWER ROOT: a throwaway root, an overlay on the cached one (a full copy where
# overlayfs is unavailable). The caller's cleanup unmounts ROOT.
nspawn_overlay() {
        mkdir -p "$2" "$T_TMP/upper" "$T_TMP/work"
        if ! mount -t overlay overlay -o "lowerdir=$1,upperdir=$T_TMP/upper,workdir=$T_TMP/work" "$2" 2>/dev/null; then
                info "overlayfs unavailable, copying the root"
                cp -a "$1/." "$2/"
        fi
}

# The EXIT trap of a booted-systemd test: stops the container (NSPAWN_PID), unmounts ROOT and
# removes T_TMP, keeping it when KEEP_TMP asks.
nspawn_cleanup() {
        local rc=$?
        set +e
        if [ -n "${NSPAWN_PID:-}" ] && kill -0 "$NSPAWN_PID" 2>/dev/null; then
                kill -TERM "$NSPAWN_PID"
                sleep 2
                kill -KILL "$NSPAWN_PID" 2>/dev/null
                wait "$NSPAWN_PID" 2>/dev/null
        fi
        # (Removing the tree below never touches the cached root: overlayfs writes to upper/ only.)
        mountpoint -q "$ROOT" && { umount "$ROOT" || umount -l "$ROOT"; }
        # KEEP_TMP=1 keeps a failed run's files (upper/ holds the container's changes: selftest log,
        # results, journal; console.log the boot); KEEP_TMP=always keeps any run's.
        if { [ $rc -ne 0 ] && [ $rc -ne 77 ] && [ -n "${KEEP_TMP:-}" ]; } || [ "${KEEP_TMP:-}" = always ]; then
                echo "kept $T_TMP" >&2
        else
                rm -rf "$T_TMP"
        fi
        exit $rc
}
