/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * org.igmpd1.Link: properties, methods, object lookup and change signals.
 *
 * Knobs (a{s(iis)}): knob → (value in the kernel now or -1 if unavailable, effective policy value
 * or -1 if no source sets it, source: file path, "runtime", "runtime:persistent",
 * "NetworkManager:<id>", or "" when no source sets it). The kernel values are igmpd's, as link
 * events and the drift watch keep them; the calls that return them ask for an asynchronous
 * refresh (manager-refresh.c).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-util.h"
#include "conf-files.h"
#include "json-link.h"
#include "link-bus.h"
#include "log.h"
#include "manager.h"
#include "nm.h"
#include "strpool.h"
#include "strv.h"

int link_bus_path(int ifindex, char **ret)
{
        char buf[16];

        snprintf(buf, sizeof buf, "%d", ifindex);
        return sd_bus_path_encode(BUS_LINK_PATH_PREFIX, buf, ret);
}

/* "aa:bb:cc:dd:ee:ff", or "" for a link without a 6-byte hardware address. */
static const char *link_mac_string(const Link *l, char buf[static 18])
{
        const uint8_t *a = l->mac.ether_addr_octet;

        if (!l->has_mac)
                return "";
        snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x", a[0], a[1], a[2], a[3], a[4], a[5]);
        return buf;
}

/* ---- change announcements ---- */

/* The face of the link's BusContext: the links' observer userdata (manager-bus.c plugs it in). */
static BusContext *link_bus_context(const Link *l)
{
        return l->ctx->observer_userdata;
}

static void link_bus_emit_changes(sd_bus *bus, Link *l, const LinkSnapshot *before)
{
        static const struct {
                LinkChange change;
                const char *property;
        } properties[] = {
                { LINK_CHANGE_NAME, "Name" },
                { LINK_CHANGE_NAME, "NameBytes" },
                { LINK_CHANGE_ALTNAMES, "AlternativeNames" },
                { LINK_CHANGE_KIND, "Kind" },
                { LINK_CHANGE_TYPE, "Type" },
                { LINK_CHANGE_MAC, "MACAddress" },
                { LINK_CHANGE_STATE, "State" },
                { LINK_CHANGE_KNOBS, "Knobs" },
                { LINK_CHANGE_MATCHED_FILES, "MatchedFiles" },
                { LINK_CHANGE_LAST_ERROR, "LastError" },
                { LINK_CHANGE_IGNORED, "IgnoredSources" },
        };
        _cleanup_free_ char *path = NULL;
        char *names[ELEMENTSOF(properties) + 1];
        unsigned changes = link_snapshot_diff(l, before);
        size_t n = 0;
        int r;

        for (size_t i = 0; i < ELEMENTSOF(properties); i++)
                if (changes & properties[i].change)
                        names[n++] = (char *) properties[i].property;
        names[n] = NULL;
        if (n == 0)
                return;

        r = link_bus_path(l->ifindex, &path);
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

        r = link_bus_path(l->ifindex, &path);
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
        r = link_bus_path(l->ifindex, &path);
        if (r >= 0)
                r = sd_bus_emit_signal(c->bus, path, BUS_LINK_INTERFACE, "KnobOverridden", "siiiuss",
                                       knob_to_string(o->knob), old, o->new_value, o->value, o->pid, o->comm,
                                       link_override_action_to_string(o->action));
        if (r < 0)
                log_link_debug_errno(l, r, "Failed to send KnobOverridden, ignoring: %m");
}

