/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* originals_parse_line(): the lines of ROOT/run/igmpd/originals, and what is refused. */

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs-util.h"
#include "originals.h"

/* Writes content as dir's record file. */
static void put_record(const char *dir, const char *content)
{
        char path[64];
        FILE *f;

        snprintf(path, sizeof path, "%s/originals", dir);
        f = fopen(path, "we");
        cr_assert_not_null(f);
        fputs(content, f);
        cr_assert_eq(fclose(f), 0);
}

Test(originals, good_lines)
{
        OriginalEntry e;

        cr_assert_eq(originals_parse_line("7 eth0 igmpv3_unsolicited_report_interval=1000/200", &e), 0);
        cr_assert_eq(e.ifindex, 7);
        cr_assert_str_eq(e.ifname, "eth0");
        cr_assert(e.set[KNOB_IGMPV3_INTERVAL]);
        cr_assert_not(e.set[KNOB_IGMPV2_INTERVAL]);
        cr_assert_eq(e.original[KNOB_IGMPV3_INTERVAL], 1000);
        cr_assert_eq(e.written[KNOB_IGMPV3_INTERVAL], 200);

        /* 15-character names, several knobs, negative and extreme values, extra blanks */
        cr_assert_eq(originals_parse_line("2147483647 abcdefghijklmno force_mld_version=-1/2 "
                                          "mldv2_unsolicited_report_interval=-2147483648/2147483647", &e), 0);
        cr_assert_str_eq(e.ifname, "abcdefghijklmno");
        cr_assert_eq(e.original[KNOB_MLD_VERSION], -1);
        cr_assert_eq(e.original[KNOB_MLDV2_INTERVAL], INT32_MIN);
        cr_assert_eq(e.written[KNOB_MLDV2_INTERVAL], INT32_MAX);
        cr_assert_eq(originals_parse_line("  3\tv0  force_igmp_version=0/3 ", &e), 0);
        cr_assert_eq(e.written[KNOB_IGMP_VERSION], 3);
}

Test(originals, bad_lines)
{
        static const char *const bad[] = {
                "",
                "garbage",
                "7 eth0",                                               /* no knob */
                "7 eth0 igmpv3_unsolicited_report_interval=1000",       /* no written value */
                "7 eth0 igmpv3_unsolicited_report_interval=1000/",
                "7 eth0 igmpv3_unsolicited_report_interval=/200",
                "7 eth0 igmpv3_unsolicited_report_interval 1000/200",
                "7 eth0 igmpv3_unsolicited_report_interval=1000/200 x", /* a stray field */
                "0 eth0 igmpv3_unsolicited_report_interval=1000/200",   /* ifindex 0 */
                "-3 eth0 igmpv3_unsolicited_report_interval=1000/200",
                "x eth0 igmpv3_unsolicited_report_interval=1000/200",
                "7x eth0 igmpv3_unsolicited_report_interval=1000/200",
                "7 abcdefghijklmnop igmpv3_unsolicited_report_interval=1/2", /* 16 chars */
                "7 ../x igmpv3_unsolicited_report_interval=1/2",
                "7 . igmpv3_unsolicited_report_interval=1/2",
                "7 eth0 no_such_knob=1/2",
                "7 eth0 igmpv3_unsolicited_report_interval=2147483648/2", /* past int32 */
                "7 eth0 igmpv3_unsolicited_report_interval=-2147483649/2",
                "7 eth0 igmpv3_unsolicited_report_interval=99999999999999999999/2",
                "7 eth0 igmpv3_unsolicited_report_interval=1/2x",
                "7 eth0 igmpv3_unsolicited_report_interval=+1/2",
                "7 eth0 igmpv3_unsolicited_report_interval=- 1/2",
        };
        OriginalEntry e;

        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
                cr_assert_eq(originals_parse_line(bad[i], &e), -EINVAL, "accepted: '%s'", bad[i]);
}

