/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The audit pipeline's pure parts: UTF-8 sanitizing of comm/exe, event filling and translation,
 * the bounded history ring, and per-key coalescing against an explicit clock.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit-rules.h"
#include "audit.h"
#include "strv.h"

#define SEC 1000000ULL

/* ---- UTF-8 sanitizing ---- */

static const struct {
        const char *in;
        size_t len;
        const char *out;
} sanitize_cases[] = {
        { "mcastd", 6, "mcastd" },
        { "", 0, "" },
        { "caf\xc3\xa9", 5, "caf\xc3\xa9" },                     /* valid 2-byte */
        { "\xe2\x82\xac", 3, "\xe2\x82\xac" },                   /* valid 3-byte (€) */
        { "\xf0\x9f\x98\x80", 4, "\xf0\x9f\x98\x80" },           /* valid 4-byte */
        { "a\xffz", 3, "a\\xffz" },                              /* invalid byte */
        { "\xc3", 1, "\\xc3" },                                  /* truncated sequence at the end */
        { "\xc3(", 2, "\\xc3(" },                                /* bad continuation */
        { "\xc0\xaf", 2, "\\xc0\\xaf" },                         /* overlong */
        { "\xe0\x80\xaf", 3, "\\xe0\\x80\\xaf" },                /* overlong 3-byte */
        { "\xed\xa0\x80", 3, "\\xed\\xa0\\x80" },                /* surrogate */
        { "\xf4\x90\x80\x80", 4, "\\xf4\\x90\\x80\\x80" },       /* above U+10FFFF */
        { "tab\there", 8, "tab\\x09here" },                      /* control */
        { "a\nb", 3, "a\\x0ab" },
        { "del\x7f", 4, "del\\x7f" },
        { "back\\slash", 10, "back\\x5cslash" },                 /* '\' escaped: unambiguous */
        { "nul\0x", 5, "nul\\x00x" },                            /* embedded NUL */
};

Test(audit, utf8_sanitize_table)
{
        for (size_t i = 0; i < sizeof sanitize_cases / sizeof sanitize_cases[0]; i++) {
                char *s = audit_utf8_sanitize(sanitize_cases[i].in, sanitize_cases[i].len);
                cr_assert_not_null(s);
                cr_expect_str_eq(s, sanitize_cases[i].out, "case %zu", i);
                free(s);
        }
}

/* Every byte string comes out as valid UTF-8 without control characters. */
Test(audit, utf8_sanitize_random_is_valid)
{
        unsigned seed = 7;

        for (int round = 0; round < 2000; round++) {
                unsigned char in[32];
                size_t len = (size_t) (rand_r(&seed) % sizeof in);
                for (size_t i = 0; i < len; i++)
                        in[i] = (unsigned char) rand_r(&seed);
                char *s = audit_utf8_sanitize((const char *) in, len);
                cr_assert_not_null(s);
                /* Sanitizing again changes only the backslashes: the output holds nothing else to fix. */
                char *t = audit_utf8_sanitize(s, strlen(s));
                size_t bs = 0;
                for (const char *p = s; *p; p++) {
                        cr_assert((unsigned char) *p >= 0x20 && *p != 0x7f, "control byte in output");
                        bs += *p == '\\';
                }
                cr_assert_eq(strlen(t), strlen(s) + 3 * bs);
                free(t);
                free(s);
        }
}

/* ---- events ---- */

static int fake_resolve(int ifindex, char *buf, size_t len, void *userdata)
{
        (void) userdata;
        if (ifindex == 8) {
                snprintf(buf, len, "b\\a\xff"); /* a name is bytes */
                return 0;
        }
        if (ifindex != 7)
                return -ENODEV;
        snprintf(buf, len, "eth7");
        return 0;
}

