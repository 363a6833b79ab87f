/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * igmpctl ↔ igmpd: connecting, error messages with a fix, link lookup and property decoding.
 */

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "igmpctl.h"
#include "macro.h"

JsonMode arg_json = JSON_OFF;
bool arg_legend = true;
const char *arg_host = NULL;
bool arg_persistent = false;
bool arg_revert = false;
bool arg_follow = false;
bool arg_no_pager = false;
bool arg_ask_password = true;
bool arg_knob_set[_KNOB_MAX];
int32_t arg_knob[_KNOB_MAX];
bool arg_clear = false;
bool arg_reapply = false;
bool arg_runtime = false;
int client_exit_status = 0;

#define DEFAULT_SYSTEM_BUS_ADDRESS "unix:path=/run/dbus/system_bus_socket"

/* Where igmpctl looks for the bus, for messages: "unix:path=…" or "HOST (over ssh)". */
static char bus_where[512];

static void bus_where_init(void)
{
        const char *e = secure_getenv("DBUS_SYSTEM_BUS_ADDRESS");

        if (arg_host)
                snprintf(bus_where, sizeof bus_where, "on %s (over ssh)", arg_host);
        else if (!isempty(e))
                snprintf(bus_where, sizeof bus_where, "at %s (from $DBUS_SYSTEM_BUS_ADDRESS)", e);
        else
                snprintf(bus_where, sizeof bus_where, "at %s", DEFAULT_SYSTEM_BUS_ADDRESS);
}

