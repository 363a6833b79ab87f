/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests for audit-record.c: SYSCALL record texts as the kernel multicasts them (quoted,
 * hex-encoded and "(null)" values), the sysctl(2) test per architecture, and garbage.
 */

#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "audit-record.h"
#include "macro.h"

#define HDR "audit(1700000000.123:456): "
#define TASK "ppid=1 pid=1234 auid=4294967295 uid=0 gid=0 euid=0 suid=0 fsuid=0 egid=0 sgid=0 fsgid=0 " \
        "tty=(none) ses=4294967295 "
#define X86_64_SYSCTL "arch=c000003e syscall=156 success=no exit=-38 a0=7ffd5c1e8a40 a1=0 a2=0 a3=0 items=0 "
#define I386_SYSCTL "arch=40000003 syscall=149 success=no exit=-38 a0=ffd2a1b0 a1=0 a2=0 a3=0 items=0 "

static const struct {
        const char *text;
        size_t len;          /* 0: strlen(text) */
        uint64_t sec;
        unsigned msec;
        uint32_t arch;
        int syscall;
        bool sysctl;
        uint32_t pid, ppid, uid, auid;
        const char *comm;    /* NULL: has_comm false */
        size_t comm_len;     /* 0: strlen(comm) */
        const char *exe;     /* NULL: has_exe false */
} good[] = {
        /* What a sysctl(2) call on x86_64 looks like on 5.9+ (ENOSYS). */
        { .text = HDR X86_64_SYSCTL TASK
                "comm=\"sysctl-test\" exe=\"/usr/bin/foo\" subj=unconfined key=(null)",
          .sec = 1700000000, .msec = 123, .arch = 0xc000003e, .syscall = 156, .sysctl = true,
          .pid = 1234, .ppid = 1, .uid = 0, .auid = UINT32_MAX,
          .comm = "sysctl-test", .exe = "/usr/bin/foo" },
        /* i386 (and 32-bit programs on x86_64) */
        { .text = HDR I386_SYSCTL
                "ppid=77 pid=78 auid=1000 uid=1000 comm=\"old32\" exe=\"/opt/old32\" key=\"sysctl\"",
          .sec = 1700000000, .msec = 123, .arch = 0x40000003, .syscall = 149, .sysctl = true,
          .pid = 78, .ppid = 77, .uid = 1000, .auid = 1000, .comm = "old32", .exe = "/opt/old32" },
        /* Same numbers, other architecture: not sysctl. */
        { .text = HDR "arch=40000003 syscall=156 ppid=1 pid=2 uid=0 comm=\"x\" exe=\"/x\"",
          .sec = 1700000000, .msec = 123, .arch = 0x40000003, .syscall = 156,
          .pid = 2, .ppid = 1, .uid = 0, .auid = UINT32_MAX, .comm = "x", .exe = "/x" },
        { .text = HDR "arch=c000003e syscall=149 ppid=1 pid=2 uid=0 comm=\"x\" exe=\"/x\"",
          .sec = 1700000000, .msec = 123, .arch = 0xc000003e, .syscall = 149,
          .pid = 2, .ppid = 1, .uid = 0, .auid = UINT32_MAX, .comm = "x", .exe = "/x" },
        /* Other syscalls and arches */
        { .text = HDR "arch=c000003e syscall=59 success=yes exit=0 ppid=1 pid=3 uid=0 "
                "comm=\"sh\" exe=\"/bin/sh\"",
          .sec = 1700000000, .msec = 123, .arch = 0xc000003e, .syscall = 59,
          .pid = 3, .ppid = 1, .uid = 0, .auid = UINT32_MAX, .comm = "sh", .exe = "/bin/sh" },
        { .text = HDR "arch=c00000b7 syscall=156 ppid=1 pid=3 uid=0 comm=\"a64\" exe=\"/a64\"",
          .sec = 1700000000, .msec = 123, .arch = 0xc00000b7, .syscall = 156,
          .pid = 3, .ppid = 1, .uid = 0, .auid = UINT32_MAX, .comm = "a64", .exe = "/a64" },
        { .text = HDR "arch=C000003E syscall=156", /* upper-case hex is still hex */
          .sec = 1700000000, .msec = 123, .arch = 0xc000003e, .syscall = 156, .sysctl = true,
          .uid = UINT32_MAX, .auid = UINT32_MAX },
        /* Hex-encoded values: spaces, quotes, control bytes, non-ASCII */
        { .text = HDR X86_64_SYSCTL TASK "comm=6D792070726F67 exe=2F746D702F6120622F70726F67",
          .sec = 1700000000, .msec = 123, .arch = 0xc000003e, .syscall = 156, .sysctl = true,
          .pid = 1234, .ppid = 1, .uid = 0, .auid = UINT32_MAX, .comm = "my prog", .exe = "/tmp/a b/prog" },
        { .text = HDR X86_64_SYSCTL TASK
                "comm=61226260275C0A exe=2F7573722F62696E2F666F6F202864656C6574656429",
          .sec = 1700000000, .msec = 123, .arch = 0xc000003e, .syscall = 156, .sysctl = true,
          .pid = 1234, .ppid = 1, .uid = 0, .auid = UINT32_MAX,
          .comm = "a\"b`'\\\n", .exe = "/usr/bin/foo (deleted)" },
        { .text = HDR X86_64_SYSCTL TASK "comm=C3A9FF exe=\"/x\"",
          .sec = 1700000000, .msec = 123, .arch = 0xc000003e, .syscall = 156, .sysctl = true,
          .pid = 1234, .ppid = 1, .uid = 0, .auid = UINT32_MAX, .comm = "\xc3\xa9\xff", .exe = "/x" },
        { .text = HDR X86_64_SYSCTL TASK "comm=6e756c00 exe=\"/x\"", /* a NUL byte: kept, length says it */
          .sec = 1700000000, .msec = 123, .arch = 0xc000003e, .syscall = 156, .sysctl = true,
          .pid = 1234, .ppid = 1, .uid = 0, .auid = UINT32_MAX,
          .comm = "nul\0", .comm_len = 4, .exe = "/x" },
        /* (null): a kernel thread has no exe */
        { .text = HDR X86_64_SYSCTL TASK "comm=(null) exe=(null) key=(null)",
          .sec = 1700000000, .msec = 123, .arch = 0xc000003e, .syscall = 156, .sysctl = true,
          .pid = 1234, .ppid = 1, .uid = 0, .auid = UINT32_MAX },
        { .text = HDR X86_64_SYSCTL TASK "comm=\"\" exe=\"/x\"",
          .sec = 1700000000, .msec = 123, .arch = 0xc000003e, .syscall = 156, .sysctl = true,
          .pid = 1234, .ppid = 1, .uid = 0, .auid = UINT32_MAX, .comm = "", .exe = "/x" },
        /* audit.log form */
        { .text = "type=SYSCALL msg=" HDR X86_64_SYSCTL TASK "comm=\"sysctl-test\" exe=\"/usr/bin/foo\"",
          .sec = 1700000000, .msec = 123, .arch = 0xc000003e, .syscall = 156, .sysctl = true,
          .pid = 1234, .ppid = 1, .uid = 0, .auid = UINT32_MAX,
          .comm = "sysctl-test", .exe = "/usr/bin/foo" },
        /* Minimal, and what a netlink payload may carry at its end */
        { .text = "audit(1.000:1): arch=c000003e syscall=156",
          .sec = 1, .msec = 0, .arch = 0xc000003e, .syscall = 156, .sysctl = true,
          .uid = UINT32_MAX, .auid = UINT32_MAX },
        { .text = "audit(1.000:1):arch=c000003e syscall=156 pid=9\n\0\0", .len = 50,
          .sec = 1, .msec = 0, .arch = 0xc000003e, .syscall = 156, .sysctl = true,
          .pid = 9, .uid = UINT32_MAX, .auid = UINT32_MAX },
        { .text = "audit(18446744073709551615.999:4294967295): arch=ffffffff syscall=-1",
          .sec = UINT64_MAX, .msec = 999, .arch = UINT32_MAX, .syscall = -1,
          .uid = UINT32_MAX, .auid = UINT32_MAX },
        /* Order, duplicates, look-alike keys, words without values, extra spaces */
        { .text = HDR "exe=\"/e\" comm=\"c\" pid=5 pid=6 opid=7 ppid_x=8 syscall=156   arch=c000003e  "
                "lonely word ppid=2",
          .sec = 1700000000, .msec = 123, .arch = 0xc000003e, .syscall = 156, .sysctl = true,
          .pid = 5, .ppid = 2, .uid = UINT32_MAX, .auid = UINT32_MAX, .comm = "c", .exe = "/e" },
        /* A quoted value holding a space (no kernel writes that, but it must not derail the rest) */
        { .text = HDR "comm=\"a b\" arch=c000003e syscall=156 pid=4",
          .sec = 1700000000, .msec = 123, .arch = 0xc000003e, .syscall = 156, .sysctl = true,
          .pid = 4, .uid = UINT32_MAX, .auid = UINT32_MAX, .comm = "a b" },
        /* Values we do not read may be anything */
        { .text = HDR "arch=c000003e syscall=156 a0=zz key=\"unterminated",
          .sec = 1700000000, .msec = 123, .arch = 0xc000003e, .syscall = 156, .sysctl = true,
          .uid = UINT32_MAX, .auid = UINT32_MAX },
};

