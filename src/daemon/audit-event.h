/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The deprecated sysctl(2) audit's events, and what a source of them is given. A source
 * (audit-kmsg.c, audit-netlink.c, audit-bpf.c) turns what it reads into an AuditEvent and hands
 * it to ctx->submit(), and says when it becomes active or stops with ctx->state_changed(); it
 * knows nothing else of the AuditManager (audit.c) that owns it.
 *
 * The pure parts — UTF-8 sanitizing, the history ring, the coalescer — take plain data and an
 * explicit clock, and are unit-tested (tests/unit/test-audit.c).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "macro.h"
#include "sysctl-binary.h"

/* journalctl -x shows data/catalog/igmpd.catalog for it. */
#define AUDIT_SYSCTL_MESSAGE_ID "9198f75005114f39821d648609f38c7f"

/* Coalescing window: one published event per key per second. */
#define AUDIT_COALESCE_USEC 1000000ULL
/* sd-event priority of the audit sources' readers: after link events and bus calls (NORMAL). */
#define AUDIT_EVENT_PRIORITY (SD_EVENT_PRIORITY_NORMAL + 10)
/* Keys tracked at once; past that, events are published without coalescing (a flood of
 * distinct processes is not foldable anyway). Entries live one window. */
#define AUDIT_COALESCE_KEYS_MAX 4096

typedef enum AuditEventSource {
        AUDIT_EVENT_SOURCE_KMSG,
        AUDIT_EVENT_SOURCE_AUDIT,
        AUDIT_EVENT_SOURCE_LIBC,
        AUDIT_EVENT_SOURCE_SYSCALL,
        _AUDIT_EVENT_SOURCE_MAX,
        _AUDIT_EVENT_SOURCE_INVALID = -EINVAL,
} AuditEventSource;

const char *audit_event_source_to_string(AuditEventSource s);

typedef struct AuditEvent {
        uint64_t realtime_usec;   /* CLOCK_REALTIME of the (first) call */
        AuditEventSource source;
        uint32_t pid;             /* 0: unknown (kmsg) */
        uint32_t ppid;            /* parent's pid; 0: unknown (only the audit record has it) */
        /* The strings are escaped (audit_utf8_sanitize): shown on the bus and logged as they are. */
        char *comm;
        char *exe;                /* "" if unknown */
        int32_t name[SYSCTL_BINARY_NAME_MAX];
        size_t n_name;            /* 0 for the audit source: the record has no name vector */
        char *path;               /* "/proc/sys/…" or "" when there is no name */
        bool complete;            /* every component of path was translated */
        uint32_t repeats;         /* calls this event stands for, ≥ 1 */
} AuditEvent;

/* Frees the strings, leaves *e zeroed. */
void audit_event_done(AuditEvent *e);

/*
 * Fills e->comm, e->exe (sanitized copies; exe may be NULL → "") and e->name/path (translated
 * with resolve, which may be NULL). Other fields are left as they are. 0 or -ENOMEM/-E2BIG;
 * e holds no allocations after a failure.
 */
int audit_event_fill(AuditEvent *e, const char *comm, size_t comm_len, const char *exe, size_t exe_len,
                     const int *name, size_t n_name, SysctlIfindexResolver resolve, void *userdata);

/* What igmpd learns about the caller when it logs the event (best effort: the process may be
 * gone, or its pid taken by another one, which the caller of audit_event_journal_fields() rules
 * out by comparing the command name). */
typedef struct AuditCaller {
        uint32_t ppid;            /* 0: unknown */
        const char *unit;         /* systemd unit, NULL if unknown */
} AuditCaller;

/*
 * The concrete fix for the event, one sentence, into buf: the igmpd policy key (and igmpctl
 * option) when the path is one of igmpd's knobs, the /proc/sys file to use otherwise, what the
 * name would have meant when it translated only in part, and which source sees the name when
 * the event has none.
 */
void audit_event_fix(const AuditEvent *e, char *buf, size_t size);

