/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Parsing of the text of a Linux audit SYSCALL record (type AUDIT_SYSCALL, 1300) as the kernel
 * sends it on the AUDIT_NLGRP_READLOG multicast group:
 *     audit(1700000000.123:456): arch=c000003e syscall=156 success=no exit=-38 a0=… ppid=1
 *     pid=1234 auid=… uid=0 … comm="sysctl-test" exe="/usr/bin/foo" subj=… key=(null)
 * and the test whether it records a sysctl(2) call. No I/O: the caller reads the netlink socket.
 */

#include <linux/audit.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* From <linux/audit.h>, spelled out so the numbers are visible here and checked at build time. */
_Static_assert(AUDIT_SYSCALL == 1300, "AUDIT_SYSCALL");
_Static_assert(AUDIT_EOE == 1320, "AUDIT_EOE");
_Static_assert(AUDIT_ARCH_X86_64 == 0xc000003eU, "AUDIT_ARCH_X86_64");
_Static_assert(AUDIT_ARCH_I386 == 0x40000003U, "AUDIT_ARCH_I386");

/* __NR_sysctl (__NR__sysctl) per architecture; gone from the tables since Linux 5.9. */
#define AUDIT_RECORD_SYSCTL_NR_X86_64 156
#define AUDIT_RECORD_SYSCTL_NR_I386 149

/* comm: TASK_COMM_LEN incl. NUL. exe: PATH_MAX incl. NUL. Longer values are cut. */
#define AUDIT_RECORD_COMM_MAX 16
#define AUDIT_RECORD_EXE_MAX 4096

typedef struct AuditRecord {
        uint64_t realtime_usec; /* audit(SEC.MSEC:SERIAL): the event's time in µs since the epoch,
                                 * UINT64_MAX if beyond it */

        uint32_t arch;      /* AUDIT_ARCH_* */
        int syscall;

        uint32_t pid;       /* 0 when absent */
        uint32_t ppid;      /* 0 when absent */
        uint32_t uid;       /* UINT32_MAX ((uid_t) -1) when absent or unset */
        uint32_t auid;      /* login uid; UINT32_MAX when absent or unset */

        bool has_comm;      /* false when absent or "(null)" */
        size_t comm_len;
        char comm[AUDIT_RECORD_COMM_MAX];  /* comm[comm_len] == '\0'; may hold any other byte */

        bool has_exe;       /* false when absent or "(null)" (kernel threads) */
        size_t exe_len;
        char exe[AUDIT_RECORD_EXE_MAX];    /* exe[exe_len] == '\0' */
} AuditRecord;

/*
 * Parses the record text (len bytes, need not be NUL-terminated; trailing NULs and newlines are
 * ignored). A leading "type=SYSCALL msg=" as in audit.log is accepted too. Values may be quoted,
 * hex-encoded (what the kernel does for strings with spaces, quotes or control characters) or
 * "(null)". Unknown fields are ignored; for a key given twice the first wins.
 *
 * Returns 0; -EBADMSG for a missing or malformed "audit(…):" header, a missing arch= or syscall=,
 * or a malformed value of a field read here. *ret is untouched on failure.
 */
int audit_record_parse(const char *text, size_t len, AuditRecord *ret);

/* Whether the record is a call of sysctl(2): x86_64 syscall 156 or i386 syscall 149. */
bool audit_record_is_sysctl(const AuditRecord *r);
