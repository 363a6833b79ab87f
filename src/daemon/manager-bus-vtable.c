/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * org.igmpd1.Manager at /org/igmpd1: the property getters, the method handlers (with the JSON of
 * Describe(), igmpd(8): the manager's state and every link's, in one document) and
 * manager_vtable. Methods that take an ifindex hand off to the link's handler (link-bus.c). The
 * connection is manager-bus.c's.
 */

#include <stdio.h>
#include <string.h>

#include "audit-bus.h"
#include "bus-util.h"
#include "drift.h"
#include "json-link.h"
#include "json-writer.h"
#include "link-bus.h"
#include "log.h"
#include "manager-bus.h"
#include "manager.h"
#include "netns-util.h"
#include "utf8.h"

/* ---- properties ---- */

/* (kernel value now, or -1 where the knob does not exist; igmpd's value or -1; its source or "").
 * Read from the kernel as the caller asks (microseconds, no write): what igmpctl status shows is
 * the kernel's now. */
static int append_ns_knob(sd_bus_message *reply, Manager *m, NsKnob k)
{
        const NsKnobState *s = &m->ns_knobs.knobs[k];
        _cleanup_free_ char *escaped = NULL;
        const char *source = bus_escape(knob_value_source(&s->want), &escaped); /* a path: bytes */
        int32_t now = -1;

        if (!ns_knobs_available(&m->ns_knobs, k) || ns_knobs_read_kernel(&m->ns_knobs, k, &now) < 0)
                now = s->available && s->kernel_known ? s->kernel : -1;
        return source ? sd_bus_message_append(reply, "(iis)", now, s->want.set ? s->want.value : -1, source)
                      : -ENOMEM;
}

static int property_get(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        Manager *m = ((BusContext *) userdata)->manager;
        int r;

        if (streq(property, "Version"))
                return sd_bus_message_append(reply, "s", PACKAGE_VERSION);
        if (streq(property, "State")) /* links are announced once it is "running" */
                return sd_bus_message_append(reply, "s", m->first_pass ? "starting" : "running");
        if (streq(property, "KernelFeatures")) {
                r = sd_bus_message_open_container(reply, 'a', "{sb}");
                for (Knob k = 0; r >= 0 && k < _KNOB_MAX; k++)
                        r = sd_bus_message_append(reply, "{sb}", knob_to_string(k),
                                                  (int) m->link_ctx.knob_supported[k]);
                return bus_message_close_containers(reply, 1, r);
        }
        if (streq(property, "ConfigFiles")) {
                r = sd_bus_message_open_container(reply, 'a', "s");
                for (size_t i = 0; r >= 0 && m->policy && i < m->policy->n_files; i++)
                        r = bus_message_append_escaped(reply, m->policy->files[i]->path);
                return bus_message_close_containers(reply, 1, r);
        }
        if (streq(property, "ConfigProblems")) {
                /* The problems found by the last (re)load: (file or "", line or 0, message), the
                 * first CONFIG_PROBLEMS_MAX of them; NConfigProblems counts them all. */
                r = sd_bus_message_open_container(reply, 'a', "(sus)");
                for (size_t i = 0; r >= 0 && i < m->problems.n; i++) {
                        /* File names and the values quoted in messages are bytes. */
                        const ConfigProblem *p = &m->problems.items[i];
                        _cleanup_free_ char *f = NULL, *msg = NULL;
                        const char *file = bus_escape(p->file, &f), *text = bus_escape(p->message, &msg);

                        r = file && text ? sd_bus_message_append(reply, "(sus)", file, p->line, text) : -ENOMEM;
                }
                return bus_message_close_containers(reply, 1, r);
        }
        if (streq(property, "NConfigProblems"))
                return sd_bus_message_append(reply, "u", m->problems.n_total);
        if (streq(property, "DriftWatch")) {
                char note[512], shown[UTF8_ESCAPED_SIZE(512)]; /* a path, the helper's words */
                DriftWatchState state = drift_watch_state(m->drift, note, sizeof note);

                return sd_bus_message_append(reply, "(ss)", run_state_to_string(state),
                                             utf8_escape(note, UTF8_ESCAPE_INVALID, shown));
        }
        if (streq(property, "DriftAction"))
                return sd_bus_message_append(reply, "s", drift_action_to_string(m->config.drift_action));
        if (streq(property, "KernelValuesAgeUSec"))
                return sd_bus_message_append(reply, "t", manager_kernel_values_age(m));
        if (streq(property, "IGMPRobustnessByNamespace")) {
                /* {NETNS: (kernel, wanted, source)} of every followed namespace (Namespaces=named), as
                 * IGMPRobustness is igmpd's own. */
                r = sd_bus_message_open_container(reply, 'a', "{s(iis)}");
                for (size_t i = 0; r >= 0 && i < manager_netns_count(m); i++) {
                        Manager *c = manager_netns_get(m, i);

                        r = sd_bus_message_open_container(reply, 'e', "s(iis)");
                        if (r >= 0)
                                r = bus_message_append_escaped(reply, c->netns_name);
                        if (r >= 0)
                                r = append_ns_knob(reply, c, NS_KNOB_IGMP_QRV);
                        r = bus_message_close_containers(reply, 1, r);
                }
                return bus_message_close_containers(reply, 1, r);
        }
        for (NsKnob k = 0; k < _NS_KNOB_MAX; k++) /* IGMPRobustness, MLDRobustness */
                if (streq(property, ns_knob_info(k)->property))
                        return append_ns_knob(reply, m, k);
        return -ENOENT;
}

