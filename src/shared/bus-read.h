/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Walking the dictionaries of D-Bus replies, for igmpd and igmpctl alike: a{sv} (properties,
 * one settings section) and a{sa{sv}} (NetworkManager settings, GetManagedObjects' interfaces).
 * Never logs: -errno.
 */

#include <systemd/sd-bus.h>

/* Called for each entry; reads its value (the variant of an a{sv}, the a{sv} of an a{sa{sv}})
 * and returns > 0, or returns 0 to have it skipped, or -errno to stop. */
typedef int (*BusEntryFn)(sd_bus_message *m, const char *key, void *userdata);

/* Calls fn for every entry of the a{sv} at m's read position. 0 or -errno. */
int bus_read_dict(sd_bus_message *m, BusEntryFn fn, void *userdata);
/* Calls fn for every entry of the a{sa{sv}} at m's read position. 0 or -errno. */
int bus_read_sections(sd_bus_message *m, BusEntryFn fn, void *userdata);

/* A variant holding a string or an object path (type "s" or "o"), copied to *ret (replacing
 * it). 1 or -errno. */
int bus_read_variant_string(sd_bus_message *m, const char *type, char **ret);
/* A variant holding "as" or "ao", to *ret (replacing it). 1 or -errno. */
int bus_read_variant_strv(sd_bus_message *m, const char *type, char ***ret);