void link_bus_status(Link *l, LinkStatus *ret, const char **matched)
{

        *ret = (LinkStatus) {
                .ifindex = l->ifindex,
                .name = l->ifname,
                .alternative_names = (const char *const *) l->altnames,
                .kind = l->kind,
                .type = l->type,
                .state = link_state_to_string(l->state),
                .last_error = l->last_error,
                .matched_files = matched,
                .ignored_source = l->ignored_source,
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

/* Names, paths and messages that carry them are bytes: see bus_message_append_escaped(). */
static int property_get_string(sd_bus_message *reply, const char *s)
{
        return bus_message_append_escaped(reply, s);
}

static int property_get_name(sd_bus *bus, const char *path, const char *interface, const char *property,
                             sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        return property_get_string(reply, ((Link *) userdata)->ifname);
}

/* The name's bytes as the kernel has them, for a client that must tell "bad\xff" (escaped) from
 * a name that is those seven characters. */
static int append_name_bytes(sd_bus_message *reply, const Link *l)
{
        const char *n = strempty(l->ifname);

        return sd_bus_message_append_array(reply, 'y', n, strlen(n));
}

static int property_get_name_bytes(sd_bus *bus, const char *path, const char *interface,
                                   const char *property, sd_bus_message *reply, void *userdata,
                                   sd_bus_error *error)
{
        return append_name_bytes(reply, userdata);
}

static int property_get_kind(sd_bus *bus, const char *path, const char *interface, const char *property,
                             sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        return property_get_string(reply, ((Link *) userdata)->kind);
}

static int property_get_type(sd_bus *bus, const char *path, const char *interface, const char *property,
                             sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        return property_get_string(reply, ((Link *) userdata)->type);
}

static int property_get_mac(sd_bus *bus, const char *path, const char *interface, const char *property,
                            sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        char buf[18];

        return property_get_string(reply, link_mac_string(userdata, buf));
}

static int append_altnames(sd_bus_message *reply, const Link *l)
{
        return bus_message_append_escaped_strv(reply, l->altnames);
}

static int property_get_altnames(sd_bus *bus, const char *path, const char *interface,
                                 const char *property, sd_bus_message *reply, void *userdata,
                                 sd_bus_error *error)
{
        return append_altnames(reply, userdata);
}

static int property_get_state(sd_bus *bus, const char *path, const char *interface, const char *property,
                              sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        return property_get_string(reply, link_state_to_string(((Link *) userdata)->state));
}

static int property_get_last_error(sd_bus *bus, const char *path, const char *interface,
                                   const char *property, sd_bus_message *reply, void *userdata,
                                   sd_bus_error *error)
{
        return property_get_string(reply, ((Link *) userdata)->last_error);
}

/* The values of Knobs and MatchedFiles, shared by the property getters and by
 * link_bus_append_object(). Plain append_basic: GetManagedObjects appends these for every link. */
static int append_knobs(sd_bus_message *reply, const Link *l)
{
        int r;

        /* Kernel values as igmpd knows them (manager-refresh.c). */
        r = sd_bus_message_open_container(reply, 'a', "{s(iis)}");
        for (Knob k = 0; r >= 0 && k < _KNOB_MAX; k++) {
                int32_t kernel = l->kernel_known[k] ? l->kernel[k] : -1;
                int32_t policy = l->effective[k].set ? l->effective[k].value : -1;
                const char *source = strempty(knob_value_source(&l->effective[k]));

                r = sd_bus_message_open_container(reply, 'e', "s(iis)");
                if (r >= 0)
                        r = sd_bus_message_append_basic(reply, 's', knob_to_string(k));
                if (r >= 0)
                        r = sd_bus_message_open_container(reply, 'r', "iis");
                if (r >= 0)
                        r = sd_bus_message_append_basic(reply, 'i', &kernel);
                if (r >= 0)
                        r = sd_bus_message_append_basic(reply, 'i', &policy);
                if (r >= 0)
                        r = bus_message_append_escaped(reply, source);
                if (r >= 0)
                        r = sd_bus_message_close_container(reply);
                if (r >= 0)
                        r = sd_bus_message_close_container(reply);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        return r;
}

static int append_matched_files(sd_bus_message *reply, const Link *l)
{
        int r;

        r = sd_bus_message_open_container(reply, 'a', "s");
        for (size_t i = 0; r >= 0 && i < l->n_matched; i++)
                r = bus_message_append_escaped(reply, l->matched[i]->path);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        return r;
}

/* A source that would set values here but is ignored (a user's NetworkManager profile), with why. */
static int append_ignored_sources(sd_bus_message *reply, const Link *l)
{
        int r;

        r = sd_bus_message_open_container(reply, 'a', "s");
        if (r >= 0 && l->ignored_source)
                r = sd_bus_message_append_basic(reply, 's', l->ignored_source);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        return r;
}

static int property_get_ignored_sources(sd_bus *bus, const char *path, const char *interface,
                                        const char *property, sd_bus_message *reply, void *userdata,
                                        sd_bus_error *error)
{
        return append_ignored_sources(reply, userdata);
}

static int property_get_knobs(sd_bus *bus, const char *path, const char *interface, const char *property,
                              sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        return append_knobs(reply, userdata);
}

static int property_get_matched_files(sd_bus *bus, const char *path, const char *interface,
                                      const char *property, sd_bus_message *reply, void *userdata,
                                      sd_bus_error *error)
{
        return append_matched_files(reply, userdata);
}

/* One variant property, "{sv}", of a string value. */
static int append_string_property(sd_bus_message *reply, const char *name, const char *value)
{
        int r;

        r = sd_bus_message_open_container(reply, 'e', "sv");
        if (r >= 0)
                r = sd_bus_message_append_basic(reply, 's', name);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'v', "s");
        if (r >= 0)
                r = bus_message_append_escaped(reply, value);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        return r;
}

static int append_property(sd_bus_message *reply, const char *name, const char *signature,
                           int (*append)(sd_bus_message *reply, const Link *l), const Link *l)
{
        int r;

        r = sd_bus_message_open_container(reply, 'e', "sv");
        if (r >= 0)
                r = sd_bus_message_append_basic(reply, 's', name);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'v', signature);
        if (r >= 0)
                r = append(reply, l);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        return r;
}

static int append_index(sd_bus_message *reply, const Link *l)
{
        return sd_bus_message_append_basic(reply, 'i', &l->ifindex);
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
        char mac[18];
        int r;

        r = link_bus_path(l->ifindex, &path);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'e', "oa{sa{sv}}");
        if (r >= 0)
                r = sd_bus_message_append_basic(reply, 'o', path);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "{sa{sv}}");
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(standard); i++) {
                r = sd_bus_message_open_container(reply, 'e', "sa{sv}");
                if (r >= 0)
                        r = sd_bus_message_append_basic(reply, 's', standard[i]);
                if (r >= 0)
                        r = sd_bus_message_open_container(reply, 'a', "{sv}");
                if (r >= 0)
                        r = sd_bus_message_close_container(reply);
                if (r >= 0)
                        r = sd_bus_message_close_container(reply);
        }
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'e', "sa{sv}");
        if (r >= 0)
                r = sd_bus_message_append_basic(reply, 's', BUS_LINK_INTERFACE);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "{sv}");
        /* The properties in link_vtable's order. */
        if (r >= 0)
                r = append_property(reply, "Index", "i", append_index, l);
        if (r >= 0)
                r = append_string_property(reply, "Name", l->ifname);
        if (r >= 0)
                r = append_property(reply, "NameBytes", "ay", append_name_bytes, l);
        if (r >= 0)
                r = append_property(reply, "AlternativeNames", "as", append_altnames, l);
        if (r >= 0)
                r = append_string_property(reply, "Kind", l->kind);
        if (r >= 0)
                r = append_string_property(reply, "Type", l->type);
        if (r >= 0)
                r = append_string_property(reply, "MACAddress", link_mac_string(l, mac));
        if (r >= 0)
                r = append_string_property(reply, "State", link_state_to_string(l->state));
        if (r >= 0)
                r = append_property(reply, "Knobs", "a{s(iis)}", append_knobs, l);
        if (r >= 0)
                r = append_property(reply, "MatchedFiles", "as", append_matched_files, l);
        if (r >= 0)
                r = append_string_property(reply, "LastError", l->last_error);
        if (r >= 0)
                r = append_property(reply, "IgnoredSources", "as", append_ignored_sources, l);
        for (int i = 0; r >= 0 && i < 4; i++) /* a{sv}, {sa{sv}}, a{sa{sv}}, {oa{sa{sv}}} */
                r = sd_bus_message_close_container(reply);
        return r;
}