/* ---- methods ---- */

static int bus_manager_method_list_links(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
        sd_bus_message *reply = NULL;
        _cleanup_free_ Link **links = NULL;
        Manager *m = ((BusContext *) userdata)->manager;
        size_t n = 0;
        int r;

        r = manager_sorted_links(m, &links, &n);
        if (r < 0)
                return r;

        r = bus_reply_open(message, 'a', "(iso)", &reply);
        for (size_t i = 0; r >= 0 && i < n; i++) {
                _cleanup_free_ char *path = NULL, *escaped = NULL;
                char name[LINK_BUS_NAME_MAX + 1];
                const char *shown = bus_escape(link_bus_name(links[i], name), &escaped);

                r = shown ? link_bus_path(links[i], &path) : -ENOMEM;
                if (r >= 0)
                        r = sd_bus_message_append(reply, "(iso)", links[i]->ifindex, shown, path);
        }
        return bus_reply_close_and_send(reply, r);
}

/* Everything igmpctl list/status show, in one compact reply: a knob table, a string table and a
 * row of indexes and numbers per link (link_bus_append_states()). A tenth the size of
 * GetManagedObjects' at 4000 links, which is what dbus-daemon spends its CPU on. */
static int bus_manager_method_list_links_state(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ Link **links = NULL;
        Manager *m = ((BusContext *) userdata)->manager;
        size_t n = 0;
        int r;

        manager_request_refresh(m);
        r = manager_sorted_links(m, &links, &n);
        if (r < 0)
                return r;

        r = bus_reply_open(message, 'a', "s", &reply);
        for (Knob k = 0; r >= 0 && k < _KNOB_MAX; k++)
                r = sd_bus_message_append_basic(reply, 's', knob_to_string(k));
        r = bus_message_close_containers(reply, 1, r);
        if (r >= 0)
                r = link_bus_append_states(reply, links, n);
        return r < 0 ? r : sd_bus_send(NULL, reply, NULL);
}

/* The link of a GetLinkByName() argument: IFNAME, or NETNS/IFNAME for a link of a followed
 * namespace (".host/IFNAME": igmpd's own); else NoSuchLink or InvalidArgument.
 *
 * IFNAME as igmpd shows it on the bus (utf8_escape(): "bad\xff" is "bad" and byte 0xff, "a\x5cb"
 * is "a\b") or as igmpctl prints it (control characters escaped too) first, so that what igmpd
 * shows always finds that link; else the name itself (typed as it is: "bad\xfe" for the seven
 * characters when no "bad" + 0xfe exists). "bad\xFF" is no form igmpd ever showed: only the
 * name itself. */