Test(originals, previous_and_forgotten)
{
        OriginalEntry e;

        /* While a write of a new value is not confirmed, the value it replaces is igmpd's too. */
        cr_assert_eq(originals_parse_line("7 eth0 igmpv3_unsolicited_report_interval=1000/350/300", &e), 0);
        cr_assert_eq(e.original[KNOB_IGMPV3_INTERVAL], 1000);
        cr_assert_eq(e.written[KNOB_IGMPV3_INTERVAL], 350);
        cr_assert(e.has_previous[KNOB_IGMPV3_INTERVAL]);
        cr_assert_eq(e.previous[KNOB_IGMPV3_INTERVAL], 300);
        cr_assert(originals_entry_holds(&e, KNOB_IGMPV3_INTERVAL, 350));
        cr_assert(originals_entry_holds(&e, KNOB_IGMPV3_INTERVAL, 300));
        cr_assert_not(originals_entry_holds(&e, KNOB_IGMPV3_INTERVAL, 1000));
        cr_assert_not(originals_entry_holds(&e, KNOB_IGMPV2_INTERVAL, 350));

        cr_assert_eq(originals_parse_line("7 eth0 igmpv3_unsolicited_report_interval=1000/200", &e), 0);
        cr_assert_not(e.has_previous[KNOB_IGMPV3_INTERVAL]);
        cr_assert_not(originals_entry_holds(&e, KNOB_IGMPV3_INTERVAL, 300));

        /* "IFINDEX -": the ifindex has no record any more. */
        cr_assert_eq(originals_parse_line("12 -", &e), 0);
        cr_assert_eq(e.ifindex, 12);
        for (Knob k = 0; k < _KNOB_MAX; k++)
                cr_assert_not(e.set[k]);

        static const char *const bad[] = {
                "12 - x",
                "0 -",
                "7 eth0 igmpv3_unsolicited_report_interval=1/2/",
                "7 eth0 igmpv3_unsolicited_report_interval=1/2/3/4",
                "7 eth0 igmpv3_unsolicited_report_interval=1/2/x",
                "7 eth0 igmpv3_unsolicited_report_interval=1/2 igmpv3_unsolicited_report_interval=1/3", /* twice */
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
                cr_assert_eq(originals_parse_line(bad[i], &e), -EINVAL, "accepted: '%s'", bad[i]);
}

Test(originals, format_round_trip)
{
        OriginalEntry e = { .ifindex = 2147483647, .ifname = "abcdefghijklmno" }, back;
        char buf[2 * ORIGINALS_LINE_MAX];
        size_t len;

        e.set[KNOB_IGMPV2_INTERVAL] = true;
        e.original[KNOB_IGMPV2_INTERVAL] = INT32_MIN;
        e.written[KNOB_IGMPV2_INTERVAL] = INT32_MAX;
        e.set[KNOB_MLD_VERSION] = true;
        e.original[KNOB_MLD_VERSION] = 0;
        e.written[KNOB_MLD_VERSION] = 2;
        e.has_previous[KNOB_MLD_VERSION] = true;
        e.previous[KNOB_MLD_VERSION] = -1;
        /* Every knob set, each with a previous value and the longest numbers: the longest line. */
        {
                OriginalEntry full = { .ifindex = INT32_MIN, .ifname = "abcdefghijklmno" };

                for (Knob k = 0; k < _KNOB_MAX; k++) {
                        full.set[k] = full.has_previous[k] = true;
                        full.original[k] = full.written[k] = full.previous[k] = INT32_MIN;
                }
                cr_assert_lt(originals_format_entry(&full, buf), (size_t) ORIGINALS_LINE_MAX);
        }
        len = originals_format_entry(&e, buf);
        cr_assert_eq(len, strlen(buf));
        cr_assert_str_eq(buf, "2147483647 abcdefghijklmno igmpv2_unsolicited_report_interval=-2147483648/2147483647 "
                                        "force_mld_version=0/2/-1\n");
        buf[len - 1] = '\0';
        cr_assert_eq(originals_parse_line(buf, &back), 0);
        cr_assert_eq(back.ifindex, e.ifindex);
        cr_assert_str_eq(back.ifname, e.ifname);
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                cr_assert_eq(back.set[k], e.set[k]);
                cr_assert_eq(back.has_previous[k], e.has_previous[k]);
                if (!e.set[k])
                        continue;
                cr_assert_eq(back.original[k], e.original[k]);
                cr_assert_eq(back.written[k], e.written[k]);
                if (e.has_previous[k])
                        cr_assert_eq(back.previous[k], e.previous[k]);
        }

        /* No knob: the ifindex is forgotten. Appended after the first line. */
        buf[len - 1] = '\n';
        cr_assert_eq(originals_format_entry(&(OriginalEntry) { .ifindex = 5, .ifname = "x" }, buf + len), 4);
        cr_assert_str_eq(strchr(buf, '\n') + 1, "5 -\n");
}