Test(audit_record, parse_table)
{
        for (size_t i = 0; i < ELEMENTSOF(good); i++) {
                size_t len = good[i].len ?: strlen(good[i].text);
                AuditRecord a;
                int r;

                r = audit_record_parse(good[i].text, len, &a);
                cr_assert_eq(r, 0, "case %zu: %d", i, r);
                /* µs since the epoch; seconds beyond what they can hold give the most there is */
                cr_expect_eq(a.realtime_usec,
                             good[i].sec > UINT64_MAX / 1000000 - 1 ? UINT64_MAX : good[i].sec * 1000000 + good[i].msec * 1000,
                             "case %zu", i);
                cr_expect_eq(a.arch, good[i].arch, "case %zu: arch %x", i, a.arch);
                cr_expect_eq(a.syscall, good[i].syscall, "case %zu", i);
                cr_expect_eq(audit_record_is_sysctl(&a), good[i].sysctl, "case %zu", i);
                cr_expect_eq(a.pid, good[i].pid, "case %zu: pid %u", i, a.pid);
                cr_expect_eq(a.ppid, good[i].ppid, "case %zu: ppid %u", i, a.ppid);
                cr_expect_eq(a.uid, good[i].uid, "case %zu: uid %u", i, a.uid);
                cr_expect_eq(a.auid, good[i].auid, "case %zu: auid %u", i, a.auid);

                cr_expect_eq(a.has_comm, !!good[i].comm, "case %zu", i);
                if (good[i].comm) {
                        size_t cl = good[i].comm_len ?: strlen(good[i].comm);

                        cr_expect_eq(a.comm_len, cl, "case %zu: comm_len %zu", i, a.comm_len);
                        cr_expect(memcmp(a.comm, good[i].comm, cl) == 0, "case %zu: comm \"%s\"", i, a.comm);
                        cr_expect_eq(a.comm[a.comm_len], '\0', "case %zu", i);
                }
                cr_expect_eq(a.has_exe, !!good[i].exe, "case %zu", i);
                if (good[i].exe) {
                        cr_expect_str_eq(a.exe, good[i].exe, "case %zu", i);
                        cr_expect_eq(a.exe_len, strlen(good[i].exe), "case %zu", i);
                }
        }
}

