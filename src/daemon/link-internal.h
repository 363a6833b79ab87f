/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Shared by link.c, link-configure.c and link-drift.c only: what they need that is not the
 * link's interface (that is link.h, which this header must not include: link.c includes both,
 * and the include graph allows no circle).
 */

#include <stdbool.h>

#include "knob.h"

typedef struct Link Link;

#define IPV6_MIN_MTU 1280

/* Sets the names (ifname NULL: keep it; altnames LINK_KEEP_ALTNAMES: keep them) and, unless the
 * link is new, tells the table what they were. Nothing changes on failure. 0 or -ENOMEM. */
#define LINK_KEEP_ALTNAMES ((char **) -1)
int link_set_names(Link *l, const char *ifname, char **altnames, bool is_new);

/* Opens the link's conf directory of a family, checking that its ifindex still carries the name
 * it was opened by (link-drift.c). The fd, -ENOENT (no such directory now: IPv6 gone, renamed
 * meanwhile), -ESTALE (the name moved), -ENODEV or -errno. */
int link_open_family_dir(Link *l, KnobFamily f);

/* The record changed: the owner records it, before_write: before a write that needs it. false
 * when that write must wait for the owner's batch. */
bool link_record_touch(Link *l, bool before_write);

bool link_ipv6_dir_exists(Link *l);

/* Recomputes the effective values and remembers exactly which files matched. 0 or -ENOMEM. */
int link_update_effective(Link *l);
