/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "macro.h"
#include "utf8.h"

static const struct {
        const char *in;
        const char *invalid;  /* utf8_escape(UTF8_ESCAPE_INVALID) */
        const char *control;  /* utf8_escape(UTF8_ESCAPE_CONTROL) */
        const char *shown;    /* utf8_escape(UTF8_ESCAPE_SHOWN) */
} escape_cases[] = {
        { "", "", "", "" },
        { "eth0", "eth0", "eth0", "eth0" },
        { "vé0", "vé0", "vé0", "vé0" },                             /* valid UTF-8 is its own form */
        { "v\\x01", "v\\x5cx01", "v\\x5cx01", "v\\x01" },            /* a backslash is escaped, but not when shown */
        { "a\\xff", "a\\x5cxff", "a\\x5cxff", "a\\xff" },            /* the five characters a\xff … */
        { "a\xff", "a\\xff", "a\\xff", "a\\xff" },                   /* … and a with byte 0xff differ */
        { "\\", "\\x5c", "\\x5c", "\\" },
        { "bad\xff", "bad\\xff", "bad\\xff", "bad\\xff" },
        { "\xff\xfe", "\\xff\\xfe", "\\xff\\xfe", "\\xff\\xfe" },
        { "cut\xc3", "cut\\xc3", "cut\\xc3", "cut\\xc3" },           /* a sequence cut short */
        { "\xc0\xaf", "\\xc0\\xaf", "\\xc0\\xaf", "\\xc0\\xaf" },    /* overlong '/' */
        { "\xed\xa0\x80", "\\xed\\xa0\\x80", "\\xed\\xa0\\x80", "\\xed\\xa0\\x80" }, /* surrogate */
        { "esc\x1b[31m", "esc\x1b[31m", "esc\\x1b[31m", "esc\\x1b[31m" }, /* a terminal escape */
        { "del\x7f", "del\x7f", "del\\x7f", "del\\x7f" },
        { "csi\xc2\x9b" "1m", "csi\xc2\x9b" "1m", "csi\\xc2\\x9b" "1m", "csi\\xc2\\x9b" "1m" }, /* C1 U+009B */
        { "nbsp\xc2\xa0", "nbsp\xc2\xa0", "nbsp\xc2\xa0", "nbsp\xc2\xa0" },  /* U+00A0 is no control */
        { "\x01\xff\\", "\x01\\xff\\x5c", "\\x01\\xff\\x5c", "\\x01\\xff\\" },
};

Test(utf8, escape)
{
        for (size_t i = 0; i < ELEMENTSOF(escape_cases); i++) {
                const char *in = escape_cases[i].in;
                char buf[UTF8_ESCAPED_SIZE(64)], back[64];
                char *d;

                cr_assert_lt(strlen(in), 64);
                cr_expect_str_eq(utf8_escape(in, UTF8_ESCAPE_INVALID, buf), escape_cases[i].invalid, "case %zu", i);
                cr_expect(utf8_is_valid(buf), "case %zu", i);
                cr_expect_eq(utf8_is_plain(in), streq(in, escape_cases[i].invalid), "case %zu", i);
                /* Every name comes back, whatever it holds. */
                cr_expect_eq(utf8_unescape(buf, back, sizeof back), 0, "case %zu", i);
                cr_expect_str_eq(back, in, "case %zu", i);
                cr_expect_str_eq(utf8_escape(in, UTF8_ESCAPE_CONTROL, buf), escape_cases[i].control, "case %zu", i);
                cr_expect_eq(utf8_unescape(buf, back, sizeof back), 0, "case %zu", i);
                cr_expect_str_eq(back, in, "case %zu", i);
                d = utf8_escape_dup(in, UTF8_ESCAPE_CONTROL);
                cr_assert_not_null(d);
                cr_expect_str_eq(d, escape_cases[i].control);
                free(d);
                cr_expect_str_eq(utf8_escape(in, UTF8_ESCAPE_SHOWN, buf), escape_cases[i].shown, "case %zu", i);
        }
}

/* No two names look alike: the escaped forms of all names of up to three bytes from an alphabet
 * of the characters that make escapes ('\\', 'x', hex digits) and bytes that are not UTF-8 are
 * all different, and each unescapes to its name. */
Test(utf8, escape_is_unambiguous)
{
        static const char alphabet[] = { '\\', 'x', 'f', '5', 'c', '\xff', '\xc3', '\xa9', 'a' };
        enum { N = sizeof alphabet };
        static char seen[N * N * N + N * N + N + 1][UTF8_ESCAPED_SIZE(3)];
        size_t n_seen = 0;

        for (size_t len = 0; len <= 3; len++) {
                size_t total = len == 0 ? 1 : len == 1 ? N : len == 2 ? N * N : N * N * N;

                for (size_t code = 0; code < total; code++) {
                        char name[4] = {}, back[4];
                        size_t c = code;

                        for (size_t k = 0; k < len; k++, c /= N)
                                name[k] = alphabet[c % N];
                        utf8_escape(name, UTF8_ESCAPE_INVALID, seen[n_seen]);
                        cr_assert_eq(utf8_unescape(seen[n_seen], back, sizeof back), 0);
                        cr_assert_str_eq(back, name);
                        for (size_t j = 0; j < n_seen; j++)
                                cr_assert_str_neq(seen[j], seen[n_seen], "two names escape to %s", seen[j]);
                        n_seen++;
                }
        }
}

Test(utf8, escape_bytes)
{
        char buf[UTF8_ESCAPED_SIZE(8)];

        /* A NUL inside is a control character. */
        cr_expect_eq(utf8_escape_bytes("a\0b\\", 4, UTF8_ESCAPE_CONTROL, buf), 10);
        cr_expect_str_eq(buf, "a\\x00b\\x5c");
        cr_expect_eq(utf8_escape_bytes("\xc3\xa9", 1, UTF8_ESCAPE_INVALID, buf), 4); /* cut by len */
        cr_expect_str_eq(buf, "\\xc3");
}

Test(utf8, escape_worst_case_fits)
{
        char in[16], buf[UTF8_ESCAPED_SIZE(15)];

        memset(in, 0xff, 15);
        in[15] = '\0';
        utf8_escape(in, UTF8_ESCAPE_CONTROL, buf);
        cr_expect_eq(strlen(buf), 60);
}

Test(utf8, unescape)
{
        char buf[16];

        cr_expect_eq(utf8_unescape("a\\x62c", buf, sizeof buf), 0);
        cr_expect_str_eq(buf, "abc");
        cr_expect_eq(utf8_unescape("\\xFF\\xfe", buf, sizeof buf), 0);
        cr_expect_str_eq(buf, "\xff\xfe");
        cr_expect_eq(utf8_unescape("\\x", buf, sizeof buf), 0);     /* not an escape: kept */
        cr_expect_str_eq(buf, "\\x");
        cr_expect_eq(utf8_unescape("\\xg1\\", buf, sizeof buf), 0);
        cr_expect_str_eq(buf, "\\xg1\\");
        cr_expect_eq(utf8_unescape("a\\x00b", buf, sizeof buf), -EINVAL);
        cr_expect_eq(utf8_unescape("0123456789abcdef", buf, sizeof buf), -ENOBUFS);
        cr_expect_eq(utf8_unescape("0123456789abcde", buf, sizeof buf), 0);
        cr_expect_eq(utf8_unescape("", buf, 0), -ENOBUFS);
}
