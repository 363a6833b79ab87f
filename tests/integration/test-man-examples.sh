#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The examples in the man pages are what the program prints today: every block marked
# "; example-run" in man/*.scd is run against the real igmpd on a private bus, in a namespace
# with the links the pages talk about, and its output compared (man-examples.py explains the
# marks). A block that shows igmpctl/igmpd output without the mark fails. To bring the pages
# in line after a deliberate change of the output:
#   MAN_EXAMPLES_UPDATE=1 meson test -C build man-examples   (then review git diff man/)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
command -v python3 > /dev/null || skip "python3 is not installed (it runs the examples)"
locale -a 2>/dev/null | grep -qix 'C.utf-*8' || skip "the C.UTF-8 locale is missing (the pages show ● and →)"
dbus_start

# The namespace of the examples; man-examples.py makes it anew, with its links, for each page.
NS=$(ns_new man)
# One warning as a kernel before 5.9 logs it, for the audit examples (no pid in the kernel log).
printf '%s\n' "4,1,1000,-;warning: process \`mcastd' used the deprecated sysctl system call with 3.5.16.-2.17." \
        > "$T_TMP/kmsg"

# What the examples call: igmpctl, and igmpd with the test's configuration root.
mkdir -p "$T_TMP/bin"
ln -s "$IGMPCTL" "$T_TMP/bin/igmpctl"
printf '#!/bin/sh\nexec "%s" --config-root "%s" "$@"\n' "$IGMPD" "$T_ROOT" > "$T_TMP/bin/igmpd"
chmod +x "$T_TMP/bin/igmpd"

NS=$NS T_ROOT=$T_ROOT T_TMP=$T_TMP IGMPD=$IGMPD IGMPCTL=$IGMPCTL SRCDIR=$SRCDIR \
        python3 "$SRCDIR/tests/integration/man-examples.py" || fail "the man pages' examples and the program disagree (see above)"
echo "PASS: $T_NAME"
