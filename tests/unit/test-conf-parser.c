/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "conf-parser.h"

typedef struct Rec {
        char items[2048];
        char diags[2048];
} Rec;

static int rec_item(ConfigContext *ctx, const char *section, const char *key, const char *value)
{
        Rec *r = ctx->item_userdata;
        size_t l = strlen(r->items);
        snprintf(r->items + l, sizeof r->items - l, "%u:[%s]%s=%s|", ctx->line, section, key, value);
        return 0;
}

static void rec_diag(void *userdata, const char *file, unsigned line, const char *msg)
{
        Rec *r = userdata;
        size_t l = strlen(r->diags);
        snprintf(r->diags + l, sizeof r->diags - l, "%s:%u: %s|", file, line, msg);
}

static int parse(const char *text, size_t len, Rec *r)
{
        static const char *const sections[] = { "A", "B", NULL };
        ConfigContext ctx = {
                .filename = "f.conf", .item = rec_item, .diag = rec_diag, .userdata = r,
                .item_userdata = r, .sections = sections,
        };
        memset(r, 0, sizeof *r);
        return config_parse_buffer(&ctx, text, len);
}

Test(conf_parser, basic)
{
        Rec r;
        const char *t = "# comment\n; other\n\n[A]\nKey = Value with spaces \n  X=1\n[B]\nEmpty=\n";
        cr_assert_eq(parse(t, strlen(t), &r), 0);
        cr_expect_str_eq(r.items, "5:[A]Key=Value with spaces|6:[A]X=1|8:[B]Empty=|");
        cr_expect_str_eq(r.diags, "");
}

Test(conf_parser, errors_carry_file_and_line)
{
        Rec r;
        const char *t = "K=outside\n[Nope]\nK=1\n[A]\nnoequals\n=v\n[broken\nK=2\n[B]\nK=3";
        cr_assert_eq(parse(t, strlen(t), &r), 5);
        cr_expect_str_eq(r.diags,
                         "f.conf:1: Assignment outside of a section, ignoring.|"
                         "f.conf:2: Unknown section [Nope], ignoring.|"
                         "f.conf:5: Missing '=' in 'noequals', ignoring.|"
                         "f.conf:6: Missing key name before '=', ignoring.|"
                         "f.conf:7: Invalid section header '[broken', ignoring the section.|");
        /* The rest still applies; the last line has no newline. */
        cr_expect_str_eq(r.items, "10:[B]K=3|");
}

Test(conf_parser, binary_and_long_lines)
{
        Rec r;
        char buf[CONFIG_LINE_MAX + 64];
        const char bin[] = "[A]\nK=\0\x01\x02\nL=ok\n";

        cr_assert_eq(parse(bin, sizeof bin - 1, &r), 1);
        cr_expect(strstr(r.diags, "f.conf:2: Line contains a NUL byte") != NULL);
        cr_expect_str_eq(r.items, "3:[A]L=ok|");

        memset(buf, 'x', sizeof buf);
        memcpy(buf, "[A]\nK=", 6);
        buf[sizeof buf - 1] = '\n';
        cr_assert_eq(parse(buf, sizeof buf, &r), 1);
        cr_expect(strstr(r.diags, "longer than") != NULL);
}

Test(conf_parser, boolean_and_size)
{
        unsigned long long v;
        cr_expect_eq(parse_boolean("yes"), 1);
        cr_expect_eq(parse_boolean("On"), 1);
        cr_expect_eq(parse_boolean("0"), 0);
        cr_expect_eq(parse_boolean("false"), 0);
        cr_expect_eq(parse_boolean("maybe"), -EINVAL);
        cr_expect_eq(parse_size("4096", &v), 0);
        cr_expect_eq(v, 4096);
        cr_expect_eq(parse_size("8M", &v), 0);
        cr_expect_eq(v, 8ULL << 20);
        cr_expect_eq(parse_size("64K", &v), 0);
        cr_expect_eq(v, 64ULL << 10);
        cr_expect_eq(parse_size("1GiB", &v), 0);
        cr_expect_eq(v, 1ULL << 30);
        cr_expect_eq(parse_size("1X", &v), -EINVAL);
        cr_expect_eq(parse_size("-1", &v), -EINVAL);
        cr_expect_eq(parse_size("99999999999999999999G", &v), -ERANGE);
}
