/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What the drift watch (drift-watch.bpf.c) puts into its ring buffer: one record per write of one
 * of the six knobs (per link, "all" or "default") by a process other than igmpd, in igmpd's
 * network namespace. Shared by the BPF side and user space (src/shared/drift-record.c parses
 * it); every field has a fixed size so both sides agree on the layout.
 */

#include <linux/types.h>

#define DRIFT_RECORD_COMM_MAX 16   /* TASK_COMM_LEN */
/* "net/ipv6/conf/" + 15-byte name + "/" + "mldv2_unsolicited_report_interval" is 63 bytes: a
 * longer name cannot be one of ours, but the room shows it as truncated instead of cut. */
#define DRIFT_RECORD_NAME_MAX 80
/* A value as text: "-2147483648\n" is 12 bytes; what a writer sends may be anything. */
#define DRIFT_RECORD_VALUE_MAX 24

enum {
        DRIFT_RECORD_WRITE = 1,
};

struct drift_record {
        __u32 type;       /* DRIFT_RECORD_WRITE */
        __u32 tgid;       /* the writer's process id (initial pid namespace) */
        __u32 uid;
        __u32 netns;      /* inode of the writer's network namespace */
        __s32 name_len;   /* bpf_sysctl_get_name(): bytes copied, or -E2BIG (truncated) */
        __s32 old_len;    /* bpf_sysctl_get_current_value(): value before the write */
        __s32 new_len;    /* bpf_sysctl_get_new_value(): what the writer sent */
        char comm[DRIFT_RECORD_COMM_MAX];
        char name[DRIFT_RECORD_NAME_MAX];       /* "net/ipv4/conf/eth0/force_igmp_version" */
        char old_value[DRIFT_RECORD_VALUE_MAX]; /* "1000\n" as a read would show it */
        char new_value[DRIFT_RECORD_VALUE_MAX]; /* the bytes written, as written */
};

/* The program's counters, the only variable in its .bss (user space maps it read-only). */
struct drift_counters {
        __u64 sent;       /* records put into the ring buffer */
        __u64 lost;       /* writes not reported: the ring buffer was full */
        __u64 own;        /* writes by igmpd itself, not reported */
        __u64 elsewhere;  /* writes of the knobs in other network namespaces, not reported */
};