static int bus_manager_lookup_name(Manager *m, const char *name, Link **ret, sd_bus_error *error)
{
        char raw[128], shown[UTF8_ESCAPED_SIZE(128)]; /* ALTIFNAMSIZ: the longest name */
        const char *slash = strchr(name, '/');
        Link *l = NULL;
        char msg[512];
        int r;

        if (slash) {
                _cleanup_free_ char *netns = strndup(name, (size_t) (slash - name));
                if (!netns)
                        return -ENOMEM;
                /* Not NETNS/…: the name as a whole is refused below, as any name with a '/'. */
                if (!netns_name_valid(netns))
                        slash = NULL;
                else if (!streq(netns, ".host")) {
                        m = manager_netns_by_name(m, netns);
                        if (!m)
                                return sd_bus_error_setf(error, BUS_ERROR_NO_SUCH_LINK,
                                                         "No network namespace '%s' is followed.", netns);
                }
                if (slash)
                        name = slash + 1;
        }
        r = bus_ifname_check("name", name, msg, sizeof msg);
        if (r < 0)
                return bus_validate_error(error, r, msg);
        if (strstr(name, "\\x") && utf8_unescape(name, raw, sizeof raw) >= 0 &&
            (streq(utf8_escape(raw, UTF8_ESCAPE_INVALID, shown), name) ||
             streq(utf8_escape(raw, UTF8_ESCAPE_CONTROL, shown), name)))
                l = manager_get_link_by_name(m, raw);
        l = l ?: manager_get_link_by_name(m, name);
        if (!l)
                return sd_bus_error_setf(error, BUS_ERROR_NO_SUCH_LINK, "No link named '%s'.", name);
        *ret = l;
        return 0;
}

/* Reads the link argument, an ifindex or (GetLinkByName) a name, and finds the link, or sets
 * NoSuchLink/InvalidArgument. */
static int bus_message_read_link(BusContext *c, sd_bus_message *message, Link **ret, sd_bus_error *error)
{
        const char *name;
        int32_t ifindex;
        char msg[256];
        Link *l;
        int r;

        if (sd_bus_message_has_signature(message, "s")) {
                r = sd_bus_message_read(message, "s", &name);
                return r < 0 ? r : bus_manager_lookup_name(c->manager, name, ret, error);
        }
        r = sd_bus_message_read(message, "i", &ifindex);
        if (r < 0)
                return r;
        r = bus_ifindex_check("ifindex", ifindex, msg, sizeof msg);
        if (r < 0)
                return bus_validate_error(error, r, msg);
        l = manager_get_link(c->manager, ifindex);
        if (!l)
                return sd_bus_error_setf(error, BUS_ERROR_NO_SUCH_LINK, "No link with index %d.", ifindex);
        *ret = l;
        return 0;
}

/* GetLinkByName → (ifindex, path), GetLinkByIndex → (name, path). */
static int bus_manager_method_get_link(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
        _cleanup_free_ char *path = NULL, *escaped = NULL;
        const char *name;
        Link *l;
        int r;

        r = bus_message_read_link(userdata, message, &l, error);
        if (r >= 0)
                r = link_bus_path(l, &path);
        if (r < 0)
                return r;
        if (streq_ptr(sd_bus_message_get_member(message), "GetLinkByName"))
                return sd_bus_reply_method_return(message, "io", l->ifindex, path);
        name = bus_escape(l->ifname, &escaped);
        return name ? sd_bus_reply_method_return(message, "so", name, path) : -ENOMEM;
}

/* SetLinkKnobs, RevertLink, RevertLinkKnobs → a(sbs) and ReconfigureLink hand off to the link's
 * own handler (SetKnobs, Revert, RevertKnobs, Reconfigure). */
static int bus_manager_method_link(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
        const char *member = strempty(sd_bus_message_get_member(message));
        Link *l;
        int r;

        r = bus_message_read_link(userdata, message, &l, error);
        if (r < 0)
                return r;
        if (startswith(member, "Set"))
                return bus_link_method_set_knobs(message, l, error);
        if (startswith(member, "Revert"))
                return bus_link_method_revert(message, l, error);
        return bus_link_method_reconfigure(message, l, error);
}

