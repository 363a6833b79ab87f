#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Checks the man pages:
#  1. lint: each built page passes "mandoc -Tlint -W warning" (skipped if mandoc is missing;
#     pages not built yet are generated into a temporary directory if scdoc is installed);
#  2. coverage: every config key and command-line option the code knows is documented:
#       src/shared/knob.c          .key = "…"     -> man/igmpd.conf.5.scd (as Key= under the
#                                                    "# [SECTION] …" heading of its .section)
#       src/shared/knob.c          .option = "…"  -> man/igmpctl.1.scd    (as --option)
#       src/daemon/daemon-config.c .key = "…" or DAEMON_KEY("…", …)  -> man/igmpd.conf.5.scd
#       src/client/*.c             struct option[] entries { "name", … } -> man/igmpctl.1.scd
#       src/daemon/main.c          struct option[] entries { "name", … } -> man/igmpd.8.scd
#     A source file that does not exist yet is skipped with a message.
#  3. environment: every variable the code reads (getenv/secure_getenv("NAME")) is listed in the
#     ENVIRONMENT section of its page: src/client/*.c in igmpctl(1), src/daemon/*.c in igmpd(8);
#  4. the bus policy: every user data/dbus/org.igmpd1.conf lets own org.igmpd1 is named (*user*)
#     in igmpd(8)'s D-BUS INTERFACE section, and no page says "only root";
#  5. README.md cites only files that exist: `paths` under the tree's top directories, and
#     every NAME.md it mentions.
#  (The example outputs in the pages are run and compared by tests/integration/
#  test-man-examples.sh, which needs root.)
#
# Usage: check-man.sh SRCDIR [BUILDDIR]
# Exit:  0 pass, 1 fail, 77 if nothing at all could be checked.

set -uo pipefail
# With pipefail, never end a pipeline in grep -q: it exits at the first match, and the writer
# (awk, printf) dies of SIGPIPE if it still has output, failing the pipeline — a match taken
# for a miss, more often the busier the machine. grep > /dev/null reads everything.

SRCDIR=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BUILDDIR=${2:-}
MANSRC=$SRCDIR/man
PAGES=(igmpd.8 igmpctl.1 igmpd.conf.5)

failures=0
checked=0
opts=() dkeys=() copts=() mopts=()
fail() {
        echo "FAIL: $*"
        failures=$((failures + 1))
}
ok() {
        echo "ok:   $*"
        checked=$((checked + 1))
}
skip() {
        echo "skip: $*"
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-man.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# ---- 1. lint -------------------------------------------------------------------------------

# scdoc (1.11) puts a .P after every .SH/.SS and before .RE; mandoc reports those as "skipping
# paragraph macro" warnings. They are harmless and come from the generator, not from the page
# text, so they are filtered out; any other warning or error fails the check.
SCDOC_NOISE='WARNING: skipping paragraph macro: (PP|P|LP) (empty|after SH|after SS|before RE)'

if ! command -v mandoc >/dev/null 2>&1; then
        skip "mandoc is not installed; not linting the pages"
else
        for page in "${PAGES[@]}"; do
                built=""
                if [ -n "$BUILDDIR" ] && [ -f "$BUILDDIR/man/$page" ]; then
                        built=$BUILDDIR/man/$page
                elif [ -f "$MANSRC/$page.scd" ] && command -v scdoc >/dev/null 2>&1; then
                        if scdoc < "$MANSRC/$page.scd" > "$tmp/$page" 2> "$tmp/$page.err"; then
                                built=$tmp/$page
                        else
                                fail "$page: scdoc failed: $(cat "$tmp/$page.err")"
                                continue
                        fi
                fi
                if [ -z "$built" ]; then
                        skip "$page: not built and scdoc is not installed; not linting it"
                        continue
                fi
                out=$(mandoc -Tlint -W warning "$built" 2>&1 | grep -Ev -- "$SCDOC_NOISE")
                if [ -n "$out" ]; then
                        fail "$page: mandoc -Tlint -W warning:"
                        printf '%s\n' "$out" | sed 's/^/      /'
                else
                        ok "$page: mandoc -Tlint -W warning is clean (scdoc's paragraph-macro noise aside)"
                fi
        done
fi

# ---- 2. coverage ---------------------------------------------------------------------------

# Long option names from "struct option NAME[] = { … };" arrays in the given files.
long_options() {
        awk '
                /struct option[^;(]*\[[^]]*\][^;]*=/ { inopt = 1 }
                inopt {
                        line = $0
                        while (match(line, /\{ *"[^"]+" *,/)) {
                                s = substr(line, RSTART, RLENGTH)
                                sub(/^\{ *"/, "", s); sub(/" *,$/, "", s)
                                print s
                                line = substr(line, RSTART + RLENGTH)
                        }
                        if ($0 ~ /\};/) inopt = 0
                }' "$@" | sort -u
}

# Values of string fields: table_strings FIELD FILE -> every "…" in ".FIELD = "…"".
table_strings() {
        sed -n "s/.*\\.$1 *= *\"\\([^\"]*\\)\".*/\\1/p" "$2" | sort -u
}

# check_documented WHAT PAGE FORMAT NAMES… ; FORMAT "key" looks for "Name=", "option" for "--name".
check_documented() {
        local what=$1 page=$2 kind=$3
        shift 3
        local scd=$MANSRC/$page.scd
        if [ ! -f "$scd" ]; then
                fail "$scd does not exist, cannot check that $what are documented"
                return
        fi
        if [ "$#" -eq 0 ]; then
                fail "found no $what in the source; has the table format changed? (update man/check-man.sh)"
                return
        fi
        local n name missing=()
        n=$#
        for name in "$@"; do
                if [ "$kind" = key ]; then
                        grep -Eq "(^|[^A-Za-z0-9])${name}=" "$scd" || missing+=("$name=")
                else
                        grep -Eq -- "--${name}([^A-Za-z0-9-]|$)" "$scd" || missing+=("--$name")
                fi
        done
        if [ "${#missing[@]}" -eq 0 ]; then
                ok "all $n $what are documented in $page.scd"
        else
                fail "$what missing from $page.scd: ${missing[*]}"
        fi
}

# Options the page documents that the code does not have (yet): reported, not a failure,
# because pages are written from the design while the code is still being written.
report_extra_options() {
        local page=$1
        shift
        local scd=$MANSRC/$page.scd doc
        [ -f "$scd" ] || return
        # Only the option definitions: lines starting with "*-" ("*-h*, *--help*").
        while IFS= read -r doc; do
                printf '%s\n' "$@" | grep -xF -- "$doc" > /dev/null ||
                        echo "note: $page.scd documents --$doc, which the code does not define (yet)"
        done < <(grep -E '^[[:space:]]*\*-' "$scd" | grep -Eo -- '--[a-z][a-z0-9-]+' | sed 's/^--//' | sort -u)
}

# "SECTION KEY" for every knob table row: the .section seen last before each .key.
knob_section_keys() {
        awk '
                match($0, /\.section *= *"[^"]*"/) { s = substr($0, RSTART, RLENGTH); sub(/^[^"]*"/, "", s); sub(/"$/, "", s); sec = s }
                match($0, /\.key *= *"[^"]*"/) { k = substr($0, RSTART, RLENGTH); sub(/^[^"]*"/, "", k); sub(/"$/, "", k); print sec " " k }
        ' "$1" | sort -u
}

