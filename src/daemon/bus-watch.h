/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Waiting for the system bus without a timer. A BusWatch knows the path of the bus socket and,
 * while armed, holds an inotify watch on the socket's directory, or, while that directory does
 * not exist yet (/run/dbus before dbus starts), on its nearest existing ancestor, moved one
 * level deeper each time the missing directory appears. Nothing runs while nothing changes
 * there. Core file: it knows sd-event, not sd-bus.
 */

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "macro.h"

#define BUS_WATCH_DEFAULT_SYSTEM_ADDRESS "unix:path=/run/dbus/system_bus_socket"

typedef struct BusWatch BusWatch;

/* Called when the socket's name changes in its directory (created, moved there, attributes
 * changed, removed) or the directory itself appears or goes away: the handler checks
 * bus_watch_socket_exists(). Also called, with the watch disarmed, if inotify failed. */
typedef void (*BusWatchHandler)(BusWatch *w, void *userdata);

/* The socket path of the first address of a D-Bus address list ("a;b"), if that address is
 * unix:path=/absolute/path (%-escapes decoded, other keys such as guid= ignored). Returns
 * -EPROTONOSUPPORT for any other transport, unix:abstract= and relative paths, -EINVAL for a
 * malformed address or a path too long for a socket. Pure. */
int bus_address_unix_path(const char *address, char **ret_path);

/* address NULL means the system bus: $DBUS_SYSTEM_BUS_ADDRESS, else
 * BUS_WATCH_DEFAULT_SYSTEM_ADDRESS. Fails with bus_address_unix_path()'s errors when that
 * address has no socket path to watch. Created disarmed. */
int bus_watch_new(sd_event *event, const char *address, BusWatchHandler handler, void *userdata,
                  BusWatch **ret);
BusWatch *bus_watch_free(BusWatch *w);
DEFINE_TRIVIAL_CLEANUP_FUNC(BusWatch *, bus_watch_free);

const char *bus_watch_path(const BusWatch *w);
/* Whether a socket is at the path now. */
bool bus_watch_socket_exists(const BusWatch *w);

/* Arms the watch, or re-aims it at the deepest existing directory. Returns 1 if the socket
 * exists now, 0 if not, -errno if inotify cannot be used (the watch is then disarmed). */
int bus_watch_arm(BusWatch *w);
/* Closes the inotify descriptor; no-op if disarmed. */
void bus_watch_disarm(BusWatch *w);
bool bus_watch_is_armed(const BusWatch *w);