/* ---- ListLinksState ---- */

/* A link's strings as indexes into the reply's string table; the alternative names, matched
 * files and ignored sources are n_altnames + n_matched + n_ignored indexes in the shared extra
 * array from first. */
typedef struct LinkStateRow {
        uint32_t name, type, kind, mac, state, last_error, source[_KNOB_MAX];
        size_t first;
        uint32_t n_altnames, n_matched, n_ignored;
        char mac_buf[18]; /* the pool borrows it: rows do not move once filled */
} LinkStateRow;

typedef struct IndexArray {
        uint32_t *v;
        size_t n, n_alloc;
} IndexArray;

static int index_array_push(IndexArray *a, uint32_t i)
{
        if (a->n == a->n_alloc) {
                size_t n_alloc = a->n_alloc * 2 + 256;
                uint32_t *v = realloc(a->v, n_alloc * sizeof *v);

                if (!v)
                        return -ENOMEM;
                a->v = v;
                a->n_alloc = n_alloc;
        }
        a->v[a->n++] = i;
        return 0;
}

/* Names, alternative names and addresses are each link's own (and chosen by whoever names
 * links): appended without a lookup. What links share is interned: one entry each. */
static int link_state_row(const Link *l, StrPool *pool, IndexArray *extra, LinkStateRow *row)
{
        int r;

        r = strpool_add(pool, l->ifname, &row->name);
        if (r >= 0)
                r = strpool_intern(pool, l->type, &row->type);
        if (r >= 0)
                r = strpool_intern(pool, l->kind, &row->kind);
        if (r >= 0)
                r = strpool_add(pool, link_mac_string(l, row->mac_buf), &row->mac);
        if (r >= 0)
                r = strpool_intern(pool, link_state_to_string(l->state), &row->state);
        if (r >= 0)
                r = strpool_intern(pool, l->last_error, &row->last_error);
        for (Knob k = 0; r >= 0 && k < _KNOB_MAX; k++)
                r = strpool_intern(pool, knob_value_source(&l->effective[k]), &row->source[k]);
        row->first = extra->n;
        for (char **a = l->altnames; r >= 0 && a && *a; a++) {
                uint32_t i;

                r = strpool_add(pool, *a, &i);
                if (r >= 0)
                        r = index_array_push(extra, i);
                row->n_altnames++;
        }
        for (size_t m = 0; r >= 0 && m < l->n_matched; m++) {
                uint32_t i;

                r = strpool_intern(pool, l->matched[m]->path, &i);
                if (r >= 0)
                        r = index_array_push(extra, i);
                row->n_matched++;
        }
        if (r >= 0 && l->ignored_source) {
                uint32_t i;

                r = strpool_intern(pool, l->ignored_source, &i);
                if (r >= 0)
                        r = index_array_push(extra, i);
                row->n_ignored++;
        }
        return r;
}

