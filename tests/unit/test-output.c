/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * igmpctl's text output: shortening to the terminal width (a path keeps its file name and the
 * start of its directory), ASCII stand-ins outside UTF-8, colours only when asked for, tables
 * that fit.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "output.h"
#include "terminal.h"

/* Criterion runs each test in its own process: terminal_init() decides afresh in each. */
static void locale_utf8(void)
{
        setenv("LC_ALL", "C.UTF-8", 1);
        terminal_init();
        cr_assert(terminal_is_utf8(), "C.UTF-8 is not available");
}

static void check(const char *in, size_t width, Ellipsize mode, const char *want)
{
        char *got = ellipsize(in, width, mode);

        cr_assert_not_null(got);
        cr_expect_str_eq(got, want, "ellipsize('%s', %zu): '%s', expected '%s'", in, width, got, want);
        cr_expect_leq(utf8_width(got), width, "'%s' is wider than %zu", got, width);
        free(got);
}

Test(output, path_keeps_file_name_and_start)
{
        locale_utf8();
        check("/etc/igmpd/conf.d/50-iptv.conf", 40, ELLIPSIZE_PATH, "/etc/igmpd/conf.d/50-iptv.conf");
        check("/etc/igmpd/conf.d/50-iptv.conf", 30, ELLIPSIZE_PATH, "/etc/igmpd/conf.d/50-iptv.conf");
        check("/etc/igmpd/conf.d/50-iptv.conf", 29, ELLIPSIZE_PATH, "/etc/igmpd/…/50-iptv.conf");
        check("/etc/igmpd/conf.d/50-iptv.conf", 26, ELLIPSIZE_PATH, "/etc/igmpd/…/50-iptv.conf");
        check("/etc/igmpd/conf.d/50-iptv.conf", 20, ELLIPSIZE_PATH, "/etc/…/50-iptv.conf");
        check("/etc/igmpd/conf.d/50-iptv.conf", 16, ELLIPSIZE_PATH, "/e…/50-iptv.conf");
        /* The directory's start is what tells /etc, /run and /usr/lib apart. */
        check("/usr/local/lib/igmpd/conf.d/10-site.conf", 30, ELLIPSIZE_PATH, "/usr/local/lib/…/10-site.conf");
        check("/run/igmpd/runtime.d/iptv0.conf", 24, ELLIPSIZE_PATH, "/run/igmpd/…/iptv0.conf");
        /* A long directory name is cut inside rather than wasting most of the room. */
        check("/tmp/igmpd-test-test-dbus-igmpctl.AbCdEf/root/etc/igmpd/conf.d/10-site.conf", 40,
              ELLIPSIZE_PATH, "/tmp/igmpd-test-test-dbus-…/10-site.conf");
}

Test(output, path_with_too_long_file_name_keeps_its_end)
{
        locale_utf8();
        check("/etc/igmpd/conf.d/50-a-very-long-policy-file-name.conf", 20, ELLIPSIZE_PATH,
              "…licy-file-name.conf");
}

Test(output, not_a_path)
{
        locale_utf8();
        check("NetworkManager:my-iptv-profile", 16, ELLIPSIZE_PATH, "NetworkManager:…");
        check("kernel default", 8, ELLIPSIZE_END, "kernel …");
        check("relative/name", 8, ELLIPSIZE_PATH, "re…/name");
        check("relative-name", 8, ELLIPSIZE_PATH, "relativ…");
        check("abc", 1, ELLIPSIZE_END, "a");
        check("abc", 0, ELLIPSIZE_END, "");
        check("", 0, ELLIPSIZE_PATH, "");
}

Test(output, multibyte_counts_columns)
{
        locale_utf8();
        check("/srv/äöü/ß/x.conf", 13, ELLIPSIZE_PATH, "/srv/…/x.conf");
        check("/srv/äöü/ß/x.conf", 16, ELLIPSIZE_PATH, "/srv/…/x.conf");
        check("/srv/äöü/ßß/x.conf", 17, ELLIPSIZE_PATH, "/srv/äöü/…/x.conf");
        check("ääääääää", 4, ELLIPSIZE_END, "äää…");
}

Test(output, ascii_outside_utf8)
{
        setenv("LC_ALL", "C", 1);
        terminal_init();
        cr_assert(!terminal_is_utf8());
        cr_expect_str_eq(glyph(GLYPH_BULLET), "*");
        cr_expect_str_eq(glyph(GLYPH_ELLIPSIS), "...");
        cr_expect_str_eq(glyph(GLYPH_ARROW), "->");
        check("/etc/igmpd/conf.d/50-iptv.conf", 26, ELLIPSIZE_PATH, "/etc/.../50-iptv.conf");
        check("/etc/igmpd/conf.d/50-iptv.conf", 28, ELLIPSIZE_PATH, "/etc/igmpd/.../50-iptv.conf");
        check("NetworkManager:profile", 10, ELLIPSIZE_END, "Network...");
        check("abc", 2, ELLIPSIZE_END, "ab");
}

