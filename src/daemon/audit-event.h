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
 * with resolve, which may be NULL) of a new event (no strings yet). Other fields are left as
 * they are. 0 or -ENOMEM/-E2BIG; e holds no allocations after a failure.
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
} AuditCoalescer;

void audit_coalescer_done(AuditCoalescer *c);

/*
 * Offers an event at monotonic time now. Returns 1: publish *e now (repeats set to 1, e is
 * still the caller's); 0: folded into a pending event for its key (*e taken over, left zeroed);
 * -ENOMEM (repeats set to 1 too; publish it uncoalesced).
 */
int audit_coalescer_submit(AuditCoalescer *c, AuditEvent *e, uint64_t now);

/* Hands out one pending event that is due at now: 1 with *ret set (the caller owns it), or 0. */
int audit_coalescer_pop_due(AuditCoalescer *c, uint64_t now, AuditEvent *ret);

/* When the next pending event falls due, or UINT64_MAX if nothing is pending. */
uint64_t audit_coalescer_next_due(const AuditCoalescer *c);

/* Why a source is not active: a phrase, no final dot ("" while it is, or it is not wanted). */
#define AUDIT_REASON_MAX 256

/* What every audit source is given (by audit.c; it outlives the sources). */
typedef struct AuditSourceContext {
        sd_event *event;
        const char *root;              /* config root: state files live below ROOT/run/igmpd */
        SysctlIfindexResolver resolve; /* names the ifindexes of translated paths; may be NULL */
        void *resolve_userdata;
        void (*submit)(AuditEvent *e, void *userdata); /* takes over *e (left zeroed) */
        void (*state_changed)(void *userdata);         /* a source became active or stopped */
        void *userdata;                                /* of submit and state_changed */
        char (*reason)[AUDIT_REASON_MAX];              /* per source type, the owner's */
} AuditSourceContext;

/* What every source is: the first member of its own struct, through which its owner frees it
 * and asks whether it is active. */
typedef struct AuditSource AuditSource;
struct AuditSource {
        const AuditSourceContext *ctx;
        AuditEventSource type;
        bool active;
        AuditSource *(*free)(AuditSource *s);
};

/* For _cleanup_() of a pointer to any source struct (its AuditSource first, free set). */
static inline void audit_source_freep(void *p)
{
        AuditSource **s = p;

        if (*s)
                (*s)->free(*s);
}

/* The shared part of the sources (audit.c). Sets the reason of source type; returns error, so
 * that a constructor can end with it. */
int audit_source_reason(const AuditSourceContext *ctx, AuditEventSource type, int error, const char *fmt, ...)
        _printf_(4, 5);
/* The source is set up: reader (NULL: none of its own) gets description and AUDIT_EVENT_PRIORITY;
 * active, no reason. */
void audit_source_started(AuditSource *s, sd_event_source *reader, const char *description);
/* The source was active and stops (its reason set first): inactive, and ctx->state_changed(). */
void audit_source_stop(AuditSource *s);
/* Fills e (audit_event_fill(), with the context's resolver) and submits it; a failure is logged. */
void audit_source_submit(AuditSource *s, AuditEvent *e, const char *comm, size_t comm_len, const char *exe,
                         size_t exe_len, const int *name, size_t n_name);

/*
 * Audit source 1: the kernel log. Kernels 2.6.24–5.8 print
 *     warning: process `COMM' used the deprecated sysctl system call with 3.5.16.-2.17.
 * for each (rate-limited) sysctl(2) call. Read from /dev/kmsg, non-blocking, one record per
 * read(); EPIPE (records overwritten before we read them) is counted and reading carries on;
 * only kernel-facility records count; continuation records are joined (KmsgAssembler).
 *
 * At start the whole buffer is read, but the sequence number of the last record handled is kept
 * in ROOT/run/igmpd/kmsg-seq ("SEQ BOOT_ID"), so a restart does not publish old events again:
 * written at once after a record that made an event, at most every 5 s for the others, and at
 * a clean stop (after a crash, up to 5 s of records that made no event are read again).
 *
 * Test mode (--kmsg-path=PATH): PATH holds records in the /dev/kmsg format, one per line (lines
 * starting with a space are dictionary lines and are skipped). A FIFO is followed for as long as
 * the daemon runs (it is opened read-write, so writers may come and go; the assembler is flushed
 * whenever it is drained); a regular file is read once, to its end, right after start-up.
 *
 * Each constructor returns 0, or -errno with the source's reason set (the source is then not
 * created); the reason stays the source's: it says there why the source stopped, should it
 * stop later.
 */
int audit_kmsg_new(const AuditSourceContext *ctx, const char *path, AuditSource **ret);

/*
 * Audit source 2: Linux audit, for kernels ≥ 5.9 where sysctl(2) is gone and nothing is logged.
 * A NETLINK_AUDIT socket bound to the read-only multicast group AUDIT_NLGRP_READLOG (needs
 * CAP_AUDIT_READ; the kernel multicasts only in the initial network namespace; coexists with
 * auditd) receives every audit record; SYSCALL records for syscall 156 on x86_64 (149 on i386)
 * become events with pid, comm and exe.
 *
 * With AuditRule=yes the source also loads the rule that makes the kernel emit those records and
 * enables auditing if it was off, and undoes exactly that on exit, or at the next start after a
 * crash (audit-rules.h). A failure to add the rule only logs: the source still listens.
 */
int audit_netlink_new(const AuditSourceContext *ctx, bool add_rule, AuditSource **ret);
/* Whether the rule that makes the kernel report sysctl(2) calls is known to be loaded: igmpd
 * added it, or found it already there (AuditRule=yes). With AuditRule=no igmpd cannot tell
 * (listing rules needs CAP_AUDIT_CONTROL): false. s: the audit source, or NULL. */
bool audit_netlink_has_rule(const AuditSource *s);

/*
 * The BPF audit sources, igmpd's side: "libc" (uprobes on each libc's compat sysctl symbol) and
 * "syscall" (sys_enter for system call 156/149). Each asks the BPF helper to attach its programs
 * (bpf-helper-client.h), keeps the links it gets back (closing them detaches everything, as
 * does igmpd's exit, however it dies), reads the ring buffer and hands each call to the audit
 * pipeline. The libc source's rescans for new libc copies live in audit-libc.c.
 *
 * audit_bpf_new() returns 0, or -errno (nothing made, no reason set). If attaching fails later,
 * the source says why in its reason, stays inactive until freed, and tells ctx->state_changed(),
 * as it does when it becomes active.
 */
typedef struct BpfHelper BpfHelper;
int audit_bpf_new(const AuditSourceContext *ctx, BpfHelper *helper, AuditEventSource type, AuditSource **ret);
/* The attach request is still running. s: any source, or NULL. */
bool audit_bpf_is_starting(const AuditSource *s);
/* "3 libc copies probed" and the like while active, for igmpctl kernel; buf untouched otherwise. */
void audit_bpf_describe(const AuditSource *s, char *buf, size_t size);
/* The libc source, while active: look at every process again. Any other source: nothing. */
void audit_bpf_request_sweep(AuditSource *s);
