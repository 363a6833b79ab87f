/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * monitor: prints link and knob changes as igmpd announces them, until Ctrl-C.
 *
 * Text lines, each after the local time it was seen ("2024-05-01 12:00:00.123 "), never
 * shortened (a terminal wraps them; a pipe gets them whole):
 *   + v2 (4): added, unmanaged
 *   - v2 (4): removed
 *   v0 (3): State pending → configured
 *   v0 (3): igmpv3_unsolicited_report_interval kernel 1000ms → 200ms, policy - → 200ms, source runtime (/run)
 *   v0 (3): matched files now: /etc/igmpd/conf.d/10-site.conf, /etc/igmpd/conf.d/50-iptv.conf
 *   v0 (3): IgnoredSources none → NetworkManager:alice-iptv: a user's profile (connection.permissions …)
 *   v0 (3): igmpv3_unsolicited_report_interval overridden by 'sysctl' (pid 812): 200ms → 1000ms,
 *           igmpd's value 200ms: reverted          (one line; KnobOverridden)
 *   igmpd: configuration reloaded, 2 policy files
 *   igmpd: stopped | started        (started: its first pass over the links is over)
 * JSON (one object per line, each with "realtime_usec"):
 *   {"event":"added","link":{…}}  {"event":"removed","index":4,"name":"v2"}
 *   {"event":"changed","changed":["state",…],"link":{…}}  (keys as in the link object)
 *   {"event":"reloaded","config_files":[…]}  {"event":"stopped"}  {"event":"started"}
 *   {"event":"overridden","index":3,"name":"v0","knob":"…","old":200,"new":1000,"value":200,
 *    "pid":812,"comm":"sysctl","action":"reverted"}  (old null and pid 0 where unknown)
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "array-util.h"
#include "audit-format.h"
#include "bus-read.h"
#include "igmpctl.h"
#include "macro.h"
#include "output.h"
#include "strv.h"
#include "terminal.h"
#include "utf8.h"

#define MONITOR_LINKS_MAX 65536 /* links remembered for "old → new" display */

typedef struct Monitor {
        sd_bus *bus;
        ClientLink *links; /* each with its path */
        size_t n, allocated;
        bool starting; /* igmpd's State was "starting" when they were read */
} Monitor;

/* Prints a text line after the time ("2024-05-01 12:00:00.123 "), every control character
 * escaped (names come from the kernel, comm from any process), and flushes it. */
static _printf_(1, 2) void monitor_line(const char *format, ...)
{
        _cleanup_free_ char *text = NULL;
        uint64_t usec = now_usec(CLOCK_REALTIME);
        char when[32];
        va_list ap;

        va_start(ap, format);
        text = utf8_escape_vasprintf(UTF8_ESCAPE_SHOWN, format, ap);
        va_end(ap);
        audit_view_format_time(usec, when);
        if (streq(when, "-"))
                printf("- %s\n", text ?: "(out of memory)");
        else
                printf("%s.%03u %s\n", when, (unsigned) (usec / 1000 % 1000), text ?: "(out of memory)");
        fflush(stdout);
}

/* "v0 (3)" for a link monitor knows, else its object path. */
static const char *link_where(const ClientLink *ml, const char *path, char buf[static 512])
{
        if (!ml)
                return path;
        snprintf(buf, 512, "%s (%d)", strempty(ml->name), ml->ifindex);
        return buf;
}

/* Starts a JSON event object: {"realtime_usec":…,"event":"…" */
static void json_begin_event(JsonWriter *w, const char *event)
{
        json_writer_init(w, stdout, false);
        json_begin_object(w);
        json_field_uint(w, "realtime_usec", now_usec(CLOCK_REALTIME));
        json_field_string(w, "event", event);
}

static ClientLink *monitor_find(Monitor *m, const char *path)
{
        for (size_t i = 0; i < m->n; i++)
                if (streq(m->links[i].path, path))
                        return &m->links[i];
        return NULL;
}

/* Keeps l (taken over) as the link at path; NULL (l freed) when it cannot. */
static ClientLink *monitor_add(Monitor *m, const char *path, ClientLink *l)
{
        ClientLink *ml;

        /* The path first: no link is kept without it. */
        if (free_and_strdup(&l->path, path) < 0)
                goto fail;
        ml = monitor_find(m, path);
        if (ml) /* replaced */
                client_link_done(ml);
        else if (m->n < MONITOR_LINKS_MAX && ARRAY_GROW(m->links, m->allocated, m->n, 64) >= 0)
                ml = &m->links[m->n++];
        else
                goto fail;
        *ml = *l;
        return ml;
fail:
        client_link_done(l);
        return NULL;
}

