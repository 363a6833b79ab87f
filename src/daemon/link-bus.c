/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * org.igmpd1.Link: the object path, properties (also as one GetManagedObjects entry and as the
 * JSON view), the vtable, object lookup and enumeration. Method handlers are link-bus-methods.c,
 * change signals link-bus-signals.c, ListLinksState link-bus-states.c.
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
#include "link-bus-internal.h"
#include "link-bus.h"
#include "manager.h"
#include "strv.h"

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

/* "N" or "nsINO/N": the decimal numbers, as link_bus_path() writes them (no sign, no leading 0). */
static bool parse_decimal(const char *s, const char *end, uint64_t max, uint64_t *ret)
{
        uint64_t v = 0;

        if (s == end || *s == '0' || end - s > 20)
                return false;
        for (; s < end; s++) {
                if (*s < '0' || *s > '9' || v > (max - (uint64_t) (*s - '0')) / 10)
                        return false;
                v = v * 10 + (uint64_t) (*s - '0');
        }
        *ret = v;
        return v > 0;
}

/* "aa:bb:cc:dd:ee:ff", or "" for a link without a 6-byte hardware address. */
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

/* Names, paths and messages that carry them are bytes: see bus_message_append_escaped(). */
static int property_get_name(sd_bus *bus, const char *path, const char *interface, const char *property,
                             sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        return bus_message_append_escaped(reply, ((Link *) userdata)->ifname);
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
        return bus_message_append_escaped(reply, ((Link *) userdata)->kind);
}

static int property_get_type(sd_bus *bus, const char *path, const char *interface, const char *property,
                             sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        return bus_message_append_escaped(reply, ((Link *) userdata)->type);
}

static int property_get_mac(sd_bus *bus, const char *path, const char *interface, const char *property,
                            sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        char buf[18];

        return bus_message_append_escaped(reply, link_mac_string(userdata, buf));
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
        return bus_message_append_escaped(reply, link_state_to_string(link_get_state(userdata)));
}

static int property_get_last_error(sd_bus *bus, const char *path, const char *interface,
                                   const char *property, sd_bus_message *reply, void *userdata,
                                   sd_bus_error *error)
{
        return bus_message_append_escaped(reply, ((Link *) userdata)->last_error);
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
                r = bus_message_append_escaped(reply, l->ignored_source);
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

/* The link's network namespace: its name under /run/netns, ".host" for igmpd's own. */
static const char *link_netns_name(const Link *l)
{
        return l->ctx->netns_name ?: ".host";
}

static int append_netns_id(sd_bus_message *reply, const Link *l)
{
        return sd_bus_message_append_basic(reply, 't', &l->ctx->netns_ino);
}

static int property_get_namespace(sd_bus *bus, const char *path, const char *interface, const char *property,
                                  sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        return bus_message_append_escaped(reply, link_netns_name(userdata));
}

static int property_get_namespace_id(sd_bus *bus, const char *path, const char *interface, const char *property,
                                     sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        return append_netns_id(reply, userdata);
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

        r = link_bus_path(l, &path);
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
                r = append_string_property(reply, "State", link_state_to_string(link_get_state(l)));
        if (r >= 0)
                r = append_property(reply, "Knobs", "a{s(iis)}", append_knobs, l);
        if (r >= 0)
                r = append_property(reply, "MatchedFiles", "as", append_matched_files, l);
        if (r >= 0)
                r = append_string_property(reply, "LastError", l->last_error);
        if (r >= 0)
                r = append_property(reply, "IgnoredSources", "as", append_ignored_sources, l);
        if (r >= 0)
                r = append_string_property(reply, "Namespace", link_netns_name(l));
        if (r >= 0)
                r = append_property(reply, "NamespaceId", "t", append_netns_id, l);
        for (int i = 0; r >= 0 && i < 4; i++) /* a{sv}, {sa{sv}}, a{sa{sv}}, {oa{sa{sv}}} */
                r = sd_bus_message_close_container(reply);
        return r;
}

/* ---- objects ---- */

int bus_link_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
                  sd_bus_error *error)
{
        _cleanup_free_ char *e = NULL;
        Manager *m = ((BusContext *) userdata)->manager;
        const char *idx_str;
        uint64_t idx, ino;
        Link *l;

        if (sd_bus_path_decode(path, BUS_LINK_PATH_PREFIX, &e) <= 0 || isempty(e))
                return 0;
        idx_str = e;
        if (startswith(e, "ns")) {
                char *slash = strchr(e, '/');
                if (!slash || !parse_decimal(e + 2, slash, UINT64_MAX, &ino))
                        return 0;
                m = manager_netns_by_ino(m, ino);
                if (!m)
                        return 0;
                idx_str = slash + 1;
        }
        if (!parse_decimal(idx_str, idx_str + strlen(idx_str), INT32_MAX, &idx))
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
        _cleanup_free_ Link **links = NULL;
        Manager *m = ((BusContext *) userdata)->manager;
        char **l;
        size_t n = 0;
        int r;

        r = manager_sorted_links(m, &links, &n);
        if (r < 0)
                return r;
        l = calloc(n + 1, sizeof *l);
        if (!l)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                r = link_bus_path(links[i], &l[i]);
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
        SD_BUS_PROPERTY("Namespace", "s", property_get_namespace, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("NamespaceId", "t", property_get_namespace_id, 0, SD_BUS_VTABLE_PROPERTY_CONST),

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
