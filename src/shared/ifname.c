/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Interface name validation: the gate before any name is used in a path.
 */

#include <string.h>

#include "ifname.h"
#include "macro.h"

bool ifname_valid_len(const char *s, size_t max)
{
        size_t n;

        if (isempty(s))
                return false;
        n = strnlen(s, max);
        if (n >= max)
                return false;
        if (streq(s, ".") || streq(s, ".."))
                return false;
        /* Exactly the kernel's rule (dev_valid_name): its isspace() is ' ', '\t' to '\r' and
         * 0xa0, whatever the locale (spelled out rather than isspace(): this runs for every link
         * at start, and isspace() made it ≈ 280 instructions a name). Any other byte, UTF-8
         * included, is a valid name and a safe path component. */
        for (const unsigned char *p = (const unsigned char *) s; *p; p++)
                if (*p == '/' || *p == ':' || *p == ' ' || (*p >= '\t' && *p <= '\r') || *p == 0xa0)
                        return false;
        return true;
}
