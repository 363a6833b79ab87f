/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Locale-free number and duration parsing; see parse-util.h.
 */

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
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

static const struct {
        const char *suffix;
        int64_t ms;
} units[] = {
        { "ms",      1 },
        { "msec",    1 },
        { "s",       1000 },
        { "sec",     1000 },
        { "min",     60 * 1000 },
        { "m",       60 * 1000 },
        { "h",       60 * 60 * 1000 },
        { "hr",      60 * 60 * 1000 },
};

int parse_duration_ms(const char *s, int64_t *ret)
{
        int64_t whole = 0, frac = 0, frac_div = 1, mult = 1;
        const char *p = s;
        bool digits = false;

        if (!s)
                return -EINVAL;

        while (isspace((unsigned char) *p))
                p++;

        for (; isdigit((unsigned char) *p); p++) {
                digits = true;
                if (whole > (INT64_MAX - (*p - '0')) / 10)
                        return -ERANGE;
                whole = whole * 10 + (*p - '0');
        }
        if (*p == '.') {
                p++;
                for (; isdigit((unsigned char) *p); p++) {
                        digits = true;
                        if (frac_div >= 1000000000)
                                continue; /* more precision than anyone needs; ignore */
                        frac = frac * 10 + (*p - '0');
                        frac_div *= 10;
                }
        }
        if (!digits)
                return -EINVAL;

        while (isspace((unsigned char) *p))
                p++;

        if (*p) {
                size_t n = strlen(p);

                while (n > 0 && isspace((unsigned char) p[n - 1]))
                        n--;

                size_t i = 0;
                while (i < ELEMENTSOF(units) && !(strlen(units[i].suffix) == n && strncmp(units[i].suffix, p, n) == 0))
                        i++;
                if (i == ELEMENTSOF(units))
                        return -EINVAL;
                mult = units[i].ms;
        } else if (frac_div > 1)
                /* "1.5" without a unit: milliseconds cannot be fractional */
                return -EINVAL;

        if (whole > INT64_MAX / mult)
                return -ERANGE;
        int64_t v = whole * mult;

        /* The fractional part must come out as whole milliseconds: 1.5s yes, 1.0005s no. */
        if (frac > 0) {
                int64_t f = frac * mult;
                if (f % frac_div != 0)
                        return -EINVAL;
                if (v > INT64_MAX - f / frac_div)
                        return -ERANGE;
                v += f / frac_div;
        }

        *ret = v;
        return 0;
}