/* The igmpd knob (knob.h's Knob) a completely translated path names, or -EINVAL. */
int audit_event_knob(const AuditEvent *e);

/*
 * The extra journal fields of the event's entry, "KEY=value", NULL-terminated (igmpd(8),
 * data/catalog/igmpd.catalog): CALLER (pid, comm, ppid, unit, exe in words, always),
 * CALLER_PID, CALLER_COMM, CALLER_EXE, CALLER_PPID, CALLER_UNIT (those known), SYSCTL_NAME
 * and SYSCTL_PATH ("unknown" when the source has no name vector), SYSCTL_PATH_PARTIAL=1 (only
 * when partly translated), SYSCTL_FIX, AUDIT_SOURCE, REPEATS. NULL on ENOMEM.
 */
char **audit_event_journal_fields(const AuditEvent *e, const AuditCaller *caller);
#define AUDIT_EVENT_JOURNAL_FIELDS_MAX 13

/* Returns a NUL-terminated copy of s[0..len) that is valid UTF-8 and free of control
 * characters (utf8_escape_bytes(), UTF8_ESCAPE_CONTROL). NULL on ENOMEM. */
char *audit_utf8_sanitize(const char *s, size_t len);

/* Bounded history, oldest first; pushing onto a full ring drops the oldest. */
typedef struct AuditHistory {
        AuditEvent *events;
        size_t max, start, n;
        uint64_t n_dropped;
} AuditHistory;

int audit_history_init(AuditHistory *h, size_t max);
void audit_history_done(AuditHistory *h);
/* Takes over *e (left zeroed). Returns 0 or -ENOMEM (e is then freed). */
int audit_history_push(AuditHistory *h, AuditEvent *e);
/* Changes the bound, keeping the newest min(n, max) events. 0 or -ENOMEM (unchanged then). */
int audit_history_resize(AuditHistory *h, size_t max);
/* i-th event, oldest first; NULL if out of range. */
const AuditEvent *audit_history_get(const AuditHistory *h, size_t i);

typedef struct AuditCoalesceEntry {
        uint32_t pid;
        char *comm;
        int32_t name[SYSCTL_BINARY_NAME_MAX];
        size_t n_name;
        uint64_t last_usec;       /* monotonic time of the last publication for this key */
        bool has_pending;
        AuditEvent pending;       /* calls folded since, waiting for last_usec + window */
} AuditCoalesceEntry;

typedef struct AuditCoalescer {
        AuditCoalesceEntry *entries;
        size_t n, allocated;
        uint64_t n_folded;
} AuditCoalescer;

void audit_coalescer_done(AuditCoalescer *c);

/*
 * Offers an event at monotonic time now. Returns 1: publish *e now (repeats set to 1, e is
 * still the caller's); 0: folded into a pending event for its key (*e taken over, left zeroed);
 * -ENOMEM (e untouched; publish it uncoalesced).
 */
int audit_coalescer_submit(AuditCoalescer *c, AuditEvent *e, uint64_t now);

/* Hands out one pending event that is due at now: 1 with *ret set (the caller owns it), or 0. */
int audit_coalescer_pop_due(AuditCoalescer *c, uint64_t now, AuditEvent *ret);

/* When the next pending event falls due, or UINT64_MAX if nothing is pending. */
uint64_t audit_coalescer_next_due(const AuditCoalescer *c);

/* What every audit source is given (by audit.c; it outlives the sources). */
typedef struct AuditSourceContext {
        sd_event *event;
        const char *root;              /* config root: state files live below ROOT/run/igmpd */
        SysctlIfindexResolver resolve; /* names the ifindexes of translated paths; may be NULL */
        void *resolve_userdata;
        void (*submit)(AuditEvent *e, void *userdata); /* takes over *e (left zeroed) */
        void (*state_changed)(void *userdata);         /* a source became active or stopped */
        void *userdata;                                /* of submit and state_changed */
} AuditSourceContext;
