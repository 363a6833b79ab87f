/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Locale-free number parsing of byte ranges; see parse-util.h.
 */

#include <errno.h>
#include <limits.h>
#include <stdbool.h>

#include "macro.h"
#include "parse-util.h"

int parse_unsigned_range(const char *s, const char *e, unsigned base, uint64_t max, uint64_t *ret)
{
        uint64_t v = 0;

        if (s >= e)
                return -EINVAL;
        for (; s < e; s++) {
                int d = unhexchar(*s);

                if (d < 0 || (unsigned) d >= base)
                        return -EINVAL;
                if (v > (max - (unsigned) d) / base)
                        return -EINVAL;
                v = v * base + (unsigned) d;
        }
        *ret = v;
        return 0;
}

int parse_int_range(const char *s, const char *e, int *ret)
{
        bool neg = s < e && *s == '-';
        uint64_t v;

        if (parse_unsigned_range(s + neg, e, 10, neg ? (uint64_t) INT_MAX + 1 : INT_MAX, &v) < 0)
                return -EINVAL;
        *ret = neg ? (int) -(int64_t) v : (int) v;
        return 0;
}
