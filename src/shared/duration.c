/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Duration parsing for config files and the command line, always into milliseconds.
 */

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "duration.h"
#include "macro.h"

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
