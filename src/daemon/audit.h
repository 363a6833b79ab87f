/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The deprecated sysctl(2) audit's event pipeline. Sources (audit-kmsg.c, audit-netlink.c,
 * audit-bpf.c) build
 * an AuditEvent and hand it to audit_manager_submit(); from there it is coalesced (at most one
 * published event per second per process, comm and name, `repeats` counting the calls folded
 * in), kept in a bounded history, logged with AUDIT_SYSCTL_MESSAGE_ID and handed to the
 * on_event hook (the D-Bus signal).
 *
 * The pure parts — UTF-8 sanitizing, the history ring, the coalescer — take plain data and an
 * explicit clock, and are unit-tested (tests/unit/test-audit.c).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "daemon-config.h"
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
        char *comm;               /* valid UTF-8 (audit_utf8_sanitize) */
        char *exe;                /* valid UTF-8, "" if unknown */
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

/*
 * Returns a NUL-terminated copy of s[0..len) that is valid UTF-8 and free of control
 * characters: bytes that are not part of a valid UTF-8 sequence, C0 controls, DEL and '\' are
 * written as "\xNN" (so the result is unambiguous). NULL on ENOMEM.
 */
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

typedef struct Manager Manager;
typedef struct AuditKmsg AuditKmsg;
typedef struct AuditNetlink AuditNetlink;
typedef struct AuditBpf AuditBpf;
typedef struct BpfHelper BpfHelper;

typedef void (*AuditEventHook)(const AuditEvent *e, void *userdata);

typedef struct AuditManager {
        Manager *manager;
        sd_event *event;
        AuditHistory history;
        AuditCoalescer coalescer;
        sd_event_source *coalesce_timer; /* exists only while an event is pending */

        AuditKmsg *kmsg;
        AuditNetlink *netlink;
        AuditBpf *libc, *syscall; /* audit-bpf.c */
        BpfHelper *bpf_helper;    /* how the BPF sources reach igmpd-bpf; NULL until needed */
        unsigned sources;         /* AuditSources= and AuditRule= the sources were started with */
        bool rule;
        /* Why a source is not active ("" while it is, or it is not wanted). */
        char reason[_AUDIT_EVENT_SOURCE_MAX][160];

        AuditEventHook on_event;  /* each published event, after history and journal */
        void *on_event_userdata;

        uint64_t n_published;
} AuditManager;

int audit_manager_new(Manager *m, size_t history_max, AuditManager **ret);
AuditManager *audit_manager_free(AuditManager *a);
DEFINE_TRIVIAL_CLEANUP_FUNC(AuditManager *, audit_manager_free);

/*
 * Starts the sources config asks for. A source that cannot run is logged with its reason and
 * left inactive; this never fails the daemon. kmsg_path: NULL for /dev/kmsg.
 */
bool audit_kmsg_wanted(unsigned sources, const char *kmsg_path, char *reason, size_t reason_size);
void audit_manager_start(AuditManager *a, const DaemonConfig *config, const char *kmsg_path);

/* After a configuration reload: restarts the sources if AuditSources= or AuditRule= changed
 * (the kernel log position is kept in /run, so nothing is published twice) and applies a new
 * AuditHistory=. History and pending events are kept. */
void audit_manager_reload(AuditManager *a, const DaemonConfig *config, const char *kmsg_path);

bool audit_manager_source_active(const AuditManager *a, AuditEventSource s);

/* The reason the source is inactive ("" if active or not configured). */
const char *audit_manager_source_reason(const AuditManager *a, AuditEventSource s);

typedef enum AuditSourceState {
        AUDIT_SOURCE_STATE_OFF,      /* not configured (or not wanted on this kernel) */
        AUDIT_SOURCE_STATE_STARTING, /* waiting for the BPF helper */
        AUDIT_SOURCE_STATE_ACTIVE,
        AUDIT_SOURCE_STATE_INACTIVE, /* configured, but cannot run here */
        _AUDIT_SOURCE_STATE_MAX,
        _AUDIT_SOURCE_STATE_INVALID = -EINVAL,
} AuditSourceState;

const char *audit_source_state_to_string(AuditSourceState s);

/* The state of source s and a note for the operator (why it is off or inactive, what it covers
 * when active; may be ""). */
AuditSourceState audit_manager_source_state(const AuditManager *a, AuditEventSource s, char *note, size_t size);

/* Announces a change of the active sources (the Sources property). */
void audit_manager_sources_changed(AuditManager *a);

/* Called by the sources. Takes over *e (left zeroed). */
void audit_manager_submit(AuditManager *a, AuditEvent *e);

/* Name resolver for sysctl_binary_to_path() (userdata: the AuditManager). */
int audit_manager_resolve_ifindex(int ifindex, char *buf, size_t len, void *userdata);
