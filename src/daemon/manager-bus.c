/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * org.igmpd1.Manager and the bus connection's lifecycle.
 *
 * The kernel-facing job never waits for the bus: the connection is made after the first
 * configuration pass. The connection waits for the bus socket itself, the way networkd and
 * resolved do: with sd_bus_set_watch_bind() sd-bus watches the socket's path with inotify while
 * it is missing or refuses, and connects when it appears; sd_bus_set_connected_signal() says
 * when it is up. No timer runs meanwhile (idle means idle). A lost connection (sd-bus's
 * synthesized org.freedesktop.DBus.Local.Disconnected) is replaced by a new waiting one at
 * once. Only a connection that fails before it is up twice in a row (a bus that accepts and
 * then drops us) is retried on a timer, 1 s doubling to 30 s, so a broken bus costs no busy
 * loop. The name is requested with SD_BUS_NAME_QUEUE: while another process owns it, the bus
 * hands it over when that process lets it go, again without a timer.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit-bus.h"
#include "audit.h"
#include "bus-util.h"
#include "drift.h"
#include "json-link.h"
#include "json-writer.h"
#include "link-bus.h"
#include "log.h"
#include "manager-bus.h"
#include "manager.h"
#include "nm.h"
#include "utf8.h"

/* Replies to RequestName (D-Bus specification, DBUS_REQUEST_NAME_REPLY_*). */
#define REQUEST_NAME_PRIMARY_OWNER 1
#define REQUEST_NAME_IN_QUEUE 2
#define REQUEST_NAME_ALREADY_OWNER 4

#define BUS_DEFAULT_SYSTEM_ADDRESS "unix:path=/run/dbus/system_bus_socket"
/* Backoff after connections that fail before they are up, from the second in a row. */
#define BUS_RETRY_MIN_USEC (1ULL * 1000000ULL)
#define BUS_RETRY_MAX_USEC (30ULL * 1000000ULL)

static void manager_bus_drop(ManagerBus *b);
static void manager_bus_reconnect(ManagerBus *b);

/* ---- properties ---- */

static int property_get_version(sd_bus *bus, const char *path, const char *interface, const char *property,
                                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        return sd_bus_message_append(reply, "s", PACKAGE_VERSION);
}

