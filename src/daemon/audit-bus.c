/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * org.igmpd1.Audit: the deprecated sysctl(2) audit's D-Bus face (see audit-bus.h).
 */

#include <errno.h>
#include <stdio.h>

#include "audit-bus.h"
#include "bus-util.h"
#include "log.h"
#include "manager.h"
#include "utf8.h"

/* DeprecatedSysctl(t realtime_usec, s source, u pid, s comm, s exe, ai name, s path, u repeats);
 * path ends in SYSCTL_PATH_PARTIAL_MARK when only part of the name was translated. comm, exe and
 * path were escaped when the event was made (audit_event_fill()). */
static int append_event(sd_bus_message *m, const AuditEvent *e)
{
        _cleanup_free_ char *marked = NULL;
        const char *path = strempty(e->path);
        int r;

        if (!isempty(e->path) && !e->complete) {
                if (asprintf(&marked, "%s%s", e->path, SYSCTL_PATH_PARTIAL_MARK) < 0)
                        return -ENOMEM;
                path = marked;
        }

        r = sd_bus_message_append(m, "tsuss", e->realtime_usec, strempty(audit_event_source_to_string(e->source)),
                                  e->pid, strempty(e->comm), strempty(e->exe));
        if (r >= 0)
                r = sd_bus_message_append_array(m, 'i', e->name, e->n_name * sizeof(int32_t));
        return r < 0 ? r : sd_bus_message_append(m, "su", path, e->repeats);
}

void audit_bus_on_event(const AuditEvent *e, void *userdata)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *s = NULL;
        BusContext *c = userdata;
        int r;

        if (!bus_is_up(c->bus))
                return;
        if (!e) {
                r = sd_bus_emit_properties_changed(c->bus, BUS_MANAGER_PATH, BUS_AUDIT_INTERFACE, "Sources",
                                                   "SourceStates", "Coverage", NULL);
                if (r < 0)
                        log_debug_errno(r, "Failed to send PropertiesChanged for Sources, ignoring: %m");
                return;
        }
        r = sd_bus_message_new_signal(c->bus, &s, BUS_MANAGER_PATH, BUS_AUDIT_INTERFACE, "DeprecatedSysctl");
        if (r >= 0)
                r = append_event(s, e);
        if (r >= 0)
                r = sd_bus_send(c->bus, s, NULL);
        if (r < 0)
                log_warning_errno(r, "Failed to send the DeprecatedSysctl signal, ignoring: %m");
}

void audit_bus_active_sources(const AuditManager *a, const char *ret[static _AUDIT_EVENT_SOURCE_MAX + 1])
{
        size_t n = 0;

        for (AuditEventSource s = 0; s < _AUDIT_EVENT_SOURCE_MAX; s++)
                if (audit_manager_source_active(a, s))
                        ret[n++] = audit_event_source_to_string(s);
        ret[n] = NULL;
}

static int bus_audit_method_list_events(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
        const AuditManager *a = ((BusContext *) userdata)->manager->audit;
        sd_bus_message *reply = NULL;
        int r;

        r = bus_reply_open(message, 'a', "(tsussaisu)", &reply);
        for (size_t i = 0; r >= 0 && a && i < a->history.n; i++) {
                r = sd_bus_message_open_container(reply, 'r', "tsussaisu");
                if (r >= 0)
                        r = append_event(reply, audit_history_get(&a->history, i));
                r = bus_message_close_containers(reply, 1, r);
        }
        return bus_reply_close_and_send(reply, r);
}

static int property_get_sources(sd_bus *bus, const char *path, const char *interface, const char *property,
                                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        const char *l[_AUDIT_EVENT_SOURCE_MAX + 1];

        audit_bus_active_sources(((BusContext *) userdata)->manager->audit, l);
        return sd_bus_message_append_strv(reply, (char **) l);
}

static int property_get_source_states(sd_bus *bus, const char *path, const char *interface, const char *property,
                                      sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        const AuditManager *a = ((BusContext *) userdata)->manager->audit;
        int r;

        r = sd_bus_message_open_container(reply, 'a', "(sss)");
        for (AuditEventSource s = 0; r >= 0 && s < _AUDIT_EVENT_SOURCE_MAX; s++) {
                char note[256], shown[UTF8_ESCAPED_SIZE(256)]; /* may quote a path */
                RunState st = audit_manager_source_state(a, s, note, sizeof note);

                r = sd_bus_message_append(reply, "(sss)", audit_event_source_to_string(s),
                                          run_state_to_string(st),
                                          utf8_escape(note, UTF8_ESCAPE_INVALID, shown));
        }
        return bus_message_close_containers(reply, 1, r);
}

/* (coverage, advice): "some", "starting", "uncertain" or "none", and what to change to see calls. */
static int property_get_coverage(sd_bus *bus, const char *path, const char *interface, const char *property,
                                 sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        const AuditManager *a = ((BusContext *) userdata)->manager->audit;
        char advice[1024], shown[UTF8_ESCAPED_SIZE(1024)];
        AuditCoverage c = audit_manager_coverage(a, advice, sizeof advice);

        return sd_bus_message_append(reply, "(ss)", audit_coverage_to_string(c),
                                     utf8_escape(advice, UTF8_ESCAPE_INVALID, shown));
}

const sd_bus_vtable audit_vtable[] = {
        SD_BUS_VTABLE_START(0),

        SD_BUS_PROPERTY("Sources", "as", property_get_sources, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("SourceStates", "a(sss)", property_get_source_states, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Coverage", "(ss)", property_get_coverage, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),

        SD_BUS_METHOD_WITH_NAMES("ListEvents", "", , "a(tsussaisu)", SD_BUS_PARAM(events),
                                 bus_audit_method_list_events, SD_BUS_VTABLE_UNPRIVILEGED),

        SD_BUS_SIGNAL_WITH_NAMES("DeprecatedSysctl", "tsussaisu",
                                 SD_BUS_PARAM(realtime_usec) SD_BUS_PARAM(source) SD_BUS_PARAM(pid)
                                 SD_BUS_PARAM(comm) SD_BUS_PARAM(exe) SD_BUS_PARAM(name) SD_BUS_PARAM(path)
                                 SD_BUS_PARAM(repeats), 0),

        SD_BUS_VTABLE_END,
};