Test(audit, event_fill_translates)
{
        AuditEvent e = {};
        const int name[] = { 3, 5, 16, -2, 17 };

        cr_assert_eq(audit_event_fill(&e, "mc\xff", 3, NULL, 0, name, 5, fake_resolve, NULL), 0);
        cr_expect_str_eq(e.comm, "mc\\xff");
        cr_expect_str_eq(e.exe, "");
        cr_expect_str_eq(e.path, "/proc/sys/net/ipv4/conf/all/force_igmp_version");
        cr_expect(e.complete);
        cr_expect_eq(e.n_name, 5);
        cr_expect_eq(e.name[3], -2);
        audit_event_done(&e);

        const int dev[] = { 3, 5, 16, 7, 17 };
        cr_assert_eq(audit_event_fill(&e, "x", 1, "/usr/bin/x", 10, dev, 5, fake_resolve, NULL), 0);
        cr_expect_str_eq(e.path, "/proc/sys/net/ipv4/conf/eth7/force_igmp_version");
        cr_expect_str_eq(e.exe, "/usr/bin/x");
        audit_event_done(&e);

        const int odd[] = { 3, 5, 16, 8, 17 };
        cr_assert_eq(audit_event_fill(&e, "x", 1, NULL, 0, odd, 5, fake_resolve, NULL), 0);
        cr_expect_str_eq(e.path, "/proc/sys/net/ipv4/conf/b\\x5ca\\xff/force_igmp_version");
        audit_event_done(&e);

        /* unknown ifindex: stays numeric, path partial */
        const int gone[] = { 3, 5, 16, 9, 17 };
        cr_assert_eq(audit_event_fill(&e, "x", 1, NULL, 0, gone, 5, fake_resolve, NULL), 0);
        cr_expect_str_eq(e.path, "/proc/sys/net/ipv4/conf/9/force_igmp_version");
        cr_expect_not(e.complete);
        audit_event_done(&e);

        /* the audit source has no name vector: empty path */
        cr_assert_eq(audit_event_fill(&e, "x", 1, "/bin/x", 6, NULL, 0, NULL, NULL), 0);
        cr_expect_str_eq(e.path, "");
        cr_expect_eq(e.n_name, 0);
        audit_event_done(&e);

        int big[SYSCTL_BINARY_NAME_MAX + 1] = {};
        cr_expect_eq(audit_event_fill(&e, "x", 1, NULL, 0, big, SYSCTL_BINARY_NAME_MAX + 1, NULL, NULL), -E2BIG);
        cr_expect_null(e.comm);
}

/* ---- the concrete fix and the journal fields ---- */

static char *fix_of(AuditEventSource source, const int *name, size_t n)
{
        AuditEvent e = { .source = source };
        static char buf[1024];

        cr_assert_eq(audit_event_fill(&e, "x", 1, NULL, 0, name, n, fake_resolve, NULL), 0);
        audit_event_fix(&e, buf, sizeof buf);
        audit_event_done(&e);
        return buf;
}