/* The journal: the last line of an ifindex wins, "IFINDEX -" forgets, a torn last line (no
 * newline: the crash came while it was written) is ignored, and the other namespace's file is
 * not read. */
Test(originals, load_journal)
{
        char dir[] = "/tmp/igmpd-test-originals.XXXXXX";
        Originals o;

        cr_assert_not_null(mkdtemp(dir));
        put_record(dir, "igmpd-originals 3 1:2\n"
              "3 v0 igmpv3_unsolicited_report_interval=1000/200\n"
              "4 v1 igmpv3_unsolicited_report_interval=1000/200\n"
              "5 v2 igmpv3_unsolicited_report_interval=1000/200\n"
              "3 v0 igmpv3_unsolicited_report_interval=1000/300/200 igmpv2_unsolicited_report_interval=10000/100\n"
              "4 -\n"
              "garbage\n"
              "5 v2 igmpv3_unsolicited_report_interval=1/2"); /* torn */

        cr_assert_eq(originals_load(dir, "1:2", &o), 1);
        cr_assert_eq(o.n, 2);
        cr_assert_not(o.compact); /* superseded, forgotten, invalid and torn lines */
        const OriginalEntry *e = originals_find(&o, 3);
        cr_assert_not_null(e);
        cr_assert_eq(e->written[KNOB_IGMPV3_INTERVAL], 300);
        cr_assert_eq(e->previous[KNOB_IGMPV3_INTERVAL], 200);
        cr_assert(e->set[KNOB_IGMPV2_INTERVAL]);
        cr_assert_null(originals_find(&o, 4));
        cr_assert_null(originals_find(&o, 6));
        e = originals_find(&o, 5);
        cr_assert_not_null(e);
        cr_assert_eq(e->original[KNOB_IGMPV3_INTERVAL], 1000);
        originals_done(&o);

        cr_assert_eq(originals_load(dir, "9:9", &o), 0); /* another namespace */
        cr_assert_eq(o.n, 0);
        cr_assert_eq(remove_file_sync(dir, ORIGINALS_NAME), 1);
        cr_assert_eq(originals_load(dir, "1:2", &o), 0);
        cr_assert_eq(remove_file_sync(dir, ORIGINALS_NAME), 0); /* no file is fine */
        cr_assert_eq(rmdir(dir), 0);
}

/* A record written by ifindex is taken in place: a forgotten ifindex among the lines is left out
 * and the others are found. */
Test(originals, load_sorted)
{
        char dir[] = "/tmp/igmpd-test-originals.XXXXXX";
        Originals o;

        cr_assert_not_null(mkdtemp(dir));
        put_record(dir, "igmpd-originals 3 1:2\n"
              "3 v0 igmpv3_unsolicited_report_interval=1000/200\n"
              "4 -\n"
              "7 v2 igmpv3_unsolicited_report_interval=1000/300\n"
              "9 v3 igmpv2_unsolicited_report_interval=10000/100\n");
        cr_assert_eq(originals_load(dir, "1:2", &o), 1);
        cr_assert_eq(o.n, 3);
        cr_assert_not(o.compact); /* a rewrite would not write "4 -" */
        cr_assert_eq(o.entries[0].ifindex, 3);
        cr_assert_eq(o.entries[1].ifindex, 7);
        cr_assert_eq(o.entries[2].ifindex, 9);
        cr_assert_null(originals_find(&o, 4));
        cr_assert_eq(originals_find(&o, 7)->written[KNOB_IGMPV3_INTERVAL], 300);
        cr_assert_eq(originals_find(&o, 9)->original[KNOB_IGMPV2_INTERVAL], 10000);
        originals_done(&o);
        cr_assert_eq(remove_file_sync(dir, ORIGINALS_NAME), 1);
        cr_assert_eq(rmdir(dir), 0);
}

