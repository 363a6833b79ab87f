#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds igmpd with AddressSanitizer + UndefinedBehaviorSanitizer in its own build dir and runs
# the whole meson test suite (suites unit and integration; not nspawn, which boots a container of
# its own) with both set to stop at the first error and
# LeakSanitizer on. Any report makes the program exit non-zero, so the test fails.
# Ends with one line: "sanitizers: N passed, N failed, N skipped".
#
#   SAN_BUILD_DIR=/tmp/san scripts/test-sanitizers.sh
#   MESON_TEST_ARGS="--suite unit" scripts/test-sanitizers.sh
set -uo pipefail

SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SAN_BUILD_DIR=${SAN_BUILD_DIR:-$SRCDIR/build-sanitizers}

if [ ! -f "$SAN_BUILD_DIR/build.ninja" ]; then
        meson setup "$SAN_BUILD_DIR" "$SRCDIR" -Db_sanitize=address,undefined -Db_lundef=false \
                -Dbuildtype=debug ${MESON_ARGS:-} >/dev/null ||
                { echo "sanitizers: meson setup failed"; echo "sanitizers: 0 passed, 1 failed, 0 skipped"; exit 1; }
fi
# Quiet when it works; on failure the compiler's or linker's own words, for the CI log.
if ! out=$(ninja -C "$SAN_BUILD_DIR" 2>&1); then
        grep -E -A6 'FAILED|error' <<< "$out" | head -n 40
        echo "sanitizers: build failed"; echo "sanitizers: 0 passed, 1 failed, 0 skipped"; exit 1
fi

# abort_on_error is off so the exit code is the one a test sees; log_path keeps every report
# even when a test script swallows the daemon's stderr.
mkdir -p "$SAN_BUILD_DIR/sanitizer-logs"
rm -f "$SAN_BUILD_DIR"/sanitizer-logs/*
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:log_path=$SAN_BUILD_DIR/sanitizer-logs/asan:${ASAN_OPTIONS_EXTRA:-}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$SAN_BUILD_DIR/sanitizer-logs/ubsan"
export LSAN_OPTIONS="${LSAN_OPTIONS:-}"
# Sanitized programs are slower: give every test three times its timeout.
meson test -C "$SAN_BUILD_DIR" --print-errorlogs --no-rebuild --timeout-multiplier 3 ${MESON_TEST_ARGS:---suite unit --suite integration}
rc=$?

reports=$(ls "$SAN_BUILD_DIR"/sanitizer-logs/ 2>/dev/null | wc -l)
if [ "$reports" -gt 0 ]; then
        echo "sanitizers: $reports report(s) in $SAN_BUILD_DIR/sanitizer-logs:"
        for f in "$SAN_BUILD_DIR"/sanitizer-logs/*; do
                echo "==== $f"
                head -n 40 "$f"
        done
        rc=1
fi

python3 - "$SAN_BUILD_DIR/meson-logs/testlog.json" <<'PY'
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
print(f"sanitizers: {passed} passed, {failed} failed, {skipped} skipped")
PY
exit $rc
