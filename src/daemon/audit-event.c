/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The deprecated sysctl(2) audit's events: AuditEvent, UTF-8 sanitizing, the bounded history
 * and the per-key coalescer, all pure (see audit-event.h).
 */

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit-event.h"
#include "utf8.h"

static const char *const audit_event_source_table[_AUDIT_EVENT_SOURCE_MAX] = {
        [AUDIT_EVENT_SOURCE_KMSG] = "kmsg",
        [AUDIT_EVENT_SOURCE_AUDIT] = "audit",
        [AUDIT_EVENT_SOURCE_LIBC] = "libc",
        [AUDIT_EVENT_SOURCE_SYSCALL] = "syscall",
};

const char *audit_event_source_to_string(AuditEventSource s)
{
        if (s < 0 || s >= _AUDIT_EVENT_SOURCE_MAX)
                return NULL;
        return audit_event_source_table[s];
}

void audit_event_done(AuditEvent *e)
{
        if (!e)
                return;
        free(e->comm);
        free(e->exe);
        free(e->path);
        *e = (AuditEvent) {};
}

char *audit_utf8_sanitize(const char *s, size_t len)
{
        /* Worst case every byte becomes \xNN. */
        char *out = malloc(len * 4 + 1);

        if (out)
                (void) utf8_escape_bytes(s, len, out);
        return out;
}

int audit_event_fill(AuditEvent *e, const char *comm, size_t comm_len, const char *exe, size_t exe_len,
                     const int *name, size_t n_name, SysctlIfindexResolver resolve, void *userdata)
{
        _cleanup_free_ char *c = NULL, *x = NULL, *rel = NULL, *path = NULL;
        bool complete = false;
        int r;

        assert(e);

        if (n_name > SYSCTL_BINARY_NAME_MAX)
                return -E2BIG;
        c = audit_utf8_sanitize(comm ?: "", comm ? comm_len : 0);
        x = audit_utf8_sanitize(exe ?: "", exe ? exe_len : 0);
        if (!c || !x)
                return -ENOMEM;

        if (n_name > 0) {
                r = sysctl_binary_to_path(name, n_name, resolve, userdata, &rel, &complete);
                if (r < 0)
                        return r;
                if (asprintf(&path, "/proc/sys/%s", rel) < 0)
                        return -ENOMEM;
        } else {
                path = strdup("");
                if (!path)
                        return -ENOMEM;
        }

        free(e->comm);
        free(e->exe);
        free(e->path);
        e->comm = TAKE_PTR(c);
        e->exe = TAKE_PTR(x);
        e->path = TAKE_PTR(path);
        e->complete = complete;
        for (size_t i = 0; i < n_name; i++)
                e->name[i] = name[i];
        e->n_name = n_name;
        return 0;
}

/* ---- history ---- */

int audit_history_init(AuditHistory *h, size_t max)
{
        assert(h);
        assert(max > 0);

        *h = (AuditHistory) {};
        h->events = calloc(max, sizeof *h->events);
        if (!h->events)
                return -ENOMEM;
        h->max = max;
        return 0;
}

void audit_history_done(AuditHistory *h)
{
        if (!h || !h->events)
                return;
        for (size_t i = 0; i < h->n; i++)
                audit_event_done(&h->events[(h->start + i) % h->max]);
        free(h->events);
        *h = (AuditHistory) {};
}

int audit_history_push(AuditHistory *h, AuditEvent *e)
{
        assert(h);
        assert(e);

        if (!h->events) {
                audit_event_done(e);
                return -ENOMEM;
        }
        if (h->n == h->max) {
                audit_event_done(&h->events[h->start]);
                h->events[h->start] = *e;
                h->start = (h->start + 1) % h->max;
                h->n_dropped++;
        } else
                h->events[(h->start + h->n++) % h->max] = *e;
        *e = (AuditEvent) {};
        return 0;
}

int audit_history_resize(AuditHistory *h, size_t max)
{
        AuditEvent *events;
        size_t keep;

        assert(h);
        assert(max > 0);

        if (max == h->max)
                return 0;
        events = calloc(max, sizeof *events);
        if (!events)
                return -ENOMEM;
        keep = MIN(h->n, max);
        /* Drop the oldest that do not fit, move the rest over in order. */
        for (size_t i = 0; i < h->n - keep; i++) {
                audit_event_done(&h->events[(h->start + i) % h->max]);
                h->n_dropped++;
        }
        for (size_t i = 0; i < keep; i++)
                events[i] = h->events[(h->start + h->n - keep + i) % h->max];
        free(h->events);
        h->events = events;
        h->max = max;
        h->start = 0;
        h->n = keep;
        return 0;
}

