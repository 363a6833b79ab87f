/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * org.igmpd1.Audit at /org/igmpd1: the DeprecatedSysctl signal, ListEvents(), the Sources
 * property (the active sources) and SourceStates (every source: active, starting, inactive or
 * off, with the reason).
 */

#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "json-writer.h"

typedef struct Manager Manager;

/* One deprecated sysctl(2) call as the signal carries it
 * (DeprecatedSysctl(t realtime_usec, s source, u pid, s comm, s exe, ai name, s path, u repeats)). */
typedef struct AuditBusEvent {
        uint64_t realtime_usec;
        const char *source;  /* "kmsg", "audit", "libc" or "syscall" */
        uint32_t pid;        /* 0 if the source does not know it */
        const char *comm;
        const char *exe;     /* "" if unknown */
        const int32_t *name; /* the binary name vector; may be NULL with n_name 0 */
        size_t n_name;
        const char *path;    /* translated /proc/sys path or "" */
        uint32_t repeats;    /* calls folded into this event */
} AuditBusEvent;

extern const sd_bus_vtable audit_vtable[];

/* Sends DeprecatedSysctl. No-op (0) while the bus is down; -errno on failure. */
int audit_bus_emit_deprecated_sysctl(Manager *m, const AuditBusEvent *e);

/* Writes the active sources as a JSON array (for Describe()). */
void audit_bus_describe_sources(Manager *m, JsonWriter *w);

/* PropertiesChanged for Sources and SourceStates (a source became active or failed). */
void audit_bus_emit_sources_changed(Manager *m);
