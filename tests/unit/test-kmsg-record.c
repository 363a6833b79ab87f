/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests for kmsg-record.c: /dev/kmsg records as the kernels of each era print them, the
 * continuation joiner in both flag styles, and the deprecated-sysctl warning recogniser.
 */

#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "kmsg-record.h"
#include "macro.h"

#define WARN_HEAD(comm) "warning: process `" comm "' used the deprecated sysctl system call with "
#define REMOVED(comm) "warning: process `" comm "' used the removed sysctl system call"

/* Parses a record that must be valid. */
static KmsgRecord rec(const char *s)
{
        KmsgRecord r;
        int k;

        k = kmsg_record_parse(s, strlen(s), &r);
        cr_assert_eq(k, 0, "record \"%s\": %d", s, k);
        return r;
}

/* ---- records ---------------------------------------------------------------------------- */

#define R(i, fac, sq, t, fl, m) \
        .in = (i), .facility = (fac), .seq = (sq), .ts = (t), .flag = (fl), .msg = (m)

static const struct {
        const char *in;
        unsigned facility;
        uint64_t seq, ts;
        char flag;
        const char *msg;
        size_t msg_len;   /* 0: strlen(msg) */
        bool has_caller, caller_is_cpu;
        uint32_t caller_id;
} records[] = {
        /* 3.5+ as documented in Documentation/ABI/testing/dev-kmsg */
        { R("6,1234,5678901,-;" WARN_HEAD("sysctl") "3.5.16.-2.17.\n",
            0, 1234, 5678901, '-', WARN_HEAD("sysctl") "3.5.16.-2.17.") },
        { R("7,160,424069,-;pci_root PNP0A03:00: host bridge window [io  0x0000-0x0cf7] (ignored)\n"
            " SUBSYSTEM=acpi\n DEVICE=+acpi:PNP0A03:00\n",
            0, 160, 424069, '-',
            "pci_root PNP0A03:00: host bridge window [io  0x0000-0x0cf7] (ignored)") },
        /* 3.5 … 4.8 continuation flags */
        { R("6,10,100,c;" WARN_HEAD("x") "\n", 0, 10, 100, 'c', WARN_HEAD("x")) },
        { R("4,11,101,+;3.5.\n", 0, 11, 101, '+', "3.5.") },
        /* CONFIG_PRINTK_CALLER (5.1+), and fields nobody knows yet */
        { R("6,339,5140900,-,caller=T1234;hello\n", 0, 339, 5140900, '-', "hello"),
          .has_caller = true, .caller_id = 1234 },
        { R("4,2,3,c,caller=C3;x\n", 0, 2, 3, 'c', "x"),
          .has_caller = true, .caller_is_cpu = true, .caller_id = 3 },
        { R("6,1,2,-,future=1,caller=T7,more=x;y\n", 0, 1, 2, '-', "y"),
          .has_caller = true, .caller_id = 7 },
        { R("6,1,2,-,caller=X7;y\n", 0, 1, 2, '-', "y") },           /* unknown caller kind: ignored */
        { R("6,1,2,-,caller=T99999999999;y\n", 0, 1, 2, '-', "y") },     /* > u32: ignored */
        /* Facilities: a process writing to /dev/kmsg never gets 0 */
        { R("12,5,6,-;hello from userspace\n", 1, 5, 6, '-', "hello from userspace") },
        { R("14,5,6,-;" WARN_HEAD("forged") "1.4.\n", 1, 5, 6, '-', WARN_HEAD("forged") "1.4.") },
        { R("30,5,6,-;systemd[1]: hi\n", 3, 5, 6, '-', "systemd[1]: hi") },
        { R("0,5,6,-;emerg\n", 0, 5, 6, '-', "emerg") },
        { R("191,5,6,-;local7 debug\n", 23, 5, 6, '-', "local7 debug") },
        /* Escapes */
        { R("6,1,2,-;a\\x5cb\\x0ac\\x20d\\x60\\x27\\x22\n", 0, 1, 2, '-', "a\\b\nc d`'\"") },
        { R("6,1,2,-;\\xZZ\\x4\\x\n", 0, 1, 2, '-', "\\xZZ\\x4\\x") },        /* not escapes: literal */
        { R("6,1,2,-;\\x5C\\x5c\n", 0, 1, 2, '-', "\\\\") },
        { R("6,1,2,-;nul\\x00byte\n", 0, 1, 2, '-', "nul\0byte"), .msg_len = 8 },
        { R("6,1,2,-;\\xff\\x80\n", 0, 1, 2, '-', "\xff\x80") },
        /* Edges */
        { R("6,1,2,-;no final newline", 0, 1, 2, '-', "no final newline") },
        { R("6,1,2,-;\n", 0, 1, 2, '-', "") },
        { R("6,1,2,-;", 0, 1, 2, '-', "") },
        { R("6,18446744073709551615,18446744073709551615,-;max\n",
            0, UINT64_MAX, UINT64_MAX, '-', "max") },
        { R("4294967295,0,0,-;big prio\n", 536870911, 0, 0, '-', "big prio") },
        { R("6,1,2,*;odd flag\n", 0, 1, 2, '*', "odd flag") },
        { R("6,1,2,-;semi;colon,comma\n", 0, 1, 2, '-', "semi;colon,comma") },
};

