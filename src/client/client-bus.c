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

#include "bus-error.h"
#include "igmpctl.h"
#include "macro.h"
#include "strv.h"
#include "utf8.h"

JsonMode arg_json = JSON_OFF;
bool arg_legend = true;
const char *arg_host = NULL;
const char *arg_netns = NULL;
const char *arg_machine = NULL;
bool arg_persistent = false;
unsigned arg_revert = 0;
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
        else if (arg_machine)
                snprintf(bus_where, sizeof bus_where, "of container %s", arg_machine);
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
        client_exit_status = EXIT_USAGE;
        return -EINVAL;
}

int client_connect(sd_bus **ret)
{
        sd_bus *bus = NULL;
        int r;

        bus_where_init();
        if (arg_host)
                r = sd_bus_open_system_remote(&bus, arg_host);
        else if (arg_machine)
                r = sd_bus_open_system_machine(&bus, arg_machine);
        else
                r = sd_bus_open_system(&bus);
        if (r < 0) {
                /* The bus itself is out of reach: say so, not "igmpd is not running". */
                if (arg_host)
                        fprintf(stderr, "Cannot reach the system bus %s: %s. Is the host reachable, and "
                                        "systemd-stdio-bridge installed there?\n", bus_where, strerror(-r));
                else if (arg_machine)
                        fprintf(stderr, "Cannot reach the system bus %s: %s. Is the container running and "
                                        "registered with systemd-machined (machinectl list), with D-Bus in it?\n",
                                bus_where, strerror(-r));
                else
                        fprintf(stderr, "Cannot reach the system bus %s: %s. Is D-Bus running?\n", bus_where,
                                strerror(-r));
                client_exit_status = EXIT_NOT_REACHABLE;
                return r == -EINVAL ? -EIO : r;
        }
        /* igmpd's error names map to errnos like the standard ones (exit_status_of()). */
        (void) sd_bus_error_add_map(bus_igmpd_errors);
        /* Let polkit ask for a password (through an agent) only where someone can type it, as
         * systemctl does; --no-ask-password never. */
        (void) sd_bus_set_allow_interactive_authorization(bus, arg_ask_password && isatty(STDIN_FILENO) > 0);
        *ret = bus;
        return 0;
}

static int client_call_error_message(const sd_bus_error *error, int r, const char *what, const char *link);

/* The exit status of a failure igmpd reported with one of its error names, or that stands for
 * the same errno (InvalidArgs is EINVAL too): from bus-error.h's table, so names and exit
 * statuses cannot drift apart. */
static int exit_status_of(const sd_bus_error *error)
{
        switch (sd_bus_error_get_errno(error)) {
        case ENODEV:
                return EXIT_NO_SUCH_LINK;
        case EINVAL:
                return EXIT_INVALID_ARGUMENT;
        case EOPNOTSUPP:
                return EXIT_UNSUPPORTED;
        default:
                return EXIT_FAILURE;
        }
}

int client_call_error(const sd_bus_error *error, int r, const char *what, const char *link)
{
        r = client_call_error_message(error, r, what, link);
        switch (r) {
        case -EHOSTDOWN: case -ETIMEDOUT: case -ECONNRESET: case -ENOTCONN: case -EPIPE:
                client_exit_status = EXIT_NOT_REACHABLE;
                break;
        case -EACCES:
                client_exit_status = EXIT_ACCESS_DENIED;
                break;
        case -ENODEV:
                client_exit_status = EXIT_NO_SUCH_LINK;
                break;
        default:
                client_exit_status = error && sd_bus_error_is_set(error) ? exit_status_of(error) : EXIT_FAILURE;
        }
        return r;
}

