/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Deprecated-sysctl(2) events in igmpctl's words (see audit-format.h).
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "audit-format.h"
#include "macro.h"
#include "sysctl-binary.h"

#define PARTIAL_MARK SYSCTL_PATH_PARTIAL_MARK

void audit_view_set_path(AuditEventView *e, const char *wire_path)
{
        size_t len = strlen(strempty(wire_path)), mark = strlen(PARTIAL_MARK);

        e->path = wire_path;
        e->partial = isempty(wire_path) ? -1 : 0;
        if (len > mark && streq(wire_path + len - mark, PARTIAL_MARK) && len - mark < sizeof e->path_buf) {
                memcpy(e->path_buf, wire_path, len - mark);
                e->path_buf[len - mark] = '\0';
                e->path = e->path_buf;
                e->partial = 1;
        }
}

int audit_view_read(sd_bus_message *m, AuditEventView *ret)
{
        const char *path = NULL;
        const void *p = NULL;
        size_t size = 0;
        int r;

        *ret = (AuditEventView) { .partial = -1 };
        r = sd_bus_message_read(m, "tsuss", &ret->realtime_usec, &ret->source, &ret->pid, &ret->comm, &ret->exe);
        if (r >= 0)
                r = sd_bus_message_read_array(m, 'i', &p, &size);
        if (r >= 0)
                r = sd_bus_message_read(m, "su", &path, &ret->repeats);
        if (r < 0)
                return r;
        ret->name = p;
        ret->n_name = size / sizeof(int32_t);
        audit_view_set_path(ret, path);
        return 0;
}

void audit_view_format_time(uint64_t usec, char buf[static 32])
{
        time_t t = (time_t) (usec / 1000000);
        struct tm tm;

        if (usec == 0 || !localtime_r(&t, &tm) || strftime(buf, 32, "%Y-%m-%d %H:%M:%S", &tm) == 0)
                snprintf(buf, 32, "-");
}

const char *audit_view_format_pid(const AuditEventView *e, char buf[static 16])
{
        if (e->pid == 0)
                return "-";
        snprintf(buf, 16, "%" PRIu32, e->pid);
        return buf;
}

void audit_view_format_sysctl(const AuditEventView *e, char *buf, size_t size)
{
        size_t off = 0;

        if (size == 0)
                return;
        if (!isempty(e->path)) {
                snprintf(buf, size, "%s%s", e->path, e->partial > 0 ? PARTIAL_MARK : "");
                return;
        }
        if (e->n_name == 0) {
                snprintf(buf, size, "?");
                return;
        }
        buf[0] = '\0';
        for (size_t i = 0; i < e->n_name && off < size; i++)
                off += (size_t) snprintf(buf + off, size - off, "%s%" PRIi32, i > 0 ? "." : "", e->name[i]);
}

void audit_view_format_line(const AuditEventView *e, char *buf, size_t size)
{
        char when[32], pid[16], what[512];
        int n;

        audit_view_format_time(e->realtime_usec, when);
        audit_view_format_sysctl(e, what, sizeof what);
        n = snprintf(buf, size, "%s %s pid %s (%s%s%s) called sysctl(2) for %s", when, strempty(e->source),
                     audit_view_format_pid(e, pid), strempty(e->comm), isempty(e->exe) ? "" : ", ",
                     strempty(e->exe), what);
        if (e->repeats > 1 && n >= 0 && (size_t) n < size)
                snprintf(buf + n, size - (size_t) n, " (%" PRIu32 " times)", e->repeats);
}

void audit_view_json(JsonWriter *w, const AuditEventView *e)
{
        json_begin_object(w);
        json_field_uint(w, "realtime_usec", e->realtime_usec);
        json_field_string(w, "source", strempty(e->source));
        json_field_uint(w, "pid", e->pid);
        json_field_string(w, "comm", strempty(e->comm));
        json_field_string(w, "exe", isempty(e->exe) ? NULL : e->exe);
        json_key(w, "name");
        json_begin_array(w);
        for (size_t i = 0; i < e->n_name; i++)
                json_int(w, e->name[i]);
        json_end_array(w);
        json_field_string(w, "path", isempty(e->path) ? NULL : e->path);
        if (e->partial >= 0) {
                /* Only when the daemon says: absent means "not known", not "complete". */
                json_field_bool(w, "path_partial", e->partial > 0);
        }
        json_field_uint(w, "repeats", e->repeats);
        json_end_object(w);
}
