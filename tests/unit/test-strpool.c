/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "strpool.h"

Test(strpool, empty_is_index_zero)
{
        StrPool p;
        uint32_t i = 99;

        cr_assert_eq(strpool_init(&p), 0);
        cr_assert_str_eq(p.strings[0], "");
        cr_assert_null(p.strings[1]);
        cr_assert_eq(strpool_intern(&p, NULL, &i), 0);
        cr_expect_eq(i, 0);
        cr_assert_eq(strpool_intern(&p, "", &i), 0);
        cr_expect_eq(i, 0);
        cr_assert_eq(strpool_add(&p, NULL, &i), 0);
        cr_expect_eq(i, 0);
        cr_assert_eq(strpool_add(&p, "", &i), 0);
        cr_expect_eq(i, 0);
        cr_expect_eq(p.n, 1);
        strpool_done(&p);
}

Test(strpool, intern_finds_by_content_add_appends)
{
        static const struct {
                bool intern;
                const char *s;
                uint32_t want;
        } steps[] = {
                { true, "veth", 1 },
                { true, "configured", 2 },
                { true, "veth", 1 },
                { false, "v0", 3 },
                { false, "v0", 4 },            /* added: no lookup */
                { true, "v0", 5 },             /* added strings are not found by intern */
                { true, "v0", 5 },
                { true, "/etc/igmpd/conf.d/10-site.conf", 6 },
                { true, "configured", 2 },
        };
        static char copies[16][64];
        StrPool p;

        cr_assert_eq(strpool_init(&p), 0);
        for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
                uint32_t i;

                /* A copy of its own: the pool compares content, not pointers. */
                snprintf(copies[k], sizeof copies[k], "%s", steps[k].s);
                const char *s = steps[k].intern ? copies[k] : steps[k].s;
                cr_assert_eq(steps[k].intern ? strpool_intern(&p, s, &i) : strpool_add(&p, s, &i), 0);
                cr_expect_eq(i, steps[k].want, "step %zu (%s): %u, want %u", k, steps[k].s, i, steps[k].want);
                cr_expect_str_eq(p.strings[i], steps[k].s);
        }
        cr_expect_null(p.strings[p.n]);
        strpool_done(&p);
}

Test(strpool, invalid_utf8_and_backslash_are_escaped)
{
        static const struct {
                const char *in, *out;
        } cases[] = {
                { "bad\xff", "bad\\xff" },
                { "\xc3\xa9t\xc3\xa9", "\xc3\xa9t\xc3\xa9" },             /* valid: kept */
                { "\xc3(", "\\xc3(" },                                       /* cut short */
                { "\xed\xa0\x80x", "\\xed\\xa0\\x80x" },                  /* surrogate */
                { "back\\slash", "back\\x5cslash" },                     /* '\' too: unambiguous */
        };
        StrPool p;

        cr_assert_eq(strpool_init(&p), 0);
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
                uint32_t a, b, c;

                cr_assert_eq(strpool_add(&p, cases[k].in, &a), 0);
                cr_expect_str_eq(p.strings[a], cases[k].out, "case %zu", k);
                cr_assert_eq(strpool_intern(&p, cases[k].in, &b), 0);
                cr_assert_eq(strpool_intern(&p, cases[k].in, &c), 0);
                cr_expect_str_eq(p.strings[b], cases[k].out, "case %zu", k);
                cr_expect_eq(b, c, "case %zu: interned twice", k);
        }
        strpool_done(&p);
}

Test(strpool, many)
{
        static char buf[5000][16];
        StrPool p;

        cr_assert_eq(strpool_init(&p), 0);
        for (int round = 0; round < 2; round++)
                for (int k = 0; k < 5000; k++) {
                        uint32_t i;

                        snprintf(buf[k], sizeof buf[k], "s%d", k);
                        cr_assert_eq(strpool_intern(&p, buf[k], &i), 0);
                        cr_assert_eq(i, (uint32_t) k + 1);
                }
        cr_expect_eq(p.n, 5001);
        strpool_done(&p);
}
