/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The bus connection's lifecycle, the filter that sees every incoming call (reads ask for a
 * refresh; GetManagedObjects is answered there), and the core's hooks. The org.igmpd1.Manager
 * interface and Describe()'s JSON are in manager-bus-vtable.c.
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
#include <stdlib.h>

#include "audit-bus.h"
#include "audit.h"
#include "bus-util.h"
#include "drift.h"
#include "event-util.h"
#include "link-bus.h"
#include "log.h"
#include "manager-bus.h"
#include "manager.h"
#include "nm.h"

/* Replies to RequestName (D-Bus specification, DBUS_REQUEST_NAME_REPLY_*). ALREADY_OWNER (4)
 * cannot come: each connection asks once. */
#define REQUEST_NAME_PRIMARY_OWNER 1
#define REQUEST_NAME_IN_QUEUE 2

#define BUS_DEFAULT_SYSTEM_ADDRESS "unix:path=/run/dbus/system_bus_socket"
/* Backoff after connections that fail before they are up, from the second in a row. */
#define BUS_RETRY_MIN_USEC (1ULL * 1000000ULL)
#define BUS_RETRY_MAX_USEC (30ULL * 1000000ULL)
/* Set-ups of a waiting connection tried again at once after a directory on the path went away. */
#define BUS_WATCH_RACE_RETRIES 16

static void manager_bus_drop(ManagerBus *b);
static void manager_bus_reconnect(ManagerBus *b);

/* ---- connection ---- */

static int on_connected(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
        ManagerBus *b = userdata;

        b->up = true;
        b->failures = 0;
        (void) sd_event_source_set_enabled(b->stall_source, SD_EVENT_OFF);
        log_debug("Connected to the system bus, asking for the name %s.", BUS_NAME);
        return 0;
}

static int on_disconnected(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
        ManagerBus *b = userdata;

        log_full(b->down_logged ? LOG_DEBUG : LOG_WARNING, "%s",
                 b->up ? "Lost the connection to the system bus, applying policy without a D-Bus face; "
                         "reconnecting when it is back."
                       : "The system bus dropped the connection before it was set up, applying policy "
                         "without a D-Bus face; trying again.");
        b->down_logged = true;
        if (!b->up)
                b->failures++;
        manager_bus_drop(b);
        manager_bus_reconnect(b);
        return 0;
}

static int on_name_acquired(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
        ManagerBus *b = userdata;
        const char *name;

        /* Sent when we get the name: at once, or after we queued for it (on_request_name()). */
        if (sd_bus_message_read(message, "s", &name) >= 0 && streq(name, BUS_NAME)) {
                b->down_logged = false;
                log_info("Connected to the system bus as %s.", BUS_NAME);
        }
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
        /* PRIMARY_OWNER: the bus says so with NameAcquired too, which on_name_acquired() logs.
         * IN_QUEUE, said once: the bus tells us (NameAcquired) when the owner lets it go. */
        if (ret == REQUEST_NAME_IN_QUEUE)
                log_error("Failed to acquire the bus name %s (another process owns it), applying policy "
                          "without a D-Bus face; taking it over when that process releases it.", BUS_NAME);
        else if (ret != REQUEST_NAME_PRIMARY_OWNER)
                log_error("Failed to acquire the bus name %s (unexpected reply %" PRIu32 "), applying policy "
                          "without a D-Bus face.", BUS_NAME, ret);
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
                r = bus_reply_open(message, 'a', "{oa{sa{sv}}}", &reply);
        for (size_t i = 0; r >= 0 && i < n; i++)
                r = link_bus_append_object(reply, links[i]);
        r = bus_reply_close_and_send(reply, r);
        if (r < 0) {
                log_warning_errno(r, "Failed to answer GetManagedObjects: %m");
                r = sd_bus_reply_method_errnof(message, r, "Failed to list the links: %m");
                if (r < 0)
                        log_debug_errno(r, "Failed to send the error reply, ignoring: %m");
        }
        return 1;
}

/* A link's Get/GetAll reads that link's six knobs first (microseconds), so what igmpctl status
 * LINK shows is the kernel's now; the bulk reads ask for a refresh (manager-refresh.c).
 * GetManagedObjects is answered here. */
