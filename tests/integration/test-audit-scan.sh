#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# igmpctl audit scan: finds the programs that would call sysctl(2) on disk, as an unprivileged
# user, with no daemon and no bus: a legacy import of sysctl@GLIBC_2.2.5, syscall(156) through
# libc's syscall() (dynamic and static), a raw "mov $156,%eax; syscall"; a clean program and a
# non-ELF file are not listed; an unreadable file is counted; --json matches the table; a path
# that does not exist is an error.
. "$(dirname "$0")/lib.sh"

command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
command -v jq >/dev/null || skip "jq is not installed"
[ -x "$IGMPCTL" ] || fail "igmpctl not found at $IGMPCTL"
for h in call-libc-sysctl call-sysctl call-sysctl-static sysctl-raw mcast-join; do
        [ -x "$HELPERS/$h" ] || fail "helper missing: $HELPERS/$h"
done

# The files, in a directory nobody can read (the build tree may not be).
D=$T_TMP/scan
mkdir -p "$D/sub" "$D/secret"
cp "$HELPERS/call-libc-sysctl" "$HELPERS/call-sysctl" "$HELPERS/mcast-join" "$D/"
cp "$HELPERS/call-sysctl-static" "$HELPERS/sysctl-raw" "$D/sub/"
cp "$HELPERS/call-libc-sysctl" "$D/secret/hidden-caller"
echo '#!/bin/sh' > "$D/script.sh"
ln -s "$D/sub/sysctl-raw" "$D/link-to-raw" # links inside a tree are not followed: no duplicate
chmod 711 "$T_TMP"
chmod -R a+rX "$D"
chmod 700 "$D/secret"
nobody() { setpriv --reuid "$(id -u nobody)" --regid "$(id -g nobody)" --clear-groups -- "$@"; }

out=$(nobody "$IGMPCTL" audit scan "$D") || fail "audit scan as nobody failed: $out"
echo "$out" | sed 's/^/# /'
expect_line() { grep -qE "$1" <<< "$out" || fail "no line /$1/ in: $out"; }
expect_line "^$D/call-libc-sysctl +import +calls libc's sysctl@GLIBC_2\\.2\\.5"
expect_line "^$D/call-sysctl +syscall\\(\\) +syscall\\(156"
expect_line "^$D/sub/call-sysctl-static +syscall\\(\\) +syscall\\(156"
expect_line "^$D/sub/sysctl-raw +syscall +system call 156"
! grep -q "mcast-join\|script.sh\|link-to-raw\|hidden-caller" <<< "$out" || fail "listed a file it should not: $out"
expect_line "^4 programs or libraries import or call sysctl\\(2\\); 5 ELF files scanned, 1 unreadable\\.$"

info "--json"
nobody "$IGMPCTL" --json=short audit scan "$D" > "$T_TMP/scan.json" || fail "audit scan --json failed"
jq -e --arg d "$D" '(.files | length) == 4 and .elf_files_scanned == 5 and .unreadable == 1 and
        any(.files[]; .path == ($d + "/call-libc-sysctl") and .finding == "import") and
        any(.files[]; .path == ($d + "/sub/sysctl-raw") and .finding == "syscall")' "$T_TMP/scan.json" > /dev/null ||
        fail "JSON: $(cat "$T_TMP/scan.json")"

info "root reads the hidden one too; a single file; a missing path"
out=$("$IGMPCTL" --no-legend audit scan "$D/secret" "$D/sub/sysctl-raw") || fail "audit scan of two paths failed"
grep -q "hidden-caller .*import" <<< "$out" && grep -q "sysctl-raw .*syscall" <<< "$out" || fail "two paths: $out"
rc=0
err=$("$IGMPCTL" audit scan "$D/does-not-exist" 2>&1) || rc=$?
[ $rc -ne 0 ] || fail "a missing path did not fail"
grep -q "does-not-exist" <<< "$err" || fail "the error does not name the path: $err"
rc=0
"$IGMPCTL" audit scan --follow "$D" > /dev/null 2>&1 || rc=$?
[ $rc = 2 ] || fail "audit scan --follow: exit $rc, expected 2 (usage)"

info "the system's directories (default paths) complete"
nobody "$IGMPCTL" --no-legend audit scan > "$T_TMP/default.out" 2>&1 || fail "default scan failed: $(tail -3 "$T_TMP/default.out")"
info "default scan: $(wc -l < "$T_TMP/default.out") findings"
echo "PASS: $T_NAME"