Test(audit, fix_names_the_igmpd_key_or_the_file)
{
        const int dev[] = { 3, 5, 16, 7, 17 }, all[] = { 3, 5, 16, -2, 17 }, dflt[] = { 3, 5, 16, -3, 17 };
        const int mld[] = { 3, 12, 16, 7, 17 }, fwd[] = { 3, 5, 16, -2, 1 }, leaf[] = { 1, 2, 3 };
        const char *fix;

        /* One of igmpd's knobs on a link: the policy key, the match and the igmpctl option; never sysctl.d. */
        fix = fix_of(AUDIT_EVENT_SOURCE_LIBC, dev, 5);
        cr_expect(strstr(fix, "force_igmp_version is an igmpd knob: set [IGMP] Version= in a policy file in "
                              SYSCONFDIR "/igmpd/conf.d with [Match] Name=eth7, or now with "
                              "'igmpctl link eth7 --igmp-version VALUE'"), "%s", fix);
        cr_expect(strstr(fix, "not sysctl.d"), "%s", fix);
        fix = fix_of(AUDIT_EVENT_SOURCE_LIBC, mld, 5);
        cr_expect(strstr(fix, "force_mld_version is an igmpd knob: set [MLD] Version= "), "%s", fix);
        cr_expect(strstr(fix, "--mld-version VALUE"), "%s", fix);
        /* all and default: a policy without [Match], no igmpctl link (there is no such link). */
        fix = fix_of(AUDIT_EVENT_SOURCE_KMSG, all, 5);
        cr_expect(strstr(fix, "(one with no [Match] section applies to every link) instead of writing 'all'"), "%s", fix);
        cr_expect_null(strstr(fix, "igmpctl"), "%s", fix);
        fix = fix_of(AUDIT_EVENT_SOURCE_KMSG, dflt, 5);
        cr_expect(strstr(fix, "instead of writing 'default'"), "%s", fix);
        /* Not igmpd's: the file to use. */
        fix = fix_of(AUDIT_EVENT_SOURCE_KMSG, fwd, 5);
        cr_expect_str_eq(fix, "Read or write the file /proc/sys/net/ipv4/conf/all/forwarding instead (sysctl(8) -w works too).");
        /* Partly translated: no file has that name. */
        fix = fix_of(AUDIT_EVENT_SOURCE_KMSG, leaf, 3);
        cr_expect(strstr(fix, "The name does not name a file (/proc/sys/kernel/osrelease/3 translates only in part"), "%s", fix);
        /* No name vector (the audit source): which source would see it. */
        fix = fix_of(AUDIT_EVENT_SOURCE_AUDIT, NULL, 0);
        cr_expect(strstr(fix, "The audit source does not see which setting the program asked for; AuditSources=libc"),
                  "%s", fix);
}

Test(audit, journal_fields)
{
        const int name[] = { 3, 5, 16, -2, 17 }, leaf[] = { 1, 2, 3 };
        AuditEvent e = { .source = AUDIT_EVENT_SOURCE_LIBC, .pid = 42, .repeats = 3 };
        char **f;

        cr_assert_eq(audit_event_fill(&e, "mcastd", 6, "/usr/sbin/mcastd", 16, name, 5, NULL, NULL), 0);
        f = audit_event_journal_fields(&e, &(AuditCaller) { .ppid = 1, .unit = "mcastd.service" });
        cr_assert_not_null(f);
        cr_expect_str_eq(f[0], "CALLER='mcastd' (pid 42, parent 1, unit mcastd.service, /usr/sbin/mcastd)");
        cr_expect_str_eq(f[1], "CALLER_COMM=mcastd");
        cr_expect_str_eq(f[2], "CALLER_PID=42");
        cr_expect_str_eq(f[3], "CALLER_EXE=/usr/sbin/mcastd");
        cr_expect_str_eq(f[4], "CALLER_PPID=1");
        cr_expect_str_eq(f[5], "CALLER_UNIT=mcastd.service");
        cr_expect_str_eq(f[6], "SYSCTL_NAME=3.5.16.-2.17.");
        cr_expect_str_eq(f[7], "SYSCTL_PATH=/proc/sys/net/ipv4/conf/all/force_igmp_version");
        cr_expect(strncmp(f[8], "SYSCTL_FIX=force_igmp_version is an igmpd knob", 46) == 0, "%s", f[8]);
        cr_expect_str_eq(f[9], "AUDIT_SOURCE=libc");
        cr_expect_str_eq(f[10], "REPEATS=3");
        cr_expect_null(f[11]);
        strv_free(f);
        audit_event_done(&e);

        /* kmsg: no pid, no exe, nothing about the caller but its name; a partial path is flagged. */
        e = (AuditEvent) { .source = AUDIT_EVENT_SOURCE_KMSG, .repeats = 1 };
        cr_assert_eq(audit_event_fill(&e, "oldtool", 7, NULL, 0, leaf, 3, NULL, NULL), 0);
        f = audit_event_journal_fields(&e, NULL);
        cr_assert_not_null(f);
        cr_expect_str_eq(f[0], "CALLER='oldtool'");
        cr_expect_str_eq(f[1], "CALLER_COMM=oldtool");
        cr_expect_str_eq(f[2], "SYSCTL_NAME=1.2.3.");
        cr_expect_str_eq(f[3], "SYSCTL_PATH=/proc/sys/kernel/osrelease/3");
        cr_expect_str_eq(f[4], "SYSCTL_PATH_PARTIAL=1");
        cr_expect_null(f[8]);
        strv_free(f);
        audit_event_done(&e);

        /* audit: no name vector, so the catalog's @SYSCTL_NAME@ and @SYSCTL_PATH@ say "unknown". */
        e = (AuditEvent) { .source = AUDIT_EVENT_SOURCE_AUDIT, .pid = 7, .ppid = 1, .repeats = 1 };
        cr_assert_eq(audit_event_fill(&e, "x", 1, NULL, 0, NULL, 0, NULL, NULL), 0);
        f = audit_event_journal_fields(&e, &(AuditCaller) { .ppid = e.ppid });
        cr_assert_not_null(f);
        cr_expect_str_eq(f[0], "CALLER='x' (pid 7, parent 1)");
        cr_expect(strv_contains(f, "SYSCTL_NAME=unknown"));
        cr_expect(strv_contains(f, "SYSCTL_PATH=unknown"));
        cr_expect(strv_contains(f, "CALLER_PPID=1"));
        cr_expect_leq(strv_length(f), AUDIT_EVENT_JOURNAL_FIELDS_MAX);
        strv_free(f);
        audit_event_done(&e);
}

