/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Parses the records of the audit BPF programs (layout: src/bpf/bpf-audit-record.h) into plain
 * data. Pure: the bytes come from a ring buffer the kernel writes, but every length is checked
 * as if a peer had sent them.
 */

#include <stddef.h>
#include <stdint.h>

#include "bpf-audit-record.h"

typedef struct AuditBpfCall {
        uint32_t pid;
        int32_t name[AUDIT_RECORD_NAME_MAX];
        size_t n_name;    /* ints of name[] that were read: min(record nlen, 10), 0 if unreadable */
        char comm[AUDIT_RECORD_COMM_MAX + 1];
        size_t comm_len;
        /* "/usr/bin/prog"; "…/bin/prog" when the walk was cut short; "" if unknown. Not
         * sanitized: the caller treats it as bytes. */
        char exe[AUDIT_RECORD_EXE_MAX + 8];
        size_t exe_len;
} AuditBpfCall;

typedef struct AuditBpfNewRoot {
        uint32_t pid;
        uint32_t mntns;
        uint32_t root_dev; /* kernel encoding */
        uint64_t root_ino;
} AuditBpfNewRoot;

/* AUDIT_RECORD_CALL, AUDIT_RECORD_NEW_ROOT, or -EBADMSG. */
int audit_bpf_record_type(const void *data, size_t size);

/* 0 or -EBADMSG. */
int audit_bpf_parse_call(const void *data, size_t size, AuditBpfCall *ret);
int audit_bpf_parse_new_root(const void *data, size_t size, AuditBpfNewRoot *ret);

/* "libc", "syscall", "syscall32" or NULL. */
const char *audit_bpf_origin_to_string(uint32_t origin);
