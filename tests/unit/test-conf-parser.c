/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

Test(conf_parser, strict_structure_invalidates_the_file)
{
        static const struct {
                const char *text;
                bool invalid;
                const char *diag;
        } cases[] = {
                { "[A]\nk=v\n[B]\nx=y\n", false, "" },
                { "[B]\nno equals sign\n", false, "f.conf:2: Missing '=' in 'no equals sign', ignoring.|" },
                { "[A]\nno equals sign\n", true, "f.conf:2: Missing '=' in 'no equals sign' in section [A], file skipped.|" },
                { "k=v\n[A]\n", true, "f.conf:1: Assignment outside of a section, file skipped.|" },
                { "junk\n[A]\n", true, "f.conf:1: Missing '=' in 'junk', file skipped.|" },
                { "[C]\nk=v\n", true, "f.conf:1: Unknown section [C], file skipped.|" },
                { "[A\nk=v\n", true, "f.conf:1: Invalid section header '[A', file skipped.|" },
                { "[A]\nk=v\0w\n", true, "f.conf:2: Line contains a NUL byte (binary file?), file skipped.|" },
                { "[B]\nk=v\0w\n", false, "f.conf:2: Line contains a NUL byte (binary file?), ignoring.|" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                Rec r;
                bool invalid;
                size_t len = strlen(cases[i].text);
                static const char *const sections[] = { "A", "B", NULL };
                static const char *const strict[] = { "A", NULL };
                ConfigContext ctx = {
                        .filename = "f.conf", .item = rec_item, .diag = rec_diag, .userdata = &r,
                        .item_userdata = &r, .sections = sections, .strict_sections = strict,
                };

                /* the NUL cases: the text goes on after the NUL byte */
                if (strstr(cases[i].diag, "NUL"))
                        len += 3;
                memset(&r, 0, sizeof r);
                config_parse_buffer(&ctx, cases[i].text, len);
                invalid = ctx.invalid;
                cr_expect_eq(invalid, cases[i].invalid, "case %zu: invalid=%d", i, invalid);
                cr_expect_str_eq(r.diags, cases[i].diag, "case %zu", i);
        }
        /* Without strict_sections the same mistakes only ignore the line. */
        Rec r;
        cr_expect_eq(parse("[C]\nk=v\n[A]\nk=w\n", 16, &r), 1);
        cr_expect_str_eq(r.diags, "f.conf:1: Unknown section [C], ignoring.|");
        cr_expect_str_eq(r.items, "4:[A]k=w|");
}

/* config_read_file() sizes its buffer by the file, and still sees every byte up to the limit. */
Test(conf_parser, read_file_sizes)
{
        static const size_t sizes[] = { 0, 1, 4095, 4096, 4097, 100000, CONFIG_FILE_MAX, CONFIG_FILE_MAX + 1 };
        char path[] = "/tmp/test-conf-parser.XXXXXX";
        int fd = mkstemp(path);

        cr_assert(fd >= 0);
        for (size_t i = 0; i < ELEMENTSOF(sizes); i++) {
                char *data = malloc(sizes[i] + 1), *buf = NULL;
                size_t len = 0;
                int r;

                for (size_t j = 0; j < sizes[i]; j++)
                        data[j] = (char) ('a' + j % 26);
                cr_assert_eq(ftruncate(fd, 0), 0);
                cr_assert_eq(pwrite(fd, data, sizes[i], 0), (ssize_t) sizes[i]);
                r = config_read_file(path, &buf, &len);
                if (sizes[i] > CONFIG_FILE_MAX)
                        cr_expect_eq(r, -EFBIG, "size %zu: %d", sizes[i], r);
                else {
                        cr_expect_eq(r, 0, "size %zu: %d", sizes[i], r);
                        cr_expect_eq(len, sizes[i]);
                        cr_expect(memcmp(buf, data, len) == 0);
                        cr_expect_eq(buf[len], '\0');
                }
                free(buf);
                free(data);
        }
        close(fd);
        unlink(path);
        /* A character device: no size from fstat(), read to its end. */
        char *buf = NULL;
        size_t len = 1;
        cr_expect_eq(config_read_file("/dev/null", &buf, &len), 0);
        cr_expect_eq(len, 0);
        free(buf);
}