int usage_error(const char *fmt, ...)
{
        va_list ap;

        fputs("igmpctl: ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
        return -EINVAL;
}

int client_connect(sd_bus **ret)
{
        sd_bus *bus = NULL;
        int r;

        bus_where_init();
        if (arg_host)
                r = sd_bus_open_system_remote(&bus, arg_host);
        else
                r = sd_bus_open_system(&bus);
        if (r < 0) {
                /* The bus itself is out of reach: say so, not "igmpd is not running". */
                if (arg_host)
                        fprintf(stderr, "Cannot reach the system bus %s: %s. Is the host reachable, and "
                                        "systemd-stdio-bridge installed there?\n", bus_where, strerror(-r));
                else
                        fprintf(stderr, "Cannot reach the system bus %s: %s. Is D-Bus running?\n", bus_where,
                                strerror(-r));
                return r == -EINVAL ? -EIO : r;
        }
        /* Let polkit ask for a password (through an agent) only where someone can type it, as
         * systemctl does; --no-ask-password never. */
        (void) sd_bus_set_allow_interactive_authorization(bus, arg_ask_password && isatty(STDIN_FILENO) > 0);
        *ret = bus;
        return 0;
}

int client_call_error(const sd_bus_error *error, int r, const char *what, const char *link)
{
        if (r >= 0)
                r = -EIO;
        /* With -H the bus is at the end of an ssh pipe: when ssh fails (refused key, host
         * down, no systemd-stdio-bridge there) the call only sees the pipe close, and sd-bus
         * turns that errno into an error of its own. ssh has said why on stderr just before;
         * point there rather than at igmpd. */
        if (arg_host && (r == -ENOTCONN || r == -ECONNRESET || r == -EPIPE)) {
                fprintf(stderr, "Failed to %s: no connection to the system bus %s: %s. See ssh's message above; "
                                "the host needs sshd and systemd-stdio-bridge.\n", what, bus_where, strerror(-r));
                return r;
        }
        if (sd_bus_error_has_names(error, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER)) {
                fprintf(stderr, "Failed to %s: igmpd is not running: nothing owns %s on the system bus %s. "
                                "Start it with systemctl start igmpd.\n", what, IGMPD_BUS_NAME, bus_where);
                return -EHOSTDOWN;
        }
        if (sd_bus_error_has_name(error, SD_BUS_ERROR_NO_REPLY) || (!sd_bus_error_is_set(error) && r == -ETIMEDOUT)) {
                fprintf(stderr, "Failed to %s: igmpd did not answer in time; see journalctl -u igmpd.\n", what);
                return -ETIMEDOUT;
        }
        if (sd_bus_error_has_name(error, SD_BUS_ERROR_DISCONNECTED) ||
            (!sd_bus_error_is_set(error) && (r == -ECONNRESET || r == -ENOTCONN || r == -EPIPE))) {
                fprintf(stderr, "Failed to %s: lost the connection to the system bus %s.\n", what, bus_where);
                return -ECONNRESET;
        }
        if (!error || !sd_bus_error_is_set(error)) {
                fprintf(stderr, "Failed to %s: %s\n", what, strerror(-r));
                return r;
        }
        if (sd_bus_error_has_name(error, SD_BUS_ERROR_ACCESS_DENIED)) {
                fprintf(stderr, "Failed to %s: Permission denied: run as root or authorize via polkit.\n",
                        what);
                return -EACCES;
        }
        if (sd_bus_error_has_names(error, "org.igmpd1.Error.NoSuchLink", SD_BUS_ERROR_UNKNOWN_OBJECT)) {
                fprintf(stderr, "No such link: %s (see igmpctl list)\n", link ? link : "?");
                return -ENODEV;
        }
        fprintf(stderr, "Failed to %s: %s\n", what, error->message ?: error->name);
        return r;
}

static bool is_ifindex(const char *s)
{
        if (!*s || strlen(s) > 10)
                return false;
        for (const char *p = s; *p; p++)
                if (*p < '0' || *p > '9')
                        return false;
        return true;
}

int client_resolve_link(sd_bus *bus, const char *link, int *ret_ifindex, char **ret_path)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        const char *path, *name;
        int32_t ifindex;
        int r;

        if (is_ifindex(link)) {
                long v = strtol(link, NULL, 10);
                if (v <= 0 || v > INT32_MAX) {
                        fprintf(stderr, "No such link: %s (see igmpctl list)\n", link);
                        return -ENODEV;
                }
                ifindex = (int32_t) v;
                r = sd_bus_call_method(bus, IGMPD_BUS_NAME, IGMPD_MANAGER_PATH, IGMPD_MANAGER_INTERFACE,
                                       "GetLinkByIndex", &error, &reply, "i", ifindex);
                if (r >= 0)
                        r = sd_bus_message_read(reply, "so", &name, &path);
        } else {
                r = sd_bus_call_method(bus, IGMPD_BUS_NAME, IGMPD_MANAGER_PATH, IGMPD_MANAGER_INTERFACE,
                                       "GetLinkByName", &error, &reply, "s", link);
                if (r >= 0)
                        r = sd_bus_message_read(reply, "io", &ifindex, &path);
        }
        if (r < 0) {
                r = client_call_error(&error, r, "look up the link", link);
                sd_bus_error_free(&error);
                sd_bus_message_unref(reply);
                return r;
        }
        if (ret_path) {
                *ret_path = strdup(path);
                if (!*ret_path) {
                        sd_bus_message_unref(reply);
                        return -ENOMEM;
                }
        }
        if (ret_ifindex)
                *ret_ifindex = ifindex;
        sd_bus_message_unref(reply);
        return 0;
}

void client_link_init(ClientLink *l)
{
        *l = (ClientLink) {};
        for (Knob k = 0; k < _KNOB_MAX; k++)
                l->kernel[k] = l->policy[k] = KNOB_STATUS_UNKNOWN;
}

void client_link_done(ClientLink *l)
{
        free(l->name);
        free(l->kind);
        free(l->type);
        free(l->mac_address);
        free(l->state);
        free(l->last_error);
        strv_freep(&l->alternative_names);
        strv_freep(&l->matched_files);
        for (Knob k = 0; k < _KNOB_MAX; k++)
                free(l->source[k]);
        client_link_init(l);
}

