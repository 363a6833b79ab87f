/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The BPF audit sources, igmpd's side: "libc" (uprobes on each libc's compat sysctl symbol) and
 * "syscall" (sys_enter for system call 156/149). Each asks the BPF helper to attach its programs
 * (bpf-helper-client.h), keeps the links it gets back (closing them detaches everything, as
 * does igmpd's exit, however it dies), reads the ring buffer and hands each call to the audit
 * pipeline as an AuditEvent, through the AuditSourceContext it is given (audit-event.h). The
 * libc source's rescans for new libc copies live in audit-libc.c.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "audit-bpf-record.h"
#include "audit-event.h"
#include "bpf-helper-client.h"
#include "bpf-ringbuf.h"

typedef struct AuditLibc AuditLibc;

typedef struct AuditBpf {
        const AuditSourceContext *ctx;
        BpfHelper *helper;         /* borrowed from the owner, who keeps it longer */
        char *reason;              /* why the source is not active (the owner's buffer) */
        size_t reason_size;
        AuditEventSource source;   /* LIBC or SYSCALL */
        BpfHelperCall *call;       /* the attach request, while it runs */
        bool active;

        BpfReader reader;          /* the ring buffer and struct audit_counters */
        int *fds;                  /* links (and the uprobe program) kept */
        size_t n_fds;
        int program_fd;            /* libc: the uprobe program, for rescans; else -EBADF */

        AuditLibc *libc;           /* libc only: libc copies probed, rescans */
} AuditBpf;

/* Asks helper to attach the programs of source (LIBC or SYSCALL). 0, or -errno (nothing made).
 * If attaching fails later, the source says why in reason, stays inactive until freed, and tells
 * ctx->state_changed(), as it does when it becomes active. */
int audit_bpf_new(const AuditSourceContext *ctx, BpfHelper *helper, AuditEventSource source, char *reason,
                  size_t reason_size, AuditBpf **ret);
AuditBpf *audit_bpf_free(AuditBpf *b);
DEFINE_TRIVIAL_CLEANUP_FUNC(AuditBpf *, audit_bpf_free);
/* The attach request is still running. */
bool audit_bpf_is_starting(const AuditBpf *b);

/* "3 libc copies probed" and the like while active, for igmpctl kernel. */
void audit_bpf_describe(const AuditBpf *b, char *buf, size_t size);