Test(output, utf8_when_nobody_chose_a_locale)
{
        unsetenv("LC_ALL");
        unsetenv("LC_CTYPE");
        unsetenv("LANG");
        terminal_init();
        cr_expect(terminal_is_utf8());
        cr_expect_str_eq(glyph(GLYPH_BULLET), "●");
}

Test(output, lang_c_chosen_on_purpose_is_ascii)
{
        unsetenv("LC_ALL");
        unsetenv("LC_CTYPE");
        setenv("LANG", "C", 1);
        terminal_init();
        cr_expect(!terminal_is_utf8());
}

static void colors_case(const char *systemd_colors, const char *no_color, const char *term, bool want)
{
        if (systemd_colors)
                setenv("SYSTEMD_COLORS", systemd_colors, 1);
        else
                unsetenv("SYSTEMD_COLORS");
        if (no_color)
                setenv("NO_COLOR", no_color, 1);
        else
                unsetenv("NO_COLOR");
        if (term)
                setenv("TERM", term, 1);
        else
                unsetenv("TERM");
        terminal_init();
        cr_expect_eq(terminal_colors(), want, "SYSTEMD_COLORS=%s NO_COLOR=%s TERM=%s", systemd_colors,
                     no_color, term);
        cr_expect_str_eq(ansi(COLOR_GREEN), want ? "\x1B[0;1;32m" : "");
        cr_expect_str_eq(ansi(COLOR_NORMAL), want ? "\x1B[0m" : "");
}

/* stdout is not a terminal under the test runner: colours only when asked for. */
Test(output, colors_default_off_without_terminal) { colors_case(NULL, NULL, "xterm", false); }
Test(output, colors_forced) { colors_case("yes", NULL, "xterm", true); }
Test(output, colors_forced_256) { colors_case("256", NULL, "dumb", true); }
Test(output, colors_beat_no_color) { colors_case("1", "1", NULL, true); }
Test(output, colors_off) { colors_case("no", NULL, "xterm", false); }
Test(output, colors_no_color) { colors_case(NULL, "1", "xterm", false); }
Test(output, colors_bad_value_ignored) { colors_case("maybe", NULL, "xterm", false); }

Test(output, state_colors)
{
        cr_expect_eq(state_color("configured"), COLOR_GREEN);
        cr_expect_eq(state_color("failed"), COLOR_RED);
        cr_expect_eq(state_color("pending"), COLOR_YELLOW);
        cr_expect_eq(state_color("unmanaged"), COLOR_GREY);
        cr_expect_eq(state_color("whatever"), COLOR_NORMAL);
        cr_expect_eq(state_color(NULL), COLOR_NORMAL);
}

/* A table wider than COLUMNS shortens its path column in the middle; no line is wider. */
Test(output, table_fits)
{
        char *buf = NULL, *line, *save = NULL;
        size_t size = 0;
        FILE *f;
        Table *t;

        setenv("COLUMNS", "64", 1);
        setenv("SYSTEMD_COLORS", "1", 1);
        locale_utf8();
        t = table_new((const char *const[]) { "KNOB", "VALUE", "SOURCE", NULL });
        cr_assert_not_null(t);
        table_set_ellipsize(t, 2, ELLIPSIZE_PATH);
        cr_assert_eq(table_add_cell(t, "igmpv3_unsolicited_report_interval"), 0);
        cr_assert_eq(table_add_cell_color(t, "200ms", COLOR_GREEN), 0);
        cr_assert_eq(table_add_cell(t, "/etc/igmpd/conf.d/50-iptv.conf"), 0);
        f = open_memstream(&buf, &size);
        cr_assert_not_null(f);
        cr_assert_eq(table_print(t, f, true), 0);
        fclose(f);
        table_free(t);

        /* Header underlined cell by cell; the value green; the path cut in the middle. */
        cr_expect(strstr(buf, "\x1B[0;4mKNOB\x1B[0m") != NULL, "%s", buf);
        cr_expect(strstr(buf, "\x1B[0;1;32m200ms\x1B[0m") != NULL, "%s", buf);
        cr_expect(strstr(buf, "  /etc/…/50-iptv.conf\n") != NULL, "%s", buf);
        for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                /* Width without the escape sequences. */
                size_t w = 0;
                for (const char *p = line; *p; p++) {
                        if (*p == '\x1B') {
                                p = strchr(p, 'm');
                                cr_assert_not_null(p);
                                continue;
                        }
                        if (((unsigned char) *p & 0xc0) != 0x80)
                                w++;
                }
                cr_expect_leq(w, 64, "line wider than 64 columns: '%s'", line);
        }
        free(buf);
}

/* Wrapped at the last space that fits the width past the indent; a longer word stays whole. */
Test(output, wrapped)
{
        char *buf = NULL;
        size_t size = 0;
        FILE *f;

        setenv("COLUMNS", "24", 1);
        locale_utf8();
        f = open_memstream(&buf, &size);
        cr_assert_not_null(f);
        output_wrapped(f, 2, "  the drift watch is off … no BPF here: averyveryverylongwordthatdoesnotfit end");
        fclose(f);
        cr_expect_str_eq(buf, "  the drift watch is off\n  … no BPF here:\n  averyveryverylongwordthatdoesnotfit\n  end\n");
        free(buf);
}