static int read_string_variant(sd_bus_message *m, char **p)
{
        const char *s;
        int r;

        r = sd_bus_message_enter_container(m, 'v', "s");
        if (r >= 0)
                r = sd_bus_message_read_basic(m, 's', &s);
        if (r >= 0)
                r = free_and_strdup(p, s);
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        return r;
}

static int read_strv_variant(sd_bus_message *m, char ***ret)
{
        char **l = NULL;
        int r;

        r = sd_bus_message_enter_container(m, 'v', "as");
        if (r < 0)
                return r;
        r = sd_bus_message_read_strv(m, &l);
        if (r < 0)
                return r;
        strv_freep(ret);
        *ret = l;
        return sd_bus_message_exit_container(m);
}

static int read_knobs_variant(sd_bus_message *m, ClientLink *l)
{
        const char *name, *source;
        int32_t kernel, policy;
        int r;

        r = sd_bus_message_enter_container(m, 'v', "a{s(iis)}");
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(m, 'a', "{s(iis)}");
        if (r < 0)
                return r;
        /* Item by item rather than sd_bus_message_read("{s(iis)}", …): no format string to
         * parse for each of the 6 knobs of each of thousands of links. */
        while ((r = sd_bus_message_enter_container(m, 'e', "s(iis)")) > 0) {
                Knob k;

                r = sd_bus_message_read_basic(m, 's', &name);
                if (r >= 0)
                        r = sd_bus_message_enter_container(m, 'r', "iis");
                if (r >= 0)
                        r = sd_bus_message_read_basic(m, 'i', &kernel);
                if (r >= 0)
                        r = sd_bus_message_read_basic(m, 'i', &policy);
                if (r >= 0)
                        r = sd_bus_message_read_basic(m, 's', &source);
                if (r >= 0)
                        r = sd_bus_message_exit_container(m);
                if (r >= 0)
                        r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
                k = knob_from_string(name);
                if (k < 0)
                        continue; /* a newer daemon's knob */
                l->kernel[k] = kernel;
                l->policy[k] = policy;
                l->has[k] = true;
                r = free_and_strdup(&l->source[k], source);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(m);
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

int client_link_read_properties(sd_bus_message *m, ClientLink *l, unsigned *ret_changed)
{
        unsigned changed = 0;
        const char *name;
        int r;

        r = sd_bus_message_enter_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                r = sd_bus_message_read(m, "s", &name);
                if (r < 0)
                        return r;
                if (streq(name, "Index")) {
                        r = sd_bus_message_read(m, "v", "i", &l->ifindex);
                        changed |= CLIENT_PROP_INDEX;
                } else if (streq(name, "Name")) {
                        r = read_string_variant(m, &l->name);
                        changed |= CLIENT_PROP_NAME;
                } else if (streq(name, "AlternativeNames")) {
                        r = read_strv_variant(m, &l->alternative_names);
                        changed |= CLIENT_PROP_ALTERNATIVE_NAMES;
                } else if (streq(name, "Kind")) {
                        r = read_string_variant(m, &l->kind);
                        changed |= CLIENT_PROP_KIND;
                } else if (streq(name, "Type")) {
                        r = read_string_variant(m, &l->type);
                        changed |= CLIENT_PROP_TYPE;
                } else if (streq(name, "MACAddress")) {
                        r = read_string_variant(m, &l->mac_address);
                        changed |= CLIENT_PROP_MAC_ADDRESS;
                } else if (streq(name, "State")) {
                        r = read_string_variant(m, &l->state);
                        changed |= CLIENT_PROP_STATE;
                } else if (streq(name, "LastError")) {
                        r = read_string_variant(m, &l->last_error);
                        changed |= CLIENT_PROP_LAST_ERROR;
                } else if (streq(name, "MatchedFiles")) {
                        r = read_strv_variant(m, &l->matched_files);
                        changed |= CLIENT_PROP_MATCHED_FILES;
                } else if (streq(name, "Knobs")) {
                        r = read_knobs_variant(m, l);
                        changed |= CLIENT_PROP_KNOBS;
                } else
                        r = sd_bus_message_skip(m, "v");
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(m);
        if (r < 0)
                return r;
        if (ret_changed)
                *ret_changed = changed;
        return 0;
}

/* Links fetched in one GetManagedObjects call by client_links_prefetch(); client_link_fetch()
 * takes them from here instead of asking once per link (4000 links: one call, not 4000). */
typedef struct Prefetched {
        char *path;
        ClientLink link;
        bool taken;
} Prefetched;

static Prefetched *prefetched;
static size_t n_prefetched;

static void prefetched_free(void)
{
        for (size_t i = 0; i < n_prefetched; i++) {
                if (!prefetched[i].taken)
                        client_link_done(&prefetched[i].link);
                free(prefetched[i].path);
        }
        free(prefetched);
        prefetched = NULL;
        n_prefetched = 0;
}

static int prefetched_compare(const void *a, const void *b)
{
        return strcmp(((const Prefetched *) a)->path, ((const Prefetched *) b)->path);
}

int client_links_prefetch(sd_bus *bus)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        const char *path;
        int r;

        if (!prefetched && atexit(prefetched_free) != 0)
                return 0;
        r = sd_bus_call_method(bus, IGMPD_BUS_NAME, IGMPD_MANAGER_PATH, "org.freedesktop.DBus.ObjectManager",
                               "GetManagedObjects", &error, &reply, NULL);
        if (r < 0) {
                /* Not fatal: client_link_fetch() falls back to one call per link. */
                sd_bus_error_free(&error);
                return 0;
        }
        r = sd_bus_message_enter_container(reply, 'a', "{oa{sa{sv}}}");
        while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'e', "oa{sa{sv}}")) > 0) {
                r = sd_bus_message_read(reply, "o", &path);
                if (r >= 0)
                        r = sd_bus_message_enter_container(reply, 'a', "{sa{sv}}");
                while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'e', "sa{sv}")) > 0) {
                        const char *iface;

                        r = sd_bus_message_read(reply, "s", &iface);
                        if (r < 0)
                                break;
                        if (streq(iface, IGMPD_LINK_INTERFACE)) {
                                Prefetched *a = realloc(prefetched, (n_prefetched + 1) * sizeof *a);
                                if (!a) {
                                        r = -ENOMEM;
                                        break;
                                }
                                prefetched = a;
                                Prefetched *p = &prefetched[n_prefetched];
                                *p = (Prefetched) { .path = strdup(path) };
                                client_link_init(&p->link);
                                r = client_link_read_properties(reply, &p->link, NULL);
                                if (!p->path && r >= 0)
                                        r = -ENOMEM;
                                if (r < 0) {
                                        client_link_done(&p->link);
                                        free(p->path);
                                        break;
                                }
                                n_prefetched++;
                        } else
                                r = sd_bus_message_skip(reply, "a{sv}");
                        if (r >= 0)
                                r = sd_bus_message_exit_container(reply);
                }
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
        }
        sd_bus_message_unref(reply);
        /* Sorted by path for client_link_fetch()'s binary search (object paths are unique). */
        if (n_prefetched > 1)
                qsort(prefetched, n_prefetched, sizeof *prefetched, prefetched_compare);
        return r < 0 ? r : 0;
}

