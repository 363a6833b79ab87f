/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Helpers for the D-Bus faces: error names, decoding of knob dictionaries, and authorization
 * of mutating calls (uid 0, else polkit, asynchronously).
 */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "bus-error.h"
#include "bus-validate.h"

#define BUS_NAME "org.igmpd1"
#define BUS_MANAGER_PATH "/org/igmpd1"
#define BUS_LINK_PATH_PREFIX "/org/igmpd1/link"
#define BUS_MANAGER_INTERFACE "org.igmpd1.Manager"
#define BUS_LINK_INTERFACE "org.igmpd1.Link"
#define BUS_AUDIT_INTERFACE "org.igmpd1.Audit"

#define POLKIT_ACTION_SET_LINK "org.igmpd1.set-link"
#define POLKIT_ACTION_RELOAD "org.igmpd1.reload"

/* Authorization queries waiting for polkit (an authentication dialog may stay open for
 * minutes) are capped per caller — per connection and per uid — so that one user cannot shut
 * out everybody else, and in all; past a cap a call is refused with
 * org.freedesktop.DBus.Error.LimitsExceeded. */
#define BUS_POLKIT_PENDING_PER_SENDER 4
#define BUS_POLKIT_PENDING_PER_UID 16
#define BUS_POLKIT_PENDING_MAX 256

typedef struct BusPolkitQuery BusPolkitQuery;
typedef struct Manager Manager;

/* What the D-Bus faces share, owned by manager-bus.c and handed to every vtable, filter and
 * hook of the faces as userdata: the core, the connection to the system bus (NULL while there
 * is none; it may be waiting for the bus, see bus_is_up()), and the polkit queries pending on
 * it. */
typedef struct BusContext {
        Manager *manager;
        sd_bus *bus;
        BusPolkitQuery *polkit_queries; /* singly linked */
} BusContext;

/* Whether what is sent on bus goes out now: the connection is up, not waiting for the bus
 * socket to appear (sd_bus_set_watch_bind()) nor being set up. */
static inline bool bus_is_up(sd_bus *bus)
{
        return bus && sd_bus_is_ready(bus) > 0;
}

/* The preamble of every method that changes something: reads the flags argument (with
 * ret_flags; else the method has none) and checks it against allowed (InvalidArgument), then
 * authorizes the sender for action: uid 0 at once, anyone else through polkit, which may ask for
 * a password only if the caller allowed it (ALLOW_INTERACTIVE_AUTHORIZATION). ifindex (> 0)
 * names the link the call is about, so that a pending query ends when the link goes
 * (bus_polkit_release_link()); 0 for none. Returns 0 to go on, 1 when polkit was asked (the
 * handler returns 1: it is called again with the same message when the answer is in), or
 * -errno with error set (AccessDenied, LimitsExceeded, InvalidArgument). */
int bus_method_authorize(sd_bus_message *call, BusContext *c, uint32_t *ret_flags, uint32_t allowed,
                         const char *action, int ifindex, sd_bus_error *error);

/* The link ifindex is gone: every call about it still waiting for polkit is answered with
 * NoSuchLink now and its query dropped (polkit's answer, if it ever comes, is ignored). */
void bus_polkit_release_link(BusPolkitQuery **queries, int ifindex);

/* Frees every query (on shutdown or when the bus goes away). */
void bus_polkit_queries_done(BusPolkitQuery **queries);

/* Reads an a{sv} of knobs from message into args (names point into the message). Stops with
 * InvalidArgument past KNOB_ARGS_MAX entries, so a huge dictionary costs nothing. */
int bus_message_read_knob_args(sd_bus_message *message, KnobArg args[KNOB_ARGS_MAX], size_t *ret_n,
                               sd_bus_error *error);

/* Who sent call, for log lines: "uid 1000, pid 4242 (:1.17)", as far as the bus tells (the
 * unique name at least). Returns buf. */
const char *bus_describe_sender(sd_bus_message *call, char *buf, size_t size);

/* Sets the D-Bus error of a bus-validate.h error r (Unsupported for -EOPNOTSUPP, else
 * InvalidArgument) with msg. Returns r's errno as the error name maps it back. */
int bus_validate_error(sd_bus_error *error, int r, const char *msg);

/* Appends s (NULL as "") as a D-Bus string: names, paths and the messages and values that quote
 * them are bytes, a D-Bus string is UTF-8, so bytes that are not UTF-8 and '\' go as "\xNN"
 * (utf8_escape()). Every string that is not a constant of igmpd's goes through here,
 * bus_error_setf_escaped() or (notes in fixed buffers) utf8_escape(), except those escaped where
 * they entered igmpd (the comm, exe and path of audit events, the writer's comm of drift
 * reports), which are in that form already. 0 or -errno. */
int bus_message_append_escaped(sd_bus_message *m, const char *s);
/* The same for a NULL-terminated list, as "as". */
int bus_message_append_escaped_strv(sd_bus_message *m, char *const *l);
/* s (NULL as "") in that form, for sd_bus_message_append(): s itself, or an escaped copy that
 * *buf takes (the caller frees it); NULL when out of memory. */
const char *bus_escape(const char *s, char **buf);
/* The start of a method reply to call with one open container (type, contents); *ret is set
 * even when opening fails, for bus_reply_close_and_send(). 0 or -errno. */
int bus_reply_open(sd_bus_message *call, char type, const char *contents, sd_bus_message **ret);
/* Closes n containers of m if r (the building's result so far) is >= 0. Returns r or the
 * failure. */
int bus_message_close_containers(sd_bus_message *m, unsigned n, int r);
/* The end of a method reply built with one open container: closes it and sends the reply if r
 * (the building's result) is >= 0; drops the reference either way (reply may be NULL then).
 * Returns r or the failure. */
int bus_reply_close_and_send(sd_bus_message *reply, int r);
/* Sets error name (or, with name NULL, the error of errno r) with a message formatted like
 * printf and then escaped like bus_message_append_escaped(): messages that quote an interface
 * name or a path. Returns the negative errno the error maps to. */
int bus_error_setf_escaped(sd_bus_error *error, const char *name, int r, const char *format, ...)
        __attribute__((format(printf, 4, 5)));