Test(kmsg_record, parse_table)
{
        for (size_t i = 0; i < ELEMENTSOF(records); i++) {
                KmsgRecord r;
                size_t want_len = records[i].msg_len ?: strlen(records[i].msg);
                int k;

                k = kmsg_record_parse(records[i].in, strlen(records[i].in), &r);
                cr_assert_eq(k, 0, "case %zu: %d", i, k);
                cr_expect_eq(r.facility, records[i].facility, "case %zu: facility %u", i, r.facility);
                cr_expect_eq(r.seq, records[i].seq, "case %zu", i);
                cr_expect_eq(r.ts_usec, records[i].ts, "case %zu", i);
                cr_expect_eq(r.flag, records[i].flag, "case %zu: flag %c", i, r.flag);
                cr_expect_eq(r.message_len, want_len, "case %zu: len %zu", i, r.message_len);
                cr_expect(memcmp(r.message, records[i].msg, want_len) == 0,
                          "case %zu: \"%s\"", i, r.message);
                cr_expect_eq(r.message[r.message_len], '\0', "case %zu", i);
                cr_expect_not(r.message_truncated, "case %zu", i);
                cr_expect_eq(r.has_caller, records[i].has_caller, "case %zu", i);
                cr_expect_eq(r.caller_is_cpu, records[i].caller_is_cpu, "case %zu", i);
                cr_expect_eq(r.caller_id, records[i].caller_id, "case %zu", i);
                cr_expect_eq(kmsg_record_is_kernel(&r), records[i].facility == 0, "case %zu", i);
        }
}

static const char *const garbage[] = {
        "",
        "garbage",
        "\n",
        ";message\n",
        "6",
        "6,",
        "6,1",
        "6,1,2",
        "6,1,2,",
        "6,1,2,-",               /* truncated before ';' */
        "6,1,2,-x;y\n",
        "6,1,2,;y\n",            /* no flag */
        "6,1,2, ;y\n",
        "6,1,2,\x01;y\n",
        "6,1,2,\xc3;y\n",
        "6,,2,-;y\n",
        "6,1,,-;y\n",
        ",1,2,-;y\n",
        "a,1,2,-;y\n",
        "-6,1,2,-;y\n",
        "+6,1,2,-;y\n",
        " 6,1,2,-;y\n",
        "6 ,1,2,-;y\n",
        "6;1,2,-;y\n",
        "0x6,1,2,-;y\n",
        "4294967296,1,2,-;y\n",                     /* prio beyond u32 */
        "6,18446744073709551616,2,-;y\n",           /* seq beyond u64 */
        "6,1,99999999999999999999999,-;y\n",
        "6,1,2,-,caller=T1\n continuation without ;",
        /* syslog(2) format, not /dev/kmsg */
        "<6>[    1.000000] warning: process `x' used the deprecated sysctl system call with 1.2.\n",
};

Test(kmsg_record, garbage_rejected_output_untouched)
{
        for (size_t i = 0; i < ELEMENTSOF(garbage); i++) {
                KmsgRecord r, before;

                memset(&r, 0xa5, sizeof(r));
                before = r;
                cr_expect_eq(kmsg_record_parse(garbage[i], strlen(garbage[i]), &r), -EBADMSG, "case %zu", i);
                cr_expect(memcmp(&r, &before, sizeof(r)) == 0, "case %zu: output touched", i);
        }
}

Test(kmsg_record, length_is_respected)
{
        static const char s[] = "6,1,2,-;abcdef\n";
        KmsgRecord r;

        /* Cut inside the message: only what is there counts. */
        cr_assert_eq(kmsg_record_parse(s, 11, &r), 0);
        cr_expect_eq(r.message_len, 3);
        cr_expect_str_eq(r.message, "abc");

        /* Cut in the middle of an escape: taken literally. */
        cr_assert_eq(kmsg_record_parse("6,1,2,-;a\\x41b", 11, &r), 0);
        cr_expect_str_eq(r.message, "a\\x");

        /* Cut inside the header. */
        cr_expect_eq(kmsg_record_parse(s, 7, &r), -EBADMSG);
        cr_expect_eq(kmsg_record_parse(s, 0, &r), -EBADMSG);
}