/* Reload() and ReloadEx(u flags) → u problems: the same, but ReloadEx says how many problems the
 * new configuration has (ConfigProblems lists them). */
static int bus_manager_method_reload(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        Manager *m = c->manager;
        bool ex = streq_ptr(sd_bus_message_get_member(message), "ReloadEx");
        uint32_t flags;
        char who[128];
        int r;

        r = bus_method_authorize(message, c, ex ? &flags : NULL, 0, POLKIT_ACTION_RELOAD, 0, error);
        if (r != 0)
                return r;

        log_info("Reload requested by %s.", bus_describe_sender(message, who, sizeof who));
        r = manager_reload(m);
        if (r < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED,
                                         "Reload failed, the previous configuration stays in force: %s",
                                         strerror(-r));
        if (ex)
                return sd_bus_reply_method_return(message, "u", m->problems.n_total);
        return sd_bus_reply_method_return(message, NULL);
}

/* The Describe() JSON:
 *   { "version": "0.1",
 *     "kernel_features": { "<knob>": true|false, … },
 *     "config_files": [ "<path>", … ],
 *     "config_problems": [ { "file": "<path>"|null, "line": N, "message": "…" }, … ],  (the first 64)
 *     "n_config_problems": N,
 *     "audit_sources": [ … ],
 *     "drift_watch": { "state": "active"|…, "note": "…", "action": "revert"|"warn" },
 *     "namespace": { "igmp_qrv"|"mld_qrv": { "kernel": N|null, "wanted": N|null,
 *                                            "source": "<path>"|null }, … },   (null kernel: absent here)
 *     "links": [ <link, see json-link.h>, … ] }          (igmpd's own namespace's links by ifindex,
 *                                                         then each followed namespace's: "netns") */
static int bus_manager_method_describe(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
        Manager *m = ((BusContext *) userdata)->manager;
        _cleanup_free_ Link **links = NULL;
        _cleanup_free_ char *buf = NULL;
        size_t size = 0, n = 0;
        char note[512];
        JsonWriter w;
        FILE *f;
        int r;

        manager_request_refresh(m);
        r = manager_sorted_links(m, &links, &n);
        if (r < 0)
                return r;
        f = open_memstream(&buf, &size);
        if (!f)
                return -ENOMEM;

        json_writer_init(&w, f, false);
        w.bytes = true; /* names, paths and messages: in utf8_escape()'s form, as on the bus */
        json_begin_object(&w);
        json_field_string(&w, "version", PACKAGE_VERSION);
        json_key(&w, "kernel_features");
        json_begin_object(&w);
        for (Knob k = 0; k < _KNOB_MAX; k++)
                json_field_bool(&w, knob_to_string(k), m->link_ctx.knob_supported[k]);
        json_end_object(&w);
        json_key(&w, "config_files");
        json_begin_array(&w);
        for (size_t i = 0; m->policy && i < m->policy->n_files; i++)
                json_string(&w, m->policy->files[i]->path);
        json_end_array(&w);
        json_key(&w, "config_problems");
        json_begin_array(&w);
        for (size_t i = 0; i < m->problems.n; i++) {
                const ConfigProblem *p = &m->problems.items[i];

                json_begin_object(&w);
                json_field_string(&w, "file", p->file);
                json_field_uint(&w, "line", p->line);
                json_field_string(&w, "message", p->message);
                json_end_object(&w);
        }
        json_end_array(&w);
        json_field_uint(&w, "n_config_problems", m->problems.n_total);
        const char *audit_sources[_AUDIT_EVENT_SOURCE_MAX + 1];
        audit_bus_active_sources(m->audit, audit_sources);
        json_field_strv(&w, "audit_sources", audit_sources);
        json_key(&w, "drift_watch");
        json_begin_object(&w);
        json_field_string(&w, "state", run_state_to_string(drift_watch_state(m->drift, note, sizeof note)));
        json_field_string(&w, "note", note);
        json_field_string(&w, "action", drift_action_to_string(m->config.drift_action));
        json_end_object(&w);
        json_key(&w, "namespace");
        json_begin_object(&w);
        for (NsKnob k = 0; k < _NS_KNOB_MAX; k++) {
                const NsKnobState *s = &m->ns_knobs.knobs[k];

                json_key(&w, ns_knob_info(k)->name);
                json_begin_object(&w);
                json_key(&w, "kernel");
                s->available && s->kernel_known ? json_int(&w, s->kernel) : json_null(&w);
                json_key(&w, "wanted");
                s->want.set ? json_int(&w, s->want.value) : json_null(&w);
                json_field_string(&w, "source", knob_value_source(&s->want));
                json_end_object(&w);
        }
        json_end_object(&w);
        json_field_uint(&w, "kernel_values_age_usec", manager_kernel_values_age(m));
        json_key(&w, "links");
        json_begin_array(&w);
        for (size_t i = 0; i < n; i++) {
                const char **matched = calloc(links[i]->n_matched + 1, sizeof *matched);
                LinkStatus s;

                if (!matched) {
                        fclose(f);
                        return -ENOMEM;
                }
                link_bus_status(links[i], &s, matched);
                json_write_link(&w, &s);
                free(matched);
        }
        json_end_array(&w);
        json_end_object(&w);
        r = json_writer_finish(&w);
        if (fclose(f) != 0 && r >= 0)
                r = -ENOMEM;
        return r < 0 ? r : sd_bus_reply_method_return(message, "s", buf);
}