static int link_state_append(sd_bus_message *reply, const Link *l, const LinkStateRow *row, const uint32_t *extra)
{
        int32_t kernel[_KNOB_MAX], policy[_KNOB_MAX];
        int r;

        for (Knob k = 0; k < _KNOB_MAX; k++) {
                kernel[k] = l->kernel_known[k] ? l->kernel[k] : -1;
                policy[k] = l->effective[k].set ? l->effective[k].value : -1;
        }
        r = sd_bus_message_open_container(reply, 'r', LINK_STATE_SIGNATURE);
        if (r >= 0)
                r = sd_bus_message_append(reply, "iuuuuuu", l->ifindex, row->name, row->type, row->kind, row->mac,
                                          row->state, row->last_error);
        if (r >= 0)
                r = sd_bus_message_append_array(reply, 'u', extra + row->first, row->n_altnames * sizeof *extra);
        if (r >= 0)
                r = sd_bus_message_append_array(reply, 'u', extra + row->first + row->n_altnames,
                                                row->n_matched * sizeof *extra);
        if (r >= 0)
                r = sd_bus_message_append_array(reply, 'i', kernel, sizeof kernel);
        if (r >= 0)
                r = sd_bus_message_append_array(reply, 'i', policy, sizeof policy);
        if (r >= 0)
                r = sd_bus_message_append_array(reply, 'u', row->source, sizeof row->source);
        if (r >= 0)
                r = sd_bus_message_append_array(reply, 'u', extra + row->first + row->n_altnames + row->n_matched,
                                                row->n_ignored * sizeof *extra);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        return r;
}