static AuditEvent make_event(uint32_t pid, const char *comm, const int *name, size_t n, uint64_t t)
{
        AuditEvent e = { .source = AUDIT_EVENT_SOURCE_KMSG, .pid = pid, .realtime_usec = t };
        cr_assert_eq(audit_event_fill(&e, comm, strlen(comm), NULL, 0, name, n, NULL, NULL), 0);
        return e;
}

/* ---- history ---- */

Test(audit, history_ring_bounded_oldest_first)
{
        AuditHistory h;
        const int name[] = { 1, 4 };

        cr_assert_eq(audit_history_init(&h, 3), 0);
        cr_expect_null(audit_history_get(&h, 0));
        for (uint64_t i = 1; i <= 7; i++) {
                AuditEvent e = make_event((uint32_t) i, "p", name, 2, i);
                cr_assert_eq(audit_history_push(&h, &e), 0);
                cr_expect_null(e.comm, "push takes the event over");
                cr_expect_eq(h.n, i < 3 ? i : 3);
        }
        for (size_t i = 0; i < 3; i++)
                cr_expect_eq(audit_history_get(&h, i)->pid, 5 + i);
        cr_expect_null(audit_history_get(&h, 3));
        audit_history_done(&h);
}

Test(audit, history_of_one)
{
        AuditHistory h;
        const int name[] = { 1, 4 };

        cr_assert_eq(audit_history_init(&h, 1), 0);
        for (uint32_t i = 1; i <= 3; i++) {
                AuditEvent e = make_event(i, "p", name, 2, i);
                cr_assert_eq(audit_history_push(&h, &e), 0);
        }
        cr_expect_eq(h.n, 1);
        cr_expect_eq(audit_history_get(&h, 0)->pid, 3);
        audit_history_done(&h);
}

/* ---- coalescing ---- */

/* The window of a key opens when its first event is published, not when the event loop woke
 * up: a key first met late in a long dispatch (a batch of records) gets its folded calls a full
 * second after that publication. The old code took the loop's wake-up time (sd_event_now()), so
 * the second signal came as much earlier as the dispatch had already run (bench: 995 ms). */
static uint64_t published_usec[2];
static size_t n_published;

