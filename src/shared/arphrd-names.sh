#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Writes the link type names, as networkctl(1) prints them, for arphrd.c: every ARPHRD_* constant
# of <linux/if_arp.h> whose value is a number (not an alias), lowercased, one
# '{ VALUE, "name" },' per line. Usage: arphrd-names.sh CC [CC-ARGS...]
set -eu
defines=$("$@" -dM -E -include linux/if_arp.h - < /dev/null)
printf '%s\n' "$defines" | awk '
        $1 == "#define" && $2 ~ /^ARPHRD_/ && $3 ~ /^(0[xX])?[0-9a-fA-F]+$/ {
                sub(/^ARPHRD_/, "", $2)
                printf "{ %s, \"%s\" },\n", $3, tolower($2)
                n++
        }
        END { if (n == 0) { print "arphrd-names.sh: no ARPHRD_* number in <linux/if_arp.h>" > "/dev/stderr"; exit 1 } }'
