/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Shared by the files of the link objects' D-Bus face (link-bus*.c) only.
 */

#include "link.h"

/* "aa:bb:cc:dd:ee:ff", or "" for a link without a 6-byte hardware address. */
const char *link_mac_string(const Link *l, char buf[static 18]);

/* The names of the properties that the changes (LinkChange bits) touch, into names (room for
 * every property and a NULL); returns how many. */
#define LINK_BUS_PROPERTIES_MAX 16
size_t link_bus_changed_properties(unsigned changes, char **names);