static void on_published(const AuditEvent *e, void *userdata)
{
        if (e && n_published < 2)
                published_usec[n_published++] = now_usec(CLOCK_MONOTONIC);
}

static int submit_late(sd_event_source *s, void *userdata)
{
        AuditManager *a = userdata;
        const int name[] = { 1, 4 };
        AuditEvent e;

        /* A dispatch that has already run for 600 ms: more than sd-event's default timer accuracy
         * (250 ms), by which the timer may fire late, so the old clock cannot pass by luck. */
        usleep(600 * 1000);
        for (uint64_t t = 1; t <= 2; t++) { /* the first published now, the second folded */
                e = make_event(10, "mcastd", name, 2, t);
                a->source_ctx.submit(&e, a->source_ctx.userdata);
        }
        return 0;
}

Test(audit, coalesce_window_from_publication)
{
        _cleanup_(sd_event_unrefp) sd_event *event = NULL;
        _cleanup_(audit_manager_freep) AuditManager *a = NULL;

        cr_assert_eq(sd_event_new(&event), 0);
        cr_assert_eq(audit_manager_new(event, NULL, 16, NULL, NULL, &a), 0);
        a->observer = on_published;
        cr_assert_geq(sd_event_add_defer(event, NULL, submit_late, a), 0);
        for (int i = 0; i < 100 && n_published < 2; i++)
                cr_assert_geq(sd_event_run(event, 5 * SEC), 0);
        cr_assert_eq(n_published, 2);
        cr_expect_geq(published_usec[1] - published_usec[0], SEC, "second signal %llu us after the first",
                      (unsigned long long) (published_usec[1] - published_usec[0]));
}


Test(audit, coalesce_one_per_second_per_key)
{
        AuditCoalescer c = {};
        AuditEvent e, out;
        const int a[] = { 1, 4 }, b[] = { 3, 5, 16, -2, 17 };
        uint64_t t0 = 100 * SEC;

        /* first call of a key: published at once */
        e = make_event(10, "mcastd", a, 2, 1);
        cr_assert_eq(audit_coalescer_submit(&c, &e, t0), 1);
        cr_expect_eq(e.repeats, 1);
        audit_event_done(&e);
        cr_expect_eq(audit_coalescer_next_due(&c), UINT64_MAX, "nothing pending: no timer");

        /* 4 more within the second: folded, one pending */
        for (int i = 0; i < 4; i++) {
                e = make_event(10, "mcastd", a, 2, 2 + (uint64_t) i);
                cr_assert_eq(audit_coalescer_submit(&c, &e, t0 + 100000 * (uint64_t) (i + 1)), 0);
                cr_expect_null(e.comm);
        }
        cr_expect_eq(audit_coalescer_next_due(&c), t0 + SEC);

        /* other keys are independent: other pid, other comm, other name */
        e = make_event(11, "mcastd", a, 2, 9);
        cr_expect_eq(audit_coalescer_submit(&c, &e, t0 + 1), 1);
        audit_event_done(&e);
        e = make_event(10, "other", a, 2, 9);
        cr_expect_eq(audit_coalescer_submit(&c, &e, t0 + 1), 1);
        audit_event_done(&e);
        e = make_event(10, "mcastd", b, 5, 9);
        cr_expect_eq(audit_coalescer_submit(&c, &e, t0 + 1), 1);
        audit_event_done(&e);

        /* not due yet */
        cr_expect_eq(audit_coalescer_pop_due(&c, t0 + SEC - 1, &out), 0);
        /* due: the folded calls come out as one event with repeats 4, first call's time */
        cr_assert_eq(audit_coalescer_pop_due(&c, t0 + SEC, &out), 1);
        cr_expect_eq(out.repeats, 4);
        cr_expect_eq(out.pid, 10);
        cr_expect_eq(out.realtime_usec, 2);
        cr_expect_str_eq(out.comm, "mcastd");
        audit_event_done(&out);
        cr_expect_eq(audit_coalescer_pop_due(&c, t0 + SEC, &out), 0);
        cr_expect_eq(audit_coalescer_next_due(&c), UINT64_MAX, "idle again: no timer");

        /* a call right after the flush is again held for a full second (≤ 1 event/s) */
        e = make_event(10, "mcastd", a, 2, 20);
        cr_expect_eq(audit_coalescer_submit(&c, &e, t0 + SEC + 10), 0);
        cr_expect_eq(audit_coalescer_next_due(&c), t0 + 2 * SEC);
        cr_assert_eq(audit_coalescer_pop_due(&c, t0 + 2 * SEC, &out), 1);
        cr_expect_eq(out.repeats, 1);
        audit_event_done(&out);

        /* after a quiet second the key is forgotten: published at once */
        e = make_event(10, "mcastd", a, 2, 30);
        cr_expect_eq(audit_coalescer_submit(&c, &e, t0 + 3 * SEC + 1), 1);
        audit_event_done(&e);
        audit_coalescer_done(&c);
}