static const char *const bad[] = {
        "",
        "garbage",
        "\n",
        "audit(",
        "audit()",
        "audit(1700000000.123:456)",
        "audit(1700000000.123:456) arch=c000003e syscall=156",
        "audit(1700000000.12:456): arch=c000003e syscall=156",
        "audit(1700000000.1234:456): arch=c000003e syscall=156",
        "audit(1700000000:456): arch=c000003e syscall=156",
        "audit(1700000000.123): arch=c000003e syscall=156",
        "audit(x.123:456): arch=c000003e syscall=156",
        "audit(.123:456): arch=c000003e syscall=156",
        "audit(1.123:): arch=c000003e syscall=156",
        "audit(1.123:-1): arch=c000003e syscall=156",
        "audit(1.123:4294967296): arch=c000003e syscall=156",
        "audit(18446744073709551616.123:1): arch=c000003e syscall=156",
        " audit(1.123:1): arch=c000003e syscall=156",
        "AUDIT(1.123:1): arch=c000003e syscall=156",
        "type=SYSCALL audit(1.123:1): arch=c000003e syscall=156",
        "type=SYSCALL",
        /* arch and syscall are required and must be well-formed */
        "audit(1.123:1): syscall=156",
        "audit(1.123:1): arch=c000003e",
        "audit(1.123:1): success=no exit=-38",
        "audit(1.123:1): arch= syscall=156",
        "audit(1.123:1): arch=xyz syscall=156",
        "audit(1.123:1): arch=0xc000003e syscall=156",
        "audit(1.123:1): arch=1c000003e syscall=156",
        "audit(1.123:1): arch=c000003e syscall=",
        "audit(1.123:1): arch=c000003e syscall=abc",
        "audit(1.123:1): arch=c000003e syscall=99999999999",
        /* read fields must be well-formed */
        "audit(1.123:1): arch=c000003e syscall=156 pid=-1",
        "audit(1.123:1): arch=c000003e syscall=156 pid=abc",
        "audit(1.123:1): arch=c000003e syscall=156 pid=4294967296",
        "audit(1.123:1): arch=c000003e syscall=156 ppid=",
        "audit(1.123:1): arch=c000003e syscall=156 uid=0x0",
        "audit(1.123:1): arch=c000003e syscall=156 auid=-1",
        "audit(1.123:1): arch=c000003e syscall=156 comm=abc",
        "audit(1.123:1): arch=c000003e syscall=156 comm=XYZW",
        "audit(1.123:1): arch=c000003e syscall=156 comm=",
        "audit(1.123:1): arch=c000003e syscall=156 comm=\"unterminated",
        "audit(1.123:1): arch=c000003e syscall=156 comm=\"a\"b exe=\"/x\"",
        "audit(1.123:1): arch=c000003e syscall=156 comm=\"",
        "audit(1.123:1): arch=c000003e syscall=156 exe=123",
        "audit(1.123:1): arch=c000003e syscall=156 exe=(nul)",
        "audit(1.123:1): arch=c000003e syscall=156 exe=null",
};

