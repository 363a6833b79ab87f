/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The Manager's link table (by ifindex, and by name and alternative name) and the netlink
 * events that feed it: a new or changed link, a removed one, IPv6 appearing, the full dump
 * (manager_enumerate(), at start and to resync after an overrun).
 */

#include <errno.h>
#include <net/if.h>
#include <stdlib.h>

#include "drift.h"
#include "link.h"
#include "log.h"
#include "manager-internal.h"
#include "manager.h"
#include "netlink.h"

int manager_ref_links(Manager *m, Link ***ret, size_t *ret_n)
{
        void **links = NULL;
        size_t n = 0;
        int r;

        r = intmap_values(&m->links, &links, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                link_ref(links[i]);
        *ret = (Link **) links;
        *ret_n = n;
        return 0;
}

void links_unref(Link **links, size_t n)
{
        for (size_t i = 0; i < n; i++)
                link_unref(links[i]);
        free(links);
}

Link *manager_get_link(Manager *m, int ifindex)
{
        return intmap_get(&m->links, ifindex);
}

Link *manager_get_link_by_name(Manager *m, const char *name)
{
        return namemap_get(&m->links_by_name, name);
}

/* Points the link's names at it: the latest statement of who carries a name wins. */
static void manager_index_names(Manager *m, Link *l)
{
        int r;

        r = namemap_put(&m->links_by_name, l->ifname, l);
        for (char **a = l->altnames; r >= 0 && a && *a; a++)
                r = namemap_put(&m->links_by_name, *a, l);
        if (r < 0)
                log_link_warning_errno(l, r, "Failed to index the link's names, it can be found by "
                                       "ifindex only until its next event: %m");
}

/* Drops the names that still point at the link (another link may have claimed one since). */
static void manager_unindex_names(Manager *m, Link *l, const char *ifname, char *const *altnames)
{
        (void) namemap_remove_value(&m->links_by_name, ifname, l);
        for (char *const *a = altnames; a && *a; a++)
                (void) namemap_remove_value(&m->links_by_name, *a, l);
}

/* Announces the removal, takes the link out of both maps and drops the table's reference. */
void manager_on_link_vanished(Link *l, void *userdata)
{
        Manager *m = userdata;

        link_notify(l, LINK_EVENT_REMOVED); /* while the link can still be found */
        if (link_has_record(l) && m->originals.dir) {
                if (manager_forget_record(m, l->ifindex) < 0)
                        log_oom(); /* its line stays: harmless, ifindexes are not reused */
                else
                        (void) manager_link_record(l, false, m);
        }
        if (intmap_get(&m->links, l->ifindex) == l)
                (void) intmap_remove(&m->links, l->ifindex);
        manager_unindex_names(m, l, l->ifname, l->altnames);
        log_link_debug(l, "Link %d removed.", l->ifindex);
        link_detach(l);
        link_unref(l);
}

void manager_on_link_renamed(Link *l, const char *old_ifname, char *const *old_altnames, void *userdata)
{
        Manager *m = userdata;

        manager_unindex_names(m, l, old_ifname, old_altnames);
        manager_index_names(m, l);
}

static int compare_links(const void *a, const void *b)
{
        const Link *x = *(const Link *const *) a, *y = *(const Link *const *) b;

        return (x->ifindex > y->ifindex) - (x->ifindex < y->ifindex);
}

int manager_sorted_links_full(Manager *m, bool own_only, Link ***ret, size_t *ret_n)
{
        size_t n = intmap_size(&m->links), k = 0, n_ns = own_only ? 0 : manager_netns_count(m);
        Link **links;
        void *v;

        for (size_t j = 0; j < n_ns; j++)
                n += intmap_size(&manager_netns_get(m, j)->links);
        links = calloc(MAX(n, (size_t) 1), sizeof *links);
        if (!links)
                return -ENOMEM;
        for (size_t j = 0; j <= n_ns; j++) {
                Manager *c = j == 0 ? m : manager_netns_get(m, j - 1);
                size_t start = k;

                for (size_t i = 0; k < n && intmap_iterate(&c->links, &i, &v);)
                        links[k++] = v;
                if (k - start > 1)
                        qsort(links + start, k - start, sizeof *links, compare_links);
        }
        *ret = links;
        *ret_n = k;
        return 0;
}

static void manager_handle_link_message(Manager *m, const LinkMessage *msg)
{
        _cleanup_(link_unrefp) Link *l = NULL; /* configuring it may find it gone */
        LinkSnapshot before = {};
        bool reconfigure = true, is_new = false;
        unsigned suspects = 0;
        int r;

        if (msg->ifindex <= 0 || !msg->ifname)
                return;

        /* A write made before this message left the kernel is in the drift watch's ring by now:
         * hear who made it before the message's values are believed. */
        drift_watch_flush(m->drift);

        l = link_ref(manager_get_link(m, msg->ifindex));
        if (!l) {
                const OriginalEntry *saved;

                r = link_new(&m->link_ctx, msg, &l);
                if (r >= 0)
                        r = intmap_put(&m->links, l->ifindex, l);
                if (r < 0) {
                        log_oom();
                        return;
                }
                link_ref(l); /* the table's */
                manager_index_names(m, l);
                log_link_debug(l, "New link %d.", l->ifindex);
                is_new = true;
                saved = originals_find(&m->saved_originals, l->ifindex);
                if (saved)
                        originals_take(saved, msg->devconf, msg->devconf_known, l->original, l->written,
                                       l->changed);
        } else {
                link_begin_change(l, &before);
                r = link_update(l, msg, &reconfigure, &suspects);
                if (r < 0) {
                        log_oom();
                        return;
                }
                /* This message is the kernel's latest word on the names it states. */
                manager_index_names(m, l);
        }
        l->seen = true;

        if (suspects && !m->check_only)
                link_check_knobs(l, suspects, NULL);

        if (reconfigure && !m->check_only)
                (void) link_configure(l);
        if (is_new && !l->record_wait)
                link_notify(l, LINK_EVENT_ADDED); /* else once configured (manager_end_batch()) */
        else if (!is_new)
                link_end_change(l, &before);
}

/* Link events come in bursts (one netlink read hands over many): the records their writes need
 * are written once, after the burst (manager_on_originals_batch_end()). */
static void manager_on_link_message(const LinkMessage *msg, void *userdata)
{
        Manager *m = userdata;
        bool batch = m->originals_batch;

        m->originals_batch = true;
        manager_handle_link_message(m, msg);
        m->originals_batch = batch;
}

static void manager_on_link_removed(int ifindex, void *userdata)
{
        Manager *m = userdata;
        Link *l = manager_get_link(m, ifindex);

        if (l)
                manager_on_link_vanished(l, m);
}

static void manager_on_ipv6_changed(int ifindex, void *userdata)
{
        Manager *m = userdata;
        _cleanup_(link_unrefp) Link *l = link_ref(manager_get_link(m, ifindex));
        bool reconfigure = false;

        if (!l || l->ipv6_available)
                return;
        LinkMessage same = {
                .ifindex = l->ifindex, .ifname = l->ifname, .altnames = l->altnames, .kind = l->kind,
                .arphrd = l->arphrd, .mac = l->has_mac ? &l->mac : NULL, .flags = l->flags, .mtu = l->mtu,
        };
        LinkSnapshot before;
        bool batch = m->originals_batch;

        m->originals_batch = true;
        link_begin_change(l, &before);
        if (link_update(l, &same, &reconfigure, NULL) >= 0 && reconfigure)
                (void) link_configure(l);
        link_end_change(l, &before);
        m->originals_batch = batch;
}

/* Marks every link unseen and dumps them all: manager_on_enumerated() sweeps, at the end. */
static int manager_enumerate_begin(Manager *m, bool wait)
{
        size_t i = 0;
        void *v;

        while (intmap_iterate(&m->links, &i, &v))
                ((Link *) v)->seen = false;
        /* Every link's values are read now (manager_kernel_values_age()). */
        (void) sd_event_now(m->event, CLOCK_MONOTONIC, &m->refresh.read_usec);
        return netlink_enumerate(m->netlink, wait);
}

int manager_enumerate(Manager *m)
{
        int r = manager_enumerate_begin(m, true);

        return r == -EAGAIN ? 0 : r;
}

int manager_enumerate_start(Manager *m)
{
        return manager_enumerate_begin(m, false);
}

static void manager_on_enumerated(int r, void *userdata)
{
        Manager *m = userdata;
        Link **links = NULL;
        size_t n = 0;

        if (r == -EAGAIN)
                log_debug("Link dump still interrupted after several attempts; link events fill the gaps.");
        else if (r < 0)
                log_error_errno(r, "Failed to enumerate links: %m");

        /* Links missing from the dump vanished while we were not listening — or an interrupted
         * dump skipped them. Ask the kernel about each before forgetting it (glibc says ENXIO
         * for an ifindex it does not have). */
        if ((r >= 0 || r == -EAGAIN) && manager_ref_links(m, &links, &n) < 0)
                log_oom();
        for (size_t i = 0; i < n; i++) {
                Link *l = links[i];
                char name[IF_NAMESIZE];
                int e;

                if (l->seen || l->gone)
                        continue;
                e = link_current_name(l, name); /* in the link's namespace, which may not be igmpd's */
                if (e == -ENXIO || e == -ENODEV)
                        manager_on_link_vanished(l, m);
        }
        links_unref(links, n);
        /* One record for the whole dump, before its writes (the first pass's, a few at a time). */
        if (m->first_pass) {
                manager_on_first_pass(m, r);
                return; /* it releases the events at its end */
        }
        if (!m->originals_batch)
                manager_end_batch(m, true);
        netlink_release_events(m->netlink);
}

/* ENOBUFS: the kernel dropped link events. Nothing tells which, so take a fresh full picture
 * and reconcile every link against it. */
static void manager_on_netlink_overrun(void *userdata)
{
        Manager *m = userdata;

        m->n_resyncs++;
        log_warning("Netlink receive buffer overrun (ENOBUFS), link events were lost; "
                    "re-enumerating all links (resync #%u).", m->n_resyncs);
        (void) manager_enumerate_start(m);
}

static const NetlinkHandlers manager_netlink_handlers = {
        .link = manager_on_link_message,
        .link_removed = manager_on_link_removed,
        .ipv6_changed = manager_on_ipv6_changed,
        .overrun = manager_on_netlink_overrun,
        .enumerated = manager_on_enumerated,
        .refreshed = manager_on_refreshed,
        .refresh_done = manager_on_refresh_done,
};

int manager_open_netlink(Manager *m)
{
        int r;

        r = netlink_new(m->event, m->config.netlink_rcvbuf, &manager_netlink_handlers, m, &m->netlink);
        if (r < 0)
                return log_error_errno(r, "Failed to open the netlink socket: %m");
        return 0;
}
