/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Locale-free number parsing of byte ranges; see parse-util.h.
 */

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>

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

char *format_int32(char *p, int32_t v)
{
        static const char pairs[] = "0001020304050607080910111213141516171819"
                                    "2021222324252627282930313233343536373839"
                                    "4041424344454647484950515253545556575859"
                                    "6061626364656667686970717273747576777879"
                                    "8081828384858687888990919293949596979899";
        char tmp[10];
        uint32_t u = v < 0 ? -(uint32_t) v : (uint32_t) v;
        size_t n = sizeof tmp;

        while (u >= 100) {
                uint32_t r = u % 100;

                u /= 100;
                n -= 2;
                memcpy(tmp + n, pairs + 2 * r, 2);
        }
        if (u >= 10) {
                n -= 2;
                memcpy(tmp + n, pairs + 2 * u, 2);
        } else
                tmp[--n] = (char) ('0' + u);
        if (v < 0)
                *p++ = '-';
        memcpy(p, tmp + n, sizeof tmp - n);
        return p + (sizeof tmp - n);
}