/* The message part of client_call_error(). */
static int client_call_error_message(const sd_bus_error *error, int r, const char *what, const char *link)
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
                _cleanup_free_ char *shown = link ? utf8_escape_dup(link, UTF8_ESCAPE_SHOWN) : NULL;

                fprintf(stderr, "No such link: %s (see igmpctl list)\n", shown ?: "?");
                return -ENODEV;
        }
        /* igmpd's messages quote interface names and paths: nothing raw to the terminal. */
        _cleanup_free_ char *message = utf8_escape_dup(error->message ?: error->name, UTF8_ESCAPE_SHOWN);

        fprintf(stderr, "Failed to %s: %s\n", what, message ?: error->name);
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
                        client_exit_status = EXIT_NO_SUCH_LINK;
                        return -ENODEV;
                }
                ifindex = (int32_t) v;
                r = sd_bus_call_method(bus, IGMPD_BUS_NAME, IGMPD_MANAGER_PATH, IGMPD_MANAGER_INTERFACE,
                                       "GetLinkByIndex", &error, &reply, "i", ifindex);
                if (r >= 0)
                        r = sd_bus_message_read(reply, "so", &name, &path);
        } else {
                /* A name typed with bytes that are not UTF-8 travels in the form igmpd shows it
                 * ("bad\xff"); any other is sent as typed: igmpd takes it as a name it shows, else
                 * as the name itself. */
                /* --netns NAME: the link of that name in that namespace (NETNS/IFNAME). */
                _cleanup_free_ char *qualified = NULL;
                if (arg_netns && !strchr(link, '/')) {
                        if (asprintf(&qualified, "%s/%s", arg_netns, link) < 0)
                                return -ENOMEM;
                        link = qualified;
                }
                bool valid = utf8_is_valid(link);
                _cleanup_free_ char *escaped = valid ? NULL : utf8_escape_dup(link, UTF8_ESCAPE_INVALID);

                if (!valid && !escaped)
                        return -ENOMEM;
                r = sd_bus_call_method(bus, IGMPD_BUS_NAME, IGMPD_MANAGER_PATH, IGMPD_MANAGER_INTERFACE,
                                       "GetLinkByName", &error, &reply, "s", escaped ?: link);
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
        free(l->netns);
        strv_freep(&l->alternative_names);
        strv_freep(&l->matched_files);
        strv_freep(&l->ignored_sources);
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
                } else if (streq(name, "Namespace")) {
                        r = read_string_variant(m, &l->netns);
                } else if (streq(name, "MatchedFiles")) {
                        r = read_strv_variant(m, &l->matched_files);
                        changed |= CLIENT_PROP_MATCHED_FILES;
                } else if (streq(name, "IgnoredSources")) {
                        r = read_strv_variant(m, &l->ignored_sources);
                        changed |= CLIENT_PROP_IGNORED_SOURCES;
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

void client_links_free(ClientLink *links, size_t n)
{
        for (size_t i = 0; i < n; i++)
                client_link_done(&links[i]);
        free(links);
}

static int client_link_compare(const void *a, const void *b)
{
        int x = ((const ClientLink *) a)->ifindex, y = ((const ClientLink *) b)->ifindex;

        return (x > y) - (x < y);
}

/* A growing array of links. */
typedef struct LinkArray {
        ClientLink *v;
        size_t n, n_alloc;
} LinkArray;

static ClientLink *link_array_new(LinkArray *a)
{
        if (a->n == a->n_alloc) {
                size_t n_alloc = a->n_alloc * 2 + 64;
                ClientLink *v = realloc(a->v, n_alloc * sizeof *v);

                if (!v)
                        return NULL;
                a->v = v;
                a->n_alloc = n_alloc;
        }
        client_link_init(&a->v[a->n]);
        return &a->v[a->n++];
}

/* strv of the strings tab[idx[0…n)]. */
static int strv_from_indexes(const char *const *tab, size_t n_tab, const uint32_t *idx, size_t n, char ***ret)
{
        char **l = calloc(n + 1, sizeof *l);

        if (!l)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                if (idx[i] >= n_tab || !(l[i] = strdup(tab[idx[i]]))) {
                        strv_freep(&l);
                        return idx[i] >= n_tab ? -EBADMSG : -ENOMEM;
                }
        }
        *ret = l;
        return 0;
}