# Each knob key must be documented under the page's "# [SECTION] SECTION OPTIONS" heading.
check_knob_sections() {
        local scd=$MANSRC/igmpd.conf.5.scd n=0 sec key missing=()
        if [ ! -f "$scd" ]; then
                fail "$scd does not exist, cannot check that the knob keys are documented"
                return
        fi
        while read -r sec key; do
                [ -n "$key" ] || continue
                n=$((n + 1))
                awk -v h="# [${sec^^}] " 'index($0, h) == 1 { on = 1; next } /^# / { on = 0 } on' "$scd" |
                        grep -Eq "(^|[^A-Za-z0-9])${key}=" || missing+=("[$sec] $key=")
        done < <(knob_section_keys "$knob")
        if [ "$n" -eq 0 ]; then
                fail "found no .section/.key rows in $knob; has the table format changed? (update man/check-man.sh)"
        elif [ "${#missing[@]}" -eq 0 ]; then
                ok "all $n knob keys (src/shared/knob.c) are documented under their [SECTION] heading in igmpd.conf.5.scd"
        else
                fail "knob keys not documented under their section's heading in igmpd.conf.5.scd: ${missing[*]}"
        fi
}

knob=$SRCDIR/src/shared/knob.c
if [ -f "$knob" ]; then
        mapfile -t opts < <(table_strings option "$knob")
        check_knob_sections
        check_documented "knob options (src/shared/knob.c)" igmpctl.1 option "${opts[@]}"
else
        skip "$knob does not exist yet"
fi

dconf=$SRCDIR/src/daemon/daemon-config.c
if [ -f "$dconf" ]; then
        mapfile -t dkeys < <({ table_strings key "$dconf"
                               sed -n 's/.*DAEMON_KEY( *"\([^"]*\)".*/\1/p' "$dconf"; } | sort -u)
        check_documented "[Daemon] keys (src/daemon/daemon-config.c)" igmpd.conf.5 key "${dkeys[@]}"
else
        skip "$dconf does not exist yet"
fi