static int property_get_kernel_features(sd_bus *bus, const char *path, const char *interface,
                                        const char *property, sd_bus_message *reply, void *userdata,
                                        sd_bus_error *error)
{
        const bool *supported = ((BusContext *) userdata)->manager->link_ctx.knob_supported;
        int r;

        r = sd_bus_message_open_container(reply, 'a', "{sb}");
        if (r < 0)
                return r;
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                r = sd_bus_message_append(reply, "{sb}", knob_to_string(k), (int) supported[k]);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

static int property_get_drift_watch(sd_bus *bus, const char *path, const char *interface, const char *property,
                                    sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        Manager *m = ((BusContext *) userdata)->manager;
        DriftWatchState state;
        char note[512];

        state = drift_watch_state(m->drift, note, sizeof note);
        return sd_bus_message_append(reply, "(ss)", drift_watch_state_to_string(state), note);
}

static int property_get_drift_action(sd_bus *bus, const char *path, const char *interface, const char *property,
                                     sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        Manager *m = ((BusContext *) userdata)->manager;

        return sd_bus_message_append(reply, "s", drift_action_to_string(m->config.drift_action));
}

static int property_get_config_files(sd_bus *bus, const char *path, const char *interface,
                                     const char *property, sd_bus_message *reply, void *userdata,
                                     sd_bus_error *error)
{
        Manager *m = ((BusContext *) userdata)->manager;
        int r;

        r = sd_bus_message_open_container(reply, 'a', "s");
        if (r < 0)
                return r;
        for (size_t i = 0; m->policy && i < m->policy->n_files; i++) {
                r = bus_message_append_escaped(reply, m->policy->files[i]->path);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

/* The problems found by the last (re)load: (file or "", line or 0, message), the first
 * CONFIG_PROBLEMS_MAX of them; NConfigProblems counts them all. */
static int property_get_config_problems(sd_bus *bus, const char *path, const char *interface,
                                        const char *property, sd_bus_message *reply, void *userdata,
                                        sd_bus_error *error)
{
        const ConfigProblems *p = &((BusContext *) userdata)->manager->problems;
        int r;

        r = sd_bus_message_open_container(reply, 'a', "(sus)");
        for (size_t i = 0; r >= 0 && i < p->n; i++)
                r = sd_bus_message_append(reply, "(sus)", strempty(p->items[i].file), p->items[i].line,
                                          strempty(p->items[i].message));
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        return r;
}

static int property_get_n_config_problems(sd_bus *bus, const char *path, const char *interface,
                                          const char *property, sd_bus_message *reply, void *userdata,
                                          sd_bus_error *error)
{
        return sd_bus_message_append(reply, "u", ((BusContext *) userdata)->manager->n_config_errors);
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

        r = sd_bus_message_new_method_return(message, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(iso)");
        for (size_t i = 0; r >= 0 && i < n; i++) {
                _cleanup_free_ char *path = NULL;

                r = link_bus_path(links[i]->ifindex, &path);
                if (r >= 0)
                        r = sd_bus_message_open_container(reply, 'r', "iso");
                if (r >= 0)
                        r = sd_bus_message_append_basic(reply, 'i', &links[i]->ifindex);
                if (r >= 0)
                        r = bus_message_append_escaped(reply, links[i]->ifname);
                if (r >= 0)
                        r = sd_bus_message_append_basic(reply, 'o', path);
                if (r >= 0)
                        r = sd_bus_message_close_container(reply);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r >= 0)
                r = sd_bus_send(NULL, reply, NULL);
        sd_bus_message_unref(reply);
        return r;
}

/* Everything igmpctl list/status show, in one compact reply: a knob table, a string table and a
 * row of indexes and numbers per link (link_bus_append_states()). A tenth the size of
 * GetManagedObjects' at 4000 links, which is what dbus-daemon spends its CPU on. */
static int bus_manager_method_list_links_state(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
        sd_bus_message *reply = NULL;
        _cleanup_free_ Link **links = NULL;
        Manager *m = ((BusContext *) userdata)->manager;
        const char *knobs[_KNOB_MAX + 1];
        size_t n = 0;
        int r;

        manager_request_refresh(m);
        r = manager_sorted_links(m, &links, &n);
        if (r < 0)
                return r;
        for (Knob k = 0; k < _KNOB_MAX; k++)
                knobs[k] = knob_to_string(k);
        knobs[_KNOB_MAX] = NULL;

        r = sd_bus_message_new_method_return(message, &reply);
        if (r >= 0)
                r = sd_bus_message_append_strv(reply, (char **) knobs);
        if (r >= 0)
                r = link_bus_append_states(reply, links, n);
        if (r >= 0)
                r = sd_bus_send(NULL, reply, NULL);
        sd_bus_message_unref(reply);
        return r;
}

/* The link a GetLinkByName() argument names: the name itself first, else, for a name that is
 * not UTF-8, its escaped form as igmpd shows it on the bus ("bad\xff"; see utf8_escape()). Only
 * that exact form: "bad\xFF" is no name igmpd ever showed. A name with control characters is
 * also found by the form igmpctl prints. */
static Link *bus_manager_find_link_by_name(Manager *m, const char *name)
{
        char raw[128], shown[UTF8_ESCAPED_SIZE(128)]; /* ALTIFNAMSIZ: the longest name */
        Link *l;

        l = manager_get_link_by_name(m, name);
        if (l || !strstr(name, "\\x") || utf8_unescape(name, raw, sizeof raw) < 0 || streq(raw, name))
                return l;
        if (!streq(utf8_escape(raw, UTF8_ESCAPE_INVALID, shown), name) &&
            !streq(utf8_escape(raw, UTF8_ESCAPE_CONTROL, shown), name))
                return NULL;
        return manager_get_link_by_name(m, raw);
}

static int bus_manager_method_get_link_by_name(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
        _cleanup_free_ char *path = NULL;
        Manager *m = ((BusContext *) userdata)->manager;
        const char *name;
        char msg[512];
        Link *l;
        int r;

        r = sd_bus_message_read(message, "s", &name);
        if (r < 0)
                return r;
        r = bus_ifname_check("name", name, msg, sizeof msg);
        if (r < 0)
                return bus_validate_error(error, r, msg);

        l = bus_manager_find_link_by_name(m, name);
        if (!l)
                return sd_bus_error_setf(error, BUS_ERROR_NO_SUCH_LINK, "No link named '%s'.", name);
        r = link_bus_path(l->ifindex, &path);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(message, "io", l->ifindex, path);
}

/* Reads the ifindex argument and finds the link, or sets NoSuchLink/InvalidArgument. */
static int bus_message_read_link(BusContext *c, sd_bus_message *message, Link **ret, sd_bus_error *error)
{
        int32_t ifindex;
        char msg[256];
        Link *l;
        int r;

        r = sd_bus_message_read(message, "i", &ifindex);
        if (r < 0)
                return r;
        r = bus_ifindex_check("ifindex", ifindex, msg, sizeof msg);
        if (r < 0)
                return bus_validate_error(error, r, msg);
        l = manager_get_link(c->manager, ifindex);
        if (!l) {
                /* The link may have gone while polkit was asked: drop that answer. */
                bus_polkit_forget(&c->polkit_registry, message);
                return sd_bus_error_setf(error, BUS_ERROR_NO_SUCH_LINK, "No link with index %d.", ifindex);
        }
        *ret = l;
        return 0;
}

static int bus_manager_method_get_link_by_index(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
        _cleanup_free_ char *path = NULL;
        sd_bus_message *reply = NULL;
        Link *l;
        int r;

        r = bus_message_read_link(userdata, message, &l, error);
        if (r < 0)
                return r;
        r = link_bus_path(l->ifindex, &path);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_return(message, &reply);
        if (r >= 0)
                r = bus_message_append_escaped(reply, l->ifname);
        if (r >= 0)
                r = sd_bus_message_append_basic(reply, 'o', path);
        if (r >= 0)
                r = sd_bus_send(NULL, reply, NULL);
        sd_bus_message_unref(reply);
        return r;
}

/* Manager methods that take an ifindex hand off to the link's own handler. */
static int call_link_method(BusContext *c, sd_bus_message *message, sd_bus_message_handler_t handler,
                            sd_bus_error *error)
{
        Link *l;
        int r;

        r = bus_message_read_link(c, message, &l, error);
        if (r < 0)
                return r;
        return handler(message, l, error);
}

static int bus_manager_method_set_link_knobs(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
        return call_link_method(userdata, message, bus_link_method_set_knobs, error);
}

static int bus_manager_method_revert_link(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
        return call_link_method(userdata, message, bus_link_method_revert, error);
}

static int bus_manager_method_reconfigure_link(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
        return call_link_method(userdata, message, bus_link_method_reconfigure, error);
}

/* Reload() and ReloadEx(u flags) → u problems: the same, but ReloadEx says how many problems the
 * new configuration has (ConfigProblems lists them). */
static int bus_manager_method_reload(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        Manager *m = c->manager;
        bool ex = streq_ptr(sd_bus_message_get_member(message), "ReloadEx");
        uint32_t flags = 0;
        char msg[256], who[128];
        int r;

        if (ex) {
                r = sd_bus_message_read(message, "u", &flags);
                if (r < 0)
                        return r;
                r = bus_flags_check("flags", flags, 0, msg, sizeof msg);
                if (r < 0)
                        return bus_validate_error(error, r, msg);
        }

        r = bus_verify_polkit_async(message, POLKIT_ACTION_RELOAD, 0, &c->polkit_registry, error);
        if (r < 0)
                return r;
        if (r == 0)
                return 1;

        log_info("Reload requested by %s.", bus_describe_sender(message, who, sizeof who));
        r = manager_reload(m);
        if (r < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED,
                                         "Reload failed, the previous configuration stays in force: %s",
                                         strerror(-r));
        if (ex)
                return sd_bus_reply_method_return(message, "u", m->n_config_errors);
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
 *     "links": [ <link, see json-link.h>, … ] }          (links ordered by ifindex) */
static int manager_describe(Manager *m, char **ret)
{
        _cleanup_free_ Link **links = NULL;
        char *buf = NULL;
        size_t size = 0, n = 0;
        JsonWriter w;
        FILE *f;
        int r;

        r = manager_sorted_links(m, &links, &n);
        if (r < 0)
                return r;
        f = open_memstream(&buf, &size);
        if (!f)
                return -ENOMEM;

        json_writer_init(&w, f, false);
        json_begin_object(&w);
        json_key(&w, "version");
        json_string(&w, PACKAGE_VERSION);
        json_key(&w, "kernel_features");
        json_begin_object(&w);
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                json_key(&w, knob_to_string(k));
                json_bool(&w, m->link_ctx.knob_supported[k]);
        }
        json_end_object(&w);
        json_key(&w, "config_files");
        json_begin_array(&w);
        for (size_t i = 0; m->policy && i < m->policy->n_files; i++)
                json_string_escaped(&w, m->policy->files[i]->path);
        json_end_array(&w);
        json_key(&w, "config_problems");
        json_begin_array(&w);
        for (size_t i = 0; i < m->problems.n; i++) {
                const ConfigProblem *p = &m->problems.items[i];

                json_begin_object(&w);
                json_key(&w, "file");
                json_string(&w, p->file);
                json_key(&w, "line");
                json_uint(&w, p->line);
                json_key(&w, "message");
                json_string(&w, p->message);
                json_end_object(&w);
        }
        json_end_array(&w);
        json_key(&w, "n_config_problems");
        json_uint(&w, m->n_config_errors);
        json_key(&w, "audit_sources");
        audit_bus_describe_sources(m->audit, &w);
        {
                char note[512];
                DriftWatchState state = drift_watch_state(m->drift, note, sizeof note);

                json_key(&w, "drift_watch");
                json_begin_object(&w);
                json_key(&w, "state");
                json_string(&w, drift_watch_state_to_string(state));
                json_key(&w, "note");
                json_string(&w, note);
                json_key(&w, "action");
                json_string(&w, drift_action_to_string(m->config.drift_action));
                json_end_object(&w);
        }
        json_key(&w, "links");
        json_begin_array(&w);
        for (size_t i = 0; i < n; i++) {
                const char **matched = calloc(links[i]->n_matched + 1, sizeof *matched);
                LinkStatus s;

                if (!matched) {
                        fclose(f);
                        free(buf);
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
        if (r < 0) {
                free(buf);
                return r;
        }
        *ret = buf;
        return 0;
}

static int bus_manager_method_describe(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
        _cleanup_free_ char *json = NULL;
        int r;

        r = manager_describe(((BusContext *) userdata)->manager, &json);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(message, "s", json);
}

/* ---- connection ---- */

static int on_connected(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
        ManagerBus *b = userdata;

        b->up = true;
        b->failures = 0;
        log_debug("Connected to the system bus, asking for the name %s.", BUS_NAME);
        return 0;
}

static int on_disconnected(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
        ManagerBus *b = userdata;

        if (b->up)
                log_full(b->down_logged ? LOG_DEBUG : LOG_WARNING,
                         "Lost the connection to the system bus, applying policy without a D-Bus face; "
                         "reconnecting when it is back.");
        else
                log_full(b->down_logged ? LOG_DEBUG : LOG_WARNING,
                         "The system bus dropped the connection before it was set up, applying policy "
                         "without a D-Bus face; trying again.");
        b->down_logged = true;
        if (!b->up)
                b->failures++;
        manager_bus_drop(b);
        manager_bus_reconnect(b);
        return 0;
}

static void log_name_acquired(ManagerBus *b)
{
        b->down_logged = false;
        log_info("Connected to the system bus as %s.", BUS_NAME);
}

static int on_name_acquired(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
        const char *name;

        /* Sent when we get the name: at once, or after we queued for it (on_request_name()). */
        if (sd_bus_message_read(message, "s", &name) >= 0 && streq(name, BUS_NAME))
                log_name_acquired(userdata);
        return 0;
}

static int on_request_name(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
        const sd_bus_error *e;
        uint32_t ret = 0;

        if (sd_bus_message_is_method_error(reply, NULL)) {
                e = sd_bus_message_get_error(reply);
                log_error("Failed to acquire the bus name %s, applying policy without a D-Bus face: %s",
                          BUS_NAME, e && e->message ? e->message : "unknown error");
                return 0;
        }
        if (sd_bus_message_read(reply, "u", &ret) < 0)
                ret = 0;
        switch (ret) {
        case REQUEST_NAME_PRIMARY_OWNER:
                break; /* the bus says so with NameAcquired too, which on_name_acquired() logs */
        case REQUEST_NAME_ALREADY_OWNER:
                log_name_acquired(userdata);
                break;
        case REQUEST_NAME_IN_QUEUE:
                /* Said once: the bus tells us (NameAcquired) when the owner lets it go. */
                log_error("Failed to acquire the bus name %s (another process owns it), applying policy "
                          "without a D-Bus face; taking it over when that process releases it.", BUS_NAME);
                break;
        default:
                log_error("Failed to acquire the bus name %s (unexpected reply %" PRIu32 "), applying policy "
                          "without a D-Bus face.", BUS_NAME, ret);
        }
        return 0;
}

/* GetManagedObjects on /org/igmpd1, answered here rather than by sd-bus: sd-bus builds the
 * reply object by object, looking up each path's vtables and calling every property getter
 * through them, which at 4000 links took three times as long as building the same reply in
 * one pass over the links (ordered by ifindex). The content is what sd-bus would send
 * (tests/integration/test-dbus-objects.sh compares it with GetAll of every link). Returns 1:
 * the call is answered (or answered with an error by sd-bus's caller on failure). */
static int manager_bus_reply_managed_objects(Manager *m, sd_bus_message *message)
{
        _cleanup_free_ Link **links = NULL;
        sd_bus_message *reply = NULL;
        size_t n = 0;
        int r;

        if (!sd_bus_message_get_expect_reply(message))
                return 1;
        r = manager_sorted_links(m, &links, &n);
        if (r >= 0)
                r = sd_bus_message_new_method_return(message, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "{oa{sa{sv}}}");
        for (size_t i = 0; r >= 0 && i < n; i++)
                r = link_bus_append_object(reply, links[i]);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r >= 0)
                r = sd_bus_send(NULL, reply, NULL);
        sd_bus_message_unref(reply);
        if (r < 0) {
                log_warning_errno(r, "Failed to answer GetManagedObjects: %m");
                r = sd_bus_reply_method_errnof(message, r, "Failed to list the links: %m");
                if (r < 0)
                        log_debug_errno(r, "Failed to send the error reply, ignoring: %m");
        }
        return 1;
}

/* Reads answer from igmpd's state at once and never write (manager-refresh.c): the calls that
 * return kernel values — a link's Get/GetAll, GetManagedObjects, Describe, ListLinksState — only
 * ask for an asynchronous, rate-limited refresh of them (nothing while the drift watch keeps
 * them true), whose news goes out as PropertiesChanged. GetManagedObjects is answered here. */
static int manager_bus_on_incoming(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        Manager *m = c->manager;
        const char *path = sd_bus_message_get_path(message);
        uint8_t type;

        if (sd_bus_message_get_type(message, &type) < 0 || type != SD_BUS_MESSAGE_METHOD_CALL || !path)
                return 0;

        if (sd_bus_message_is_method_call(message, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects") &&
            streq(path, BUS_MANAGER_PATH) && sd_bus_message_has_signature(message, "")) {
                manager_request_refresh(m);
                return manager_bus_reply_managed_objects(m, message);
        }
        if (sd_bus_message_is_method_call(message, BUS_MANAGER_INTERFACE, "Describe"))
                manager_request_refresh(m);
        else if (sd_bus_message_is_method_call(message, "org.freedesktop.DBus.Properties", "Get") ||
                 sd_bus_message_is_method_call(message, "org.freedesktop.DBus.Properties", "GetAll")) {
                void *found = NULL;

                if (bus_link_find(sd_bus_message_get_bus(message), path, NULL, c, &found, NULL) > 0)
                        manager_request_refresh(m);
        }
        return 0;
}

/* A new connection to the system bus with igmpd's objects on it. With wait, sd-bus waits for
 * the socket to appear (or to accept) instead of failing; without, a missing or refusing bus
 * fails here, so that manager_bus_new() can say once that it is not there. */
static int manager_bus_open(ManagerBus *b, bool wait)
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        const char *address;
        int r;

        address = secure_getenv("DBUS_SYSTEM_BUS_ADDRESS");
        r = sd_bus_new(&bus);
        if (r >= 0)
                r = sd_bus_set_address(bus, isempty(address) ? BUS_DEFAULT_SYSTEM_ADDRESS : address);
        if (r >= 0)
                r = sd_bus_set_bus_client(bus, true);
        if (r >= 0)
                r = sd_bus_negotiate_creds(bus, true,
                                           SD_BUS_CREDS_UID | SD_BUS_CREDS_EUID | SD_BUS_CREDS_EFFECTIVE_CAPS);
        if (r >= 0)
                r = sd_bus_set_watch_bind(bus, wait);
        if (r >= 0)
                r = sd_bus_set_connected_signal(bus, true);
        if (r >= 0)
                r = sd_bus_add_filter(bus, NULL, manager_bus_on_incoming, &b->ctx);
        if (r >= 0)
                r = sd_bus_add_object_vtable(bus, NULL, BUS_MANAGER_PATH, BUS_MANAGER_INTERFACE, manager_vtable,
                                             &b->ctx);
        if (r >= 0)
                r = sd_bus_add_object_vtable(bus, NULL, BUS_MANAGER_PATH, BUS_AUDIT_INTERFACE, audit_vtable, &b->ctx);
        if (r >= 0)
                r = sd_bus_add_fallback_vtable(bus, NULL, BUS_LINK_PATH_PREFIX, BUS_LINK_INTERFACE, link_vtable,
                                               bus_link_find, &b->ctx);
        if (r >= 0)
                r = sd_bus_add_node_enumerator(bus, NULL, BUS_LINK_PATH_PREFIX, bus_link_node_enumerator, &b->ctx);
        if (r >= 0)
                r = sd_bus_add_object_manager(bus, NULL, BUS_MANAGER_PATH);
        /* Local matches: sd-bus synthesizes these two; nothing is sent. */
        if (r >= 0)
                r = sd_bus_match_signal(bus, NULL, NULL, "/org/freedesktop/DBus/Local", "org.freedesktop.DBus.Local",
                                        "Connected", on_connected, b);
        if (r >= 0)
                r = sd_bus_match_signal(bus, NULL, NULL, "/org/freedesktop/DBus/Local", "org.freedesktop.DBus.Local",
                                        "Disconnected", on_disconnected, b);
        if (r < 0)
                return r;

        r = sd_bus_start(bus);
        if (r < 0)
                return r;
        /* Queued until the connection is up. */
        r = sd_bus_match_signal_async(bus, NULL, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                      "org.freedesktop.DBus", "NameAcquired", on_name_acquired, NULL, b);
        if (r >= 0)
                r = sd_bus_request_name_async(bus, NULL, BUS_NAME, SD_BUS_NAME_QUEUE, on_request_name, b);
        if (r >= 0)
                r = sd_bus_attach_event(bus, b->ctx.manager->event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                return r;

        if (wait)
                log_debug("Connecting to the system bus at %s, waiting for its socket if needed.",
                          isempty(address) ? BUS_DEFAULT_SYSTEM_ADDRESS : address);
        b->ctx.bus = TAKE_PTR(bus);
        b->up = false;
        /* The NetworkManager follower uses this connection too (its calls wait in it until it
         * is up). */
        nm_set_bus(b->ctx.manager->nm, b->ctx.bus);
        return 0;
}

static void manager_bus_connect_now(ManagerBus *b)
{
        int r;

        r = manager_bus_open(b, true);
        if (r >= 0)
                return;
        log_debug_errno(r, "Failed to set up a connection to the system bus, trying again later: %m");
        b->failures = MAX(b->failures + 1, 2u);
        manager_bus_reconnect(b);
}

static int on_bus_reconnect(sd_event_source *s, uint64_t usec, void *userdata)
{
        ManagerBus *b = userdata;

        b->reconnect_source = sd_event_source_disable_unref(b->reconnect_source);
        manager_bus_connect_now(b);
        return 0;
}

/* A new waiting connection: at once, unless connections keep failing before they are up. */
static void manager_bus_reconnect(ManagerBus *b)
{
        uint64_t delay;
        int r;

        if (b->ctx.bus || b->reconnect_source)
                return;
        if (b->failures < 2) {
                manager_bus_connect_now(b);
                return;
        }
        delay = MIN(BUS_RETRY_MIN_USEC << MIN(b->failures - 2, 5u), BUS_RETRY_MAX_USEC);
        r = sd_event_add_time_relative(b->ctx.manager->event, &b->reconnect_source, CLOCK_MONOTONIC, delay,
                                       100 * 1000 /* accuracy 100 ms */, on_bus_reconnect, b);
        if (r < 0)
                log_warning_errno(r, "Failed to arm the bus reconnect timer, giving up on D-Bus: %m");
}

static void manager_bus_drop(ManagerBus *b)
{
        bus_polkit_registry_done(&b->ctx.polkit_registry);
        b->up = false;
        if (!b->ctx.bus)
                return;
        nm_set_bus(b->ctx.manager->nm, NULL);
        (void) sd_bus_detach_event(b->ctx.bus);
        b->ctx.bus = sd_bus_flush_close_unref(b->ctx.bus);
}

/* ---- the core's hooks ---- */

/* After a reload: ConfigFiles changed, and the NetworkManager follower may be new (or gone). */
static void manager_bus_on_reloaded(Manager *m, void *userdata)
{
        ManagerBus *b = userdata;
        int r;

        nm_set_bus(m->nm, b->ctx.bus);
        if (!bus_is_up(b->ctx.bus))
                return;
        r = sd_bus_emit_properties_changed(b->ctx.bus, BUS_MANAGER_PATH, BUS_MANAGER_INTERFACE, "ConfigFiles",
                                           "ConfigProblems", "NConfigProblems", "DriftAction", NULL);
        if (r < 0)
                log_debug_errno(r, "Failed to send PropertiesChanged for ConfigFiles, ignoring: %m");
}

/* The drift watch started, stopped or failed. */
static void manager_bus_on_drift(void *userdata)
{
        ManagerBus *b = userdata;
        int r;

        if (!bus_is_up(b->ctx.bus))
                return;
        r = sd_bus_emit_properties_changed(b->ctx.bus, BUS_MANAGER_PATH, BUS_MANAGER_INTERFACE, "DriftWatch",
                                           NULL);
        if (r < 0)
                log_debug_errno(r, "Failed to send PropertiesChanged for DriftWatch, ignoring: %m");
}

int manager_bus_new(Manager *m, ManagerBus **ret)
{
        ManagerBus *b;
        int r;

        b = calloc(1, sizeof *b);
        if (!b)
                return -ENOMEM;
        b->ctx.manager = m;
        m->link_ctx.observer = link_bus_on_link;
        m->link_ctx.observer_userdata = &b->ctx;
        m->reloaded = manager_bus_on_reloaded;
        m->reloaded_userdata = b;
        m->link_ctx.overridden = link_bus_on_override;
        m->link_ctx.overridden_userdata = &b->ctx;
        drift_watch_set_observer(m->drift, manager_bus_on_drift, b);
        if (m->audit) {
                m->audit->observer = audit_bus_on_event;
                m->audit->observer_userdata = &b->ctx;
        }

        r = sd_bus_error_add_map(bus_igmpd_errors);
        if (r < 0)
                log_debug_errno(r, "Failed to register igmpd's D-Bus error names, ignoring: %m");
        r = manager_bus_open(b, false);
        if (r < 0) {
                log_warning_errno(r, "System bus not reachable, applying policy without a D-Bus face; "
                                  "connecting when it appears. (%m)");
                b->down_logged = true;
                manager_bus_connect_now(b);
        }
        /* Otherwise the name is asked for asynchronously (on_request_name). */
        *ret = b;
        return 0;
}

ManagerBus *manager_bus_free(ManagerBus *b)
{
        Manager *m;

        if (!b)
                return NULL;
        m = b->ctx.manager;
        m->link_ctx.observer = NULL;
        m->link_ctx.observer_userdata = NULL;
        m->reloaded = NULL;
        m->reloaded_userdata = NULL;
        m->link_ctx.overridden = NULL;
        m->link_ctx.overridden_userdata = NULL;
        drift_watch_set_observer(m->drift, NULL, NULL);
        if (m->audit && m->audit->observer_userdata == &b->ctx) {
                m->audit->observer = NULL;
                m->audit->observer_userdata = NULL;
        }
        b->reconnect_source = sd_event_source_disable_unref(b->reconnect_source);
        manager_bus_drop(b);
        free(b);
        return NULL;
}

const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),

        SD_BUS_PROPERTY("Version", "s", property_get_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("KernelFeatures", "a{sb}", property_get_kernel_features, 0,
                        SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("ConfigFiles", "as", property_get_config_files, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("ConfigProblems", "a(sus)", property_get_config_problems, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("NConfigProblems", "u", property_get_n_config_problems, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("DriftWatch", "(ss)", property_get_drift_watch, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("DriftAction", "s", property_get_drift_action, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),

        /* Reads are open to all; the mutating handlers authorize themselves (uid 0 or polkit).
         * SD_BUS_VTABLE_UNPRIVILEGED everywhere: sd-bus's capability check is no gate. */
        SD_BUS_METHOD_WITH_NAMES("ListLinks", "", , "a(iso)", SD_BUS_PARAM(links),
                                 bus_manager_method_list_links, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("ListLinksState", "", , "asasa(" LINK_STATE_SIGNATURE ")",
                                 SD_BUS_PARAM(knobs) SD_BUS_PARAM(strings) SD_BUS_PARAM(links),
                                 bus_manager_method_list_links_state, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("GetLinkByName", "s", SD_BUS_PARAM(name), "io",
                                 SD_BUS_PARAM(ifindex) SD_BUS_PARAM(path),
                                 bus_manager_method_get_link_by_name, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("GetLinkByIndex", "i", SD_BUS_PARAM(ifindex), "so",
                                 SD_BUS_PARAM(name) SD_BUS_PARAM(path), bus_manager_method_get_link_by_index,
                                 SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("SetLinkKnobs", "ia{sv}u",
                                 SD_BUS_PARAM(ifindex) SD_BUS_PARAM(knobs) SD_BUS_PARAM(flags), "", ,
                                 bus_manager_method_set_link_knobs, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("RevertLink", "iu", SD_BUS_PARAM(ifindex) SD_BUS_PARAM(flags), "", ,
                                 bus_manager_method_revert_link, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("ReconfigureLink", "i", SD_BUS_PARAM(ifindex), "", ,
                                 bus_manager_method_reconfigure_link, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Reload", "", "", bus_manager_method_reload, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("ReloadEx", "u", SD_BUS_PARAM(flags), "u", SD_BUS_PARAM(problems),
                                 bus_manager_method_reload, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("Describe", "", , "s", SD_BUS_PARAM(json), bus_manager_method_describe,
                                 SD_BUS_VTABLE_UNPRIVILEGED),

        SD_BUS_VTABLE_END,
};
