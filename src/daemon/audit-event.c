/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The deprecated sysctl(2) audit's events: AuditEvent, UTF-8 sanitizing, the bounded history
 * and the per-key coalescer, all pure (see audit-event.h).
 */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array-util.h"
#include "audit-event.h"
#include "knob.h"
#include "utf8.h"

static const char *const audit_event_source_table[_AUDIT_EVENT_SOURCE_MAX] = {
        [AUDIT_EVENT_SOURCE_KMSG] = "kmsg",
        [AUDIT_EVENT_SOURCE_AUDIT] = "audit",
        [AUDIT_EVENT_SOURCE_LIBC] = "libc",
        [AUDIT_EVENT_SOURCE_SYSCALL] = "syscall",
};

const char *audit_event_source_to_string(AuditEventSource s)
{
        return TABLE_NAME(audit_event_source_table, s);
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
        char *out = malloc(UTF8_ESCAPED_SIZE(len));

        if (out)
                (void) utf8_escape_bytes(s, len, UTF8_ESCAPE_CONTROL, out);
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
                _cleanup_free_ char *raw = NULL;

                r = sysctl_binary_to_path(name, n_name, resolve, userdata, &rel, &complete);
                if (r < 0)
                        return r;
                /* An interface name in it is bytes. */
                if (asprintf(&raw, "/proc/sys/%s", rel) < 0)
                        return -ENOMEM;
                path = audit_utf8_sanitize(raw, strlen(raw));
        } else
                path = strdup("");
        if (!path)
                return -ENOMEM;

        e->comm = TAKE_PTR(c);
        e->exe = TAKE_PTR(x);
        e->path = TAKE_PTR(path);
        e->complete = complete;
        for (size_t i = 0; i < n_name; i++)
                e->name[i] = name[i];
        e->n_name = n_name;
        return 0;
}

/* ---- what to do about it, and the journal fields ---- */

/* The igmpd knob a complete path names, and its interface ("all", "default" or a name). */
static Knob path_knob(const char *path, const char **ret_ifname, size_t *ret_ifname_len)
{
        const char *p = startswith(path, "/proc/sys/");

        return p ? knob_from_sysctl_path(p, ret_ifname, ret_ifname_len) : _KNOB_INVALID;
}

void audit_event_fix(const AuditEvent *e, char *buf, size_t size)
{
        const char *ifname = NULL;
        size_t ifname_len = 0;
        Knob k;

        assert(e);
        assert(buf);

        if (isempty(e->path)) {
                snprintf(buf, size,
                         "The %s source does not see which setting the program asked for; AuditSources=libc "
                         "(and the opt-in syscall) in igmpd.conf do, so that the next call names the file "
                         "under /proc/sys to use instead.",
                         strna(audit_event_source_to_string(e->source)));
                return;
        }
        if (!e->complete) {
                snprintf(buf, size,
                         "The name does not name a file (%s translates only in part: a component is "
                         "unknown, past a leaf, or an interface that is gone); find out what the program "
                         "meant to read or set and use that file under /proc/sys.",
                         e->path);
                return;
        }
        k = path_knob(e->path, &ifname, &ifname_len);
        if (k < 0) {
                snprintf(buf, size, "Read or write the file %s instead (sysctl(8) -w works too).", e->path);
                return;
        }

        const KnobInfo *info = knob_info(k);
        bool all = ifname_len == 3 && memcmp(ifname, "all", 3) == 0;
        bool dflt = ifname_len == 7 && memcmp(ifname, "default", 7) == 0;
        char where[512];

        if (all || dflt)
                snprintf(where, sizeof where, "(one with no [Match] section applies to every link%s) instead of "
                         "writing '%s'", dflt ? ", also those created later" : "", dflt ? "default" : "all");
        else
                snprintf(where, sizeof where, "with [Match] Name=%.*s, or now with 'igmpctl link %.*s --%s VALUE'",
                         (int) ifname_len, ifname, (int) ifname_len, ifname, info->option);
        snprintf(buf, size, "%s is an igmpd knob: set [%s] %s= in a policy file in " SYSCONFDIR "/igmpd/conf.d %s "
                 "(igmpd.conf(5); not sysctl.d, which fights igmpd).", info->name, info->section, info->key, where);
}

int audit_event_knob(const AuditEvent *e)
{
        const char *ifname;
        size_t ifname_len;

        assert(e);
        if (isempty(e->path) || !e->complete)
                return -EINVAL;
        return path_knob(e->path, &ifname, &ifname_len);
}