Test(kmsg_record, long_message_is_truncated)
{
        char buf[16 + 4 * 3000];
        size_t n = (size_t) snprintf(buf, sizeof(buf), "6,1,2,-;");
        KmsgRecord r;

        for (size_t i = 0; i < 3000; i++)
                n += (size_t) snprintf(buf + n, sizeof(buf) - n, "\\x41");
        buf[n++] = '\n';

        cr_assert_eq(kmsg_record_parse(buf, n, &r), 0);
        cr_expect_eq(r.message_len, KMSG_MESSAGE_MAX);
        cr_expect(r.message_truncated);
        cr_expect_eq(r.message[KMSG_MESSAGE_MAX], '\0');
        cr_expect_eq(r.message[0], 'A');
        cr_expect_eq(r.message[KMSG_MESSAGE_MAX - 1], 'A');

        /* Exactly at the limit: not truncated. */
        n = (size_t) snprintf(buf, sizeof(buf), "6,1,2,-;");
        memset(buf + n, 'b', KMSG_MESSAGE_MAX);
        n += KMSG_MESSAGE_MAX;
        cr_assert_eq(kmsg_record_parse(buf, n, &r), 0);
        cr_expect_eq(r.message_len, KMSG_MESSAGE_MAX);
        cr_expect_not(r.message_truncated);
}

Test(kmsg_record, seq_lost)
{
        static const struct {
                uint64_t prev, seq, lost;
        } t[] = {
                { 5, 6, 0 },
                { 5, 5, 0 },
                { 5, 4, 0 },
                { 5, 7, 1 },
                { 5, 10, 4 },
                { 0, 1000000, 999999 },
                { 0, UINT64_MAX, UINT64_MAX - 1 },
                { UINT64_MAX, 0, 0 },
                { UINT64_MAX - 1, UINT64_MAX, 0 },
                { UINT64_MAX - 2, UINT64_MAX, 1 },
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++)
                cr_expect_eq(kmsg_seq_lost(t[i].prev, t[i].seq), t[i].lost, "case %zu", i);
}

Test(kmsg_record, cont_style_from_release)
{
        static const struct {
                const char *release;
                KmsgContStyle style;
        } t[] = {
                { "2.6.32-754.el6.x86_64", KMSG_CONT_LEGACY },
                { "3.5.0", KMSG_CONT_LEGACY },
                { "3.10.0-1160.el7.x86_64", KMSG_CONT_LEGACY },
                { "4.4.0-210-generic", KMSG_CONT_LEGACY },
                { "4.8.17", KMSG_CONT_LEGACY },
                { "4.9", KMSG_CONT_MODERN },
                { "4.9.0-19-amd64", KMSG_CONT_MODERN },
                { "4.10.0", KMSG_CONT_MODERN },
                { "4.19.0-27-amd64", KMSG_CONT_MODERN },
                { "5.4.0-42-generic", KMSG_CONT_MODERN },
                { "5.8.18", KMSG_CONT_MODERN },
                { "6.18.44-fc-v1147", KMSG_CONT_MODERN },
                { "10.0", KMSG_CONT_MODERN },
                { "", _KMSG_CONT_STYLE_INVALID },
                { "4", _KMSG_CONT_STYLE_INVALID },
                { "4.", _KMSG_CONT_STYLE_INVALID },
                { "v4.9", _KMSG_CONT_STYLE_INVALID },
                { "linux", _KMSG_CONT_STYLE_INVALID },
                { "99999999999999999999999.1", _KMSG_CONT_STYLE_INVALID },
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++)
                cr_expect_eq(kmsg_cont_style_from_release(t[i].release), t[i].style, "%s", t[i].release);
        cr_expect_eq(kmsg_cont_style_from_release(NULL), _KMSG_CONT_STYLE_INVALID);
}

/* ---- the warning ------------------------------------------------------------------------ */

#define N(...) .n_name = ELEMENTSOF(((int[]) { __VA_ARGS__ })), .name = { __VA_ARGS__ }
#define OK(t, c) .text = (t), .comm = (c)

