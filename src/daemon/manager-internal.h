/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What the parts of the Manager (manager.h lists them) call of each other, and nobody else does:
 * not the D-Bus face nor any other layer. It does not include manager.h: manager.c includes
 * it, and tests/style/check-include-graph.py counts manager.c and manager.h as one module, so
 * including manager.h back would be a circle. Each part includes both.
 */

#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-event.h>

#include "link.h"

typedef struct Manager Manager;

/* manager.c: a Manager with its LinkContext wired to itself and nothing else set up; NULL on
 * ENOMEM. manager_new() and manager-netns.c build on it. */
Manager *manager_alloc(void);

/* manager-links.c */
/* Every link, each with a reference (a configuration pass may drop any of them from the
 * table); links_unref() drops them and frees the array. 0 or -ENOMEM. */
int manager_ref_links(Manager *m, Link ***ret, size_t *ret_n);
void links_unref(Link **links, size_t n);
/* LinkContext.renamed and .vanished: re-index the link's names, drop the link. */
void manager_on_link_renamed(Link *l, const char *old_ifname, char *const *old_altnames, void *userdata);
void manager_on_link_vanished(Link *l, void *userdata);

/* manager-originals.c */
/* LinkContext.record, and the deferred source that ends a burst of link events. */
int manager_link_record(Link *l, bool before_write, void *userdata);
int manager_on_originals_batch_end(sd_event_source *s, void *userdata);
/* A link with a record went away: its line says so at the next write. 0 or -ENOMEM. */
int manager_forget_record(Manager *m, int ifindex);
/* Writes what changed in the record (or all of it, with rewrite); a failure is said once. */
void manager_write_originals(Manager *m, bool rewrite);
void manager_end_batch(Manager *m, bool notify);
/* manager_end_batch()'s second half, for links[] (the first pass takes them a few at a time). */
void manager_configure_waiting(Manager *m, Link **links, size_t n, bool notify);
void manager_load_originals(Manager *m);

/* manager-config.c */
/* [Daemon] NetworkManager=: follow NetworkManager's profiles or not (at start and on reload). */
void manager_follow_network_manager(Manager *m);