int link_bus_append_states(sd_bus_message *reply, Link *const *links, size_t n)
{
        _cleanup_free_ LinkStateRow *rows = NULL;
        IndexArray extra = {};
        StrPool pool;
        int r;

        rows = calloc(MAX(n, (size_t) 1), sizeof *rows);
        if (!rows)
                return -ENOMEM;
        r = strpool_init(&pool);
        if (r < 0)
                return r;
        /* Strings first, so that a client reads the table before the rows that point into it. */
        for (size_t i = 0; r >= 0 && i < n; i++)
                r = link_state_row(links[i], &pool, &extra, &rows[i]);
        if (r >= 0)
                r = sd_bus_message_append_strv(reply, (char **) pool.strings); /* escaped by the pool */
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(" LINK_STATE_SIGNATURE ")");
        for (size_t i = 0; r >= 0 && i < n; i++)
                r = link_state_append(reply, links[i], &rows[i], extra.v ?: (const uint32_t[1]) { 0 });
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        strpool_done(&pool);
        free(extra.v);
        return r;
}

/* ---- methods ---- */

/* "igmpv3_unsolicited_report_interval=200ms, force_igmp_version=3" for the log. */
static const char *knob_settings_describe(const KnobSetting set[_KNOB_MAX], char *buf, size_t size)
{
        size_t off = 0;

        buf[0] = '\0';
        for (Knob k = 0; k < _KNOB_MAX && off < size; k++) {
                const KnobInfo *i = knob_info(k);
                int n;

                if (set[k].line == 0)
                        continue;
                if (i->kind == KNOB_KIND_INTERVAL)
                        n = snprintf(buf + off, size - off, "%s%s=%dms", off > 0 ? ", " : "", i->name, set[k].value);
                else if (set[k].value == 0)
                        n = snprintf(buf + off, size - off, "%s%s=auto", off > 0 ? ", " : "", i->name);
                else
                        n = snprintf(buf + off, size - off, "%s%s=%d", off > 0 ? ", " : "", i->name, set[k].value);
                if (n < 0)
                        break;
                off += (size_t) n;
        }
        return buf;
}

static int link_runtime_path(Manager *m, Link *l, RuntimeScope scope, char **ret)
{
        _cleanup_free_ char *dir = path_join_root(m->root, runtime_dirs[scope]);

        if (!dir || asprintf(ret, "%s/%s.conf", dir, l->ifname) < 0)
                return -ENOMEM;
        return 0;
}

/* The error of a configuration pass that failed; -ENODEV: the kernel had no such link any more
 * (it is gone from igmpd's table too). */
