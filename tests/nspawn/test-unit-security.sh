#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# `systemd-analyze security --offline=yes` on every built service unit (igmpd.service and, when
# the BPF helper is built, igmpd-bpf@.service): each exposure must stay at or below 1.5 (Debian
# 12's systemd-networkd.service: 2.8). Catches a hardening option lost in an edit without
# booting anything; tests/nspawn/test-systemd-service.sh proves the options work.
set -euo pipefail

T_NAME=systemd-unit-security
BUILDDIR=${BUILDDIR:?BUILDDIR is not set (run through meson test)}
MAX=1.5

command -v systemd-analyze >/dev/null || { echo "SKIP: $T_NAME: systemd-analyze is not installed"; exit 77; }
[ -f "$BUILDDIR/data/systemd/igmpd.service" ] || { echo "FAIL: $T_NAME: igmpd.service was not generated" >&2; exit 1; }

tmp=$(mktemp -d /tmp/igmpd-unit-security.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
for unit in igmpd.service igmpd-bpf@.service; do
        [ -f "$BUILDDIR/data/systemd/$unit" ] || { echo "# $unit: not built"; continue; }
        # --offline checks the file's syntax too: an unknown or misspelled option is an error.
        cp "$BUILDDIR/data/systemd/$unit" "$tmp/$unit"
        if ! systemd-analyze security --offline=yes --no-pager "$tmp/$unit" > "$tmp/out" 2> "$tmp/err"; then
                cat "$tmp/out" "$tmp/err" >&2
                echo "FAIL: $T_NAME: systemd-analyze security rejected $unit" >&2
                exit 1
        fi
        if grep -v "^$" "$tmp/err" | grep -q .; then
                cat "$tmp/err" >&2
                echo "FAIL: $T_NAME: systemd-analyze warned about $unit" >&2
                exit 1
        fi
        grep '✗' "$tmp/out" | sed "s/^/# $unit: /" || true
        score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' "$tmp/out")
        [ -n "$score" ] || { cat "$tmp/out" >&2; echo "FAIL: $T_NAME: no exposure level for $unit" >&2; exit 1; }
        echo "# $unit exposure level (systemd-analyze security --offline=yes): $score (limit $MAX)"
        if ! awk -v s="$score" -v m="$MAX" 'BEGIN { exit !(s <= m) }'; then
                echo "FAIL: $T_NAME: $unit exposure $score is above $MAX" >&2
                exit 1
        fi
done
echo "PASS: $T_NAME"