/* Writes a record of the given lines (each without its newline): a rewrite or an append. */
static int write_lines(OriginalsJournal *j, bool rewrite, const char *const *lines, size_t n)
{
        OriginalsWrite w;

        originals_write_begin(&w, j, rewrite);
        for (size_t i = 0; i < n; i++) {
                OriginalEntry e;

                cr_assert_eq(originals_parse_line(lines[i], &e), 0, "%s", lines[i]);
                originals_write_entry(&w, &e);
        }
        return originals_write_end(&w);
}

/* Appends go after a rewrite; a rewrite with nothing removes the file. */
Test(originals, journal_write)
{
        char dir[] = "/tmp/igmpd-test-originals.XXXXXX";
        OriginalsJournal j;
        Originals o;
        const char *line1[] = { "3 v0 igmpv3_unsolicited_report_interval=1000/200" },
                   *line2[] = { "3 v0 igmpv3_unsolicited_report_interval=1000/250/200" };

        cr_assert_not_null(mkdtemp(dir));
        cr_assert_eq(originals_journal_init(&j, dir, "1:2"), 0);
        cr_assert(originals_journal_wants_rewrite(&j));
        cr_assert_eq(write_lines(&j, false, line2, 1), -EBADF);
        cr_assert_eq(write_lines(&j, true, line1, 1), 0);
        cr_assert_not(originals_journal_wants_rewrite(&j));
        cr_assert_eq(write_lines(&j, false, line2, 1), 0);
        cr_assert_eq(write_lines(&j, false, NULL, 0), 0); /* nothing to append */
        cr_assert_eq(originals_load(dir, "1:2", &o), 1);
        cr_assert_eq(o.n, 1);
        cr_assert_eq(o.entries[0].written[KNOB_IGMPV3_INTERVAL], 250);
        originals_done(&o);

        cr_assert_eq(write_lines(&j, true, NULL, 0), 0);
        cr_assert_eq(originals_load(dir, "1:2", &o), 0);
        cr_assert(originals_journal_wants_rewrite(&j));
        originals_journal_done(&j);
        cr_assert_eq(rmdir(dir), 0);
}

/* Records far bigger than a chunk (OriginalsWrite.buf), rewritten and appended: every line
 * arrives, whole, and nothing but the record is left in the directory. */
Test(originals, journal_write_chunks)
{
        enum { N = 3000 };
        char dir[] = "/tmp/igmpd-test-originals.XXXXXX";
        OriginalsJournal j;
        OriginalsWrite w;
        Originals o;

        cr_assert_not_null(mkdtemp(dir));
        cr_assert_eq(originals_journal_init(&j, dir, "1:2"), 0);
        for (int pass = 0; pass < 2; pass++) {
                originals_write_begin(&w, &j, pass == 0);
                for (int i = 1; i <= N; i++) {
                        OriginalEntry e = { .ifindex = i };

                        snprintf(e.ifname, sizeof e.ifname, "veth%d", i);
                        for (Knob k = 0; k < _KNOB_MAX; k++) {
                                e.set[k] = true;
                                e.original[k] = 1000 + k;
                                e.written[k] = pass == 0 ? 200 : 300;
                        }
                        originals_write_entry(&w, &e);
                }
                cr_assert_eq(originals_write_end(&w), 0);
                cr_assert_eq(originals_load(dir, "1:2", &o), 1);
                cr_assert_eq(o.n, N);
                cr_assert_eq(o.compact, pass == 0); /* the append supersedes every line */
                for (int i = 1; i <= N; i++) {
                        const OriginalEntry *e = originals_find(&o, i);

                        cr_assert_not_null(e, "ifindex %d", i);
                        cr_assert_eq(e->written[KNOB_MLD_VERSION], pass == 0 ? 200 : 300, "ifindex %d", i);
                        cr_assert_eq(e->original[KNOB_MLD_VERSION], 1000 + KNOB_MLD_VERSION);
                }
                if (pass == 0)
                        cr_assert_eq(o.file_size, j.size);
                originals_done(&o);
        }
        originals_journal_done(&j);
        cr_assert_eq(remove_file_sync(dir, ORIGINALS_NAME), 1);
        cr_assert_eq(rmdir(dir), 0); /* no temp file left */
}