static int link_bus_configure_error(Link *l, sd_bus_error *error, int r, const char *what)
{
        if (r == -ENODEV)
                return bus_error_setf_escaped(error, BUS_ERROR_NO_SUCH_LINK, 0, "%s, but link %d vanished meanwhile.",
                                              what, l->ifindex);
        return bus_error_setf_escaped(error, SD_BUS_ERROR_FAILED, 0, "%s, but applying it failed: %s", what,
                                      l->last_error ?: strerror(-r));
}

int bus_link_method_set_knobs(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
        _cleanup_(link_unrefp) Link *l = link_ref(userdata); /* applying may find it gone */
        BusContext *c = link_bus_context(l);
        Manager *m = c->manager;
        _cleanup_free_ char *path = NULL;
        KnobArg args[KNOB_ARGS_MAX];
        KnobSetting set[_KNOB_MAX];
        RuntimeScope scope;
        bool persisted = false;
        char msg[512], who[128], values[384];
        uint32_t flags;
        size_t n = 0;
        int r;

        r = bus_message_read_knob_args(message, args, &n, error);
        if (r < 0)
                return r;
        r = sd_bus_message_read(message, "u", &flags);
        if (r < 0)
                return r;

        r = bus_flags_check("flags", flags, BUS_KNOBS_FLAGS_ALL, msg, sizeof msg);
        if (r >= 0)
                r = knob_args_check(args, n, m->link_ctx.knob_supported, set, msg, sizeof msg);
        if (r < 0)
                return bus_validate_error(error, r, msg);

        r = bus_verify_polkit_async(message, POLKIT_ACTION_SET_LINK, l->ifindex, &c->polkit_registry, error);
        if (r < 0)
                return r;
        if (r == 0)
                return 1; /* polkit will tell; the call comes back */

        scope = (flags & BUS_KNOBS_FLAG_PERSISTENT) ? RUNTIME_SCOPE_PERSIST : RUNTIME_SCOPE_RUN;
        r = link_runtime_path(m, l, scope, &path);
        if (r < 0)
                return r;

        r = runtime_config_set(m->runtime, m->root, l->ifname, scope, set, &persisted);
        if (r < 0 && persisted) {
                _cleanup_free_ char *run_path = NULL;

                (void) link_runtime_path(m, l, RUNTIME_SCOPE_RUN, &run_path);
                log_link_warning_errno(l, r, "Stored runtime change in %s, but failed to take the same knobs out "
                                       "of %s, whose values stay in force: %m", path, strna(run_path));
                (void) link_reconfigure(l);
                return sd_bus_error_set_errnof(error, r,
                                               "Stored in %s, but %s, whose temporary values override it, could "
                                               "not be updated: %s. The temporary values stay in force until "
                                               "that file can be changed (a reboot clears /run).",
                                               path, strna(run_path), strerror(-r));
        }
        if (r < 0) {
                log_link_warning_errno(l, r, "Failed to store runtime change in %s, nothing changed: %m",
                                       path);
                return bus_error_setf_escaped(error, NULL, r, "Failed to write %s: %s; nothing was changed.",
                                              path, strerror(-r));
        }
        log_link_info(l, "Runtime change by %s: %s; stored in %s.",
                      bus_describe_sender(message, who, sizeof who), knob_settings_describe(set, values, sizeof values),
                      path);

        r = link_reconfigure(l);
        if (r < 0) {
                _cleanup_free_ char *what = NULL;
                if (asprintf(&what, "Stored in %s", path) < 0)
                        return -ENOMEM;
                return link_bus_configure_error(l, error, r, what);
        }

        return sd_bus_reply_method_return(message, NULL);
}