static const struct {
        const char *text;
        size_t len;      /* 0: strlen(text) */
        int ret;
        const char *comm;
        size_t comm_len; /* 0: strlen(comm) */
        size_t n_name;
        int name[SYSCTL_BINARY_NAME_MAX];
} warnings[] = {
        /* 2.6.24 … 5.8 */
        { OK(WARN_HEAD("sysctl") "3.5.16.-2.17.", "sysctl"), N(3, 5, 16, -2, 17) },
        { OK(WARN_HEAD("ntpd") "1.4.", "ntpd"), N(1, 4) },
        { OK(WARN_HEAD("iptv-helper") "3.12.16.7.17.", "iptv-helper"), N(3, 12, 16, 7, 17) },
        { OK(WARN_HEAD("a") "3.5.16.-3.17.\n", "a"), N(3, 5, 16, -3, 17) },
        { OK(WARN_HEAD("a") "1.2. \r\n", "a"), N(1, 2) },
        /* nlen == 0 was accepted by the kernel */
        { OK(WARN_HEAD("zero"), "zero"), .n_name = 0 },
        { OK("warning: process `zero' used the deprecated sysctl system call with", "zero"),
          .n_name = 0 },
        /* 2.6.19 … 2.6.23 with CONFIG_SYSCTL_SYSCALL=n, and the 2.6.19-rc wording */
        { OK(REMOVED("date") " with 1.1.", "date"), N(1, 1) },
        { OK(REMOVED("date"), "date"), .n_name = 0 },
        { OK(REMOVED("date") "\n", "date"), .n_name = 0 },
        /* comm is any bytes, up to 15 */
        { OK(WARN_HEAD("my prog") "1.1.", "my prog"), N(1, 1) },
        { OK(WARN_HEAD("a`b'c\"d\\e") "1.1.", "a`b'c\"d\\e"), N(1, 1) },
        { OK(WARN_HEAD("'") "1.1.", "'"), N(1, 1) },
        { OK(WARN_HEAD("x' used the ") "2.19.", "x' used the "), N(2, 19) },
        { OK(WARN_HEAD("' used the rem") "2.19.", "' used the rem"), N(2, 19) },
        { OK(WARN_HEAD("123456789012345") "5.7.", "123456789012345"), N(5, 7) },
        { OK(WARN_HEAD("") "1.1.", ""), N(1, 1) },
        { OK(WARN_HEAD("new\nline") "1.1.", "new\nline"), N(1, 1) },
        { OK(WARN_HEAD("\xff\x01") "1.1.", "\xff\x01"), N(1, 1) },
        /* Extreme ids */
        { OK(WARN_HEAD("x") "-2147483648.2147483647.0.", "x"), N(INT_MIN, INT_MAX, 0) },
        { OK(WARN_HEAD("x") "1.2.3.4.5.6.7.8.9.10.", "x"), N(1, 2, 3, 4, 5, 6, 7, 8, 9, 10) },
        { .text = WARN_HEAD("x") "1.2.3.4.5.6.7.8.9.10.11.", .ret = -E2BIG },
        { .text = WARN_HEAD("x") "2147483648.", .ret = -EBADMSG },
        { .text = WARN_HEAD("x") "-2147483649.", .ret = -EBADMSG },
        { .text = WARN_HEAD("x") "99999999999999999999999.", .ret = -EBADMSG },
        /* Malformed tails */
        { .text = WARN_HEAD("x") "3.5", .ret = -EBADMSG },
        { .text = WARN_HEAD("x") "3..5.", .ret = -EBADMSG },
        { .text = WARN_HEAD("x") ".", .ret = -EBADMSG },
        { .text = WARN_HEAD("x") "-.", .ret = -EBADMSG },
        { .text = WARN_HEAD("x") "+3.", .ret = -EBADMSG },
        { .text = WARN_HEAD("x") "a.", .ret = -EBADMSG },
        { .text = WARN_HEAD("x") "3.5. extra", .ret = -EBADMSG },
        { .text = WARN_HEAD("x") "3 .5.", .ret = -EBADMSG },
        { .text = "warning: process `x' used the deprecated sysctl system callous", .ret = -EBADMSG },
        { .text = "warning: process `x' used the deprecated sysctl system call  with 1.", .ret = -EBADMSG },
        /* Not this warning */
        { .text = "", .ret = -ENOMSG },
        { .text = "hello", .ret = -ENOMSG },
        { .text = "warning: process", .ret = -ENOMSG },
        { .text = "warning: process `", .ret = -ENOMSG },
        { .text = "warning: process `x", .ret = -ENOMSG },
        { .text = "warning: process `bdflush' used the obsolete bdflush system call", .ret = -ENOMSG },
        { .text = "warning: process `x' used the deprecated ioctl", .ret = -ENOMSG },
        { .text = "warning: process `x' used the deprecated sysctl", .ret = -ENOMSG },
        { .text = " warning: process `x' used the deprecated sysctl system call with 1.", .ret = -ENOMSG },
        { .text = "Warning: process `x' used the deprecated sysctl system call with 1.", .ret = -ENOMSG },
        { .text = WARN_HEAD("1234567890123456") "1.1.", .ret = -ENOMSG }, /* no task has a 16-byte comm */
        { .text = WARN_HEAD("nul\0in comm") "1.1.", .len = STRLEN(WARN_HEAD("nul\0in comm") "1.1."),
          .ret = -EBADMSG },
};

