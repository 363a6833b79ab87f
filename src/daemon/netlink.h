/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * libnl glue: one socket subscribed to link events, driven by sd-event; a second, synchronous
 * one for full dumps (start-up and resynchronisation after ENOBUFS).
 */

#include <stddef.h>

typedef struct Manager Manager;
typedef struct Netlink Netlink;

int netlink_new(Manager *m, size_t rcvbuf, Netlink **ret);
Netlink *netlink_free(Netlink *n);

/* Dumps all links, feeding each to the manager. 0, -EAGAIN if the kernel flagged the dump as
 * interrupted by concurrent changes (what was received is still valid), or -errno. */
int netlink_enumerate(Netlink *n);

/* The receive buffer size the kernel actually granted (for logs and tests). */
size_t netlink_get_rcvbuf(Netlink *n);
