/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * org.igmpd1.Audit at /org/igmpd1, the deprecated sysctl(2) audit's D-Bus face: the
 * DeprecatedSysctl signal for each event audit.c publishes (through its observer hook),
 * ListEvents() from its history, Sources from the sources active now, SourceStates from every
 * source's state and reason (announced when they change).
 */

#include <systemd/sd-bus.h>

#include "audit.h"

/* Userdata: the BusContext. */
extern const sd_bus_vtable audit_vtable[];

/* The audit's observer (userdata: the BusContext): sends DeprecatedSysctl for e, or
 * PropertiesChanged for Sources, SourceStates and Coverage when e is NULL; nothing while the
 * bus is not up. */
void audit_bus_on_event(const AuditEvent *e, void *userdata);

/* The names of the active sources, NULL-terminated (Sources, and Describe()). a may be NULL. */
void audit_bus_active_sources(const AuditManager *a, const char *ret[static _AUDIT_EVENT_SOURCE_MAX + 1]);