Test(audit_record, garbage_rejected_output_untouched)
{
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                AuditRecord a, before;
                int r;

                memset(&a, 0x3c, sizeof(a));
                before = a;
                r = audit_record_parse(bad[i], strlen(bad[i]), &a);
                cr_expect_eq(r, -EBADMSG, "case %zu (%s): %d", i, bad[i], r);
                cr_expect(memcmp(&a, &before, sizeof(a)) == 0, "case %zu: output touched", i);
        }
}

Test(audit_record, length_is_respected)
{
        static const char s[] = "audit(1.000:1): arch=c000003e syscall=156 pid=42 comm=\"abc\"";
        AuditRecord a;

        /* Cut after "syscall=15": a different syscall, not an overrun. */
        cr_assert_eq(audit_record_parse(s, strlen("audit(1.000:1): arch=c000003e syscall=15"), &a), 0);
        cr_expect_eq(a.syscall, 15);
        cr_expect_not(audit_record_is_sysctl(&a));

        /* Cut inside the quoted comm. */
        cr_expect_eq(audit_record_parse(s, strlen(s) - 1, &a), -EBADMSG);

        /* Cut inside the header. */
        cr_expect_eq(audit_record_parse(s, 10, &a), -EBADMSG);
        cr_expect_eq(audit_record_parse(s, 0, &a), -EBADMSG);
}