static void monitor_remove(Monitor *m, ClientLink *l)
{
        size_t i = (size_t) (l - m->links);

        client_link_done(l);
        memmove(l, l + 1, (m->n - i - 1) * sizeof *l);
        m->n--;
}

static void monitor_clear(Monitor *m)
{
        client_links_free(m->links, m->n);
        *m = (Monitor) { .bus = m->bus };
}

/* Every link igmpd has, in one call (client_links_get_all(): ListLinksState); their object paths
 * follow from their ifindexes.
 * igmpd's State first: during its first pass ("starting") it serves the links found so far and
 * does not announce the others one by one; at its end (State "running") they are read again. */
static int monitor_load(Monitor *m)
{
        _cleanup_free_ char *state = NULL;
        int r;

        monitor_clear(m);
        /* An igmpd without State is running. */
        if (sd_bus_get_property_string(m->bus, IGMPD_BUS_NAME, IGMPD_MANAGER_PATH, IGMPD_MANAGER_INTERFACE, "State",
                                       NULL, &state) >= 0)
                m->starting = streq(state, "starting");
        r = client_links_get_all(m->bus, &m->links, &m->n);
        if (r < 0)
                return r;
        m->allocated = m->n;
        while (m->n > MONITOR_LINKS_MAX)
                client_link_done(&m->links[--m->n]);
        for (size_t i = 0; r >= 0 && i < m->n; i++)
                r = client_link_path(m->links[i].ifindex, &m->links[i].path);
        if (r < 0) /* no link without its path */
                monitor_clear(m);
        return r < 0 ? failed_errno(r, "read the links") : 0;
}

static void print_json_link_event(const char *event, const ClientLink *l, unsigned changed)
{
        LinkStatus s;
        JsonWriter w;

        json_begin_event(&w, event);
        if (changed) {
                json_key(&w, "changed");
                json_begin_array(&w);
                for (size_t i = 0; i < CLIENT_LINK_FIELDS; i++)
                        if (changed & (1u << i))
                                json_string(&w, client_link_fields[i].json);
                if (changed & CLIENT_PROP_KNOBS)
                        json_string(&w, "knobs");
                json_end_array(&w);
        }
        json_key(&w, "link");
        client_link_status(l, &s);
        json_write_link(&w, &s);
        json_end_object(&w);
        (void) json_done(&w);
}

static void print_simple_event(const char *event, int ifindex, const char *name)
{
        JsonWriter w;

        json_begin_event(&w, event);
        if (ifindex > 0) {
                json_field_int(&w, "index", ifindex);
                json_field_string(&w, "name", strempty(name));
        }
        json_end_object(&w);
        (void) json_done(&w);
}

/* The field's value as text ("" for none; a list joined by ", ", "none" if empty). NULL on
 * ENOMEM. */
static char *link_field_string(const ClientLink *l, const ClientLinkField *f)
{
        const void *p = (const uint8_t *) l + f->offset;
        char *const *list = *(char *const *const *) p;

        if (!f->list)
                return strdup(strempty(*(char *const *) p));
        return list && list[0] ? client_strv_join(list, ", ") : strdup("none");
}

/* Moves field f from new into l, with a line where its value changed. */
static void monitor_take_field(ClientLink *l, ClientLink *new, const ClientLinkField *f)
{
        void **p = (void **) ((uint8_t *) l + f->offset), **q = (void **) ((uint8_t *) new + f->offset), *old = *p;
        _cleanup_free_ char *before = link_field_string(l, f), *now = link_field_string(new, f);

        *p = *q;
        *q = old; /* freed with new */
        if (arg_json == JSON_OFF && before && now && !streq(before, now))
                monitor_line("%s (%d): %s %s %s %s", strempty(l->name), l->ifindex, f->name,
                             isempty(before) ? "-" : before, glyph(GLYPH_ARROW), isempty(now) ? "-" : now);
}

