#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The README's order on a fresh machine: scripts/demo.sh configured build/ before the drift
# watch's build tools were there, then scripts/test.sh installed them; scripts/setup.sh run
# again must configure that build dir again, so that it gets BPF (and man pages), and must not
# when nothing changed.
#
# What is simulated, and how: the packages cannot be removed from a shared machine, so the first
# setup runs with clang and scdoc hidden from PATH (meson's -Dbpf=auto then builds no BPF, and
# man/ no pages; setup.sh's record of what it found goes through PATH too). The dpkg half of
# that record (package versions) is the same in both runs and is not what this exercises. The
# build step is real for igmpd and igmpctl of the first configuration (below); setup.sh's own
# full build ("ninja") is replaced by a stand-in that records the call, as building everything
# twice would take minutes; what meson configured is read from the build dir.
#
# The igmpd built without BPF then gives no advice that cannot work: igmpctl kernel and
# igmpctl audit name no BPF source to turn on (AuditSources=libc, syscall), and say why.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
# It builds an igmpd of its own, without sanitizers: an ASan run of the suite adds nothing here.
! igmpd_linked_with libasan libubsan || skip "builds its own igmpd; nothing to sanitize"
for prog in meson ninja clang scdoc dpkg-query; do
        command -v "$prog" > /dev/null || skip "$prog is not installed"
done

B=$T_TMP/build
BIN=$T_TMP/bin-without
STUB=$T_TMP/bin-stub
mkdir -p "$BIN" "$STUB"
# PATH without clang and scdoc: every other program of every PATH directory, linked.
IFS=: read -r -a dirs <<< "$PATH"
for d in "${dirs[@]}"; do
        for p in "$d"/*; do
                n=${p##*/}
                case "$n" in clang|clang-[0-9]*|scdoc) continue ;; esac
                [ -x "$p" ] && [ ! -e "$BIN/$n" ] && ln -s "$p" "$BIN/$n"
        done
done
# ninja: meson asks for its version; the build itself is recorded, not run.
REAL_NINJA=$(command -v ninja)
cat > "$STUB/ninja" <<EOF
#!/bin/sh
case "\$1" in --version) exec "$REAL_NINJA" "\$@" ;; esac
echo "ninja \$*" >> "$T_TMP/ninja-calls"
EOF
chmod +x "$STUB/ninja"

setup() { # setup PATH: scripts/setup.sh demo as the demo runs it, its output in $T_TMP/setup.out
        env PATH="$STUB:$1" BUILD_DIR="$B" MESON_ARGS="-Dwerror=true" "$SRCDIR/scripts/setup.sh" demo \
                > "$T_TMP/setup.out" 2>&1 || fail "setup.sh failed: $(cat "$T_TMP/setup.out")"
}

info "first setup, clang and scdoc not installed (hidden from PATH)"
setup "$BIN"
grep -qx '#define HAVE_BPF 0' "$B/config.h" || fail "configured with BPF although clang was hidden: $(grep HAVE_BPF "$B/config.h")"
! grep -q 'igmpctl\.1' "$B/build.ninja" || fail "man pages configured although scdoc was hidden"
grep -q "^ninja -C $B" "$T_TMP/ninja-calls" || fail "setup.sh did not build: $(cat "$T_TMP/ninja-calls")"

info "the igmpd of that build gives no BPF advice"
"$REAL_NINJA" -C "$B" src/daemon/igmpd src/client/igmpctl > "$T_TMP/build.log" 2>&1 ||
        fail "building igmpd without BPF failed: $(tail -n 30 "$T_TMP/build.log")"
IGMPD=$B/src/daemon/igmpd
IGMPCTL=$B/src/client/igmpctl
printf '[Daemon]\nDriftWatch=yes\n' > "$T_ROOT/etc/igmpd/igmpd.conf.d/50-drift.conf" # nothing to attach
dbus_start
NS=$(ns_new s)
veth_add "$NS" v0 v1
igmpd_start "$NS"
igmpd_wait_bus
for verb in kernel audit; do
        out=$("$IGMPCTL" --no-pager "$verb" 2>&1) || fail "igmpctl $verb failed: $out"
        ! grep -qE 'AuditSources=(libc|syscall)|add (libc|syscall) to AuditSources' <<< "$out" ||
                fail "igmpctl $verb advises a BPF source this igmpd was built without: $out"
done
out=$("$IGMPCTL" --no-pager kernel 2>&1)
grep -qE '^(libc|syscall) +(off|inactive) +igmpd was built without BPF' <<< "$out" ||
        fail "igmpctl kernel does not say the BPF sources were not built: $out"
grep -q 'igmpd was built without BPF' <<< "$("$IGMPCTL" --no-pager kernel 2>&1 | sed -n '/^Drift watch/,$p')" ||
        fail "igmpctl kernel does not say why the drift watch is inactive: $out"
igmpd_stop

info "the packages are installed now (PATH as it is): setup.sh configures the build dir again"
: > "$T_TMP/ninja-calls"
setup "$PATH"
grep -qx '#define HAVE_BPF 1' "$B/config.h" || fail "still without BPF after setup.sh with clang installed"
grep -q 'Configuring .* again' "$T_TMP/setup.out" || fail "setup.sh did not say it configures again: $(cat "$T_TMP/setup.out")"
grep -q 'igmpd-bpf' "$B/build.ninja" || fail "no igmpd-bpf target after setup.sh with clang installed"
grep -q 'igmpctl\.1' "$B/build.ninja" || fail "no man pages after setup.sh with scdoc installed"
# (the whole output first: grep -q may exit before meson's last write, failing the pipe)
grep -qE '^ *werror +true ' <<< "$(meson configure "$B" 2>/dev/null)" || fail "-Dwerror=true lost"
grep -q "^ninja -C $B" "$T_TMP/ninja-calls" || fail "setup.sh did not build"

info "nothing changed: setup.sh does not configure again"
before=$(stat -c %Y "$B/build.ninja")
sleep 1.1 # so that a rewrite of build.ninja shows in its mtime
setup "$PATH"
! grep -q 'again' "$T_TMP/setup.out" || fail "setup.sh configured again with nothing changed: $(cat "$T_TMP/setup.out")"
[ "$(stat -c %Y "$B/build.ninja")" = "$before" ] || fail "build.ninja rewritten with nothing changed"

info "other options (test.sh adds -Dwerror=true): configured again with them"
env PATH="$STUB:$PATH" BUILD_DIR="$B" MESON_ARGS="-Dwerror=true -Dfuzz=false -Doptimization=1" "$SRCDIR/scripts/setup.sh" demo \
        > "$T_TMP/setup.out" 2>&1 || fail "setup.sh failed: $(cat "$T_TMP/setup.out")"
grep -qE '^ *optimization +1 ' <<< "$(meson configure "$B" 2>/dev/null)" || fail "the new options were not applied"
echo "PASS: $T_NAME"