const AuditEvent *audit_history_get(const AuditHistory *h, size_t i)
{
        if (!h || i >= h->n)
                return NULL;
        return &h->events[(h->start + i) % h->max];
}

/* ---- coalescer ---- */

static void coalesce_entry_done(AuditCoalesceEntry *x)
{
        free(x->comm);
        audit_event_done(&x->pending);
        *x = (AuditCoalesceEntry) {};
}

void audit_coalescer_done(AuditCoalescer *c)
{
        if (!c)
                return;
        for (size_t i = 0; i < c->n; i++)
                coalesce_entry_done(&c->entries[i]);
        free(c->entries);
        *c = (AuditCoalescer) {};
}

static bool entry_matches(const AuditCoalesceEntry *x, const AuditEvent *e)
{
        return x->pid == e->pid && x->n_name == e->n_name && streq_ptr(x->comm, e->comm ?: "") &&
               memcmp(x->name, e->name, e->n_name * sizeof e->name[0]) == 0;
}

static void coalescer_remove(AuditCoalescer *c, size_t i)
{
        coalesce_entry_done(&c->entries[i]);
        c->entries[i] = c->entries[--c->n];
}

/* Forgets keys whose window is over and that hold nothing. */
static void coalescer_expire(AuditCoalescer *c, uint64_t now)
{
        for (size_t i = 0; i < c->n;) {
                AuditCoalesceEntry *x = &c->entries[i];

                if (!x->has_pending && now >= x->last_usec + AUDIT_COALESCE_USEC)
                        coalescer_remove(c, i);
                else
                        i++;
        }
}

int audit_coalescer_submit(AuditCoalescer *c, AuditEvent *e, uint64_t now)
{
        AuditCoalesceEntry *x;

        assert(c);
        assert(e);

        coalescer_expire(c, now);

        for (size_t i = 0; i < c->n; i++) {
                x = &c->entries[i];
                if (!entry_matches(x, e))
                        continue;
                c->n_folded++;
                if (x->has_pending) {
                        x->pending.repeats += MAX(e->repeats, 1u);
                        /* The audit source may know the exe only for a later call. */
                        if (isempty(x->pending.exe) && !isempty(e->exe)) {
                                free(x->pending.exe);
                                x->pending.exe = TAKE_PTR(e->exe);
                        }
                        audit_event_done(e);
                } else {
                        x->pending = *e;
                        x->pending.repeats = MAX(e->repeats, 1u);
                        x->has_pending = true;
                        *e = (AuditEvent) {};
                }
                return 0;
        }

        /* A new key: publish now and open its window. */
        if (c->n >= AUDIT_COALESCE_KEYS_MAX) {
                e->repeats = 1;
                return 1;
        }
        if (c->n == c->allocated) {
                size_t na = MAX(c->allocated * 2, (size_t) 8);
                AuditCoalesceEntry *ne = realloc(c->entries, na * sizeof *ne);
                if (!ne)
                        return -ENOMEM;
                c->entries = ne;
                c->allocated = na;
        }
        x = &c->entries[c->n];
        *x = (AuditCoalesceEntry) { .pid = e->pid, .n_name = e->n_name, .last_usec = now };
        x->comm = strdup(e->comm ?: "");
        if (!x->comm)
                return -ENOMEM;
        memcpy(x->name, e->name, e->n_name * sizeof e->name[0]);
        c->n++;
        e->repeats = 1;
        return 1;
}

int audit_coalescer_pop_due(AuditCoalescer *c, uint64_t now, AuditEvent *ret)
{
        assert(c);
        assert(ret);

        for (size_t i = 0; i < c->n; i++) {
                AuditCoalesceEntry *x = &c->entries[i];

                if (!x->has_pending || now < x->last_usec + AUDIT_COALESCE_USEC)
                        continue;
                *ret = x->pending;
                x->pending = (AuditEvent) {};
                x->has_pending = false;
                x->last_usec = now;
                return 1;
        }
        coalescer_expire(c, now);
        return 0;
}

uint64_t audit_coalescer_next_due(const AuditCoalescer *c)
{
        uint64_t next = UINT64_MAX;

        for (size_t i = 0; c && i < c->n; i++)
                if (c->entries[i].has_pending)
                        next = MIN(next, c->entries[i].last_usec + AUDIT_COALESCE_USEC);
        return next;
}
