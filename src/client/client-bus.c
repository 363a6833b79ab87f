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
#include "parse-util.h"
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
bool arg_knobs_given = false;
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

int failed_errno(int r, const char *fmt, ...)
{
        va_list ap;

        fputs("Failed to ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fprintf(stderr, ": %s\n", strerror(-r));
        return r;
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
                fprintf(stderr, "Cannot reach the system bus %s: %s. %s\n", bus_where, strerror(-r),
                        arg_host ? "Is the host reachable, and systemd-stdio-bridge installed there?"
                        : arg_machine ? "Is the container running and registered with systemd-machined "
                                        "(machinectl list), with D-Bus in it?"
                                      : "Is D-Bus running?");
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
        if (!error || !sd_bus_error_is_set(error))
                return failed_errno(r, "%s", what);
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

/* The exit status of a failed call's errno. igmpd's error names map to errnos through
 * bus-error.h's table (InvalidArgs is EINVAL too), so names and exit statuses cannot drift
 * apart; EINVAL and EOPNOTSUPP are igmpd's verdict only when it answered with an error. */
static int exit_status_of(int r, bool from_igmpd)
{
        switch (r) {
        case -EHOSTDOWN: case -ETIMEDOUT: case -ECONNRESET: case -ENOTCONN: case -EPIPE:
                return EXIT_NOT_REACHABLE;
        case -EACCES:
                return EXIT_ACCESS_DENIED;
        case -ENODEV:
                return EXIT_NO_SUCH_LINK;
        case -EINVAL:
                return from_igmpd ? EXIT_INVALID_ARGUMENT : EXIT_FAILURE;
        case -EOPNOTSUPP:
                return from_igmpd ? EXIT_UNSUPPORTED : EXIT_FAILURE;
        default:
                return EXIT_FAILURE;
        }
}

/* Reports a failed call: the message, and the exit status. Returns a negative errno. */
static int client_call_error(const sd_bus_error *error, int r, const char *what, const char *link)
{
        r = client_call_error_message(error, r, what, link);
        client_exit_status = exit_status_of(r, error && sd_bus_error_is_set(error));
        return r;
}

int client_send(sd_bus *bus, sd_bus_message *m, int r, unsigned flags, const char *what, const char *link,
                sd_bus_message **reply)
{
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;

        if (r >= 0)
                r = sd_bus_call(bus, m, 0, &e, reply);
        if (r >= 0)
                return 1;
        if (flags & CLIENT_CALL_QUIET)
                return 0;
        return client_call_error(&e, r, what, link);
}

int client_call(sd_bus *bus, const char *path, const char *iface, const char *member, unsigned flags,
                const char *what, const char *link, sd_bus_message **reply, const char *types, ...)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        va_list ap;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, IGMPD_BUS_NAME, path ?: IGMPD_MANAGER_PATH, iface, member);
        if (r >= 0 && types) {
                va_start(ap, types);
                r = sd_bus_message_appendv(m, types, ap);
                va_end(ap);
        }
        return client_send(bus, m, r, flags, what, link, reply);
}

int client_get_property(sd_bus *bus, const char *iface, const char *name, const char *type, unsigned flags,
                        const char *what, sd_bus_message **reply)
{
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r = sd_bus_get_property(bus, IGMPD_BUS_NAME, IGMPD_MANAGER_PATH, iface, name, &e, reply, type);

        if (r >= 0)
                return 1;
        return flags & CLIENT_CALL_QUIET ? 0 : client_call_error(&e, r, what, NULL);
}

int client_read_property(sd_bus *bus, const char *iface, const char *name, unsigned flags, const char *what,
                         sd_bus_message **reply, const char *type, ...)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        va_list ap;
        int r;

        r = client_get_property(bus, iface, name, type, flags, what, &m);
        if (r <= 0)
                return r;
        va_start(ap, type);
        r = sd_bus_message_readv(m, type, ap);
        va_end(ap);
        if (r < 0)
                return flags & CLIENT_CALL_QUIET ? 0 : failed_errno(r, "%s", what);
        if (reply)
                *reply = TAKE_PTR(m);
        return 1;
}

int client_resolve_link(sd_bus *bus, const char *link, int *ret_ifindex, char **ret_path)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *path, *name;
        int32_t ifindex;
        uint64_t v;
        int r;

        /* Up to 10 digits is an ifindex (a longer number, a name). */
        if (strlen(link) <= 10 && parse_unsigned_range(link, link + strlen(link), 10, UINT64_MAX, &v) >= 0) {
                if (v == 0 || v > INT32_MAX) /* as igmpd would answer */
                        return client_call_error(&SD_BUS_ERROR_MAKE_CONST("org.igmpd1.Error.NoSuchLink", NULL),
                                                 -ENODEV, "look up the link", link);
                ifindex = (int32_t) v;
                r = client_call(bus, NULL, IGMPD_MANAGER_INTERFACE, "GetLinkByIndex", 0, "look up the link", link,
                                &reply, "i", ifindex);
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
                r = client_call(bus, NULL, IGMPD_MANAGER_INTERFACE, "GetLinkByName", 0, "look up the link", link,
                                &reply, "s", escaped ?: link);
                if (r >= 0)
                        r = sd_bus_message_read(reply, "io", &ifindex, &path);
        }
        if (r < 0)
                return r;
        if (ret_path) {
                *ret_path = strdup(path);
                if (!*ret_path)
                        return -ENOMEM;
        }
        if (ret_ifindex)
                *ret_ifindex = ifindex;
        return 0;
}

void json_fields(JsonWriter *w, ...)
{
        va_list ap;

        va_start(ap, w);
        for (const char *key; (key = va_arg(ap, const char *));) {
                json_key(w, key);
                json_string(w, va_arg(ap, const char *));
        }
        va_end(ap);
}

int json_done(JsonWriter *w)
{
        int r = json_writer_finish(w);

        fputc('\n', stdout);
        if (fflush(stdout) != 0 && r >= 0)
                r = -errno;
        return r < 0 ? failed_errno(r, "write JSON") : r;
}

static int on_disconnected(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        fprintf(stderr, "Lost the connection to the bus.\n");
        return sd_event_exit(sd_bus_get_event(sd_bus_message_get_bus(m)), -ECONNRESET);
}

int client_run_until_interrupted(sd_bus *bus)
{
        sd_event *event = NULL;
        int r;

        /* No handler: the signal ends the loop with 0. */
        r = sd_event_default(&event);
        if (r >= 0)
                r = sd_event_add_signal(event, NULL, SIGINT | SD_EVENT_SIGNAL_PROCMASK, NULL, NULL);
        if (r >= 0)
                r = sd_event_add_signal(event, NULL, SIGTERM | SD_EVENT_SIGNAL_PROCMASK, NULL, NULL);
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