int bus_link_method_revert(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
        _cleanup_(link_unrefp) Link *l = link_ref(userdata);
        BusContext *c = link_bus_context(l);
        Manager *m = c->manager;
        uint32_t flags;
        char msg[256], who[128];
        int r;

        r = sd_bus_message_read(message, "u", &flags);
        if (r < 0)
                return r;
        r = bus_flags_check("flags", flags, 0, msg, sizeof msg);
        if (r < 0)
                return bus_validate_error(error, r, msg);

        r = bus_verify_polkit_async(message, POLKIT_ACTION_SET_LINK, l->ifindex, &c->polkit_registry, error);
        if (r < 0)
                return r;
        if (r == 0)
                return 1;

        r = runtime_config_revert(m->runtime, m->root, l->ifname);
        if (r < 0) {
                log_link_warning_errno(l, r, "Failed to remove runtime changes: %m");
                return bus_error_setf_escaped(error, NULL, r, "Failed to remove the runtime files of %s: %s",
                                              l->ifname, strerror(-r));
        }
        if (r > 0)
                log_link_info(l, "Runtime changes reverted by %s.", bus_describe_sender(message, who, sizeof who));
        else
                log_link_debug(l, "Revert asked by %s: no runtime changes to revert.",
                               bus_describe_sender(message, who, sizeof who));

        r = link_reconfigure(l);
        if (r < 0)
                return link_bus_configure_error(l, error, r, "Reverted");
        return sd_bus_reply_method_return(message, NULL);
}

/* How long Reconfigure waits for NetworkManager's answer before replying with the values it
 * knows (NetworkManager's follow when its answer comes). */
#define RECONFIGURE_NM_WAIT_USEC (5 * 1000 * 1000ULL)

/* A Reconfigure call waiting for NetworkManager to be read again. */
typedef struct ReconfigureCall {
        sd_bus_message *message;
        Link *link;
        NMWait *wait;
        sd_event_source *timer;
} ReconfigureCall;

static ReconfigureCall *reconfigure_call_free(ReconfigureCall *c)
{
        if (!c)
                return NULL;
        nm_wait_cancel(c->wait);
        sd_event_source_disable_unref(c->timer);
        sd_bus_message_unref(c->message);
        link_unref(c->link);
        free(c);
        return NULL;
}

static int reconfigure_and_reply(sd_bus_message *message, Link *l)
{
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = link_reconfigure(l);
        if (r == -ENODEV)
                (void) sd_bus_error_setf(&error, BUS_ERROR_NO_SUCH_LINK, "Link %d vanished.", l->ifindex);
        else if (r < 0)
                (void) bus_error_setf_escaped(&error, SD_BUS_ERROR_FAILED, 0, "Reconfiguring %s failed: %s",
                                              l->ifname, l->last_error ?: strerror(-r));
        if (sd_bus_error_is_set(&error))
                return sd_bus_reply_method_error(message, &error);
        return sd_bus_reply_method_return(message, NULL);
}

static void reconfigure_on_nm_read(bool freeing, void *userdata)
{
        ReconfigureCall *c = userdata;

        c->wait = NULL; /* the NetworkManager layer frees it */
        if (!freeing)
                (void) reconfigure_and_reply(c->message, c->link);
        reconfigure_call_free(c);
}

static int reconfigure_on_timeout(sd_event_source *s, uint64_t usec, void *userdata)
{
        ReconfigureCall *c = userdata;

        log_link_info(c->link, "NetworkManager did not answer within %llu s; reconfigured with the values known, "
                      "its own apply when it answers.", RECONFIGURE_NM_WAIT_USEC / 1000000ULL);
        (void) reconfigure_and_reply(c->message, c->link);
        reconfigure_call_free(c);
        return 0;
}

