/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The change announcements of the link objects: InterfacesAdded / InterfacesRemoved,
 * PropertiesChanged for what a link shows differently, and KnobOverridden. The links' observer
 * and overridden hooks (LinkContext), plugged in by manager-bus.c.
 */

#include "bus-util.h"
#include "link-bus.h"
#include "log.h"

static void link_bus_emit_changes(sd_bus *bus, Link *l, const LinkSnapshot *before)
{
        _cleanup_free_ char *path = NULL;
        char *names[LINK_BUS_PROPERTIES_MAX + 1];
        int r;

        if (link_bus_changed_properties(link_snapshot_diff(l, before), names) == 0)
                return;

        r = link_bus_path(l, &path);
        if (r >= 0)
                r = sd_bus_emit_properties_changed_strv(bus, path, BUS_LINK_INTERFACE, names);
        if (r < 0)
                log_link_debug_errno(l, r, "Failed to send PropertiesChanged, ignoring: %m");
}

/* InterfacesAdded or InterfacesRemoved for the link's object. */
static void link_bus_emit_object(sd_bus *bus, Link *l, bool added)
{
        _cleanup_free_ char *path = NULL;
        int r;

        r = link_bus_path(l, &path);
        if (r >= 0)
                r = added ? sd_bus_emit_object_added(bus, path) : sd_bus_emit_object_removed(bus, path);
        if (r < 0)
                log_link_debug_errno(l, r, "Failed to send Interfaces%s, ignoring: %m", added ? "Added" : "Removed");
}

void link_bus_on_link(Link *l, LinkEvent event, const LinkSnapshot *before, void *userdata)
{
        BusContext *c = userdata;

        /* Calls about the link that wait for polkit fail now, not when polkit answers (which,
         * with an authentication dialog open, may be minutes). */
        if (event == LINK_EVENT_REMOVED)
                bus_polkit_release_link(&c->polkit_registry, l->ifindex);
        if (!bus_is_up(c->bus))
                return;
        switch (event) {
        case LINK_EVENT_ADDED:
                link_bus_emit_object(c->bus, l, true);
                break;
        case LINK_EVENT_CHANGED:
                link_bus_emit_changes(c->bus, l, before);
                break;
        case LINK_EVENT_REMOVED:
                if (l->announced)
                        link_bus_emit_object(c->bus, l, false);
                break;
        }
}

void link_bus_on_override(Link *l, const LinkOverride *o, void *userdata)
{
        BusContext *c = userdata;
        _cleanup_free_ char *path = NULL;
        int32_t old = o->old_known ? o->old_value : -1;
        int r;

        if (!bus_is_up(c->bus))
                return;
        r = link_bus_path(l, &path);
        if (r >= 0) /* comm is escaped already (drift.c) */
                r = sd_bus_emit_signal(c->bus, path, BUS_LINK_INTERFACE, "KnobOverridden", "siiiuss",
                                       knob_to_string(o->knob), old, o->new_value, o->value, o->pid, o->comm,
                                       link_override_action_to_string(o->action));
        if (r < 0)
                log_link_debug_errno(l, r, "Failed to send KnobOverridden, ignoring: %m");
}
