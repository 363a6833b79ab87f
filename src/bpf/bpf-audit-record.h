/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Records the audit BPF programs (audit-libc.bpf.c, audit-syscall.bpf.c) put into their ring
 * buffer, and their counters. Shared by the BPF side and user space (src/shared/audit-bpf-record.c
 * parses them); every field has a fixed size so both sides agree on the layout.
 */

#include <linux/types.h>

#define AUDIT_RECORD_NAME_MAX 10   /* ints of the name vector copied (the kernel's CTL_MAXNAME) */
#define AUDIT_RECORD_COMM_MAX 16   /* TASK_COMM_LEN */
/* The executable's path, collected leaf first: each component NUL-terminated, at most
 * AUDIT_RECORD_COMPONENT_MAX bytes with its NUL, the whole within AUDIT_RECORD_EXE_MAX. */
#define AUDIT_RECORD_EXE_MAX 448
#define AUDIT_RECORD_COMPONENT_MAX 64
#define AUDIT_RECORD_EXE_BUFFER 512 /* room the BPF side needs to write the last component */

enum {
        AUDIT_RECORD_CALL = 1,      /* struct audit_record_call */
        AUDIT_RECORD_NEW_ROOT = 2,  /* struct audit_record_new_root */
};

enum {
        AUDIT_ORIGIN_LIBC = 1,      /* uprobe on libc's compat sysctl@GLIBC_2.2.5 */
        AUDIT_ORIGIN_SYSCALL = 2,   /* sys_enter, system call 156 of a 64-bit task */
        AUDIT_ORIGIN_SYSCALL32 = 3, /* sys_enter, system call 149 of an ia32 task */
};

enum {
        AUDIT_RECORD_WRITE = 1 << 0,         /* newval was set */
        AUDIT_RECORD_NAME_FAULT = 1 << 1,    /* the name vector could not be read */
        AUDIT_RECORD_ARGS_FAULT = 1 << 2,    /* struct __sysctl_args could not be read */
        AUDIT_RECORD_EXE_TRUNCATED = 1 << 3, /* the path did not fit or was cut short */
        AUDIT_RECORD_NO_EXE = 1 << 4,        /* kernel thread or no exe file */
};

struct audit_record_call {
        __u32 type;   /* AUDIT_RECORD_CALL */
        __u32 origin; /* AUDIT_ORIGIN_* */
        __u32 tgid;   /* process id, in igmpd's PID namespace (0: not visible there) */
        __u32 tid;
        __u32 uid;
        __s32 nlen;   /* as the caller passed it (may be out of range) */
        __u32 flags;  /* AUDIT_RECORD_* */
        __u32 exe_len; /* bytes used in exe[] */
        __s32 name[AUDIT_RECORD_NAME_MAX];
        char comm[AUDIT_RECORD_COMM_MAX];
        char exe[AUDIT_RECORD_EXE_BUFFER]; /* only exe_len bytes are sent */
};

#define AUDIT_RECORD_CALL_HEADER_SIZE ((unsigned long) &((struct audit_record_call *) 0)->exe)

/* The first exec()s in a mount namespace and root directory pair the libc source has not
 * looked at: user space asks the helper to look for a libc copy there. */
struct audit_record_new_root {
        __u32 type;  /* AUDIT_RECORD_NEW_ROOT */
        __u32 tgid;
        __u32 mntns; /* mount namespace inode number */
        __u32 root_dev; /* kernel dev_t of the root directory */
        __u64 root_ino;
};

/* The programs' counters, the only variable in their .bss (user space maps it read-only). */
struct audit_counters {
        __u64 calls;   /* calls seen */
        __u64 lost;    /* records dropped: ring buffer full */
};
