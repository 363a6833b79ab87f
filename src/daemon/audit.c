/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The deprecated sysctl(2) audit's event pipeline: AuditEvent, UTF-8 sanitizing, the bounded
 * history, the per-key coalescer (all pure), and the AuditManager that owns the sources, the one
 * coalescing timer, journal logging and the on_event hook.
 */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "audit-bpf.h"
#include "audit-bus.h"
#include "audit-kmsg.h"
#include "audit-netlink.h"
#include "audit.h"
#include "log.h"
#include "manager.h"
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
        const unsigned char *u = (const unsigned char *) s;
        char *out, *p;

        /* Worst case every byte becomes \xNN. */
        out = malloc(len * 4 + 1);
        if (!out)
                return NULL;
        p = out;
        for (size_t i = 0; i < len;) {
                size_t n = utf8_valid_len(s + i, len - i);

                if (n == 0 || (n == 1 && (u[i] < 0x20 || u[i] == 0x7f || u[i] == '\\'))) {
                        p += sprintf(p, "\\x%02x", u[i]);
                        i++;
                        continue;
                }
                memcpy(p, u + i, n);
                p += n;
                i += n;
        }
        *p = '\0';
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

/* ---- AuditManager ---- */

int audit_manager_resolve_ifindex(int ifindex, char *buf, size_t len, void *userdata)
{
        AuditManager *a = userdata;
        char name[IF_NAMESIZE];
        int r;

        if (!a || !a->manager || ifindex <= 0)
                return -ENODEV;
        r = manager_ifindex_to_name(a->manager, ifindex, name);
        if (r < 0)
                return r;
        if (strlen(name) >= len)
                return -ENOBUFS;
        strcpy(buf, name);
        return 0;
}

int audit_manager_new(Manager *m, size_t history_max, AuditManager **ret)
{
        _cleanup_(audit_manager_freep) AuditManager *a = NULL;
        int r;

        assert(ret);

        a = calloc(1, sizeof *a);
        if (!a)
                return -ENOMEM;
        a->manager = m;
        a->event = m ? sd_event_ref(m->event) : NULL;
        if (!a->event) {
                r = sd_event_default(&a->event);
                if (r < 0)
                        return r;
        }
        r = audit_history_init(&a->history, MAX(history_max, (size_t) 1));
        if (r < 0)
                return r;
        *ret = TAKE_PTR(a);
        return 0;
}

AuditManager *audit_manager_free(AuditManager *a)
{
        if (!a)
                return NULL;
        audit_kmsg_free(a->kmsg);
        audit_netlink_free(a->netlink);
        audit_bpf_free(a->libc);
        audit_bpf_free(a->syscall);
        bpf_helper_free(a->bpf_helper);
        sd_event_source_disable_unref(a->coalesce_timer);
        audit_coalescer_done(&a->coalescer);
        audit_history_done(&a->history);
        sd_event_unref(a->event);
        free(a);
        return NULL;
}

bool audit_manager_source_active(const AuditManager *a, AuditEventSource s)
{
        if (!a)
                return false;
        switch (s) {
        case AUDIT_EVENT_SOURCE_KMSG:
                return a->kmsg && audit_kmsg_is_active(a->kmsg);
        case AUDIT_EVENT_SOURCE_AUDIT:
                return a->netlink && audit_netlink_is_active(a->netlink);
        case AUDIT_EVENT_SOURCE_LIBC:
                return a->libc && a->libc->active;
        case AUDIT_EVENT_SOURCE_SYSCALL:
                return a->syscall && a->syscall->active;
        default:
                return false;
        }
}

const char *audit_manager_source_reason(const AuditManager *a, AuditEventSource s)
{
        if (!a || s < 0 || s >= _AUDIT_EVENT_SOURCE_MAX)
                return "";
        return a->reason[s];
}

static const char *const audit_source_state_table[_AUDIT_SOURCE_STATE_MAX] = {
        [AUDIT_SOURCE_STATE_OFF] = "off",
        [AUDIT_SOURCE_STATE_STARTING] = "starting",
        [AUDIT_SOURCE_STATE_ACTIVE] = "active",
        [AUDIT_SOURCE_STATE_INACTIVE] = "inactive",
};

const char *audit_source_state_to_string(AuditSourceState s)
{
        if (s < 0 || s >= _AUDIT_SOURCE_STATE_MAX)
                return NULL;
        return audit_source_state_table[s];
}

static unsigned audit_source_flag(AuditEventSource s)
{
        static const unsigned flags[_AUDIT_EVENT_SOURCE_MAX] = {
                [AUDIT_EVENT_SOURCE_KMSG] = AUDIT_SOURCE_KMSG | AUDIT_SOURCE_KMSG_AUTO,
                [AUDIT_EVENT_SOURCE_AUDIT] = AUDIT_SOURCE_AUDIT,
                [AUDIT_EVENT_SOURCE_LIBC] = AUDIT_SOURCE_LIBC,
                [AUDIT_EVENT_SOURCE_SYSCALL] = AUDIT_SOURCE_SYSCALL,
        };
        return s >= 0 && s < _AUDIT_EVENT_SOURCE_MAX ? flags[s] : 0;
}