Test(audit_record, huge_values_are_bounded)
{
        static char buf[64 * 1024];
        AuditRecord a;
        size_t n;

        /* Quoted comm far beyond TASK_COMM_LEN. */
        n = (size_t) snprintf(buf, sizeof(buf), "audit(1.000:1): arch=c000003e syscall=156 comm=\"");
        memset(buf + n, 'c', 1000);
        n += 1000;
        n += (size_t) snprintf(buf + n, sizeof(buf) - n, "\" pid=7");
        cr_assert_eq(audit_record_parse(buf, n, &a), 0);
        cr_expect(a.has_comm);
        cr_expect_eq(a.comm_len, AUDIT_RECORD_COMM_MAX - 1);
        cr_expect_eq(a.comm[AUDIT_RECORD_COMM_MAX - 1], '\0');
        cr_expect_eq(a.pid, 7, "fields after a huge value are still read");

        /* Hex exe of 6000 bytes. */
        n = (size_t) snprintf(buf, sizeof(buf), "audit(1.000:1): arch=c000003e syscall=156 exe=");
        for (size_t i = 0; i < 6000; i++)
                n += (size_t) snprintf(buf + n, sizeof(buf) - n, "%02X", (unsigned) ('a' + i % 26));
        n += (size_t) snprintf(buf + n, sizeof(buf) - n, " ppid=8");
        cr_assert_eq(audit_record_parse(buf, n, &a), 0);
        cr_expect(a.has_exe);
        cr_expect_eq(a.exe_len, AUDIT_RECORD_EXE_MAX - 1);
        cr_expect_eq(a.exe[AUDIT_RECORD_EXE_MAX - 1], '\0');
        cr_expect_eq(a.exe[0], 'a');
        cr_expect_eq(a.exe[26], 'a');
        cr_expect_eq(a.ppid, 8);

        /* Exactly at the limits: not truncated. */
        n = (size_t) snprintf(buf, sizeof(buf),
                              "audit(1.000:1): arch=c000003e syscall=156 comm=\"123456789012345\" exe=\"");
        memset(buf + n, 'e', AUDIT_RECORD_EXE_MAX - 1);
        n += AUDIT_RECORD_EXE_MAX - 1;
        buf[n++] = '"';
        cr_assert_eq(audit_record_parse(buf, n, &a), 0);
        cr_expect_eq(a.comm_len, 15);
        cr_expect_eq(a.exe_len, AUDIT_RECORD_EXE_MAX - 1);

        /* Megabytes of unknown fields. */
        n = (size_t) snprintf(buf, sizeof(buf), "audit(1.000:1): ");
        while (n + 32 < sizeof(buf))
                n += (size_t) snprintf(buf + n, sizeof(buf) - n, "junk=%zu ", n);
        n += (size_t) snprintf(buf + n, sizeof(buf) - n, "arch=40000003 syscall=149");
        cr_assert_eq(audit_record_parse(buf, n, &a), 0);
        cr_expect(audit_record_is_sysctl(&a));
}

Test(audit_record, timestamp_and_constants)
{
        AuditRecord a;

        static const char s[] = HDR "arch=c000003e syscall=156";

        static const char far[] = "audit(18446744073709551615.999:1): arch=c000003e syscall=156";

        cr_assert_eq(audit_record_parse(s, strlen(s), &a), 0);
        cr_expect_eq(a.realtime_usec, UINT64_C(1700000000123000));
        /* Seconds beyond what µs can hold: the most there is, not a wrapped value. */
        cr_assert_eq(audit_record_parse(far, strlen(far), &a), 0);
        cr_expect_eq(a.realtime_usec, UINT64_MAX);

        cr_expect_eq(AUDIT_SYSCALL, 1300);
        cr_expect_eq(AUDIT_EOE, 1320);
        cr_expect_eq(AUDIT_ARCH_X86_64, 0xc000003eU);
        cr_expect_eq(AUDIT_ARCH_I386, 0x40000003U);
        cr_expect_eq(AUDIT_NLGRP_READLOG, 1);
}