static int fields_add(char **l, size_t *n, const char *fmt, ...) _printf_(3, 4);
static int fields_add(char **l, size_t *n, const char *fmt, ...)
{
        va_list ap;
        int r;

        assert(*n < AUDIT_EVENT_JOURNAL_FIELDS_MAX);
        va_start(ap, fmt);
        r = vasprintf(&l[*n], fmt, ap);
        va_end(ap);
        if (r < 0) {
                l[*n] = NULL;
                return -ENOMEM;
        }
        (*n)++;
        return 0;
}

char **audit_event_journal_fields(const AuditEvent *e, const AuditCaller *caller)
{
        _cleanup_strv_free_ char **l = NULL;
        _cleanup_free_ char *name = NULL;
        char fix[1024], who[256] = "", ppid[32] = "";
        bool has_exe, has_path;
        size_t n = 0;

        assert(e);

        l = calloc(AUDIT_EVENT_JOURNAL_FIELDS_MAX + 1, sizeof(char *));
        if (!l)
                return NULL;
        if (e->n_name > 0 && sysctl_binary_format_name(e->name, e->n_name, &name) < 0)
                return NULL;
        has_exe = !isempty(e->exe);
        has_path = !isempty(e->path);
        audit_event_fix(e, fix, sizeof fix);

        if (caller && caller->ppid > 0)
                snprintf(ppid, sizeof ppid, "%" PRIu32, caller->ppid);
        if (e->pid > 0)
                snprintf(who, sizeof who, "pid %" PRIu32, e->pid);
        if (ppid[0])
                snprintf(who + strlen(who), sizeof who - strlen(who), "%sparent %s", who[0] ? ", " : "", ppid);
        if (caller && !isempty(caller->unit))
                snprintf(who + strlen(who), sizeof who - strlen(who), "%sunit %s", who[0] ? ", " : "", caller->unit);

        if (fields_add(l, &n, "CALLER='%s'%s%s%s%s%s", e->comm, who[0] || has_exe ? " (" : "", who,
                       who[0] && has_exe ? ", " : "", has_exe ? e->exe : "", who[0] || has_exe ? ")" : "") < 0 ||
            fields_add(l, &n, "CALLER_COMM=%s", e->comm) < 0 ||
            (e->pid > 0 && fields_add(l, &n, "CALLER_PID=%" PRIu32, e->pid) < 0) ||
            (has_exe && fields_add(l, &n, "CALLER_EXE=%s", e->exe) < 0) ||
            (ppid[0] && fields_add(l, &n, "CALLER_PPID=%s", ppid) < 0) ||
            (caller && !isempty(caller->unit) && fields_add(l, &n, "CALLER_UNIT=%s", caller->unit) < 0) ||
            fields_add(l, &n, "SYSCTL_NAME=%s", name ?: "unknown") < 0 ||
            fields_add(l, &n, "SYSCTL_PATH=%s", has_path ? e->path : "unknown") < 0 ||
            (has_path && !e->complete && fields_add(l, &n, "SYSCTL_PATH_PARTIAL=1") < 0) ||
            fields_add(l, &n, "SYSCTL_FIX=%s", fix) < 0 ||
            fields_add(l, &n, "AUDIT_SOURCE=%s", strna(audit_event_source_to_string(e->source))) < 0 ||
            fields_add(l, &n, "REPEATS=%" PRIu32, e->repeats) < 0)
                return NULL;
        return TAKE_PTR(l);
}

/* ---- history ---- */

int audit_history_init(AuditHistory *h, size_t max)
{
        assert(h);

        *h = (AuditHistory) {};
        return audit_history_resize(h, max);
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
        for (size_t i = 0; i < h->n - keep; i++)
                audit_event_done(&h->events[(h->start + i) % h->max]);
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

/* Forgets keys whose window is over and that hold nothing. */
static void coalescer_expire(AuditCoalescer *c, uint64_t now)
{
        for (size_t i = 0; i < c->n;) {
                AuditCoalesceEntry *x = &c->entries[i];

                if (!x->has_pending && now >= x->last_usec + AUDIT_COALESCE_USEC) {
                        coalesce_entry_done(x);
                        *x = c->entries[--c->n];
                } else
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

        /* A new key: publish now (as one call, also uncoalesced) and open its window. */
        e->repeats = 1;
        if (c->n >= AUDIT_COALESCE_KEYS_MAX)
                return 1;
        if (ARRAY_GROW(c->entries, c->allocated, c->n, 8) < 0)
                return -ENOMEM;
        x = &c->entries[c->n];
        *x = (AuditCoalesceEntry) { .pid = e->pid, .comm = strdup(e->comm ?: ""), .n_name = e->n_name,
                                    .last_usec = now };
        if (!x->comm)
                return -ENOMEM;
        memcpy(x->name, e->name, e->n_name * sizeof e->name[0]);
        c->n++;
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