/* One (iuuuuuuauauaiaiauau) of ListLinksState. */
static int read_link_state(sd_bus_message *m, const char *const *tab, size_t n_tab, const Knob *knob_at,
                           size_t n_knobs, ClientLink *l)
{
        uint32_t s[6];
        const uint32_t *alt, *matched, *source, *ignored;
        const int32_t *kernel, *policy;
        size_t n_alt, n_matched, n_kernel, n_policy, n_source, n_ignored;
        char **strings[] = { &l->name, &l->type, &l->kind, &l->mac_address, &l->state, &l->last_error };
        int r;

        r = sd_bus_message_enter_container(m, 'r', "iuuuuuuauauaiaiauau");
        if (r <= 0)
                return r;
        r = sd_bus_message_read(m, "iuuuuuu", &l->ifindex, &s[0], &s[1], &s[2], &s[3], &s[4], &s[5]);
        if (r >= 0)
                r = sd_bus_message_read_array(m, 'u', (const void **) &alt, &n_alt);
        if (r >= 0)
                r = sd_bus_message_read_array(m, 'u', (const void **) &matched, &n_matched);
        if (r >= 0)
                r = sd_bus_message_read_array(m, 'i', (const void **) &kernel, &n_kernel);
        if (r >= 0)
                r = sd_bus_message_read_array(m, 'i', (const void **) &policy, &n_policy);
        if (r >= 0)
                r = sd_bus_message_read_array(m, 'u', (const void **) &source, &n_source);
        if (r >= 0)
                r = sd_bus_message_read_array(m, 'u', (const void **) &ignored, &n_ignored);
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        if (r < 0)
                return r;

        for (size_t i = 0; i < ELEMENTSOF(strings); i++) {
                if (s[i] >= n_tab)
                        return -EBADMSG;
                *strings[i] = strdup(tab[s[i]]);
                if (!*strings[i])
                        return -ENOMEM;
        }
        r = strv_from_indexes(tab, n_tab, alt, n_alt / sizeof *alt, &l->alternative_names);
        if (r >= 0)
                r = strv_from_indexes(tab, n_tab, matched, n_matched / sizeof *matched, &l->matched_files);
        if (r >= 0)
                r = strv_from_indexes(tab, n_tab, ignored, n_ignored / sizeof *ignored, &l->ignored_sources);
        if (r < 0)
                return r;
        n_kernel /= sizeof *kernel, n_policy /= sizeof *policy, n_source /= sizeof *source;
        for (size_t i = 0; i < n_knobs; i++) {
                Knob k = knob_at[i];

                if (k < 0)
                        continue; /* a newer daemon's knob */
                if (i >= n_kernel || i >= n_policy || i >= n_source || source[i] >= n_tab)
                        return -EBADMSG;
                l->kernel[k] = kernel[i];
                l->policy[k] = policy[i];
                l->has[k] = true;
                l->source[k] = strdup(tab[source[i]]);
                if (!l->source[k])
                        return -ENOMEM;
        }
        return 1;
}

