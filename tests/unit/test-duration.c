/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>

#include "macro.h"
#include "parse-util.h"

static const struct {
        const char *in;
        int r;
        int64_t ms;
} cases[] = {
        { "200", 0, 200 },
        { "200ms", 0, 200 },
        { "200 ms", 0, 200 },
        { " 200ms ", 0, 200 },
        { "200msec", 0, 200 },
        { "1s", 0, 1000 },
        { "1sec", 0, 1000 },
        { "1.5s", 0, 1500 },
        { "0.2s", 0, 200 },
        { ".5s", 0, 500 },
        { "2min", 0, 120000 },
        { "1.25min", 0, 75000 },
        { "1m", 0, 60000 },
        { "0", 0, 0 },
        { "2147483647", 0, 2147483647 },
        { "1.0005s", -EINVAL, 0 }, /* not a whole millisecond */
        { "1.5", -EINVAL, 0 },     /* fractional milliseconds */
        { "", -EINVAL, 0 },
        { "ms", -EINVAL, 0 },
        { "abc", -EINVAL, 0 },
        { "-5", -EINVAL, 0 },
        { "5h", 0, 18000000 },
        { "1hr", 0, 3600000 },
        { "0.5h", 0, 1800000 },
        { "1.5 h", 0, 5400000 },
        { "596h", 0, 2145600000 },     /* the largest whole hour a knob takes */
        { "597h", 0, 2149200000 },     /* parses; the knob range (2147483647 ms) rejects it */
        { "0.0000001h", -EINVAL, 0 },  /* 0.36 ms */
        { "5hours", -EINVAL, 0 },
        { "5d", -EINVAL, 0 },
        { "5 s s", -EINVAL, 0 },
        { "1e3", -EINVAL, 0 },
        { "99999999999999999999999", -ERANGE, 0 },
        { "9223372036854775807min", -ERANGE, 0 },
        { "2562047788016h", -ERANGE, 0 },
        { "153722867280912930.5min", -ERANGE, 0 }, /* whole part fits, the fraction overflows */
        { "9223372036854775807.5s", -ERANGE, 0 },
};

Test(duration, table)
{
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                int64_t v = -1;
                int r = parse_duration_ms(cases[i].in, &v);
                cr_expect_eq(r, cases[i].r, "'%s': r=%d, expected %d", cases[i].in, r, cases[i].r);
                if (cases[i].r == 0)
                        cr_expect_eq(v, cases[i].ms, "'%s': %lld, expected %lld", cases[i].in, (long long) v,
                                     (long long) cases[i].ms);
                else
                        cr_expect_eq(v, -1, "'%s': output touched on failure", cases[i].in);
        }
}

Test(duration, null)
{
        int64_t v;
        cr_expect_eq(parse_duration_ms(NULL, &v), -EINVAL);
}