static int manager_bus_on_incoming(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        const char *path = sd_bus_message_get_path(message);
        uint8_t type;

        if (sd_bus_message_get_type(message, &type) < 0 || type != SD_BUS_MESSAGE_METHOD_CALL || !path)
                return 0;

        if (sd_bus_message_is_method_call(message, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects") &&
            streq(path, BUS_MANAGER_PATH) && sd_bus_message_has_signature(message, "")) {
                manager_request_refresh(c->manager);
                return manager_bus_reply_managed_objects(c->manager, message);
        }
        if (sd_bus_message_is_method_call(message, "org.freedesktop.DBus.Properties", "Get") ||
            sd_bus_message_is_method_call(message, "org.freedesktop.DBus.Properties", "GetAll")) {
                void *found = NULL;

                if (bus_link_find(sd_bus_message_get_bus(message), path, NULL, c, &found, NULL) > 0)
                        link_read_knobs(found);
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
        (void) sd_event_source_set_enabled(b->stall_source, SD_EVENT_ON);
        /* The NetworkManager follower uses this connection too (its calls wait in it until it
         * is up). */
        nm_set_bus(b->ctx.manager->nm, b->ctx.bus);
        return 0;
}

static void manager_bus_connect_now(ManagerBus *b)
{
        int r;

        /* -ENOENT here is sd-bus's setup of its watch meeting a directory that went away as it
         * looked (the hole of on_bus_stall_check()): gone at once, so tried again at once, a
         * few times, before the back-off (whose timer would wake an idle igmpd for nothing). */
        for (unsigned i = 0;; i++) {
                r = manager_bus_open(b, true);
                if (r >= 0)
                        return;
                if (r != -ENOENT || i >= BUS_WATCH_RACE_RETRIES)
                        break;
                log_debug_errno(r, "Setting up the wait for the bus socket failed (%m): a directory on its path "
                                "went away meanwhile, trying again.");
        }
        log_debug_errno(r, "Failed to set up a connection to the system bus, trying again later: %m");
        b->failures = MAX(b->failures + 1, 2u);
        manager_bus_reconnect(b);
}

/* sd-bus 252 has a hole in its wait for the socket: when a directory on the socket's path goes
 * away while sd-bus re-reads the path after an inotify event, it closes its inotify fd and marks
 * the connection closing, but with no fd left nothing runs its closing step: Disconnected never
 * comes and the connection waits forever. While a connection is not up, this post source looks,
 * after every dispatch, for one that is neither open nor has an fd, and replaces it. Not counted
 * as a failure: each time needs a new inotify event, so it cannot spin (test-dbus-bus-appears.sh,
 * "churn"). */
static int on_bus_stall_check(sd_event_source *s, void *userdata)
{
        ManagerBus *b = userdata;

        if (!b->ctx.bus || b->up || sd_bus_is_open(b->ctx.bus) > 0 || sd_bus_get_fd(b->ctx.bus) >= 0)
                return 0;
        log_debug("sd-bus stopped waiting for the bus socket without a word (a directory on its path went away "
                  "while it looked); waiting again.");
        manager_bus_drop(b);
        manager_bus_connect_now(b);
        return 0;
}

static int on_bus_reconnect(sd_event_source *s, uint64_t usec, void *userdata)
{
        manager_bus_connect_now(userdata);
        return 0;
}

/* A new waiting connection: at once, unless connections keep failing before they are up. */
static void manager_bus_reconnect(ManagerBus *b)
{
        uint64_t delay;
        int r;

        if (b->ctx.bus || event_source_armed(b->reconnect_source))
                return;
        if (b->failures < 2) {
                manager_bus_connect_now(b);
                return;
        }
        delay = MIN(BUS_RETRY_MIN_USEC << MIN(b->failures - 2, 5u), BUS_RETRY_MAX_USEC);
        r = event_arm_timer_in(b->ctx.manager->event, &b->reconnect_source, delay, 100 * 1000 /* accuracy 100 ms */,
                               on_bus_reconnect, b);
        if (r < 0)
                log_warning_errno(r, "Failed to arm the bus reconnect timer, giving up on D-Bus: %m");
}

static void manager_bus_drop(ManagerBus *b)
{
        bus_polkit_queries_done(&b->ctx.polkit_queries);
        b->up = false;
        (void) sd_event_source_set_enabled(b->stall_source, SD_EVENT_OFF);
        if (!b->ctx.bus)
                return;
        nm_set_bus(b->ctx.manager->nm, NULL);
        (void) sd_bus_detach_event(b->ctx.bus);
        b->ctx.bus = sd_bus_flush_close_unref(b->ctx.bus);
}

/* ---- the core's hooks ---- */

/* PropertiesChanged of org.igmpd1.Manager for names, while the bus is up. */
static void manager_bus_emit_changed(ManagerBus *b, char **names)
{
        int r;

        if (!bus_is_up(b->ctx.bus))
                return;
        r = sd_bus_emit_properties_changed_strv(b->ctx.bus, BUS_MANAGER_PATH, BUS_MANAGER_INTERFACE, names);
        if (r < 0)
                log_debug_errno(r, "Failed to send PropertiesChanged for %s, ignoring: %m", names[0]);
}

/* After a reload: ConfigFiles changed, and the NetworkManager follower may be new (or gone).
 * The first call is the first pass's end (a reload asked for during the pass waits for it):
 * State turns "running", and clients that read the links meanwhile read them again. */
static void manager_bus_on_reloaded(Manager *m, void *userdata)
{
        ManagerBus *b = userdata;
        char *names[] = { "State", "ConfigFiles", "ConfigProblems", "NConfigProblems", "DriftAction", NULL };

        nm_set_bus(m->nm, b->ctx.bus);
        manager_bus_emit_changed(b, b->running_announced ? names + 1 : names);
        b->running_announced = true;
}

/* The drift watch started, stopped or failed. */
static void manager_bus_on_drift(void *userdata)
{
        manager_bus_emit_changed(userdata, (char *[]) { "DriftWatch", NULL });
}

/* A namespace knob's kernel value, wanted value or source changed. */
static void manager_bus_on_ns_knob(NsKnobs *n, NsKnob k, void *userdata)
{
        manager_bus_emit_changed(userdata, (char *[]) { (char *) ns_knob_info(k)->property, NULL });
}

/* Plugs the D-Bus face into the core's hooks (on), or takes it out. */
static void manager_bus_plug(ManagerBus *b, bool on)
{
        Manager *m = b->ctx.manager;

        manager_set_link_observers(m, on ? link_bus_on_link : NULL, on ? link_bus_on_override : NULL,
                                   on ? &b->ctx : NULL);
        m->reloaded = on ? manager_bus_on_reloaded : NULL;
        m->reloaded_userdata = on ? b : NULL;
        drift_watch_set_observer(m->drift, on ? manager_bus_on_drift : NULL, on ? b : NULL);
        m->ns_knobs.changed = on ? manager_bus_on_ns_knob : NULL;
        m->ns_knobs.changed_userdata = on ? b : NULL;
        if (m->audit && (on || m->audit->observer_userdata == &b->ctx)) {
                m->audit->observer = on ? audit_bus_on_event : NULL;
                m->audit->observer_userdata = on ? &b->ctx : NULL;
        }
}

int manager_bus_new(Manager *m, ManagerBus **ret)
{
        _cleanup_free_ ManagerBus *b = calloc(1, sizeof *b);
        int r;

        if (!b)
                return -ENOMEM;
        b->ctx.manager = m;
        r = sd_event_add_post(m->event, &b->stall_source, on_bus_stall_check, b);
        if (r < 0)
                return r;
        (void) sd_event_source_set_enabled(b->stall_source, SD_EVENT_OFF);
        manager_bus_plug(b, true);

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
        *ret = TAKE_PTR(b);
        return 0;
}

ManagerBus *manager_bus_free(ManagerBus *b)
{
        if (!b)
                return NULL;
        manager_bus_plug(b, false);
        b->reconnect_source = sd_event_source_disable_unref(b->reconnect_source);
        manager_bus_drop(b);
        sd_event_source_disable_unref(b->stall_source);
        free(b);
        return NULL;
}