int bus_link_method_reconfigure(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
        _cleanup_(link_unrefp) Link *l = link_ref(userdata);
        BusContext *c = link_bus_context(l);
        ReconfigureCall *call;
        int r;

        r = bus_verify_polkit_async(message, POLKIT_ACTION_SET_LINK, l->ifindex, &c->polkit_registry, error);
        if (r < 0)
                return r;
        if (r == 0)
                return 1;

        log_link_debug(l, "Reconfiguring on request of %s.", strna(sd_bus_message_get_sender(message)));
        /* NetworkManager does not announce a reapply: read what it applied now, and reply once
         * that is in, so that `igmpctl nm --reapply` returns with the values in force. */
        call = calloc(1, sizeof *call);
        if (!call)
                return -ENOMEM;
        r = nm_resync(c->manager->nm, reconfigure_on_nm_read, call, &call->wait);
        if (r != 0) {
                free(call);
                return r < 0 ? r : reconfigure_and_reply(message, l);
        }
        call->message = sd_bus_message_ref(message);
        call->link = link_ref(l);
        r = sd_event_add_time_relative(c->manager->event, &call->timer, CLOCK_MONOTONIC, RECONFIGURE_NM_WAIT_USEC,
                                       0, reconfigure_on_timeout, call);
        if (r < 0) {
                reconfigure_call_free(call);
                return r;
        }
        return 1;
}

/* ---- objects ---- */

int bus_link_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
                  sd_bus_error *error)
{
        _cleanup_free_ char *e = NULL;
        Manager *m = ((BusContext *) userdata)->manager;
        char *end;
        long idx;
        Link *l;

        if (sd_bus_path_decode(path, BUS_LINK_PATH_PREFIX, &e) <= 0 || isempty(e))
                return 0;
        errno = 0;
        idx = strtol(e, &end, 10);
        if (errno != 0 || *end != '\0' || idx <= 0 || idx > INT32_MAX || e[0] == '0' || e[0] == '+')
                return 0;
        l = manager_get_link(m, (int) idx);
        if (!l)
                return 0;
        *found = l;
        return 1;
}

int bus_link_node_enumerator(sd_bus *bus, const char *path, void *userdata, char ***nodes,
                             sd_bus_error *error)
{
        _cleanup_free_ void **links = NULL;
        Manager *m = ((BusContext *) userdata)->manager;
        char **l;
        size_t n = 0;
        int r;

        r = intmap_values(&m->links, &links, &n);
        if (r < 0)
                return r;
        l = calloc(n + 1, sizeof *l);
        if (!l)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                r = link_bus_path(((Link *) links[i])->ifindex, &l[i]);
                if (r < 0) {
                        strv_freep(&l);
                        return r;
                }
        }
        *nodes = l;
        return 1;
}

const sd_bus_vtable link_vtable[] = {
        SD_BUS_VTABLE_START(0),

        SD_BUS_PROPERTY("Index", "i", NULL, offsetof(Link, ifindex), SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Name", "s", property_get_name, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("NameBytes", "ay", property_get_name_bytes, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("AlternativeNames", "as", property_get_altnames, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Kind", "s", property_get_kind, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Type", "s", property_get_type, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("MACAddress", "s", property_get_mac, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("State", "s", property_get_state, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Knobs", "a{s(iis)}", property_get_knobs, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("MatchedFiles", "as", property_get_matched_files, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("LastError", "s", property_get_last_error, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("IgnoredSources", "as", property_get_ignored_sources, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),

        /* SD_BUS_VTABLE_UNPRIVILEGED: sd-bus's own check is no gate; the handlers authorize. */
        SD_BUS_METHOD_WITH_NAMES("SetKnobs", "a{sv}u", SD_BUS_PARAM(knobs) SD_BUS_PARAM(flags), "", ,
                                 bus_link_method_set_knobs, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("Revert", "u", SD_BUS_PARAM(flags), "", , bus_link_method_revert,
                                 SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Reconfigure", "", "", bus_link_method_reconfigure, SD_BUS_VTABLE_UNPRIVILEGED),

        SD_BUS_SIGNAL_WITH_NAMES("KnobOverridden", "siiiuss",
                                 SD_BUS_PARAM(knob) SD_BUS_PARAM(old_value) SD_BUS_PARAM(new_value)
                                 SD_BUS_PARAM(value) SD_BUS_PARAM(pid) SD_BUS_PARAM(comm) SD_BUS_PARAM(action), 0),

        SD_BUS_VTABLE_END,
};
