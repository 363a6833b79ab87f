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
#include <sys/mman.h>

#include "audit-bpf.h"
#include "audit-libc.h"
#include "log.h"

/* Records handed to the pipeline per wake-up before other event sources get a turn. */
#define AUDIT_BPF_BATCH 256
/* Lost records are logged at most this often. */
#define AUDIT_BPF_LOST_LOG_USEC (10ULL * 1000000ULL)

/* The event loop's idea of now (the time of this wake-up). */
static uint64_t now_usec(const AuditBpf *b, clockid_t clock)
{
        uint64_t now = 0;

        (void) sd_event_now(b->ctx->event, clock, &now);
        return now;
}

bool audit_bpf_is_starting(const AuditBpf *b)
{
        return b && b->call;
}

AuditBpf *audit_bpf_free(AuditBpf *b)
{
        if (!b)
                return NULL;
        bpf_helper_call_cancel(b->helper, b->call);
        audit_libc_free(b->libc);
        if (b->active && b->counters)
                log_debug("Audit source %s stops: %" PRIu64 " calls seen, %" PRIu64 " records lost.",
                          audit_event_source_to_string(b->source), (uint64_t) b->counters->calls,
                          (uint64_t) b->counters->lost);
        bpf_ringbuf_free(b->ring);
        if (b->counters)
                munmap((void *) b->counters, b->counters_mapped);
        /* Closing the links detaches the programs. */
        for (size_t i = 0; i < b->n_fds; i++)
                safe_close(b->fds[i]);
        free(b->fds);
        safe_close(b->program_fd);
        free(b);
        return NULL;
}

int audit_bpf_keep_fd(AuditBpf *b, int fd)
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

void audit_bpf_counters(const AuditBpf *b, uint64_t *ret_calls, uint64_t *ret_lost)
{
        *ret_calls = b && b->counters ? __atomic_load_n(&b->counters->calls, __ATOMIC_RELAXED) : 0;
        *ret_lost = b && b->counters ? __atomic_load_n(&b->counters->lost, __ATOMIC_RELAXED) : 0;
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

static void audit_bpf_check_lost(AuditBpf *b)
{
        uint64_t lost = __atomic_load_n(&b->counters->lost, __ATOMIC_RELAXED), now;

        if (lost == b->lost_reported)
                return;
        now = now_usec(b, CLOCK_MONOTONIC);
        if (b->lost_logged_usec != 0 && now < b->lost_logged_usec + AUDIT_BPF_LOST_LOG_USEC)
                return;
        log_warning("Audit source %s lost %" PRIu64 " deprecated sysctl(2) call record%s: its ring buffer was full "
                    "(igmpd fell behind a flood of calls).",
                    audit_event_source_to_string(b->source), lost - b->lost_reported,
                    lost - b->lost_reported == 1 ? "" : "s");
        b->lost_reported = lost;
        b->lost_logged_usec = now;
}

static void audit_bpf_on_call(AuditBpf *b, const AuditBpfCall *c)
{
        AuditEvent e = {
                .realtime_usec = now_usec(b, CLOCK_REALTIME),
                .source = b->source,
                .pid = c->pid,
        };
        int r;

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

        audit_bpf_on_record(data, size, b);
        audit_bpf_check_lost(b);
}

/* Attaching failed: the source keeps nothing but its reason until its owner frees it. */
static void audit_bpf_fail(AuditBpf *b, const char *reason)
{
        snprintf(b->reason, b->reason_size, "%s", reason);
        log_info("Audit source %s is not active: %s.", audit_event_source_to_string(b->source), reason);
        b->ring = bpf_ringbuf_free(b->ring);
        if (b->counters)
                munmap((void *) b->counters, b->counters_mapped);
        b->counters = NULL;
        for (size_t i = 0; i < b->n_fds; i++)
                safe_close(b->fds[i]);
        b->n_fds = 0;
        b->program_fd = safe_close(b->program_fd);
        b->libc = audit_libc_free(b->libc);
        b->ctx->state_changed(b->ctx->userdata);
}

static void audit_bpf_on_attached(int error, const char *reason, const BpfReply *reply, int *fds, size_t n_fds,
                                  void *userdata)
{
        AuditBpf *b = userdata;
        int ring_fd = -EBADF, counters_fd = -EBADF, r = 0;
        uint32_t ring_size = 0, counters_size = 0;
        size_t k = 0;
        char what[160];

        b->call = NULL;
        if (error < 0) {
                audit_bpf_fail(b, reason);
                return;
        }
        for (size_t i = 0; i < reply->n_entries; i++) {
                const BpfReplyEntry *e = &reply->entries[i];
                int fd;

                if (e->role == BPF_FD_NONE)
                        continue;
                fd = fds[k++];
                if (e->role == BPF_FD_LINK && e->file.ino != 0 && b->libc)
                        continue; /* a uprobe: audit_libc_take_reply() below */
                switch (e->role) {
                case BPF_FD_RINGBUF:
                        safe_close(ring_fd);
                        ring_fd = fd;
                        ring_size = e->size;
                        break;
                case BPF_FD_COUNTERS:
                        safe_close(counters_fd);
                        counters_fd = fd;
                        counters_size = e->size;
                        break;
                case BPF_FD_PROGRAM:
                        safe_close(b->program_fd);
                        b->program_fd = fd;
                        break;
                default:
                        if (r >= 0)
                                r = audit_bpf_keep_fd(b, fd);
                        else
                                safe_close(fd);
                }
        }
        if (b->libc)
                audit_libc_take_reply(b->libc, reply, fds);
        if (r < 0 || ring_fd < 0 || counters_fd < 0) {
                safe_close(ring_fd);
                safe_close(counters_fd);
                audit_bpf_fail(b, r < 0 ? "out of memory" : "the BPF helper sent no ring buffer or counters");
                return;
        }
        r = bpf_map_mmap_ro(counters_fd, counters_size, (const void **) &b->counters, &b->counters_mapped);
        if (r >= 0 && counters_size < sizeof *b->counters)
                r = -EBADMSG;
        if (r < 0) {
                safe_close(ring_fd);
                snprintf(what, sizeof what, "cannot map the BPF counters: %s", strerror(-r));
                audit_bpf_fail(b, what);
                return;
        }
        r = bpf_ringbuf_new(b->ctx->event, ring_fd, ring_size, AUDIT_EVENT_PRIORITY, AUDIT_BPF_BATCH,
                            audit_bpf_on_records, b, &b->ring);
        if (r < 0) {
                snprintf(what, sizeof what, "cannot map the BPF ring buffer: %s", strerror(-r));
                audit_bpf_fail(b, what);
                return;
        }
        b->reason[0] = '\0';
        b->active = true;
        b->lost_reported = b->counters->lost;
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
