/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * org.igmpd1.Link: the object path, properties (also as one GetManagedObjects entry and as the
 * JSON view), the vtable, object lookup and enumeration, and the change announcements
 * (InterfacesAdded / InterfacesRemoved, PropertiesChanged for what a link shows differently,
 * KnobOverridden: the links' observer and overridden hooks, plugged in by manager-bus.c).
 * Method handlers are link-bus-methods.c, ListLinksState link-bus-states.c.
 *
 * Knobs (a{s(iis)}): knob → (value in the kernel now or -1 if unavailable, effective policy value
 * or -1 if no source sets it, source: file path, "runtime", "runtime:persistent",
 * "NetworkManager:<id>", or "" when no source sets it). The kernel values are igmpd's, as link
 * events and the drift watch keep them; the calls that return them ask for an asynchronous
 * refresh (manager-refresh.c).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-util.h"
#include "json-link.h"
#include "link-bus.h"
#include "log.h"
#include "manager.h"

/* igmpd's own namespace's links keep the paths they always had (…/link/_3N); a followed
 * namespace's carry the namespace's inode too (…/link/ns4026532001_2fN): unique, and the same
 * for as long as the link lives. */
int link_bus_path(const Link *l, char **ret)
{
        char buf[48];

        if (l->ctx->netns_name)
                snprintf(buf, sizeof buf, "ns%" PRIu64 "/%d", l->ctx->netns_ino, l->ifindex);
        else
                snprintf(buf, sizeof buf, "%d", l->ifindex);
        return sd_bus_path_encode(BUS_LINK_PATH_PREFIX, buf, ret);
}

const char *link_bus_name(const Link *l, char buf[static LINK_BUS_NAME_MAX + 1])
{
        if (!l->ctx->netns_name)
                return l->ifname;
        snprintf(buf, LINK_BUS_NAME_MAX + 1, "%s/%s", l->ctx->netns_name, strempty(l->ifname));
        return buf;
}

const char *link_mac_string(const Link *l, char buf[static 18])
{
        const uint8_t *a = l->mac.ether_addr_octet;

        if (!l->has_mac)
                return "";
        snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x", a[0], a[1], a[2], a[3], a[4], a[5]);
        return buf;
}

void link_bus_status(Link *l, LinkStatus *ret, const char **matched)
{
        *ret = (LinkStatus) {
                .ifindex = l->ifindex,
                .name = l->ifname,
                .alternative_names = (const char *const *) l->altnames,
                .kind = l->kind,
                .type = l->type,
                .state = link_state_to_string(link_get_state(l)),
                .last_error = l->last_error,
                .matched_files = matched,
                .ignored_source = l->ignored_source,
                .netns = l->ctx->netns_name,
        };
        (void) link_mac_string(l, ret->mac_address);
        for (size_t i = 0; i < l->n_matched; i++)
                matched[i] = l->matched[i]->path;
        matched[l->n_matched] = NULL;
        for (Knob k = 0; k < _KNOB_MAX; k++)
                ret->knobs[k] = (KnobStatus) {
                        .kernel = l->kernel_known[k] ? l->kernel[k] : KNOB_STATUS_UNKNOWN,
                        .policy = l->effective[k].set ? l->effective[k].value : KNOB_STATUS_UNKNOWN,
                        .source = knob_value_source(&l->effective[k]),
                };
}

/* ---- properties ---- */

/* The properties of org.igmpd1.Link in the vtable's order: (id, name, signature, the LinkChange
 * that announces it with PropertiesChanged, 0 for a constant). One list for the vtable,
 * GetManagedObjects' entries and PropertiesChanged. */
#define LINK_PROPERTIES(X)                                                      \
        X(INDEX, "Index", "i", 0)                                               \
        X(NAME, "Name", "s", LINK_CHANGE_NAME)                                  \
        X(NAME_BYTES, "NameBytes", "ay", LINK_CHANGE_NAME)                      \
        X(ALTNAMES, "AlternativeNames", "as", LINK_CHANGE_ALTNAMES)             \
        X(KIND, "Kind", "s", LINK_CHANGE_KIND)                                  \
        X(TYPE, "Type", "s", LINK_CHANGE_TYPE)                                  \
        X(MAC, "MACAddress", "s", LINK_CHANGE_MAC)                              \
        X(STATE, "State", "s", LINK_CHANGE_STATE)                               \
        X(KNOBS, "Knobs", "a{s(iis)}", LINK_CHANGE_KNOBS)                       \
        X(MATCHED_FILES, "MatchedFiles", "as", LINK_CHANGE_MATCHED_FILES)       \
        X(LAST_ERROR, "LastError", "s", LINK_CHANGE_LAST_ERROR)                 \
        X(IGNORED_SOURCES, "IgnoredSources", "as", LINK_CHANGE_IGNORED)         \
        X(NAMESPACE, "Namespace", "s", 0)                                       \
        X(NAMESPACE_ID, "NamespaceId", "t", 0)

typedef enum LinkProperty {
#define LINK_PROPERTY_ENUM(id, name, signature, change) LINK_PROPERTY_##id,
        LINK_PROPERTIES(LINK_PROPERTY_ENUM)
        _LINK_PROPERTY_MAX,
} LinkProperty;

static const struct {
        const char *name, *signature;
        LinkChange change;
} link_properties[_LINK_PROPERTY_MAX] = {
#define LINK_PROPERTY_ROW(id, name, signature, change) [LINK_PROPERTY_##id] = { name, signature, change },
        LINK_PROPERTIES(LINK_PROPERTY_ROW)
};

/* One property's value. Names, paths and the messages that carry them are bytes: see
 * bus_message_append_escaped(). */
static int append_property_value(sd_bus_message *reply, const Link *l, LinkProperty p)
{
        char mac[18];
        int r;

        switch (p) {
        case LINK_PROPERTY_INDEX:
                return sd_bus_message_append_basic(reply, 'i', &l->ifindex);
        case LINK_PROPERTY_NAME:
                return bus_message_append_escaped(reply, l->ifname);
        case LINK_PROPERTY_NAME_BYTES:
                /* The name's bytes as the kernel has them, for a client that must tell
                 * "bad\xff" (escaped) from a name that is those seven characters. */
                return sd_bus_message_append_array(reply, 'y', strempty(l->ifname), strlen(strempty(l->ifname)));
        case LINK_PROPERTY_ALTNAMES:
                return bus_message_append_escaped_strv(reply, l->altnames);
        case LINK_PROPERTY_KIND:
                return bus_message_append_escaped(reply, l->kind);
        case LINK_PROPERTY_TYPE:
                return bus_message_append_escaped(reply, l->type);
        case LINK_PROPERTY_MAC:
                return bus_message_append_escaped(reply, link_mac_string(l, mac));
        case LINK_PROPERTY_STATE:
                return bus_message_append_escaped(reply, link_state_to_string(link_get_state(l)));
        case LINK_PROPERTY_KNOBS: /* kernel values as igmpd knows them (manager-refresh.c) */
                r = sd_bus_message_open_container(reply, 'a', "{s(iis)}");
                for (Knob k = 0; r >= 0 && k < _KNOB_MAX; k++) {
                        _cleanup_free_ char *escaped = NULL;
                        const char *source = bus_escape(knob_value_source(&l->effective[k]), &escaped);

                        r = source ? sd_bus_message_append(reply, "{s(iis)}", knob_to_string(k),
                                                           l->kernel_known[k] ? l->kernel[k] : -1,
                                                           l->effective[k].set ? l->effective[k].value : -1,
                                                           source)
                                   : -ENOMEM;
                }
                return bus_message_close_containers(reply, 1, r);
        case LINK_PROPERTY_MATCHED_FILES:
                r = sd_bus_message_open_container(reply, 'a', "s");
                for (size_t i = 0; r >= 0 && i < l->n_matched; i++)
                        r = bus_message_append_escaped(reply, l->matched[i]->path);
                return bus_message_close_containers(reply, 1, r);
        case LINK_PROPERTY_LAST_ERROR:
                return bus_message_append_escaped(reply, l->last_error);
        case LINK_PROPERTY_IGNORED_SOURCES:
                /* A source that would set values here but is ignored (a user's NetworkManager
                 * profile), with why. */
                return bus_message_append_escaped_strv(reply, (char *const[]) { l->ignored_source, NULL });
        case LINK_PROPERTY_NAMESPACE:
                /* Its name under /run/netns, ".host" for igmpd's own. */
                return bus_message_append_escaped(reply, l->ctx->netns_name ?: ".host");
        case LINK_PROPERTY_NAMESPACE_ID:
                return sd_bus_message_append_basic(reply, 't', &l->ctx->netns_ino);
        default:
                return -EINVAL;
        }
}

static int property_get(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        for (LinkProperty p = 0; p < _LINK_PROPERTY_MAX; p++)
                if (streq(link_properties[p].name, property))
                        return append_property_value(reply, userdata, p);
        return -ENOENT;
}

int link_bus_append_object(sd_bus_message *reply, const Link *l)
{
        /* What sd-bus's own ObjectManager lists for an object before its vtable interfaces. */
        static const char *const standard[] = {
                "org.freedesktop.DBus.Peer",
                "org.freedesktop.DBus.Introspectable",
                "org.freedesktop.DBus.Properties",
        };
        _cleanup_free_ char *path = NULL;
        int r;

        r = link_bus_path(l, &path);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'e', "oa{sa{sv}}");
        if (r >= 0)
                r = sd_bus_message_append_basic(reply, 'o', path);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "{sa{sv}}");
        for (size_t i = 0; r >= 0 && i <= ELEMENTSOF(standard); i++) {
                bool link = i == ELEMENTSOF(standard); /* then org.igmpd1.Link, every property */

                r = sd_bus_message_open_container(reply, 'e', "sa{sv}");
                if (r >= 0)
                        r = sd_bus_message_append_basic(reply, 's', link ? BUS_LINK_INTERFACE : standard[i]);
                if (r >= 0)
                        r = sd_bus_message_open_container(reply, 'a', "{sv}");
                for (LinkProperty p = 0; link && r >= 0 && p < _LINK_PROPERTY_MAX; p++) {
                        r = sd_bus_message_open_container(reply, 'e', "sv");
                        if (r >= 0)
                                r = sd_bus_message_append_basic(reply, 's', link_properties[p].name);
                        if (r >= 0)
                                r = sd_bus_message_open_container(reply, 'v', link_properties[p].signature);
                        if (r >= 0)
                                r = append_property_value(reply, l, p);
                        r = bus_message_close_containers(reply, 2, r); /* v, {sv} */
                }
                r = bus_message_close_containers(reply, 2, r); /* a{sv}, {sa{sv}} */
        }
        return bus_message_close_containers(reply, 2, r); /* a{sa{sv}}, {oa{sa{sv}}} */
}