Test(audit, coalesce_keeps_late_exe)
{
        AuditCoalescer c = {};
        AuditEvent e, out;

        e = (AuditEvent) { .source = AUDIT_EVENT_SOURCE_AUDIT, .pid = 5 };
        cr_assert_eq(audit_event_fill(&e, "x", 1, NULL, 0, NULL, 0, NULL, NULL), 0);
        cr_assert_eq(audit_coalescer_submit(&c, &e, SEC), 1);
        audit_event_done(&e);
        e = (AuditEvent) { .source = AUDIT_EVENT_SOURCE_AUDIT, .pid = 5 };
        cr_assert_eq(audit_event_fill(&e, "x", 1, NULL, 0, NULL, 0, NULL, NULL), 0);
        cr_assert_eq(audit_coalescer_submit(&c, &e, SEC + 1), 0);
        e = (AuditEvent) { .source = AUDIT_EVENT_SOURCE_AUDIT, .pid = 5 };
        cr_assert_eq(audit_event_fill(&e, "x", 1, "/bin/x", 6, NULL, 0, NULL, NULL), 0);
        cr_assert_eq(audit_coalescer_submit(&c, &e, SEC + 2), 0);
        cr_assert_eq(audit_coalescer_pop_due(&c, 2 * SEC, &out), 1);
        cr_expect_str_eq(out.exe, "/bin/x");
        cr_expect_eq(out.repeats, 2);
        audit_event_done(&out);
        audit_coalescer_done(&c);
}

/* A flood of distinct keys stays bounded: past the limit events go out uncoalesced. */
Test(audit, coalesce_key_limit)
{
        AuditCoalescer c = {};
        const int a[] = { 1, 4 };

        for (uint32_t pid = 1; pid <= AUDIT_COALESCE_KEYS_MAX + 10; pid++) {
                AuditEvent e = make_event(pid, "p", a, 2, 0);
                cr_assert_eq(audit_coalescer_submit(&c, &e, SEC), 1);
                audit_event_done(&e);
        }
        cr_expect_eq(c.n, AUDIT_COALESCE_KEYS_MAX);
        /* a second later every key has expired and is dropped on the next submit */
        AuditEvent e = make_event(1, "p", a, 2, 0);
        cr_expect_eq(audit_coalescer_submit(&c, &e, 2 * SEC), 1);
        audit_event_done(&e);
        cr_expect_eq(c.n, 1);
        audit_coalescer_done(&c);
}