AuditSourceState audit_manager_source_state(const AuditManager *a, AuditEventSource s, char *note, size_t size)
{
        const AuditBpf *b = NULL;

        assert(note);
        snprintf(note, size, "%s", "");
        if (!a || s < 0 || s >= _AUDIT_EVENT_SOURCE_MAX)
                return _AUDIT_SOURCE_STATE_INVALID;
        if (s == AUDIT_EVENT_SOURCE_LIBC)
                b = a->libc;
        else if (s == AUDIT_EVENT_SOURCE_SYSCALL)
                b = a->syscall;
        if (audit_manager_source_active(a, s)) {
                audit_bpf_describe(b, note, size);
                return AUDIT_SOURCE_STATE_ACTIVE;
        }
        if (b)
                return AUDIT_SOURCE_STATE_STARTING;
        if (!(a->sources & audit_source_flag(s))) {
                if (s == AUDIT_EVENT_SOURCE_SYSCALL)
                        snprintf(note, size, "opt-in: AuditSources=syscall (it costs every system call)");
                else
                        snprintf(note, size, "not in AuditSources=");
                return AUDIT_SOURCE_STATE_OFF;
        }
        snprintf(note, size, "%s", a->reason[s]);
        /* kmsg by default (auto) on a kernel without sysctl(2) is off, not broken. */
        if (s == AUDIT_EVENT_SOURCE_KMSG && !(a->sources & AUDIT_SOURCE_KMSG) && !a->kmsg)
                return AUDIT_SOURCE_STATE_OFF;
        return AUDIT_SOURCE_STATE_INACTIVE;
}

void audit_manager_sources_changed(AuditManager *a)
{
        if (a && a->manager)
                audit_bus_emit_sources_changed(a->manager);
}

static void audit_log_event(const AuditEvent *e)
{
        char name[SYSCTL_BINARY_NAME_MAX * 12 + 1] = "";
        char pid[32] = "";
        size_t off = 0;

        for (size_t i = 0; i < e->n_name; i++)
                off += (size_t) snprintf(name + off, sizeof name - off, "%" PRIi32 ".", e->name[i]);
        if (e->pid > 0)
                snprintf(pid, sizeof pid, "%" PRIu32, e->pid);

        log_internal(LOG_WARNING, 0, NULL, 0, AUDIT_SYSCTL_MESSAGE_ID,
                     "Deprecated sysctl(2) call: process '%s' (pid %s, exe %s) used %s%s%s%s (source %s, %" PRIu32
                     " call%s). Use /proc/sys instead.",
                     e->comm, pid[0] ? pid : "?", isempty(e->exe) ? "?" : e->exe,
                     e->n_name > 0 ? name : "an unknown name",
                     isempty(e->path) ? "" : " = ", strempty(e->path),
                     isempty(e->path) || e->complete ? "" : " (partly translated)",
                     audit_event_source_to_string(e->source), e->repeats, e->repeats == 1 ? "" : "s");
}

static void audit_manager_publish(AuditManager *a, AuditEvent *e)
{
        const AuditEvent *stored;

        a->n_published++;
        audit_log_event(e);
        if (audit_history_push(&a->history, e) < 0) {
                log_oom();
                return;
        }
        stored = audit_history_get(&a->history, a->history.n - 1);
        if (stored && a->on_event)
                a->on_event(stored, a->on_event_userdata);
}

/* The event loop's idea of now (the time of this wake-up): one clock read per iteration. */
static uint64_t audit_manager_now(AuditManager *a)
{
        uint64_t now = 0;

        (void) sd_event_now(a->event, CLOCK_MONOTONIC, &now);
        return now;
}

static int audit_manager_on_timer(sd_event_source *s, uint64_t usec, void *userdata);

/* Idle means idle: the timer exists only while an event is pending. */
static void audit_manager_arm_timer(AuditManager *a)
{
        uint64_t next = audit_coalescer_next_due(&a->coalescer);
        int r;

        if (next == UINT64_MAX) {
                a->coalesce_timer = sd_event_source_disable_unref(a->coalesce_timer);
                return;
        }
        if (a->coalesce_timer) {
                r = sd_event_source_set_time(a->coalesce_timer, next);
                if (r >= 0)
                        r = sd_event_source_set_enabled(a->coalesce_timer, SD_EVENT_ONESHOT);
        } else
                r = sd_event_add_time(a->event, &a->coalesce_timer, CLOCK_MONOTONIC, next, 0,
                                      audit_manager_on_timer, a);
        if (r < 0)
                log_error_errno(r, "Failed to arm the audit coalescing timer, folded calls wait for the next event: %m");
}

static int audit_manager_on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        AuditManager *a = userdata;
        AuditEvent e;

        while (audit_coalescer_pop_due(&a->coalescer, audit_manager_now(a), &e) > 0)
                audit_manager_publish(a, &e);
        audit_manager_arm_timer(a);
        return 0;
}