/* Moves the knobs new has into l, with a line for each that changed. */
static void monitor_take_knobs(ClientLink *l, ClientLink *new)
{
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                char a[32], b[32], c[32], d[32];

                if (!new->has[k])
                        continue;
                if (arg_json == JSON_OFF &&
                    !(l->has[k] && l->kernel[k] == new->kernel[k] && l->policy[k] == new->policy[k] &&
                      streq(strempty(l->source[k]), strempty(new->source[k]))))
                        monitor_line("%s (%d): %s kernel %s %s %s, wanted %s %s %s, source %s", strempty(l->name),
                                     l->ifindex, knob_to_string(k), l->has[k] ? knob_format(k, l->kernel[k], a) : "?",
                                     glyph(GLYPH_ARROW), knob_format(k, new->kernel[k], b),
                                     l->has[k] ? knob_format(k, l->policy[k], c) : "?", glyph(GLYPH_ARROW),
                                     knob_format(k, new->policy[k], d), knob_source_format(new->source[k]));
                l->has[k] = true;
                l->kernel[k] = new->kernel[k];
                l->policy[k] = new->policy[k];
                free(l->source[k]);
                l->source[k] = TAKE_PTR(new->source[k]);
        }
}

static int on_interfaces_added(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
        Monitor *m = userdata;
        const char *path;
        ClientLink l;
        int r;

        client_link_init(&l);
        r = sd_bus_message_read(msg, "o", &path);
        if (r >= 0)
                r = client_link_read_interfaces(msg, &l);
        if (r <= 0) {
                client_link_done(&l);
                return 0;
        }
        if (arg_json != JSON_OFF)
                print_json_link_event("added", &l, 0);
        else
                monitor_line("+ %s (%d): added, %s", strempty(l.name), l.ifindex, strempty(l.state));
        (void) monitor_add(m, path, &l);
        return 0;
}

static int on_interfaces_removed(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
        Monitor *m = userdata;
        const char *path;
        ClientLink *ml;
        char where[512];

        if (sd_bus_message_read(msg, "o", &path) < 0)
                return 0;
        ml = monitor_find(m, path);
        if (arg_json != JSON_OFF)
                print_simple_event("removed", ml ? ml->ifindex : 0, ml ? ml->name : NULL);
        else
                monitor_line("- %s: removed", link_where(ml, path, where));
        if (ml)
                monitor_remove(m, ml);
        return 0;
}

/* "igmpd: started" once its links are read (its first pass over them is over), or "stopped". */
static void print_started(bool started)
{
        if (arg_json != JSON_OFF)
                print_simple_event(started ? "started" : "stopped", 0, NULL);
        else
                monitor_line("igmpd: %s", started ? "started" : "stopped");
}

static int manager_property(sd_bus_message *msg, const char *name, void *userdata)
{
        return streq(name, "ConfigFiles") ? bus_read_variant_strv(msg, "as", userdata) : 0;
}

static int on_manager_changed(Monitor *m, sd_bus_message *msg)
{
        _cleanup_strv_free_ char **files = NULL;
        int r;

        /* The first pass's end (State "running") comes with the configuration: no reload. */
        if (m->starting) {
                if (monitor_load(m) >= 0 && !m->starting)
                        print_started(true);
                return 0;
        }
        r = bus_read_dict(msg, manager_property, &files);
        if (r >= 0 && files) {
                size_t n = strv_length(files);

                if (arg_json != JSON_OFF) {
                        JsonWriter w;

                        json_begin_event(&w, "reloaded");
                        json_field_strv(&w, "config_files", (const char *const *) files);
                        json_end_object(&w);
                        (void) json_done(&w);
                } else
                        monitor_line("igmpd: configuration reloaded, %zu policy file%s", n, n == 1 ? "" : "s");
        }
        return 0;
}

static int on_properties_changed(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
        Monitor *m = userdata;
        const char *iface, *path = sd_bus_message_get_path(msg);
        ClientLink new, *l;
        unsigned changed = 0;

        if (sd_bus_message_read(msg, "s", &iface) < 0 || !path)
                return 0;
        if (streq(iface, IGMPD_MANAGER_INTERFACE))
                return on_manager_changed(m, msg);
        if (!streq(iface, IGMPD_LINK_INTERFACE))
                return 0;

        l = monitor_find(m, path);
        if (!l) {
                /* Not seen yet (started while the link appeared): fetch it whole. */
                ClientLink fresh;
                if (client_link_fetch(m->bus, path, &fresh) < 0 || !(l = monitor_add(m, path, &fresh)))
                        return 0;
        }

        /* Read apart, then moved into l one by one: each line shows the old value and the new. */
        client_link_init(&new);
        if (client_link_read_properties(msg, &new, &changed) >= 0) {
                for (size_t i = 0; i < CLIENT_LINK_FIELDS; i++)
                        if (changed & (1u << i))
                                monitor_take_field(l, &new, &client_link_fields[i]);
                monitor_take_knobs(l, &new);
                if (arg_json != JSON_OFF)
                        print_json_link_event("changed", l, changed);
        }
        client_link_done(&new);
        return 0;
}