Test(kmsg_record, sysctl_warning_table)
{
        for (size_t i = 0; i < ELEMENTSOF(warnings); i++) {
                size_t len = warnings[i].len ?: strlen(warnings[i].text);
                SysctlWarning w, before;
                int k;

                memset(&w, 0x5a, sizeof(w));
                before = w;
                k = kmsg_parse_sysctl_warning(warnings[i].text, len, &w);
                cr_expect_eq(k, warnings[i].ret, "case %zu: %d", i, k);
                if (warnings[i].ret < 0) {
                        cr_expect(memcmp(&w, &before, sizeof(w)) == 0, "case %zu: output touched", i);
                        continue;
                }
                if (k < 0)
                        continue;

                size_t comm_len = warnings[i].comm_len ?: strlen(warnings[i].comm);
                cr_expect_eq(w.comm_len, comm_len, "case %zu: comm_len %zu", i, w.comm_len);
                cr_expect(memcmp(w.comm, warnings[i].comm, comm_len) == 0,
                          "case %zu: comm \"%s\"", i, w.comm);
                cr_expect_eq(w.comm[w.comm_len], '\0', "case %zu", i);
                cr_expect_eq(w.n_name, warnings[i].n_name, "case %zu: n_name %zu", i, w.n_name);
                for (size_t j = 0; j < w.n_name && j < SYSCTL_BINARY_NAME_MAX; j++)
                        cr_expect_eq(w.name[j], warnings[i].name[j],
                                     "case %zu, name[%zu] = %d", i, j, w.name[j]);
        }
}

Test(kmsg_record, escaped_comm_through_record)
{
        /* What the kernel writes for comm "a b\`'" : space and backslash escaped. */
        KmsgRecord r = rec("6,100,200,-;warning: process `a\\x20b\\x5c`'' used the deprecated sysctl "
                           "system call with 3.5.16.-2.17.\n");
        SysctlWarning w;

        cr_assert(kmsg_record_is_kernel(&r));
        cr_assert_eq(kmsg_parse_sysctl_warning(r.message, r.message_len, &w), 0);
        cr_expect_str_eq(w.comm, "a b\\`'");
        cr_expect_eq(w.n_name, 5);
        cr_expect_eq(w.name[3], -2);

        /* A forged copy written by a process: parses, but is not from the kernel. */
        r = rec("14,101,201,-;warning: process `evil' used the deprecated sysctl system call with 1.1.\n");
        cr_expect_not(kmsg_record_is_kernel(&r));
}

/* ---- the joiner ------------------------------------------------------------------------- */

static void expect_message(const KmsgMessage *m, const char *text, uint64_t seq, unsigned n_records)
{
        cr_expect_eq(m->len, strlen(text), "len %zu for \"%s\"", m->len, m->text);
        cr_expect_str_eq(m->text, text);
        cr_expect_eq(m->seq, seq, "seq %" PRIu64, m->seq);
        cr_expect_eq(m->n_records, n_records, "n_records %u", m->n_records);
}

static void expect_sysctl(const KmsgMessage *m, const char *comm, size_t n, const int *name)
{
        SysctlWarning w;

        cr_assert_eq(kmsg_parse_sysctl_warning(m->text, m->len, &w), 0, "\"%s\"", m->text);
        cr_expect_str_eq(w.comm, comm);
        cr_assert_eq(w.n_name, n);
        for (size_t i = 0; i < n; i++)
                cr_expect_eq(w.name[i], name[i], "name[%zu]", i);
}

static const int igmp_all[] = { 3, 5, 16, -2, 17 };

Test(kmsg_assembler, legacy_whole_line_is_immediate)
{
        KmsgAssembler a;
        KmsgMessage m;
        KmsgRecord r = rec("6,1,100,-;" WARN_HEAD("sysctl") "3.5.16.-2.17.\n");

        kmsg_assembler_init(&a, KMSG_CONT_LEGACY);
        cr_assert_eq(kmsg_assembler_push(&a, &r, &m), 1);
        expect_message(&m, WARN_HEAD("sysctl") "3.5.16.-2.17.", 1, 1);
        expect_sysctl(&m, "sysctl", 5, igmp_all);
        cr_expect_eq(kmsg_assembler_flush(&a, &m), 0);
}

