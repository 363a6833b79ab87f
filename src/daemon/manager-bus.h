/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The D-Bus face of the Manager: the connection to the system bus (non-fatal, made when the bus
 * appears), org.igmpd1.Manager at /org/igmpd1, the ObjectManager, and the registration of the
 * Link and Audit interfaces. It plugs itself into the core's hooks (links' observer, the
 * manager's reloaded, the audit's observer) and hands its connection to the NetworkManager
 * follower; the core knows none of it.
 */

#include <stdbool.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "bus-util.h"
#include "macro.h"
#include "manager.h"

typedef struct ManagerBus {
        /* ctx.bus is there from manager_bus_new() on, also while sd-bus waits for the bus
         * socket to appear (sd_bus_set_watch_bind()); NULL only while reconnect_source waits
         * after connections that failed before they were up. */
        BusContext ctx;
        bool up;            /* this connection got as far as Hello (Connected) */
        unsigned failures;  /* connections in a row that failed before they were up */
        sd_event_source *reconnect_source;
        sd_event_source *stall_source; /* post source, on while the connection is not up */
        bool down_logged;
        bool running_announced; /* State "running": the first pass's end, told once */
} ManagerBus;

extern const sd_bus_vtable manager_vtable[];

/* Connects to the system bus and asks for the name org.igmpd1. Without a bus it says so once
 * and lets sd-bus wait for the bus socket to appear (inotify, no timer). 0 or -ENOMEM. */
int manager_bus_new(Manager *m, ManagerBus **ret);
/* Unplugs from the core and closes the connection; before manager_free(). */
ManagerBus *manager_bus_free(ManagerBus *b);
DEFINE_TRIVIAL_CLEANUP_FUNC(ManagerBus *, manager_bus_free);