/* KnobOverridden: another process changed a knob igmpd manages. */
static int on_knob_overridden(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
        Monitor *m = userdata;
        const char *path = sd_bus_message_get_path(msg), *knob, *comm, *action;
        int32_t old, new, value;
        char a[32], b[32], c[32], who[96], where[512];
        ClientLink *ml;
        uint32_t pid;
        Knob k;

        if (sd_bus_message_read(msg, "siiiuss", &knob, &old, &new, &value, &pid, &comm, &action) < 0 || !path)
                return 0;
        k = knob_from_string(knob);
        if (k < 0)
                return 0;
        ml = monitor_find(m, path);
        if (arg_json != JSON_OFF) {
                JsonWriter w;

                json_begin_event(&w, "overridden");
                json_field_int(&w, "index", ml ? ml->ifindex : 0);
                json_fields(&w, "name", ml ? strempty(ml->name) : "", "knob", knob, NULL);
                json_key(&w, "old");
                if (old < 0)
                        json_null(&w);
                else
                        json_int(&w, old);
                json_field_int(&w, "new", new);
                json_field_int(&w, "value", value);
                json_field_int(&w, "pid", pid);
                json_fields(&w, "comm", comm, "action", action, NULL);
                json_end_object(&w);
                (void) json_done(&w);
        } else {
                if (pid > 0)
                        snprintf(who, sizeof who, "'%s' (pid %u)", comm, (unsigned) pid);
                else
                        snprintf(who, sizeof who, "another process");
                monitor_line("%s: %s overridden by %s: %s → %s, igmpd's value %s: %s", link_where(ml, path, where),
                             knob, who, old < 0 ? "?" : knob_format(k, old, a), knob_format(k, new, b),
                             knob_format(k, value, c), action);
        }
        return 0;
}

static int on_name_owner_changed(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
        Monitor *m = userdata;
        const char *name, *old, *new;

        if (sd_bus_message_read(msg, "sss", &name, &old, &new) < 0 || !streq(name, IGMPD_BUS_NAME))
                return 0;
        if (isempty(new)) {
                monitor_clear(m);
                print_started(false);
        } else if (monitor_load(m) >= 0 && !m->starting) /* else once its first pass is over */
                print_started(true);
        return 0;
}

int verb_monitor(int argc, char **argv, sd_bus *bus)
{
        static const struct {
                const char *path, *iface, *member;
                sd_bus_message_handler_t handler;
        } signals[] = {
                { NULL, "org.freedesktop.DBus.Properties", "PropertiesChanged", on_properties_changed },
                { IGMPD_MANAGER_PATH, "org.freedesktop.DBus.ObjectManager", "InterfacesAdded", on_interfaces_added },
                { IGMPD_MANAGER_PATH, "org.freedesktop.DBus.ObjectManager", "InterfacesRemoved", on_interfaces_removed },
                { NULL, IGMPD_LINK_INTERFACE, "KnobOverridden", on_knob_overridden },
        };
        _cleanup_(monitor_clear) Monitor m = { .bus = bus };
        int r = 0;

        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(signals); i++)
                r = sd_bus_match_signal(bus, NULL, IGMPD_BUS_NAME, signals[i].path, signals[i].iface, signals[i].member,
                                        signals[i].handler, &m);
        if (r >= 0)
                r = sd_bus_add_match(
                        bus, NULL,
                        "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                        "interface='org.freedesktop.DBus',member='NameOwnerChanged',"
                        "arg0='" IGMPD_BUS_NAME "'",
                        on_name_owner_changed, &m);
        if (r < 0)
                return failed_errno(r, "subscribe to igmpd's signals");

        r = monitor_load(&m);
        if (r < 0)
                return r;

        if (arg_legend)
                fprintf(stderr, "Monitoring igmpd; press Ctrl-C to stop.\n");
        return client_run_until_interrupted(bus);
}
