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
#include <time.h>

#include "audit-bpf.h"
#include "log.h"

/* Records handed to the pipeline per wake-up before other event sources get a turn. */
#define AUDIT_BPF_BATCH 256
/* Lost records are logged at most this often. */
#define AUDIT_BPF_LOST_LOG_USEC (10ULL * 1000000ULL)

static AuditBpf **audit_bpf_slot(AuditManager *a, AuditEventSource s)
{
        return s == AUDIT_EVENT_SOURCE_LIBC ? &a->libc : &a->syscall;
}

static uint64_t now_usec(clockid_t clock)
{
        struct timespec ts;

        clock_gettime(clock, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000;
}

AuditBpf *audit_bpf_free(AuditBpf *b)
{
        if (!b)
                return NULL;
        if (b->audit)
                bpf_helper_call_cancel(b->audit->bpf_helper, b->call);
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
                snprintf(buf, size, "%s", "");
}

static void audit_bpf_check_lost(AuditBpf *b)
{
        uint64_t lost = __atomic_load_n(&b->counters->lost, __ATOMIC_RELAXED), now;

        if (lost == b->lost_reported)
                return;
        now = now_usec(CLOCK_MONOTONIC);
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
                .realtime_usec = now_usec(CLOCK_REALTIME),
                .source = b->source,
                .pid = c->pid,
        };
        int r;

        r = audit_event_fill(&e, c->comm, c->comm_len, c->exe, c->exe_len, c->name, c->n_name,
                             audit_manager_resolve_ifindex, b->audit);
        if (r < 0) {
                log_warning_errno(r, "Failed to record a deprecated sysctl(2) call of pid %" PRIu32 ", ignoring: %m",
                                  c->pid);
                return;
        }
        audit_manager_submit(b->audit, &e);
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
        case AUDIT_RECORD_NEW_ROOT:
                return;
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

static void audit_bpf_fail(AuditBpf *b, const char *reason)
{
        AuditManager *a = b->audit;
        AuditEventSource s = b->source;

        snprintf(a->reason[s], sizeof a->reason[s], "%s", reason);
        log_info("Audit source %s is not active: %s.", audit_event_source_to_string(s), reason);
        *audit_bpf_slot(a, s) = audit_bpf_free(b);
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
        r = bpf_ringbuf_new(b->audit->event, ring_fd, ring_size, AUDIT_EVENT_PRIORITY, AUDIT_BPF_BATCH,
                            audit_bpf_on_records, b, &b->ring);
        if (r < 0) {
                snprintf(what, sizeof what, "cannot map the BPF ring buffer: %s", strerror(-r));
                audit_bpf_fail(b, what);
                return;
        }
        b->audit->reason[b->source][0] = '\0';
        b->active = true;
        b->lost_reported = b->counters->lost;
        audit_bpf_describe(b, what, sizeof what);
        log_info("Audit source %s is active: %s (BPF helper: %s).", audit_event_source_to_string(b->source), what,
                 bpf_helper_describe(b->audit->bpf_helper));
        audit_manager_sources_changed(b->audit);
}

static int audit_bpf_new(AuditManager *a, AuditEventSource source, AuditBpf **ret)
{
        _cleanup_free_ AuditBpf *b = NULL;
        BpfRequest req = {
                .op = source == AUDIT_EVENT_SOURCE_LIBC ? BPF_OP_LIBC_ATTACH : BPF_OP_SYSCALL_ATTACH,
                .flags = BPF_REQUEST_SWEEP,
        };
        int r;

        b = calloc(1, sizeof *b);
        if (!b)
                return -ENOMEM;
        b->audit = a;
        b->source = source;
        b->program_fd = -EBADF;
        r = bpf_helper_call(a->bpf_helper, &req, NULL, 0, audit_bpf_on_attached, b, &b->call);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(b);
        return 0;
}

void audit_bpf_start(AuditManager *a, unsigned mask)
{
        static const struct {
                AuditEventSource source;
                unsigned flag;
        } sources[] = {
                { AUDIT_EVENT_SOURCE_LIBC, AUDIT_SOURCE_LIBC },
                { AUDIT_EVENT_SOURCE_SYSCALL, AUDIT_SOURCE_SYSCALL },
        };
        char helper_reason[sizeof a->reason[0]] = "";
        int r;

        assert(a);

        for (size_t i = 0; i < ELEMENTSOF(sources); i++) {
                AuditEventSource s = sources[i].source;
                AuditBpf **slot = audit_bpf_slot(a, s);
                char reason[sizeof a->reason[0]] = "";

                if (!(mask & sources[i].flag) || *slot)
                        continue;
                if (!HAVE_BPF)
                        snprintf(reason, sizeof reason, "igmpd was built without BPF support "
                                 "(meson -Dbpf=disabled, or clang, bpftool or libbpf was missing)");
                else if (!a->bpf_helper) {
                        /* Tried once per start: the reason holds for every BPF source. */
                        if (!helper_reason[0]) {
                                r = bpf_helper_new(a->event, getenv("IGMPD_BPF_SOCKET"), NULL, &a->bpf_helper,
                                                   helper_reason, sizeof helper_reason);
                                if (r < 0 && !helper_reason[0])
                                        snprintf(helper_reason, sizeof helper_reason,
                                                 "cannot set up the BPF helper: %s", strerror(-r));
                        }
                        snprintf(reason, sizeof reason, "%s", helper_reason);
                }
                if (!reason[0]) {
                        r = audit_bpf_new(a, s, slot);
                        if (r < 0)
                                snprintf(reason, sizeof reason, "cannot ask the BPF helper: %s", strerror(-r));
                }
                if (reason[0]) {
                        snprintf(a->reason[s], sizeof a->reason[s], "%s", reason);
                        log_info("Audit source %s is not active: %s.", audit_event_source_to_string(s), reason);
                }
        }
}