static Prefetched *prefetched_find(const char *path)
{
        Prefetched key = { .path = (char *) path };

        if (n_prefetched == 0)
                return NULL;
        return bsearch(&key, prefetched, n_prefetched, sizeof *prefetched, prefetched_compare);
}

const ClientLink *client_link_peek(const char *path)
{
        Prefetched *p = prefetched_find(path);

        return p && !p->taken ? &p->link : NULL;
}

int client_link_fetch(sd_bus *bus, const char *path, ClientLink *ret)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r;

        Prefetched *p = prefetched_find(path);

        if (p && !p->taken) {
                p->taken = true;
                *ret = p->link; /* ownership moves to the caller */
                return 0;
        }

        r = sd_bus_call_method(bus, IGMPD_BUS_NAME, path, "org.freedesktop.DBus.Properties", "GetAll",
                               &error, &reply, "s", IGMPD_LINK_INTERFACE);
        if (r < 0) {
                r = client_call_error(&error, r, "read the link's properties", path);
                sd_bus_error_free(&error);
                return r;
        }
        client_link_init(ret);
        r = client_link_read_properties(reply, ret, NULL);
        sd_bus_message_unref(reply);
        if (r < 0) {
                client_link_done(ret);
                fprintf(stderr, "Failed to parse the link's properties: %s\n", strerror(-r));
        }
        return r;
}