Test(kmsg_assembler, legacy_split_c_plus)
{
        KmsgAssembler a;
        KmsgMessage m;
        KmsgRecord r;

        kmsg_assembler_init(&a, KMSG_CONT_LEGACY);

        r = rec("6,10,100,c;" WARN_HEAD("old app") "\n");
        cr_expect_eq(kmsg_assembler_push(&a, &r, &m), 0);
        /* A process writes to /dev/kmsg in between: neither joined nor a gap. */
        r = rec("12,11,101,-;user noise\n");
        cr_expect_eq(kmsg_assembler_push(&a, &r, &m), 0);
        r = rec("4,12,102,+;3.5.\n");
        cr_expect_eq(kmsg_assembler_push(&a, &r, &m), 0);
        r = rec("4,13,103,+;16.-2.17.\n");
        cr_expect_eq(kmsg_assembler_push(&a, &r, &m), 0);

        r = rec("6,14,104,-;eth0: link up\n");
        cr_assert_eq(kmsg_assembler_push(&a, &r, &m), 1);
        expect_message(&m, WARN_HEAD("old app") "3.5.16.-2.17.", 10, 3);
        cr_expect_eq(m.seq_last, 13);
        cr_expect_eq(m.ts_usec, 100);
        expect_sysctl(&m, "old app", 5, igmp_all);

        cr_assert_eq(kmsg_assembler_flush(&a, &m), 1);
        expect_message(&m, "eth0: link up", 14, 1);
        cr_expect_eq(kmsg_assembler_flush(&a, &m), 0);
}

Test(kmsg_assembler, legacy_new_head_ends_previous)
{
        KmsgAssembler a;
        KmsgMessage m;
        KmsgRecord r;

        kmsg_assembler_init(&a, KMSG_CONT_LEGACY);
        r = rec("6,1,1,c;first \n");
        cr_expect_eq(kmsg_assembler_push(&a, &r, &m), 0);
        r = rec("6,2,2,c;second \n");
        cr_assert_eq(kmsg_assembler_push(&a, &r, &m), 1);
        expect_message(&m, "first ", 1, 1);
        r = rec("6,3,3,+;part\n");
        cr_expect_eq(kmsg_assembler_push(&a, &r, &m), 0);
        cr_assert_eq(kmsg_assembler_flush(&a, &m), 1);
        expect_message(&m, "second part", 2, 2);
}

Test(kmsg_assembler, legacy_gap_and_headless_tail)
{
        KmsgAssembler a;
        KmsgMessage m;
        KmsgRecord r;

        kmsg_assembler_init(&a, KMSG_CONT_LEGACY);
        r = rec("6,10,1,c;" WARN_HEAD("x") "\n");
        cr_expect_eq(kmsg_assembler_push(&a, &r, &m), 0);
        /* seq 11 was lost (EPIPE): the tail must not be glued on. */
        r = rec("4,12,2,+;16.-2.17.\n");
        cr_assert_eq(kmsg_assembler_push(&a, &r, &m), 1);
        expect_message(&m, WARN_HEAD("x"), 10, 1);
        cr_assert_eq(kmsg_assembler_flush(&a, &m), 1);
        expect_message(&m, "16.-2.17.", 12, 1);

        /* A '+' with nothing before it at all. */
        kmsg_assembler_init(&a, KMSG_CONT_LEGACY);
        r = rec("4,20,3,+;orphan\n");
        cr_expect_eq(kmsg_assembler_push(&a, &r, &m), 0);
        cr_assert_eq(kmsg_assembler_flush(&a, &m), 1);
        expect_message(&m, "orphan", 20, 1);
}

Test(kmsg_assembler, modern_whole_line_waits_for_flush)
{
        KmsgAssembler a;
        KmsgMessage m;
        KmsgRecord r = rec("6,500,9000,-,caller=T4242;" WARN_HEAD("sysctl") "3.5.16.-2.17.\n");

        kmsg_assembler_init(&a, KMSG_CONT_MODERN);
        cr_expect_eq(kmsg_assembler_push(&a, &r, &m), 0);
        cr_assert_eq(kmsg_assembler_flush(&a, &m), 1);
        expect_message(&m, WARN_HEAD("sysctl") "3.5.16.-2.17.", 500, 1);
        cr_expect(m.has_caller);
        cr_expect_eq(m.caller_id, 4242);
        expect_sysctl(&m, "sysctl", 5, igmp_all);
        cr_expect_eq(kmsg_assembler_flush(&a, &m), 0);
}

