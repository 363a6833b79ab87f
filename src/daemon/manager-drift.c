/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The Manager's side of the drift watch (drift.c): each write another process made is routed to
 * the link it names (by name: that is what /proc/sys shows); a write to conf/all or
 * conf/default may reach every link (IPv4 copies a new default to each link that has not set
 * the knob itself), so every link is read back; lost records mean reading everything back. A
 * namespace knob (igmp_qrv, mld_qrv) goes to the namespace's NsKnobs.
 */

#include <inttypes.h>
#include <stdio.h>

#include "drift.h"
#include "link.h"
#include "log.h"
#include "manager.h"

static void manager_check_link(Link *l, unsigned mask, const LinkWriter *w)
{
        LinkSnapshot before;

        link_begin_change(l, &before);
        link_check_knobs(l, mask, w);
        link_end_change(l, &before);
}

static void manager_check_all(Manager *m, unsigned mask, const LinkWriter *w)
{
        size_t i = 0;
        void *v;

        while (intmap_iterate(&m->links, &i, &v))
                manager_check_link(v, mask, w);
}

void manager_on_drift_write(const DriftEvent *e, void *userdata)
{
        Manager *m = userdata;
        const DriftWrite *w = &e->write;
        const KnobInfo *i;
        LinkWriter writer = {
                .pid = w->pid,
                .uid = w->uid,
                .comm = e->comm,
                .old_known = w->old_known,
                .old_value = w->old_value,
        };
        char value[16] = "?";
        Link *l;

        if (m->check_only)
                return;
        /* With Namespaces=named the watch sees every namespace: the write is its namespace's. */
        if (w->netns != 0 && w->netns != (uint32_t) m->link_ctx.netns_ino) {
                m = manager_netns_by_ino(m, w->netns);
                if (!m)
                        return; /* a namespace igmpd does not follow */
        }
        if (w->scope == DRIFT_SCOPE_NAMESPACE) {
                /* Read back on its own, reverted as a link's knob is. */
                if (w->ns_knob >= 0 && w->ns_knob < _NS_KNOB_MAX)
                        ns_knobs_check(&m->ns_knobs, w->ns_knob, m->config.drift_action, &writer);
                return;
        }
        /* Only now: a namespace knob's write has no link knob (w->knob is -EINVAL). */
        i = knob_info(w->knob);
        if (w->scope == DRIFT_SCOPE_LINK) {
                l = manager_get_link_by_name(m, w->ifname);
                if (!l) {
                        log_debug("%s of %s written by '%s' (pid %" PRIu32 "), a link igmpd does not know (yet), "
                                  "ignoring.", i->name, w->ifname, e->comm, w->pid);
                        return;
                }
                manager_check_link(l, 1U << w->knob, &writer);
                return;
        }

        if (w->new_known)
                snprintf(value, sizeof value, "%" PRIi32, w->new_value);
        log_notice("net.%s.conf.%s.%s set to %s by process '%s' (pid %" PRIu32 ", uid %" PRIu32 ")%s; reading it "
                   "back on every link.", knob_family_dir(i->family), w->ifname, i->name, value, e->comm, w->pid,
                   w->uid,
                   w->scope == DRIFT_SCOPE_ALL && i->kind == KNOB_KIND_VERSION && w->new_known && w->new_value != 0 ?
                   ": a version in conf/all overrides the per-link one on every link" : "");
        writer.old_known = false;
        writer.via = w->scope == DRIFT_SCOPE_ALL ? "conf/all" : "conf/default";
        manager_check_all(m, 1U << w->knob, &writer);
}

void manager_on_drift_lost(void *userdata)
{
        Manager *m = userdata;

        if (m->check_only)
                return;
        for (NsKnob k = 0; k < _NS_KNOB_MAX; k++)
                ns_knobs_check(&m->ns_knobs, k, m->config.drift_action, NULL);
        manager_check_all(m, LINK_KNOBS_ALL, NULL);
        for (size_t i = 0; i < manager_netns_count(m); i++)
                manager_check_all(manager_netns_get(m, i), LINK_KNOBS_ALL, NULL);
}

void manager_on_drift_state(void *userdata)
{
        Manager *m = userdata;

        /* Active: every write reaches igmpd (through /proc/sys in the ring, RTM_SETLINK in link
         * messages, lost records as a full read-back), so reads serve the cache and ask for no
         * refresh. */
        manager_set_kernel_watched(m, drift_watch_active(m->drift));
}
