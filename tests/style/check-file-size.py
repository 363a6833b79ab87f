#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""No source file of the daemon over 700 lines (issue 15: a file that grows past that holds
more than one concern; split it by concern, as manager-drift.c or nm-wait.c were).

  check-file-size.py [SRCDIR]      exit 0 if every src/daemon/*.[ch] has <= 700 lines, 1 if not
"""

import os
import sys

LIMIT = 700


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    daemon = os.path.join(src, "src", "daemon")
    over = []
    biggest = (0, "")
    for f in sorted(os.listdir(daemon)):
        if not f.endswith((".c", ".h")):
            continue
        with open(os.path.join(daemon, f), encoding="utf-8") as fh:
            n = sum(1 for _ in fh)
        biggest = max(biggest, (n, f))
        if n > LIMIT:
            over.append((n, f))
    for n, f in over:
        print(f"src/daemon/{f}: {n} lines, over {LIMIT}: split it by concern", file=sys.stderr)
    if over:
        return 1
    print(f"file sizes: every file of src/daemon has <= {LIMIT} lines (largest: {biggest[1]}, {biggest[0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