shopt -s nullglob
client_src=("$SRCDIR"/src/client/*.c)
if [ "${#client_src[@]}" -gt 0 ]; then
        mapfile -t copts < <(long_options "${client_src[@]}")
        check_documented "igmpctl long options (src/client/*.c)" igmpctl.1 option "${copts[@]}"
        [ "${#copts[@]}" -eq 0 ] || report_extra_options igmpctl.1 "${copts[@]}" "${opts[@]}"
else
        skip "src/client/*.c do not exist yet"
fi

dmain=$SRCDIR/src/daemon/main.c
if [ -f "$dmain" ]; then
        mapfile -t mopts < <(long_options "$dmain")
        check_documented "igmpd long options (src/daemon/main.c)" igmpd.8 option "${mopts[@]}"
        [ "${#mopts[@]}" -eq 0 ] || report_extra_options igmpd.8 "${mopts[@]}"
else
        skip "$dmain does not exist yet"
fi

# ---- 3. environment ------------------------------------------------------------------------

# Variables read by the given C files.
env_reads() {
        grep -ohE '(secure_)?getenv\("[A-Z_][A-Z0-9_]*"\)' "$@" | sed -E 's/.*\("([^"]*)"\)/\1/' | sort -u
}

# The text of section "# NAME" of a page.
section() {
        awk -v h="# $2" '$0 == h { on = 1; next } /^# / { on = 0 } on' "$MANSRC/$1.scd"
}

check_environment() {
        local page=$1 what=$2 var missing=() n=0
        shift 2
        [ "$#" -gt 0 ] || { skip "$what: no source files"; return; }
        while read -r var; do
                [ -n "$var" ] || continue
                n=$((n + 1))
                section "$page" ENVIRONMENT | grep -F "*$var*" > /dev/null || missing+=("$var")
        done < <(env_reads "$@")
        if [ "${#missing[@]}" -eq 0 ]; then
                ok "all $n environment variables $what reads are in the ENVIRONMENT section of $page.scd"
        else
                fail "environment variables $what reads but $page.scd's ENVIRONMENT does not list: ${missing[*]}"
        fi
}

check_environment igmpctl.1 "igmpctl (src/client/*.c)" "${client_src[@]}"
daemon_src=("$SRCDIR"/src/daemon/*.c)
check_environment igmpd.8 "igmpd (src/daemon/*.c)" "${daemon_src[@]}"

# ---- 4. who may own the bus name -------------------------------------------------------------

policy=$SRCDIR/data/dbus/org.igmpd1.conf
if [ -f "$policy" ]; then
        mapfile -t owners < <(awk '/<policy user="/ { match($0, /user="[^"]*"/); u = substr($0, RSTART + 6, RLENGTH - 7) }
                                   /<\/policy>/ { u = "" }
                                   /<allow own="org.igmpd1"/ && u != "" { print u }' "$policy" | sort -u)
        missing=()
        for u in "${owners[@]}"; do
                section igmpd.8 "D-BUS INTERFACE" | grep -F "*$u*" > /dev/null || missing+=("$u")
        done
        if [ "${#owners[@]}" -eq 0 ]; then
                fail "found no owner of org.igmpd1 in $policy; has its format changed? (update man/check-man.sh)"
        elif [ "${#missing[@]}" -gt 0 ]; then
                fail "igmpd.8.scd's D-BUS INTERFACE does not name who may own org.igmpd1 as $policy does: ${missing[*]}"
        elif grep -qiE 'only root may own' "$MANSRC"/*.scd "$SRCDIR/README.md"; then
                fail "a page or the README says only root may own org.igmpd1; the policy also allows: ${owners[*]}"
        else
                ok "the pages name every user the bus policy lets own org.igmpd1 (${owners[*]})"
        fi
fi

# ---- 5. README cites files that exist ----------------------------------------------------------

readme=$SRCDIR/README.md
if [ -f "$readme" ]; then
        missing=()
        n=0
        tops=$(cd "$SRCDIR" && git ls-files 2>/dev/null | cut -d/ -f1 | sort -u | grep -v '\.' | tr '\n' '|')
        tops=${tops:-src|tests|data|scripts|man|kernel|bench}
        while read -r p; do
                n=$((n + 1))
                # shellcheck disable=SC2086 # globs ("data/examples/*.conf") are meant to expand
                compgen -G "$SRCDIR/${p%%:*}" > /dev/null || missing+=("$p")
        done < <({ grep -oE '`[^` ]+`' "$readme" | tr -d '`' | grep -E "^(\.ci|${tops%|})/"
                   grep -oE '\b[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*\.md\b' "$readme"; } | sort -u)
        if [ "${#missing[@]}" -eq 0 ]; then
                ok "the $n files README.md cites exist"
        else
                fail "README.md cites files that are not in the tree: ${missing[*]}"
        fi
fi

if [ "$failures" -gt 0 ]; then
        echo "FAILED: $failures problem(s)"
        exit 1
fi
if [ "$checked" -eq 0 ]; then
        echo "SKIP: nothing could be checked"
        exit 77
fi
echo "PASS: $checked check(s)"
exit 0
