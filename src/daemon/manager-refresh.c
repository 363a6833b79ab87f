/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel values that reads show. Reads (D-Bus Get, GetAll, GetManagedObjects, Describe,
 * ListLinksState) answer from the Link table at once and never write. igmpd's cached values are
 * kept true by link events (each carries the link's values) and, when it runs, by the drift
 * watch, which sees every write; without the watch, nothing tells igmpd of a `sysctl -w` until
 * the link's next event. So a read asks for a refresh: a dump of all links on a socket of its
 * own (netlink_refresh()), read by the event loop a datagram at a time, whose values replace
 * the cached ones. It is
 *   - asynchronous: the read is answered before it starts; a foreign write shows in the reads
 *     that follow it (and in PropertiesChanged of Knobs);
 *   - coalesced: one dump at a time, however many readers; a read during a dump is served by
 *     the next one, which starts after it;
 *   - rate-limited: at most one dump starts per MANAGER_REFRESH_INTERVAL_USEC (1 s), so a loop
 *     of reads costs at most one dump a second (≈ 30–40 ms of CPU at 4000 links);
 *   - passive: it never writes a knob, never configures, adds or removes a link. What the link
 *     events say decides that, as before (a drifted knob is corrected when the link next
 *     changes, or at once by the drift watch).
 * The values are as old as the start of the last refresh that completed, or of the last full
 * dump of the links (start-up, a resync): KernelValuesAgeUSec, what the bulk reads serve. A
 * link's own Get/GetAll reads its knobs first (manager-bus.c).
 * Idle means idle: the timer is armed only while a refresh waits for its turn.
 */

#include <time.h>

#include "link.h"
#include "log.h"
#include "manager.h"
#include "netlink.h"

static void manager_refresh_start(Manager *m)
{
        ManagerRefresh *f = &m->refresh;
        int r;

        r = netlink_refresh(m->netlink);
        if (r < 0) {
                log_debug_errno(r, "Failed to start refreshing the kernel values, the next read will ask again: %m");
                return;
        }
        f->running = true;
        f->last_usec = now_usec(CLOCK_MONOTONIC);
        f->since_seq = m->link_ctx.kernel_seq;
        f->n_dumps++;
        log_debug("Refreshing the kernel values of %zu links (dump %u, after %u reads).", intmap_size(&m->links),
                  f->n_dumps, f->n_requests);
}

static int manager_on_refresh_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        Manager *m = userdata;

        m->refresh.timer = sd_event_source_disable_unref(m->refresh.timer);
        manager_refresh_start(m);
        return 0;
}

/* Starts a refresh now if the last one started an interval ago, else when it has. */
static void manager_refresh_schedule(Manager *m)
{
        ManagerRefresh *f = &m->refresh;
        uint64_t now = now_usec(CLOCK_MONOTONIC);
        int r;

        if (f->timer)
                return; /* one is waiting for its turn already */
        if (f->last_usec == 0 || now >= f->last_usec + MANAGER_REFRESH_INTERVAL_USEC) {
                manager_refresh_start(m);
                return;
        }
        r = sd_event_add_time(m->event, &f->timer, CLOCK_MONOTONIC, f->last_usec + MANAGER_REFRESH_INTERVAL_USEC,
                              50 * 1000 /* accuracy: 50 ms */, manager_on_refresh_timer, m);
        if (r < 0)
                log_debug_errno(r, "Failed to arm the refresh timer, the next read will ask again: %m");
}

void manager_request_refresh(Manager *m)
{
        ManagerRefresh *f = &m->refresh;

        /* Reads cover every namespace's links: each followed one refreshes its own. */
        for (size_t i = 0; i < manager_netns_count(m); i++)
                manager_request_refresh(manager_netns_get(m, i));
        /* During the first pass its own dump is the freshest read. */
        if (f->watched || !m->netlink || m->check_only || m->first_pass)
                return;
        f->n_requests++;
        if (f->running) {
                f->again = true; /* this dump may have passed links already */
                return;
        }
        manager_refresh_schedule(m);
}

void manager_set_kernel_watched(Manager *m, bool watched)
{
        ManagerRefresh *f = &m->refresh;

        for (size_t i = 0; i < manager_netns_count(m); i++)
                manager_set_kernel_watched(manager_netns_get(m, i), watched && m->drift_all_netns);
        if (f->watched == watched)
                return;
        f->watched = watched;
        log_debug("Kernel knob values are %s.", watched ? "watched: reads refresh nothing"
                                                        : "no longer watched: reads ask for refreshes");
        if (watched) {
                /* A running dump finishes on its own; nothing new is started. */
                f->again = false;
                f->timer = sd_event_source_disable_unref(f->timer);
        }
}

uint64_t manager_kernel_values_age(Manager *m)
{
        uint64_t now = now_usec(CLOCK_MONOTONIC);

        return m->refresh.watched || now < m->refresh.read_usec ? 0 : now - m->refresh.read_usec;
}

void manager_on_refreshed(const LinkMessage *msg, void *userdata)
{
        Manager *m = userdata;
        Link *l = manager_get_link(m, msg->ifindex);

        /* A link igmpd does not know (yet) is the event socket's business, as is one that is
         * gone from the dump: a read neither adds nor removes links. */
        if (l)
                link_take_refreshed(l, msg, m->refresh.since_seq);
}

void manager_on_refresh_done(int r, void *userdata)
{
        Manager *m = userdata;
        ManagerRefresh *f = &m->refresh;

        f->running = false;
        if (r < 0)
                log_debug_errno(r, "Refreshing the kernel values ended early, ignoring: %m");
        else {
                f->read_usec = MAX(f->read_usec, f->last_usec);
                log_debug("Refreshed the kernel values (dump %u).", f->n_dumps);
                /* No link message carries the namespace knobs: read them back here. */
                for (NsKnob k = 0; k < _NS_KNOB_MAX && !m->check_only; k++)
                        ns_knobs_check(&m->ns_knobs, k, m->config.drift_action, NULL);
        }
        if (f->again && !f->watched) {
                f->again = false;
                manager_refresh_schedule(m);
        }
}

void manager_refresh_done(Manager *m)
{
        m->refresh.timer = sd_event_source_disable_unref(m->refresh.timer);
        m->refresh.running = m->refresh.again = false;
}
