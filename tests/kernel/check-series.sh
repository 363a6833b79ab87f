#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Checks the kernel patch set in kernel/: the series file and patches/ agree, every patch is
# a git format-patch mail that git can parse, it is numbered as the series orders it, and the
# diffstat in the mail describes the diff that follows it (same files, same totals), so a
# hand-edited diff cannot hide behind a stale diffstat.
#
# Usage: check-series.sh [SRCDIR]   (default: the tree this script lives in)
# Exit:  0 pass, 1 fail, 77 skip (git is not installed).

set -uo pipefail

SRCDIR=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
KDIR=$SRCDIR/kernel
SERIES=$KDIR/series
PATCHES=$KDIR/patches

if ! command -v git >/dev/null 2>&1; then
        echo "SKIP: git is not installed; cannot parse the patches"
        exit 77
fi

failures=0
fail() {
        echo "FAIL: $*"
        failures=$((failures + 1))
}
ok() {
        echo "ok:   $*"
}

[ -f "$SERIES" ] || { echo "FAIL: $SERIES does not exist"; exit 1; }
[ -d "$PATCHES" ] || { echo "FAIL: $PATCHES is not a directory"; exit 1; }

# git apply runs in an empty repository of its own, so no tree (and no user config) matters.
work=$(mktemp -d "${TMPDIR:-/tmp}/check-series.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
git -C "$work" init -q || { echo "FAIL: git init in $work failed"; exit 1; }

# The series, as quilt reads it: one name per line, '#' starts a comment, blank lines ignored.
series=()
while IFS= read -r line || [ -n "$line" ]; do
        line=${line%%#*}
        line=$(printf '%s' "$line" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//')
        [ -n "$line" ] || continue
        # quilt allows options after the name (-p1); only the name is checked here.
        series+=("${line%%[[:space:]]*}")
done < "$SERIES"

echo "checking ${#series[@]} patch(es) listed in $SERIES"
[ "${#series[@]}" -gt 0 ] || fail "series lists no patch"

# 1. every name in the series exists, and only once
declare -A seen=()
for p in "${series[@]}"; do
        if [ -n "${seen[$p]:-}" ]; then
                fail "series lists $p twice"
        fi
        seen[$p]=1
        if [ -f "$PATCHES/$p" ]; then
                ok "series entry $p exists"
        else
                fail "series lists $p, but $PATCHES/$p does not exist"
        fi
done

# 2. every patch file is in the series
shopt -s nullglob
for f in "$PATCHES"/*; do
        name=${f#"$PATCHES"/}
        if [ -z "${seen[$name]:-}" ]; then
                fail "$name is in patches/ but not in the series"
        else
                ok "$name is in the series"
        fi
done

# Files named in the diffstat between the first "---" line and the first "diff --git" line.
diffstat_files() {
        awk '
                /^diff --git / { exit }
                !started && /^---$/ { started = 1; next }
                started && /^ .*[^ ] +\| +([0-9]+|Bin)/ {
                        sub(/^ /, ""); sub(/ +\|.*$/, ""); print
                }' "$1"
}

diffstat_summary() {
        awk '
                /^diff --git / { exit }
                !started && /^---$/ { started = 1; next }
                started && /^ [0-9]+ files? changed/ { print; exit }' "$1"
}

total=${#series[@]}
n=0
for p in "${series[@]}"; do
        n=$((n + 1))
        f=$PATCHES/$p
        [ -f "$f" ] || continue
        echo "-- $p"

        # 3. mail headers as git format-patch writes them, numbered as the series orders them
        first=$(head -n 1 "$f")
        if [[ $first =~ ^From\ [0-9a-f]{40}\ Mon\ Sep\ 17\ 00:00:00\ 2001$ ]]; then
                ok "$p: mbox From line"
        else
                fail "$p: first line is not 'From <40 hex> Mon Sep 17 00:00:00 2001': $first"
        fi
        headers=$(sed -n '1,/^$/p' "$f")
        for h in From Date Subject; do
                if grep -q "^$h: ." <<<"$headers"; then
                        ok "$p: has $h: header"
                else
                        fail "$p: no $h: header"
                fi
        done
        subject=$(grep -m1 '^Subject: ' <<<"$headers")
        if [[ $subject == "Subject: [PATCH $n/$total] "* ]]; then
                ok "$p: numbered [PATCH $n/$total]"
        else
                fail "$p: is number $n of $total in the series, but says: $subject"
        fi

        # 4. git can parse it
        if ! stat_out=$(cd "$work" && git apply --stat "$f" 2>&1); then
                fail "$p: git apply --stat cannot parse it: $stat_out"
                continue
        fi
        ok "$p: git apply --stat parses it"
        numstat=$(cd "$work" && git apply --numstat "$f" 2>/dev/null)

        # 5. the files the diff touches are the files its diffstat lists
        diff_set=$(cut -f3- <<<"$numstat" | sort -u)
        stat_set=$(diffstat_files "$f" | sort -u)
        if [ -z "$stat_set" ]; then
                fail "$p: no diffstat between '---' and the first 'diff --git'"
                continue
        fi
        # A diffstat shortens long names to ".../tail"; match those by their tail.
        missing=""
        while IFS= read -r s; do
                [ -n "$s" ] || continue
                if [[ $s == .../* ]]; then
                        grep -qF -- "/${s#.../}" <<<"$diff_set" || missing+=" $s"
                else
                        grep -qxF -- "$s" <<<"$diff_set" || missing+=" $s"
                fi
        done <<<"$stat_set"
        extra=""
        while IFS= read -r d; do
                [ -n "$d" ] || continue
                found=0
                while IFS= read -r s; do
                        if [[ $s == .../* ]]; then
                                [[ $d == */"${s#.../}" ]] && found=1
                        else
                                [ "$d" = "$s" ] && found=1
                        fi
                done <<<"$stat_set"
                [ $found = 1 ] || extra+=" $d"
        done <<<"$diff_set"
        if [ -z "$missing" ] && [ -z "$extra" ]; then
                ok "$p: diffstat and diff touch the same $(wc -l <<<"$diff_set") file(s)"
        else
                [ -z "$missing" ] || fail "$p: in the diffstat but not in the diff:$missing"
                [ -z "$extra" ] || fail "$p: in the diff but not in the diffstat:$extra"
        fi

        # 6. the diffstat's summary line agrees with the diff's totals
        summary=$(diffstat_summary "$f")
        files=$(wc -l <<<"$diff_set")
        ins=$(awk -F'\t' '{ s += $1 } END { print s + 0 }' <<<"$numstat")
        del=$(awk -F'\t' '{ s += $2 } END { print s + 0 }' <<<"$numstat")
        s_files=$(sed -n 's/^ \([0-9]*\) files\{0,1\} changed.*/\1/p' <<<"$summary")
        s_ins=$(sed -n 's/.* \([0-9]*\) insertions\{0,1\}(+).*/\1/p' <<<"$summary")
        s_del=$(sed -n 's/.* \([0-9]*\) deletions\{0,1\}(-).*/\1/p' <<<"$summary")
        if [ -z "$summary" ]; then
                fail "$p: diffstat has no 'N files changed' line"
        elif [ "$s_files" = "$files" ] && [ "${s_ins:-0}" = "$ins" ] && [ "${s_del:-0}" = "$del" ]; then
                ok "$p: diffstat totals match the diff ($files files, +$ins, -$del)"
        else
                fail "$p: diffstat says '${summary# }', the diff has $files files, +$ins, -$del"
        fi
done

if [ "$failures" -gt 0 ]; then
        echo "FAILED: $failures problem(s) in $KDIR"
        exit 1
fi
echo "PASS: $KDIR: series and ${#series[@]} patch(es) are consistent"
exit 0