/* ---- objects ---- */

int bus_link_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
                  sd_bus_error *error)
{
        _cleanup_free_ char *e = NULL, *canonical = NULL;
        Manager *m = ((BusContext *) userdata)->manager;
        unsigned long long ino;
        int idx, n = 0;
        Link *l;

        if (sd_bus_path_decode(path, BUS_LINK_PATH_PREFIX, &e) <= 0 || isempty(e))
                return 0;
        if (sscanf(e, "ns%llu/%n", &ino, &n) == 1 && n > 0) {
                m = manager_netns_by_ino(m, ino);
                if (!m)
                        return 0;
        }
        /* Only the path as link_bus_path() writes it: no sign, no leading 0, no trailing bytes. */
        if (sscanf(e + n, "%d", &idx) != 1 || !(l = manager_get_link(m, idx)) || link_bus_path(l, &canonical) < 0 ||
            !streq(canonical, path))
                return 0;
        *found = l;
        return 1;
}

int bus_link_node_enumerator(sd_bus *bus, const char *path, void *userdata, char ***nodes,
                             sd_bus_error *error)
{
        _cleanup_free_ Link **links = NULL;
        _cleanup_strv_free_ char **l = NULL;
        Manager *m = ((BusContext *) userdata)->manager;
        size_t n = 0;
        int r;

        r = manager_sorted_links(m, &links, &n);
        if (r < 0)
                return r;
        l = calloc(n + 1, sizeof *l);
        if (!l)
                return -ENOMEM;
        for (size_t i = 0; r >= 0 && i < n; i++)
                r = link_bus_path(links[i], &l[i]);
        if (r < 0)
                return r;
        *nodes = TAKE_PTR(l);
        return 1;
}