static int links_from_state(sd_bus_message *reply, LinkArray *out)
{
        _cleanup_free_ const char **tab = NULL;
        _cleanup_strv_free_ char **knobs = NULL;
        _cleanup_free_ Knob *knob_at = NULL;
        size_t n_tab = 0, n_knobs;
        const char *s;
        int r;

        r = sd_bus_message_read_strv(reply, &knobs);
        if (r < 0)
                return r;
        n_knobs = strv_length(knobs);
        knob_at = calloc(MAX(n_knobs, (size_t) 1), sizeof *knob_at);
        if (!knob_at)
                return -ENOMEM;
        for (size_t i = 0; i < n_knobs; i++)
                knob_at[i] = knob_from_string(knobs[i]);

        /* The string table, borrowed from the reply. */
        r = sd_bus_message_enter_container(reply, 'a', "s");
        while (r >= 0 && (r = sd_bus_message_read_basic(reply, 's', &s)) > 0) {
                if ((n_tab & (n_tab - 1)) == 0) { /* 0, 1, 2, 4, …: grow */
                        const char **t = realloc(tab, MAX(n_tab * 2, (size_t) 1) * sizeof *t);
                        if (!t)
                                return -ENOMEM;
                        tab = t;
                }
                tab[n_tab++] = s;
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        if (r >= 0 && n_tab == 0)
                r = -EBADMSG;

        if (r >= 0)
                r = sd_bus_message_enter_container(reply, 'a', "(iuuuuuuauauaiaiauau)");
        while (r >= 0) {
                ClientLink *l = link_array_new(out);

                if (!l)
                        return -ENOMEM;
                r = read_link_state(reply, tab, n_tab, knob_at, n_knobs, l);
                if (r <= 0) {
                        client_link_done(l);
                        out->n--;
                        break;
                }
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        return r;
}

/* From an igmpd without ListLinksState: the org.igmpd1.Link entries of GetManagedObjects. */
static int links_from_objects(sd_bus_message *reply, LinkArray *out)
{
        int r;

        r = sd_bus_message_enter_container(reply, 'a', "{oa{sa{sv}}}");
        while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'e', "oa{sa{sv}}")) > 0) {
                r = sd_bus_message_skip(reply, "o");
                if (r >= 0)
                        r = sd_bus_message_enter_container(reply, 'a', "{sa{sv}}");
                while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'e', "sa{sv}")) > 0) {
                        const char *iface;

                        r = sd_bus_message_read(reply, "s", &iface);
                        if (r < 0)
                                break;
                        if (streq(iface, IGMPD_LINK_INTERFACE)) {
                                ClientLink *l = link_array_new(out);
                                if (!l)
                                        return -ENOMEM;
                                r = client_link_read_properties(reply, l, NULL);
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
        return r;
}

int client_links_get_all(sd_bus *bus, ClientLink **ret, size_t *ret_n)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        LinkArray links = {};
        bool state = true;
        int r;

        r = sd_bus_call_method(bus, IGMPD_BUS_NAME, IGMPD_MANAGER_PATH, IGMPD_MANAGER_INTERFACE, "ListLinksState",
                               &error, &reply, NULL);
        if (r < 0 && sd_bus_error_has_name(&error, SD_BUS_ERROR_UNKNOWN_METHOD)) {
                /* An older igmpd (igmpctl -H to another host): the standard way. */
                sd_bus_error_free(&error);
                state = false;
                r = sd_bus_call_method(bus, IGMPD_BUS_NAME, IGMPD_MANAGER_PATH, "org.freedesktop.DBus.ObjectManager",
                                       "GetManagedObjects", &error, &reply, NULL);
        }
        if (r < 0) {
                r = client_call_error(&error, r, "list links", NULL);
                sd_bus_error_free(&error);
                return r;
        }
        r = state ? links_from_state(reply, &links) : links_from_objects(reply, &links);
        sd_bus_message_unref(reply);
        if (r < 0) {
                client_links_free(links.v, links.n);
                fprintf(stderr, "Failed to read the links igmpd sent: %s\n", strerror(-r));
                return r;
        }
        if (links.n > 1)
                qsort(links.v, links.n, sizeof *links.v, client_link_compare);
        *ret = links.v;
        *ret_n = links.n;
        return 0;
}

int client_link_fetch(sd_bus *bus, const char *path, ClientLink *ret)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r;

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
                .ignored_source = l->ignored_sources ? l->ignored_sources[0] : NULL,
        };
        snprintf(ret->mac_address, sizeof ret->mac_address, "%s", strempty(l->mac_address));
        for (Knob k = 0; k < _KNOB_MAX; k++)
                ret->knobs[k] = (KnobStatus) {
                        .kernel = l->kernel[k],
                        .policy = l->policy[k],
                        .source = l->source[k],
                };
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
