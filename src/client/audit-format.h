/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * One deprecated-sysctl(2) event as igmpctl shows it: read from the DeprecatedSysctl signal or
 * a ListEvents entry, formatted for tables, follow lines and JSON. Pure formatting, so the
 * unit tests can feed it events the daemon cannot produce yet.
 */

#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "json-writer.h"

typedef struct AuditEventView {
        uint64_t realtime_usec;
        const char *source, *comm, *exe, *path;
        uint32_t pid, repeats; /* pid 0: the source does not know it */
        const int32_t *name;
        size_t n_name;
        int partial; /* path translated only in part: 1 yes, 0 no, -1 the daemon does not say */
        char path_buf[512]; /* path without the daemon's partial mark (path may point here) */
} AuditEventView;

/* Reads "tsussaisu" (the signal's body or a ListEvents struct's fields). Strings borrowed; path
 * may point into ret itself, so the view is not to be copied. */
int audit_view_read(sd_bus_message *m, AuditEventView *ret);

/* Takes the path as the daemon sends it: a path ending in the partial mark (" (partly
 * translated)") is a partial one, the mark is taken off; another non-empty path is complete;
 * an empty one says nothing. */
void audit_view_set_path(AuditEventView *e, const char *wire_path);

/* "2024-05-01 12:00:00" local time, or "-" for 0. */
void audit_view_format_time(uint64_t usec, char buf[static 32]);
/* The pid, or "-" where the source does not know it. */
const char *audit_view_format_pid(const AuditEventView *e, char buf[static 16]);
/* The /proc/sys path (marked "(partly translated)" when it is), else the name vector
 * "1.2.3", else "?". */
void audit_view_format_sysctl(const AuditEventView *e, char *buf, size_t size);
/* The one-line text form (no newline), as audit --follow prints it. */
void audit_view_format_line(const AuditEventView *e, char *buf, size_t size);
void audit_view_json(JsonWriter *w, const AuditEventView *e);