void client_link_status(const ClientLink *l, LinkStatus *ret)
{
        *ret = (LinkStatus) {
                .ifindex = l->ifindex,
                .name = l->name,
                .alternative_names = (const char *const *) l->alternative_names,
                .kind = l->kind,
                .type = l->type,
                .state = l->state,
                .last_error = l->last_error,
                .matched_files = (const char *const *) l->matched_files,
        };
        snprintf(ret->mac_address, sizeof ret->mac_address, "%s", strempty(l->mac_address));
        for (Knob k = 0; k < _KNOB_MAX; k++)
                ret->knobs[k] = (KnobStatus) {
                        .kernel = l->kernel[k],
                        .policy = l->policy[k],
                        .source = l->source[k],
                };
}

const char *knob_format(Knob k, int64_t v, char buf[32])
{
        if (v < 0)
                return "-";
        if (knob_info(k)->kind == KNOB_KIND_VERSION) {
                if (v == 0)
                        return "auto";
                snprintf(buf, 32, "%lld", (long long) v);
        } else
                snprintf(buf, 32, "%lldms", (long long) v);
        return buf;
}

void json_start(JsonWriter *w)
{
        json_writer_init(w, stdout, arg_json == JSON_PRETTY);
}

int json_done(JsonWriter *w)
{
        int r = json_writer_finish(w);

        fputc('\n', stdout);
        if (fflush(stdout) != 0 && r >= 0)
                r = -errno;
        if (r < 0)
                fprintf(stderr, "Failed to write JSON: %s\n", strerror(-r));
        return r;
}

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
        return sd_event_exit(sd_event_source_get_event(s), 0);
}

static int on_disconnected(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        fprintf(stderr, "Lost the connection to the bus.\n");
        return sd_event_exit(sd_bus_get_event(sd_bus_message_get_bus(m)), -ECONNRESET);
}

int client_run_until_interrupted(sd_bus *bus)
{
        sd_event *event = NULL;
        sigset_t mask;
        int r;

        sigemptyset(&mask);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGTERM);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
                return -errno;

        r = sd_event_default(&event);
        if (r >= 0)
                r = sd_event_add_signal(event, NULL, SIGINT, on_signal, NULL);
        if (r >= 0)
                r = sd_event_add_signal(event, NULL, SIGTERM, on_signal, NULL);
        if (r >= 0)
                r = sd_bus_match_signal(bus, NULL, NULL, "/org/freedesktop/DBus/Local",
                                        "org.freedesktop.DBus.Local", "Disconnected", on_disconnected, NULL);
        if (r >= 0)
                r = sd_bus_attach_event(bus, event, 0);
        if (r >= 0)
                r = sd_event_loop(event);
        sd_bus_detach_event(bus);
        sd_event_unref(event);
        if (r < 0 && r != -ECONNRESET)
                fprintf(stderr, "Event loop failed: %s\n", strerror(-r));
        return r;
}
