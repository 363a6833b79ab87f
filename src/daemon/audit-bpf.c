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
#include <string.h>
#include <stddef.h>

#include "audit-bpf.h"
#include "audit-libc.h"
#include "log.h"

/* Records handed to the pipeline per wake-up before other event sources get a turn. */
#define AUDIT_BPF_BATCH 256
/* Lost records are logged at most this often. */
#define AUDIT_BPF_LOST_LOG_USEC (10ULL * 1000000ULL)

bool audit_bpf_is_starting(const AuditBpf *b)
{
        return b && b->call;
}

/* Closing the links detaches the programs. */
static void audit_bpf_detach(AuditBpf *b)
{
        bpf_reader_close(&b->reader);
        for (size_t i = 0; i < b->n_fds; i++)
                safe_close(b->fds[i]);
        b->n_fds = 0;
        b->program_fd = safe_close(b->program_fd);
}

AuditBpf *audit_bpf_free(AuditBpf *b)
{
        if (!b)
                return NULL;
        bpf_helper_call_cancel(b->helper, b->call);
        audit_libc_free(b->libc);
        if (b->active && b->reader.counters) {
                const struct audit_counters *c = b->reader.counters;

                log_debug("Audit source %s stops: %" PRIu64 " calls seen, %" PRIu64 " records lost.",
                          audit_event_source_to_string(b->source), (uint64_t) c->calls, (uint64_t) c->lost);
        }
        audit_bpf_detach(b);
        free(b->fds);
        free(b);
        return NULL;
}

/* Takes over fd into the kept set. 0 or -ENOMEM (fd closed). */
static int audit_bpf_keep_fd(AuditBpf *b, int fd)
{
        int *n = realloc(b->fds, (b->n_fds + 1) * sizeof *n);

        if (!n) {
                safe_close(fd);
                return -ENOMEM;
        }
        b->fds = n;
        b->fds[b->n_fds++] = fd;
        return 0;
}

static int audit_bpf_keep_link(int fd, void *userdata)
{
        return audit_bpf_keep_fd(userdata, fd);
}

void audit_bpf_describe(const AuditBpf *b, char *buf, size_t size)
{
        if (!b || !b->active) {
                snprintf(buf, size, "%s", "");
                return;
        }
        if (b->source == AUDIT_EVENT_SOURCE_SYSCALL)
                snprintf(buf, size, "tp_btf/sys_enter, system call 156 (149 for 32-bit callers)");
        else
                audit_libc_describe(b->libc, buf, size);
}

static void audit_bpf_on_call(AuditBpf *b, const AuditBpfCall *c)
{
        AuditEvent e = { .source = b->source, .pid = c->pid };
        int r;

        (void) sd_event_now(b->ctx->event, CLOCK_REALTIME, &e.realtime_usec);
        r = audit_event_fill(&e, c->comm, c->comm_len, c->exe, c->exe_len, c->name, c->n_name, b->ctx->resolve,
                             b->ctx->resolve_userdata);
        if (r < 0) {
                log_warning_errno(r, "Failed to record a deprecated sysctl(2) call of pid %" PRIu32 ", ignoring: %m",
                                  c->pid);
                return;
        }
        b->ctx->submit(&e, b->ctx->userdata);
}

static void audit_bpf_on_record(const void *data, size_t size, void *userdata)
{
        AuditBpf *b = userdata;
        AuditBpfCall c;

        switch (audit_bpf_record_type(data, size)) {
        case AUDIT_RECORD_CALL:
                if (audit_bpf_parse_call(data, size, &c) < 0)
                        break;
                audit_bpf_on_call(b, &c);
                return;
        case AUDIT_RECORD_NEW_ROOT: {
                AuditBpfNewRoot n;

                if (audit_bpf_parse_new_root(data, size, &n) < 0 || !b->libc)
                        break;
                audit_libc_on_new_root(b->libc, &n);
                return;
        }
        }
        log_debug("Ignoring a malformed BPF audit record (%zu bytes).", size);
}