Test(kmsg_assembler, modern_c_continues_previous)
{
        KmsgAssembler a;
        KmsgMessage m;
        KmsgRecord r;

        kmsg_assembler_init(&a, KMSG_CONT_MODERN);
        r = rec("6,20,1,-;" WARN_HEAD("tv") "3.5.\n");
        cr_expect_eq(kmsg_assembler_push(&a, &r, &m), 0);
        r = rec("6,21,2,c;16.-2.17.\n");
        cr_expect_eq(kmsg_assembler_push(&a, &r, &m), 0);
        r = rec("6,22,3,-;next\n");
        cr_assert_eq(kmsg_assembler_push(&a, &r, &m), 1);
        expect_message(&m, WARN_HEAD("tv") "3.5.16.-2.17.", 20, 2);
        expect_sysctl(&m, "tv", 5, igmp_all);
}

Test(kmsg_assembler, modern_caller_ids_keep_lines_apart)
{
        KmsgAssembler a;
        KmsgMessage m;
        KmsgRecord r;

        kmsg_assembler_init(&a, KMSG_CONT_MODERN);
        r = rec("6,20,1,-,caller=T100;" WARN_HEAD("tv") "3.5.\n");
        cr_expect_eq(kmsg_assembler_push(&a, &r, &m), 0);
        r = rec("6,21,2,-,caller=C1;irq line\n");
        cr_assert_eq(kmsg_assembler_push(&a, &r, &m), 1);
        expect_message(&m, WARN_HEAD("tv") "3.5.", 20, 1);
        r = rec("6,22,3,c,caller=T100;16.-2.17.\n");
        cr_assert_eq(kmsg_assembler_push(&a, &r, &m), 1);
        expect_message(&m, "irq line", 21, 1);
        cr_assert_eq(kmsg_assembler_flush(&a, &m), 1);
        expect_message(&m, "16.-2.17.", 22, 1);
}

Test(kmsg_assembler, modern_bare_fragments_without_kern_cont)
{
        static const char *const recs[] = {
                "6,30,1,-;" WARN_HEAD("legacyd") "\n",
                "4,31,2,-;3.\n",
                "4,32,3,-;5.\n",
                "4,33,4,-;16.\n",
                "4,34,5,-;-2.\n",
                "4,35,6,-;17.\n",
        };
        KmsgAssembler a;
        KmsgMessage m;
        KmsgRecord r;

        kmsg_assembler_init(&a, KMSG_CONT_MODERN);
        for (size_t i = 0; i < ELEMENTSOF(recs); i++) {
                r = rec(recs[i]);
                cr_expect_eq(kmsg_assembler_push(&a, &r, &m), 0, "record %zu", i);
        }
        /* The printk("\n") became an empty record: the line is complete now. */
        r = rec("4,36,7,-;\n");
        cr_assert_eq(kmsg_assembler_push(&a, &r, &m), 1);
        expect_message(&m, WARN_HEAD("legacyd") "3.5.16.-2.17.", 30, 7);
        expect_sysctl(&m, "legacyd", 5, igmp_all);
        cr_expect_eq(kmsg_assembler_flush(&a, &m), 0);
}

Test(kmsg_assembler, modern_bare_fragment_rules)
{
        KmsgAssembler a;
        KmsgMessage m;
        KmsgRecord r;

        /* Not contiguous: a process wrote to /dev/kmsg in between. */
        kmsg_assembler_init(&a, KMSG_CONT_MODERN);
        r = rec("6,30,1,-;" WARN_HEAD("x") "\n");
        cr_expect_eq(kmsg_assembler_push(&a, &r, &m), 0);
        r = rec("12,31,2,-;3.\n");
        cr_expect_eq(kmsg_assembler_push(&a, &r, &m), 0);
        r = rec("4,32,3,-;3.\n");
        cr_assert_eq(kmsg_assembler_push(&a, &r, &m), 1);
        expect_message(&m, WARN_HEAD("x"), 30, 1);

        /* After an ordinary line, "3." is just a line. */
        kmsg_assembler_init(&a, KMSG_CONT_MODERN);
        r = rec("6,40,1,-;hello\n");
        cr_expect_eq(kmsg_assembler_push(&a, &r, &m), 0);
        r = rec("4,41,2,-;3.\n");
        cr_assert_eq(kmsg_assembler_push(&a, &r, &m), 1);
        expect_message(&m, "hello", 40, 1);
        cr_assert_eq(kmsg_assembler_flush(&a, &m), 1);
        expect_message(&m, "3.", 41, 1);

        /* Not a bare fragment: a line of its own. */
        kmsg_assembler_init(&a, KMSG_CONT_MODERN);
        r = rec("6,50,1,-;" WARN_HEAD("x") "\n");
        cr_expect_eq(kmsg_assembler_push(&a, &r, &m), 0);
        r = rec("6,51,2,-;3. and more\n");
        cr_assert_eq(kmsg_assembler_push(&a, &r, &m), 1);
        expect_message(&m, WARN_HEAD("x"), 50, 1);
}