void audit_manager_submit(AuditManager *a, AuditEvent *e)
{
        int r;

        assert(a);
        assert(e);

        r = audit_coalescer_submit(&a->coalescer, e, audit_manager_now(a));
        if (r != 0) /* 1: publish now; -ENOMEM: publish uncoalesced */
                audit_manager_publish(a, e);
        audit_event_done(e);
        audit_manager_arm_timer(a);
}

/* Whether to read the kernel log. By default only where the warning can appear at all: kernels
 * before 5.9 still have sysctl(2); later ones return ENOSYS and log nothing, so reading
 * /dev/kmsg there would only wake igmpd for every unrelated kernel message. */
bool audit_kmsg_wanted(unsigned sources, const char *kmsg_path, char *reason, size_t reason_size)
{
        struct utsname u;
        unsigned major = 0, minor = 0;

        if (sources & AUDIT_SOURCE_KMSG)
                return true;
        if (!(sources & AUDIT_SOURCE_KMSG_AUTO))
                return false;
        if (kmsg_path)
                return true;
        if (uname(&u) < 0 || sscanf(u.release, "%u.%u", &major, &minor) != 2)
                return true;
        if (major < 5 || (major == 5 && minor < 9))
                return true;
        snprintf(reason, reason_size, "kernel %u.%u has no sysctl(2) and never logs the warning; "
                 "AuditSources=kmsg reads /dev/kmsg anyway", major, minor);
        return false;
}

void audit_manager_start(AuditManager *a, const DaemonConfig *config, const char *kmsg_path)
{
        int r;

        assert(a);
        assert(config);

        a->sources = config->audit_sources;
        a->rule = config->audit_rule;

        if (audit_kmsg_wanted(config->audit_sources, kmsg_path, a->reason[AUDIT_EVENT_SOURCE_KMSG],
                              sizeof a->reason[AUDIT_EVENT_SOURCE_KMSG])) {
                r = audit_kmsg_new(a, kmsg_path, &a->kmsg, a->reason[AUDIT_EVENT_SOURCE_KMSG],
                                   sizeof a->reason[AUDIT_EVENT_SOURCE_KMSG]);
                if (r < 0)
                        log_notice("Audit source kmsg is not active: %s.", a->reason[AUDIT_EVENT_SOURCE_KMSG]);
        }
        if (config->audit_sources & AUDIT_SOURCE_AUDIT) {
                r = audit_netlink_new(a, config->audit_rule, &a->netlink, a->reason[AUDIT_EVENT_SOURCE_AUDIT],
                                      sizeof a->reason[AUDIT_EVENT_SOURCE_AUDIT]);
                if (r < 0)
                        log_notice("Audit source audit is not active: %s.", a->reason[AUDIT_EVENT_SOURCE_AUDIT]);
        }
        audit_bpf_start(a, config->audit_sources & (AUDIT_SOURCE_LIBC | AUDIT_SOURCE_SYSCALL));
        log_info("Deprecated sysctl(2) audit: kmsg %s, audit %s, libc %s, syscall %s, history of %zu events.",
                 audit_manager_source_active(a, AUDIT_EVENT_SOURCE_KMSG) ? "active" :
                 (config->audit_sources & AUDIT_SOURCE_KMSG) ? "inactive" :
                 (config->audit_sources & AUDIT_SOURCE_KMSG_AUTO) ? "off (this kernel has no sysctl(2))" : "off",
                 audit_manager_source_active(a, AUDIT_EVENT_SOURCE_AUDIT) ? "active" :
                 (config->audit_sources & AUDIT_SOURCE_AUDIT) ? "inactive" : "off",
                 a->libc ? "starting" : (config->audit_sources & AUDIT_SOURCE_LIBC) ? "inactive" : "off",
                 a->syscall ? "starting" : (config->audit_sources & AUDIT_SOURCE_SYSCALL) ? "inactive" : "off",
                 a->history.max);
}

void audit_manager_reload(AuditManager *a, const DaemonConfig *config, const char *kmsg_path)
{
        int r;

        assert(a);
        assert(config);

        if (config->audit_history != a->history.max) {
                r = audit_history_resize(&a->history, MAX(config->audit_history, 1u));
                if (r < 0)
                        log_warning_errno(r, "Failed to resize the audit history, keeping %zu events: %m", a->history.max);
        }
        if (config->audit_sources == a->sources && config->audit_rule == a->rule)
                return;

        log_info("Audit settings changed, restarting the audit sources.");
        a->kmsg = audit_kmsg_free(a->kmsg);
        a->netlink = audit_netlink_free(a->netlink); /* removes the rules it added */
        a->libc = audit_bpf_free(a->libc);           /* detaches its programs */
        a->syscall = audit_bpf_free(a->syscall);
        for (AuditEventSource s = 0; s < _AUDIT_EVENT_SOURCE_MAX; s++)
                a->reason[s][0] = '\0';
        audit_manager_start(a, config, kmsg_path);
}