const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),

        SD_BUS_PROPERTY("Version", "s", property_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("State", "s", property_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("KernelFeatures", "a{sb}", property_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("ConfigFiles", "as", property_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("ConfigProblems", "a(sus)", property_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("NConfigProblems", "u", property_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("DriftWatch", "(ss)", property_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("DriftAction", "s", property_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("KernelValuesAgeUSec", "t", property_get, 0, 0),
        SD_BUS_PROPERTY("IGMPRobustness", "(iis)", property_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("MLDRobustness", "(iis)", property_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("IGMPRobustnessByNamespace", "a{s(iis)}", property_get, 0, 0),

        /* Reads are open to all; the mutating handlers authorize themselves (uid 0 or polkit).
         * SD_BUS_VTABLE_UNPRIVILEGED everywhere: sd-bus's capability check is no gate. */
        SD_BUS_METHOD_WITH_NAMES("ListLinks", "", , "a(iso)", SD_BUS_PARAM(links),
                                 bus_manager_method_list_links, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("ListLinksState", "", , "asasa(" LINK_STATE_SIGNATURE ")",
                                 SD_BUS_PARAM(knobs) SD_BUS_PARAM(strings) SD_BUS_PARAM(links),
                                 bus_manager_method_list_links_state, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("GetLinkByName", "s", SD_BUS_PARAM(name), "io",
                                 SD_BUS_PARAM(ifindex) SD_BUS_PARAM(path),
                                 bus_manager_method_get_link, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("GetLinkByIndex", "i", SD_BUS_PARAM(ifindex), "so",
                                 SD_BUS_PARAM(name) SD_BUS_PARAM(path), bus_manager_method_get_link,
                                 SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("SetLinkKnobs", "ia{sv}u",
                                 SD_BUS_PARAM(ifindex) SD_BUS_PARAM(knobs) SD_BUS_PARAM(flags), "", ,
                                 bus_manager_method_link, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("RevertLink", "iu", SD_BUS_PARAM(ifindex) SD_BUS_PARAM(flags), "", ,
                                 bus_manager_method_link, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("RevertLinkKnobs", "iasu", SD_BUS_PARAM(ifindex) SD_BUS_PARAM(knobs) SD_BUS_PARAM(flags),
                                 "a(sbs)", SD_BUS_PARAM(reverted), bus_manager_method_link,
                                 SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("ReconfigureLink", "i", SD_BUS_PARAM(ifindex), "", ,
                                 bus_manager_method_link, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Reload", "", "", bus_manager_method_reload, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("ReloadEx", "u", SD_BUS_PARAM(flags), "u", SD_BUS_PARAM(problems),
                                 bus_manager_method_reload, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("Describe", "", , "s", SD_BUS_PARAM(json), bus_manager_method_describe,
                                 SD_BUS_VTABLE_UNPRIVILEGED),

        SD_BUS_VTABLE_END,
};