Test(kmsg_assembler, modern_gap_closes_message)
{
        KmsgAssembler a;
        KmsgMessage m;
        KmsgRecord r;

        kmsg_assembler_init(&a, KMSG_CONT_MODERN);
        r = rec("6,20,1,-;" WARN_HEAD("x") "3.\n");
        cr_expect_eq(kmsg_assembler_push(&a, &r, &m), 0);
        r = rec("6,25,2,c;5.\n");
        cr_assert_eq(kmsg_assembler_push(&a, &r, &m), 1);
        expect_message(&m, WARN_HEAD("x") "3.", 20, 1);
        cr_assert_eq(kmsg_assembler_flush(&a, &m), 1);
        expect_message(&m, "5.", 25, 1);
}

Test(kmsg_assembler, non_kernel_records_never_become_messages)
{
        KmsgAssembler a;
        KmsgMessage m;
        KmsgRecord r = rec("14,1,1,-;" WARN_HEAD("forged") "3.5.16.-2.17.\n");

        for (KmsgContStyle s = 0; s < _KMSG_CONT_STYLE_MAX; s++) {
                kmsg_assembler_init(&a, s);
                cr_expect_eq(kmsg_assembler_push(&a, &r, &m), 0);
                cr_expect_eq(kmsg_assembler_flush(&a, &m), 0);
        }

        /* Nor can a forged '+'/'c' record extend a kernel line. */
        kmsg_assembler_init(&a, KMSG_CONT_LEGACY);
        r = rec("6,1,1,c;" WARN_HEAD("x") "\n");
        cr_expect_eq(kmsg_assembler_push(&a, &r, &m), 0);
        r = rec("12,2,2,+;1.4.\n");
        cr_expect_eq(kmsg_assembler_push(&a, &r, &m), 0);
        cr_assert_eq(kmsg_assembler_flush(&a, &m), 1);
        expect_message(&m, WARN_HEAD("x"), 1, 1);
}

Test(kmsg_assembler, joined_length_is_bounded)
{
        char buf[64 + KMSG_MESSAGE_MAX];
        KmsgAssembler a;
        KmsgMessage m;
        KmsgRecord r;
        size_t n;

        kmsg_assembler_init(&a, KMSG_CONT_LEGACY);
        n = (size_t) snprintf(buf, sizeof(buf), "6,1,1,c;");
        memset(buf + n, 'a', 1000);
        n += 1000;
        cr_assert_eq(kmsg_record_parse(buf, n, &r), 0);
        cr_expect_eq(kmsg_assembler_push(&a, &r, &m), 0);

        for (uint64_t seq = 2; seq < 10; seq++) {
                n = (size_t) snprintf(buf, sizeof(buf), "6,%" PRIu64 ",1,+;", seq);
                memset(buf + n, 'b', 100);
                n += 100;
                cr_assert_eq(kmsg_record_parse(buf, n, &r), 0);
                cr_expect_eq(kmsg_assembler_push(&a, &r, &m), 0);
        }
        cr_assert_eq(kmsg_assembler_flush(&a, &m), 1);
        cr_expect_eq(m.len, KMSG_MESSAGE_MAX);
        cr_expect(m.truncated);
        cr_expect_eq(m.text[KMSG_MESSAGE_MAX], '\0');
        cr_expect_eq(m.text[999], 'a');
        cr_expect_eq(m.text[1000], 'b');
        cr_expect_eq(m.n_records, 9);
}

Test(kmsg_assembler, reset_drops_pending)
{
        KmsgAssembler a;
        KmsgMessage m;
        KmsgRecord r = rec("6,1,1,c;half\n");

        kmsg_assembler_init(&a, KMSG_CONT_LEGACY);
        cr_expect_eq(kmsg_assembler_push(&a, &r, &m), 0);
        kmsg_assembler_init(&a, a.style); /* what a reopen of /dev/kmsg does */
        cr_expect_eq(a.style, KMSG_CONT_LEGACY);
        cr_expect_eq(kmsg_assembler_flush(&a, &m), 0);

        /* After a reset any seq is fine (no gap). */
        r = rec("6,1000,1,c;head \n");
        cr_expect_eq(kmsg_assembler_push(&a, &r, &m), 0);
        r = rec("6,1001,1,+;tail\n");
        cr_expect_eq(kmsg_assembler_push(&a, &r, &m), 0);
        cr_assert_eq(kmsg_assembler_flush(&a, &m), 1);
        expect_message(&m, "head tail", 1000, 2);
}