Test(audit, source_strings)
{
        cr_expect_str_eq(audit_event_source_to_string(AUDIT_EVENT_SOURCE_KMSG), "kmsg");
        cr_expect_str_eq(audit_event_source_to_string(AUDIT_EVENT_SOURCE_AUDIT), "audit");
        cr_expect_str_eq(audit_event_source_to_string(AUDIT_EVENT_SOURCE_LIBC), "libc");
        cr_expect_str_eq(audit_event_source_to_string(AUDIT_EVENT_SOURCE_SYSCALL), "syscall");
        cr_expect_null(audit_event_source_to_string(_AUDIT_EVENT_SOURCE_MAX));
        cr_expect_str_eq(run_state_to_string(RUN_STATE_INACTIVE), "inactive");
        cr_expect_null(run_state_to_string(_RUN_STATE_MAX));
}

Test(audit, history_resize_keeps_newest)
{
        AuditHistory h;
        const int name[] = { 1, 4 };

        cr_assert_eq(audit_history_init(&h, 4), 0);
        for (uint32_t i = 1; i <= 6; i++) { /* ring wrapped: holds 3 4 5 6 */
                AuditEvent e = make_event(i, "p", name, 2, i);
                cr_assert_eq(audit_history_push(&h, &e), 0);
        }
        cr_assert_eq(audit_history_resize(&h, 2), 0);
        cr_expect_eq(h.n, 2);
        cr_expect_eq(audit_history_get(&h, 0)->pid, 5);
        cr_expect_eq(audit_history_get(&h, 1)->pid, 6);
        cr_assert_eq(audit_history_resize(&h, 5), 0);
        cr_expect_eq(h.n, 2);
        for (uint32_t i = 7; i <= 10; i++) {
                AuditEvent e = make_event(i, "p", name, 2, i);
                cr_assert_eq(audit_history_push(&h, &e), 0);
        }
        cr_expect_eq(h.n, 5);
        for (size_t i = 0; i < 5; i++)
                cr_expect_eq(audit_history_get(&h, i)->pid, 6 + i);
        audit_history_done(&h);
}

/* ---- the record of what igmpd changed in the audit configuration (audit-rules.h) ---- */

Test(audit_changes, round_trip)
{
        AuditChanges c = { .rule = { true, false }, .enabled_changed = true, .enabled_before = 0 }, back;
        AuditChanges all = { .rule = { true, true }, .enabled_changed = true, .enabled_before = UINT32_MAX };
        char text[AUDIT_CHANGES_TEXT_MAX];

        audit_changes_format(&c, text);
        cr_assert_str_eq(text, "igmpd-audit-changes 1\nrule b64\nenabled-before 0\n");
        cr_assert_eq(audit_changes_parse(text, &back), 0);
        cr_assert(back.rule[0] && !back.rule[1] && back.enabled_changed && back.enabled_before == 0);
        /* The longest record fits. */
        audit_changes_format(&all, text);
        cr_assert_str_eq(text, "igmpd-audit-changes 1\nrule b64\nrule b32\nenabled-before 4294967295\n");

        cr_assert_eq(audit_changes_parse("igmpd-audit-changes 1\nrule b32\nrule b64\n", &back), 0);
        cr_assert(back.rule[0] && back.rule[1] && !back.enabled_changed);
        cr_assert(audit_changes_any(&back));
        cr_assert_eq(audit_changes_parse("igmpd-audit-changes 1\n", &back), 0);
        cr_assert_not(audit_changes_any(&back));
}

Test(audit_changes, refused)
{
        static const char *const bad[] = {
                "",
                "igmpd-audit-changes 2\nrule b64\n",  /* another version */
                "rule b64\n",                         /* no header */
                "igmpd-audit-changes 1\nrule b64",    /* torn */
                "igmpd-audit-changes 1\nrule x86\n",
                "igmpd-audit-changes 1\nenabled-before 2\n", /* igmpd never locks */
                "igmpd-audit-changes 1\nenabled-before -1\n",
                "igmpd-audit-changes 1\nenabled-before \n",
                "igmpd-audit-changes 1\nsomething else\n",
        };
        AuditChanges c;

        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
                cr_assert_eq(audit_changes_parse(bad[i], &c), -EINVAL, "accepted: '%s'", bad[i]);
}
