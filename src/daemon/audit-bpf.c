/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The BPF audit sources' common part: asking the helper to attach, keeping what it sends,
 * reading the ring buffer, turning records into AuditEvents, reporting lost records.
 */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>

#include "audit-bpf-record.h"
#include "audit-event.h"
#include "audit-libc.h"
#include "bpf-helper-client.h"
#include "bpf-ringbuf.h"
#include "log.h"

/* Records handed to the pipeline per wake-up before other event sources get a turn. */
#define AUDIT_BPF_BATCH 256

typedef struct AuditBpf {
        AuditSource src;           /* type LIBC or SYSCALL */
        BpfHelper *helper;         /* borrowed from the owner, who keeps it longer */
        BpfHelperCall *call;       /* the attach request, while it runs */

        BpfReader *reader;         /* the ring buffer and struct audit_counters */
        int fds[BPF_PROTOCOL_MAX_FDS]; /* links kept (libc: but the uprobes, which AuditLibc keeps) */
        size_t n_fds;

        AuditLibc *libc;           /* libc only: libc copies probed, rescans */
} AuditBpf;

/* s as a BPF source, or NULL. */
static AuditBpf *audit_bpf(const AuditSource *s)
{
        return s && (s->type == AUDIT_EVENT_SOURCE_LIBC || s->type == AUDIT_EVENT_SOURCE_SYSCALL) ? (AuditBpf *) s
                                                                                                  : NULL;
}

bool audit_bpf_is_starting(const AuditSource *s)
{
        return audit_bpf(s) && audit_bpf(s)->call;
}

void audit_bpf_request_sweep(AuditSource *s)
{
        if (audit_bpf(s) && audit_bpf(s)->libc && s->active)
                audit_libc_request_sweep(audit_bpf(s)->libc);
}

/* Closing the links detaches the programs. */
static void audit_bpf_detach(AuditBpf *b)
{
        b->reader = bpf_reader_free(b->reader);
        close_many(b->fds, b->n_fds);
        b->n_fds = 0;
}

static AuditSource *audit_bpf_free(AuditSource *s)
{
        AuditBpf *b = (AuditBpf *) s;

        if (!b)
                return NULL;
        bpf_helper_call_cancel(b->helper, b->call);
        audit_libc_free(b->libc);
        if (s->active && b->reader) {
                const struct audit_counters *c = bpf_reader_counters(b->reader);

                log_debug("Audit source %s stops: %" PRIu64 " calls seen, %" PRIu64 " records lost.",
                          audit_event_source_to_string(s->type), (uint64_t) c->calls, (uint64_t) c->lost);
        }
        audit_bpf_detach(b);
        free(b);
        return NULL;
}

void audit_bpf_describe(const AuditSource *s, char *buf, size_t size)
{
        const AuditBpf *b = audit_bpf(s);

        if (b && s->active && s->type == AUDIT_EVENT_SOURCE_SYSCALL)
                snprintf(buf, size, "tp_btf/sys_enter, system call 156 (149 for 32-bit callers)");
        else if (b && s->active)
                audit_libc_describe(b->libc, buf, size);
}

/* Each record, and a report of the records lost since the last one. */
static void audit_bpf_on_record(const void *data, size_t size, void *userdata)
{
        AuditBpf *b = userdata;
        AuditBpfNewRoot n;
        AuditBpfCall c;
        uint64_t lost;

        if (audit_bpf_parse_call(data, size, &c) >= 0) {
                AuditEvent e = { .source = b->src.type, .pid = c.pid };

                (void) sd_event_now(b->src.ctx->event, CLOCK_REALTIME, &e.realtime_usec);
                audit_source_submit(&b->src, &e, c.comm, c.comm_len, c.exe, c.exe_len, c.name, c.n_name);
        } else if (audit_bpf_parse_new_root(data, size, &n) >= 0 && b->libc)
                audit_libc_on_new_root(b->libc, &n);
        else
                log_debug("Ignoring a malformed BPF audit record (%zu bytes).", size);
        if (bpf_reader_check_lost(b->reader, &lost) && lost > 0)
                log_warning("Audit source %s lost %" PRIu64 " deprecated sysctl(2) call record%s: its ring buffer "
                            "was full (igmpd fell behind a flood of calls).",
                            audit_event_source_to_string(b->src.type), lost, lost == 1 ? "" : "s");
}

/* Attaching failed: the source keeps nothing but its reason until its owner frees it. */
static void audit_bpf_fail(AuditBpf *b, const char *reason)
{
        log_info("Audit source %s is not active: %s.", audit_event_source_to_string(b->src.type), reason);
        audit_bpf_detach(b);
        b->libc = audit_libc_free(b->libc);
        (void) audit_source_reason(b->src.ctx, b->src.type, 0, "%s", reason);
        audit_source_stop(&b->src);
}

static void audit_bpf_on_attached(int error, const char *reason, const BpfReply *reply, int *fds, size_t n_fds,
                                  void *userdata)
{
        AuditBpf *b = userdata;
        char what[BPF_PROTOCOL_REASON_MAX];
        int r;

        b->call = NULL;
        if (error < 0) {
                audit_bpf_fail(b, reason);
                return;
        }
        r = bpf_reader_open(b->src.ctx->event, reply, fds, sizeof(struct audit_counters),
                            offsetof(struct audit_counters, lost), AUDIT_EVENT_PRIORITY, AUDIT_BPF_BATCH,
                            audit_bpf_on_record, b, &b->reader, what, sizeof what);
        if (b->libc)
                audit_libc_take_reply(b->libc, reply, fds); /* the uprobe program and links */
        for (size_t i = 0; i < n_fds; i++) /* a reply has at most BPF_PROTOCOL_MAX_FDS */
                if (fds[i] >= 0)
                        b->fds[b->n_fds++] = TAKE_FD(fds[i]);
        if (r < 0) {
                audit_bpf_fail(b, what);
                return;
        }
        audit_source_started(&b->src, NULL, NULL);
        audit_bpf_describe(&b->src, what, sizeof what);
        log_info("Audit source %s is active: %s (BPF helper: %s).", audit_event_source_to_string(b->src.type), what,
                 bpf_helper_describe(b->helper));
        b->src.ctx->state_changed(b->src.ctx->userdata);
}

int audit_bpf_new(const AuditSourceContext *ctx, BpfHelper *helper, AuditEventSource source, AuditSource **ret)
{
        _cleanup_(audit_source_freep) AuditBpf *b = NULL;
        BpfRequest req = {
                .op = source == AUDIT_EVENT_SOURCE_LIBC ? BPF_OP_LIBC_ATTACH : BPF_OP_SYSCALL_ATTACH,
                .flags = BPF_REQUEST_SWEEP,
        };
        int r;

        assert(ctx);
        assert(helper);

        b = calloc(1, sizeof *b);
        if (!b)
                return -ENOMEM;
        b->src = (AuditSource) { .ctx = ctx, .type = source, .free = audit_bpf_free };
        b->helper = helper;
        if (source == AUDIT_EVENT_SOURCE_LIBC) {
                r = audit_libc_new(ctx->event, helper, &b->libc);
                if (r < 0)
                        return r;
                audit_libc_fill_request(b->libc, &req);
        }
        r = bpf_helper_call(helper, &req, NULL, 0, audit_bpf_on_attached, b, &b->call);
        if (r < 0)
                return r;
        *ret = &TAKE_PTR(b)->src;
        return 0;
}
