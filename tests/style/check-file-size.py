#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""No source file of src/ over 700 lines (issue 15 for the daemon, issue 26 for the rest: a file
that grows past that holds more than one concern; split it by concern, as manager-drift.c,
nm-wait.c or client-link.c were).

  check-file-size.py [SRCDIR]      exit 0 if every *.[ch] below src/ has <= 700 lines, 1 if not
"""

import os
import sys

LIMIT = 700


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    over = []
    biggest = (0, "")
    for root, _, files in sorted(os.walk(os.path.join(src, "src"))):
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(root, f)
            with open(path, encoding="utf-8") as fh:
                n = sum(1 for _ in fh)
            rel = os.path.relpath(path, src)
            biggest = max(biggest, (n, rel))
            if n > LIMIT:
                over.append((n, rel))
    for n, f in over:
        print(f"{f}: {n} lines, over {LIMIT}: split it by concern", file=sys.stderr)
    if over:
        return 1
    print(f"file sizes: every file of src/ has <= {LIMIT} lines (largest: {biggest[1]}, {biggest[0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
