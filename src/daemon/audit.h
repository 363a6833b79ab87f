/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The deprecated sysctl(2) audit's pipeline, the AuditManager: it owns the sources (each given
 * an AuditSourceContext, audit-event.h), and every event they submit is coalesced (at most one
 * published event per second per process, comm and name, `repeats` counting the calls folded
 * in), kept in a bounded history, logged with AUDIT_SYSCTL_MESSAGE_ID and handed to the
 * observer hook (the D-Bus signal), which also hears when the sources' states change.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "audit-event.h"
#include "daemon-config.h"
#include "macro.h"
#include "run-state.h"

/* Whether the sources together can see a deprecated sysctl(2) call on this system at all. */
typedef enum AuditCoverage {
        AUDIT_COVERAGE_SOME,      /* at least one active source sees calls (of some programs) */
        AUDIT_COVERAGE_STARTING,  /* none yet; a BPF source is still starting */
        AUDIT_COVERAGE_UNCERTAIN, /* only the audit source, and only if someone else loaded a rule */
        AUDIT_COVERAGE_NONE,      /* no source can see a call: "no events" means nothing */
        _AUDIT_COVERAGE_MAX,
        _AUDIT_COVERAGE_INVALID = -EINVAL,
} AuditCoverage;

/* Each published event (after history and journal), or e NULL when a source became active or
 * stopped, or a reload restarted them (Sources, SourceStates, Coverage). */
typedef void (*AuditObserver)(const AuditEvent *e, void *userdata);

typedef struct AuditManager {
        char *root;
        AuditSourceContext source_ctx; /* what the sources are given (its event is the manager's) */
        AuditHistory history;
        AuditCoalescer coalescer;
        sd_event_source *coalesce_timer; /* exists only while an event is pending */

        AuditSource *source[_AUDIT_EVENT_SOURCE_MAX]; /* NULL: not started */
        BpfHelper *bpf_helper;    /* how the BPF sources reach igmpd-bpf; NULL until needed */
        unsigned sources;         /* AuditSources= and AuditRule= the sources were started with */
        bool rule;
        bool kmsg_custom;         /* --kmsg-path: the kmsg source reads a test stream */
        AuditCoverage coverage_logged; /* what the log last said, to say it once */
        /* Why a source is not active ("" while it is, or it is not wanted). */
        char reason[_AUDIT_EVENT_SOURCE_MAX][AUDIT_REASON_MAX];

        AuditObserver observer;   /* the D-Bus face */
        void *observer_userdata;
} AuditManager;

/* resolve may be NULL (ifindexes stay numbers). */
int audit_manager_new(sd_event *event, const char *root, size_t history_max, SysctlIfindexResolver resolve,
                      void *resolve_userdata, AuditManager **ret);
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

/* The state of source s and a note for the operator (why it is off or inactive, what it covers
 * when active; may be ""). a NULL (the audit could not be set up): inactive, and it says so. */
RunState audit_manager_source_state(const AuditManager *a, AuditEventSource s, char *note, size_t size);

const char *audit_coverage_to_string(AuditCoverage c);

/* The coverage, and for anything but SOME what to change to see calls (a sentence; "" if
 * there is nothing to change in igmpd: the notes of SourceStates say why). a may be NULL. */
AuditCoverage audit_manager_coverage(const AuditManager *a, char *advice, size_t size);
