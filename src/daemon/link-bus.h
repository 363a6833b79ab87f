/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The D-Bus face of a Link: /org/igmpd1/link/_3N (the decimal ifindex through
 * sd_bus_path_encode), interface org.igmpd1.Link, and the change announcements: link-bus.c
 * (objects, properties, announcements), then link-bus-states.c and link-bus-methods.c, one
 * section each below.
 */

#include <limits.h>
#include <net/if.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "bus-util.h"
#include "link.h"

extern const sd_bus_vtable link_vtable[];

/* The link's name as ListLinks and ListLinksState list it: IFNAME, or NETNS/IFNAME for a
 * followed namespace's link (no interface name has a '/'). Returns buf or the name itself. */
#define LINK_BUS_NAME_MAX (NAME_MAX + 1 + IF_NAMESIZE)
const char *link_bus_name(const Link *l, char buf[static LINK_BUS_NAME_MAX + 1]);

/* Object path of a link. 0 or -ENOMEM. */
int link_bus_path(const Link *l, char **ret);

/* Object finder and node enumerator of the link objects (userdata: the BusContext). */
int bus_link_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
                  sd_bus_error *error);
int bus_link_node_enumerator(sd_bus *bus, const char *path, void *userdata, char ***nodes,
                             sd_bus_error *error);

/* Appends the link's "{oa{sa{sv}}}" entry of a GetManagedObjects reply: what sd-bus's own
 * ObjectManager would (the standard interfaces, then org.igmpd1.Link with every property),
 * built in one pass. */
int link_bus_append_object(sd_bus_message *reply, const Link *l);

/* Fills a JSON view of l (strings borrowed from l; matched needs n_matched + 1 slots). */
struct LinkStatus;
void link_bus_status(Link *l, struct LinkStatus *ret, const char **matched);

/* "aa:bb:cc:dd:ee:ff", or "" for a link without a 6-byte hardware address. */
const char *link_mac_string(const Link *l, char buf[static 18]);

/* The links' observer (LinkContext.observer, userdata: the BusContext): InterfacesAdded,
 * PropertiesChanged for what changed, InterfacesRemoved; nothing while the bus is not up. */
void link_bus_on_link(Link *l, LinkEvent event, const LinkSnapshot *before, void *userdata);

/* The links' overridden hook (LinkContext.overridden, userdata: the BusContext): the
 * KnobOverridden signal while the bus is up. */
void link_bus_on_override(Link *l, const LinkOverride *o, void *userdata);

/* ---- link-bus-states.c ---- */

/* ListLinksState's "as strings, a(iuuuuuuauauaiaiauau) links" for links (in that order): see
 * data/dbus/org.igmpd1.xml. Knob arrays follow the knob table's order. */
#define LINK_STATE_SIGNATURE "iuuuuuuauauaiaiauau"
int link_bus_append_states(sd_bus_message *reply, Link *const *links, size_t n);

/* ---- link-bus-methods.c ---- */

/* Method handlers, also called by the Manager's *Link methods with the link as userdata, the
 * message positioned after the ifindex argument. */
int bus_link_method_set_knobs(sd_bus_message *message, void *userdata, sd_bus_error *error);
int bus_link_method_revert(sd_bus_message *message, void *userdata, sd_bus_error *error);
int bus_link_method_reconfigure(sd_bus_message *message, void *userdata, sd_bus_error *error);