/* After each batch of records: report losses. */
static void audit_bpf_on_records(const void *data, size_t size, void *userdata)
{
        AuditBpf *b = userdata;
        uint64_t lost;

        audit_bpf_on_record(data, size, b);
        if (bpf_reader_check_lost(&b->reader, b->ctx->event, AUDIT_BPF_LOST_LOG_USEC, &lost) && lost > 0)
                log_warning("Audit source %s lost %" PRIu64 " deprecated sysctl(2) call record%s: its ring buffer "
                            "was full (igmpd fell behind a flood of calls).",
                            audit_event_source_to_string(b->source), lost, lost == 1 ? "" : "s");
}

/* Attaching failed: the source keeps nothing but its reason until its owner frees it. */
static void audit_bpf_fail(AuditBpf *b, const char *reason)
{
        snprintf(b->reason, b->reason_size, "%s", reason);
        log_info("Audit source %s is not active: %s.", audit_event_source_to_string(b->source), reason);
        audit_bpf_detach(b);
        b->libc = audit_libc_free(b->libc);
        b->ctx->state_changed(b->ctx->userdata);
}

static void audit_bpf_on_attached(int error, const char *reason, const BpfReply *reply, int *fds, size_t n_fds,
                                  void *userdata)
{
        AuditBpf *b = userdata;
        char what[BPF_PROTOCOL_REASON_MAX];
        size_t k = 0;
        int r = 0;

        b->call = NULL;
        if (error < 0) {
                audit_bpf_fail(b, reason);
                return;
        }
        r = bpf_reader_open(&b->reader, b->ctx->event, reply, fds, sizeof(struct audit_counters),
                            offsetof(struct audit_counters, lost), AUDIT_EVENT_PRIORITY, AUDIT_BPF_BATCH,
                            audit_bpf_on_records, b, what, sizeof what);
        for (size_t i = 0; i < reply->n_entries; i++) {
                const BpfReplyEntry *e = &reply->entries[i];
                int *fd = &fds[k];

                if (e->role == BPF_FD_NONE)
                        continue;
                k++;
                if (*fd < 0 || (e->role == BPF_FD_LINK && e->file.ino != 0 && b->libc))
                        continue; /* the reader's, or a uprobe: audit_libc_take_reply() below */
                if (e->role == BPF_FD_PROGRAM) {
                        safe_close(b->program_fd);
                        b->program_fd = TAKE_FD(*fd);
                } else if (audit_bpf_keep_fd(b, TAKE_FD(*fd)) < 0 && r >= 0) {
                        r = -ENOMEM;
                        snprintf(what, sizeof what, "out of memory");
                }
        }
        if (b->libc)
                audit_libc_take_reply(b->libc, reply, fds);
        if (r < 0) {
                audit_bpf_fail(b, what);
                return;
        }
        b->reason[0] = '\0';
        b->active = true;
        audit_bpf_describe(b, what, sizeof what);
        log_info("Audit source %s is active: %s (BPF helper: %s).", audit_event_source_to_string(b->source), what,
                 bpf_helper_describe(b->helper));
        b->ctx->state_changed(b->ctx->userdata);
}

int audit_bpf_new(const AuditSourceContext *ctx, BpfHelper *helper, AuditEventSource source, char *reason,
                  size_t reason_size, AuditBpf **ret)
{
        _cleanup_(audit_bpf_freep) AuditBpf *b = NULL;
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
        b->ctx = ctx;
        b->helper = helper;
        b->reason = reason;
        b->reason_size = reason_size;
        b->source = source;
        b->program_fd = -EBADF;
        if (source == AUDIT_EVENT_SOURCE_LIBC) {
                AuditLibcContext lctx = {
                        .event = ctx->event,
                        .helper = helper,
                        .program_fd = &b->program_fd,
                        .keep_link = audit_bpf_keep_link,
                        .userdata = b,
                };

                r = audit_libc_new(&lctx, &b->libc);
                if (r < 0)
                        return r;
                audit_libc_fill_request(b->libc, &req);
        }
        r = bpf_helper_call(helper, &req, NULL, 0, audit_bpf_on_attached, b, &b->call);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(b);
        return 0;
}
