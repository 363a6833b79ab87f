#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs what is missing, builds with warnings as errors, and runs the whole test suite:
#   1. meson test: unit, integration in throwaway network namespaces, booted-systemd (nspawn),
#      man pages, kernel patch set, benchmark smoke run;
#   2. the same unit + integration suites again under ASan+UBSan (scripts/test-sanitizers.sh);
#   3. every libFuzzer target for $FUZZ_SECONDS (default 30) (scripts/fuzz.sh);
#   4. the arm64 and armhf builds, their unit and smoke tests under qemu-user and the arm64
#      Debian package (scripts/cross-build.sh --test --deb; the package counts as one test).
# Set SKIP_SANITIZERS=1, SKIP_FUZZ=1 or SKIP_CROSS=1 to leave a stage out. Ends with one line:
# "N passed, N failed, N skipped" over all stages (a fuzz target counts as one test).
set -uo pipefail

SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export BUILD_DIR=${BUILD_DIR:-$SRCDIR/build-test}
export MESON_ARGS="-Dwerror=true ${MESON_ARGS:-}"

"$SRCDIR/scripts/setup.sh" demo test || { echo "0 passed, 1 failed"; exit 1; }

rc=0
summary=$(mktemp)
trap 'rm -f "$summary"' EXIT

count() { # testlog.json → "passed failed skipped"
        python3 - "$1" <<'PY'
import json, sys
passed = failed = skipped = 0
try:
    for line in open(sys.argv[1]):
        r = json.loads(line).get("result")
        if r in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r == "SKIP":
            skipped += 1
        else:
            failed += 1
except FileNotFoundError:
    failed = 1
print(passed, failed, skipped)
PY
}

echo "== meson test ($BUILD_DIR)"
meson test -C "$BUILD_DIR" --print-errorlogs --no-rebuild ${MESON_TEST_ARGS:-} || rc=1
count "$BUILD_DIR/meson-logs/testlog.json" >> "$summary"

if [ -z "${SKIP_SANITIZERS:-}" ]; then
        echo "== ASan + UBSan"
        "$SRCDIR/scripts/test-sanitizers.sh" || rc=1
        count "${SAN_BUILD_DIR:-$SRCDIR/build-sanitizers}/meson-logs/testlog.json" >> "$summary"
fi

if [ -z "${SKIP_FUZZ:-}" ]; then
        echo "== fuzzing (${FUZZ_SECONDS:-30} s per target)"
        out=$("$SRCDIR/scripts/fuzz.sh" 2>&1) || rc=1
        echo "$out"
        line=$(grep -E '^fuzz: [0-9]+ passed, [0-9]+ failed' <<< "$out" | tail -n 1)
        if [ -n "$line" ]; then
                sed -E 's/^fuzz: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2 0/' <<< "$line" >> "$summary"
        else
                echo "0 1 0" >> "$summary"
        fi
fi

if [ -z "${SKIP_CROSS:-}" ]; then
        echo "== arm64 and armhf under qemu-user (scripts/cross-build.sh)"
        # Removed first so that a stage that stops early counts as failed, not as the last run.
        rm -rf "$SRCDIR"/build-test-{arm64,armhf}/meson-logs/testlog.json "$SRCDIR/build-test-deb-arm64"
        # MESON_ARGS and MESON_TEST_ARGS (the native build's) are not for the cross builds.
        MESON_ARGS="" MESON_TEST_ARGS="" CROSS_BUILD_PREFIX=$SRCDIR/build-test- "$SRCDIR/scripts/cross-build.sh" --test --deb all || rc=1
        for t in arm64 armhf; do
                count "$SRCDIR/build-test-$t/meson-logs/testlog.json" >> "$summary"
        done
        # The arm64 package: one test, passed when the .deb exists and lintian found no error.
        if ls "$SRCDIR"/build-test-deb-arm64/igmpd_*_arm64.deb > /dev/null 2>&1 &&
           [ -f "$SRCDIR/build-test-deb-arm64/lintian.txt" ] && ! grep -q '^E:' "$SRCDIR/build-test-deb-arm64/lintian.txt"; then
                echo "1 0 0" >> "$summary"
        else
                echo "0 1 0" >> "$summary"
        fi
fi

read -r p f s < <(awk '{p += $1; f += $2; s += $3} END {print p + 0, f + 0, s + 0}' "$summary")
[ "$f" -eq 0 ] || rc=1
echo "$p passed, $f failed, $s skipped"
exit $rc