/* ---- change announcements ---- */

void link_bus_on_link(Link *l, LinkEvent event, const LinkSnapshot *before, void *userdata)
{
        static const char *const signals[] = {
                [LINK_EVENT_ADDED] = "InterfacesAdded",
                [LINK_EVENT_CHANGED] = "PropertiesChanged",
                [LINK_EVENT_REMOVED] = "InterfacesRemoved",
        };
        BusContext *c = userdata;
        _cleanup_free_ char *path = NULL;
        char *names[_LINK_PROPERTY_MAX + 1]; /* of the properties the changes touch */
        unsigned changes;
        size_t n = 0;
        int r;

        /* Calls about the link that wait for polkit fail now, not when polkit answers (which,
         * with an authentication dialog open, may be minutes). */
        if (event == LINK_EVENT_REMOVED)
                bus_polkit_release_link(&c->polkit_queries, l->ifindex);
        if (!bus_is_up(c->bus) || (event == LINK_EVENT_REMOVED && !l->announced))
                return;
        changes = event == LINK_EVENT_CHANGED ? link_snapshot_diff(l, before) : 0;
        for (LinkProperty p = 0; p < _LINK_PROPERTY_MAX; p++)
                if (changes & link_properties[p].change)
                        names[n++] = (char *) link_properties[p].name;
        names[n] = NULL;
        if (event == LINK_EVENT_CHANGED && n == 0)
                return;

        r = link_bus_path(l, &path);
        if (r >= 0)
                r = event == LINK_EVENT_ADDED     ? sd_bus_emit_object_added(c->bus, path)
                    : event == LINK_EVENT_REMOVED ? sd_bus_emit_object_removed(c->bus, path)
                                                  : sd_bus_emit_properties_changed_strv(c->bus, path,
                                                                                        BUS_LINK_INTERFACE, names);
        if (r < 0)
                log_link_debug_errno(l, r, "Failed to send %s, ignoring: %m", signals[event]);
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

const sd_bus_vtable link_vtable[] = {
        SD_BUS_VTABLE_START(0),

#define LINK_PROPERTY_VTABLE(id, name, signature, change) \
        SD_BUS_PROPERTY(name, signature, property_get, 0,                                          \
                        (change) ? SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE : SD_BUS_VTABLE_PROPERTY_CONST),
        LINK_PROPERTIES(LINK_PROPERTY_VTABLE)

        /* SD_BUS_VTABLE_UNPRIVILEGED: sd-bus's own check is no gate; the handlers authorize. */
        SD_BUS_METHOD_WITH_NAMES("SetKnobs", "a{sv}u", SD_BUS_PARAM(knobs) SD_BUS_PARAM(flags), "", ,
                                 bus_link_method_set_knobs, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("Revert", "u", SD_BUS_PARAM(flags), "", , bus_link_method_revert,
                                 SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("RevertKnobs", "asu", SD_BUS_PARAM(knobs) SD_BUS_PARAM(flags), "a(sbs)",
                                 SD_BUS_PARAM(reverted), bus_link_method_revert, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Reconfigure", "", "", bus_link_method_reconfigure, SD_BUS_VTABLE_UNPRIVILEGED),

        SD_BUS_SIGNAL_WITH_NAMES("KnobOverridden", "siiiuss",
                                 SD_BUS_PARAM(knob) SD_BUS_PARAM(old_value) SD_BUS_PARAM(new_value)
                                 SD_BUS_PARAM(value) SD_BUS_PARAM(pid) SD_BUS_PARAM(comm) SD_BUS_PARAM(action), 0),

        SD_BUS_VTABLE_END,
};
