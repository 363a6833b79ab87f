#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds the libFuzzer targets (tests/fuzz) with clang in their own build dir and runs each for
# $FUZZ_SECONDS (default 30), starting from the seed corpus in tests/fuzz/corpus/<target>/ (new
# inputs go to a scratch corpus, the checked-in one is never written) plus the inputs that once
# crashed, tests/fuzz/regressions/<target>/ (also run by tests/unit/test-fuzz-regressions.c). A crash, leak or failed
# invariant leaves its reproducer in $FUZZ_OUT/<target>/ (crash-*, leak-*, timeout-*).
# Ends with "fuzz: N passed, N failed"; exits non-zero if any target failed.
#
#   FUZZ_SECONDS=600 scripts/fuzz.sh             # the long run
#   FUZZ_TARGETS="fuzz-kmsg fuzz-audit" scripts/fuzz.sh
#   /tmp/igmpd-build-fuzz/tests/fuzz/fuzz-kmsg crash-…   # replay one input
set -uo pipefail

SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FUZZ_BUILD_DIR=${FUZZ_BUILD_DIR:-$SRCDIR/build-fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-30}
FUZZ_OUT=${FUZZ_OUT:-$FUZZ_BUILD_DIR/fuzz-out}
FUZZ_TARGETS=${FUZZ_TARGETS:-"fuzz-policy fuzz-duration fuzz-kmsg fuzz-audit fuzz-sysctl-binary fuzz-bus-validate fuzz-elf fuzz-bpf-protocol"}

command -v clang >/dev/null || { echo "fuzz: clang is not installed (apt-get install clang libclang-rt-14-dev)"; echo "fuzz: 0 passed, 1 failed"; exit 1; }

if [ ! -f "$FUZZ_BUILD_DIR/build.ninja" ]; then
        CC=clang meson setup "$FUZZ_BUILD_DIR" "$SRCDIR" -Dfuzz=true >/dev/null ||
                { echo "fuzz: meson setup failed"; echo "fuzz: 0 passed, 1 failed"; exit 1; }
fi
targets=()
for t in $FUZZ_TARGETS; do targets+=("tests/fuzz/$t"); done
# FUZZ_NO_BUILD=1 runs the binaries already built (e.g. while the tree is being edited).
if [ -z "${FUZZ_NO_BUILD:-}" ]; then
        # Quiet when it works; on failure the compiler's or linker's own words, for the CI log.
        if ! out=$(ninja -C "$FUZZ_BUILD_DIR" "${targets[@]}" 2>&1); then
                grep -E -A6 'FAILED|error' <<< "$out" | head -n 40
                echo "fuzz: build failed"; echo "fuzz: 0 passed, 1 failed"; exit 1
        fi
fi

passed=0
failed=0
for t in $FUZZ_TARGETS; do
        out=$FUZZ_OUT/$t
        mkdir -p "$out/corpus"
        # ASan's leak check on; stop at the first problem; 10 s per input is a hang.
        ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1} \
        UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
                "$FUZZ_BUILD_DIR/tests/fuzz/$t" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 \
                -artifact_prefix="$out/" -print_final_stats=1 \
                "$out/corpus" "$SRCDIR/tests/fuzz/corpus/$t" \
                $([ -d "$SRCDIR/tests/fuzz/regressions/$t" ] && echo "$SRCDIR/tests/fuzz/regressions/$t") > "$out/log" 2>&1
        rc=$?
        stats=$(grep -E '^#[0-9]+.*(DONE|pulse)' "$out/log" | tail -n 1)
        if [ $rc -eq 0 ]; then
                passed=$((passed + 1))
                echo "fuzz: $t: ok ($stats)"
        else
                failed=$((failed + 1))
                echo "fuzz: $t: FAILED (exit $rc), reproducer(s): $(ls "$out"/crash-* "$out"/leak-* "$out"/timeout-* "$out"/oom-* 2>/dev/null | tr '\n' ' ')"
                grep -E 'ERROR|SUMMARY|Assertion|runtime error' "$out/log" | head -n 10
        fi
done
echo "fuzz: $passed passed, $failed failed"
[ $failed -eq 0 ]