/* A file holding exactly its records, in this version's format, is compact: igmpd may take it as
 * it is (originals_journal_adopt()) and append to it. Any line a rewrite would not write (a
 * superseded one, a forgotten ifindex, an invalid or torn one) or a version 2 header is not. */
Test(originals, compact_and_adopt)
{
        static const struct {
                const char *content;
                bool compact;
        } cases[] = {
                { "igmpd-originals 3 1:2\n4 v1 igmpv3_unsolicited_report_interval=1000/200\n"
                  "3 v0 igmpv3_unsolicited_report_interval=1000/200/100\n", true },
                { "igmpd-originals 3 1:2\n3 v0 igmpv3_unsolicited_report_interval=1000/200/100\n"
                  "4 v1 igmpv3_unsolicited_report_interval=1000/200\n", true }, /* by ifindex, as rewritten */
                { "igmpd-originals 2 1:2\n4 v1 igmpv3_unsolicited_report_interval=1000/200\n", false },
                { "igmpd-originals 3 1:2\n4 v1 igmpv3_unsolicited_report_interval=1000/200\n"
                  "4 v1 igmpv3_unsolicited_report_interval=1000/300/200\n", false },
                { "igmpd-originals 3 1:2\n4 v1 igmpv3_unsolicited_report_interval=1000/200\n5 -\n", false },
                { "igmpd-originals 3 1:2\n4 v1 igmpv3_unsolicited_report_interval=1000/200\nx\n", false },
                { "igmpd-originals 3 1:2\n4 v1 igmpv3_unsolicited_report_interval=1000/200\n5 v", false },
        };
        char dir[] = "/tmp/igmpd-test-originals.XXXXXX";
        const char *line = "5 v2 igmpv3_unsolicited_report_interval=1000/200";
        OriginalsJournal j;
        Originals o;

        cr_assert_not_null(mkdtemp(dir));
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                put_record(dir, cases[i].content);
                cr_assert_eq(originals_load(dir, "1:2", &o), 1);
                cr_assert_eq(o.compact, cases[i].compact, "case %zu", i);
                if (o.compact) {
                        cr_assert_eq(o.file_size, strlen(cases[i].content));
                        cr_assert(originals_entry_equal(&o.entries[0], &o.entries[0]));
                        cr_assert_not(originals_entry_equal(&o.entries[0], &o.entries[1]));
                }
                originals_done(&o);
        }

        /* Adopted: appends go on after what is there. */
        put_record(dir, cases[0].content);
        cr_assert_eq(originals_load(dir, "1:2", &o), 1);
        cr_assert_eq(originals_journal_init(&j, dir, "1:2"), 0);
        cr_assert_eq(originals_journal_adopt(&j, &o), 0);
        originals_done(&o);
        cr_assert(originals_journal_compact(&j));
        cr_assert_eq(write_lines(&j, false, &line, 1), 0);
        cr_assert_eq(originals_load(dir, "1:2", &o), 1);
        cr_assert_eq(o.n, 3);
        cr_assert(o.compact);
        cr_assert_not_null(originals_find(&o, 5));
        originals_done(&o);
        originals_journal_done(&j);
        cr_assert_eq(remove_file_sync(dir, ORIGINALS_NAME), 1);
        cr_assert_eq(rmdir(dir), 0);
}
