/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The D-Bus face of the Manager: connection to the system bus (non-fatal, made when the bus
 * appears), org.igmpd1.Manager at /org/igmpd1, the ObjectManager, and
 * the registration of the Link and Audit interfaces.
 */

#include <systemd/sd-bus.h>

typedef struct Manager Manager;

extern const sd_bus_vtable manager_vtable[];

/* Connects to the system bus and asks for the name org.igmpd1. Never fails: without a bus it
 * says so once and lets sd-bus wait for the bus socket to appear (inotify, no timer). */
void manager_bus_start(Manager *m);
/* Drops the connection and any reconnect timer (shutdown). */
void manager_bus_stop(Manager *m);

/* PropertiesChanged for ConfigFiles (after a reload). No-op while the bus is down. */
void manager_bus_emit_config_changed(Manager *m);
