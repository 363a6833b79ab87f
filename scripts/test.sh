#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs what is missing, builds with warnings as errors, and runs the whole test suite
# (unit, integration in throwaway network namespaces, man pages, kernel patch set, …).
# Ends with one line: "N passed, N failed, N skipped".
set -uo pipefail

SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export BUILD_DIR=${BUILD_DIR:-$SRCDIR/build-test}
export MESON_ARGS="-Dwerror=true ${MESON_ARGS:-}"

"$SRCDIR/scripts/setup.sh" || { echo "0 passed, 1 failed"; exit 1; }

meson test -C "$BUILD_DIR" --print-errorlogs --no-rebuild ${MESON_TEST_ARGS:-}
rc=$?

# Summarise from meson's machine-readable log: one entry per test.
python3 - "$BUILD_DIR/meson-logs/testlog.json" <<'PY'
import json, sys
passed = failed = skipped = 0
for line in open(sys.argv[1]):
    r = json.loads(line).get("result")
    if r in ("OK", "EXPECTEDFAIL"):
        passed += 1
    elif r == "SKIP":
        skipped += 1
    else:
        failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
exit $rc
