/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The Manager's record of originals (originals.h): the knob values found before igmpd changed
 * them, read from what the last run left, and written for this run before the writes that need
 * it — at once, or once for a batch (the first pass, a reload, a burst of link events), whose
 * end configures the links that waited for it.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "array-util.h"
#include "conf-parser.h"
#include "link.h"
#include "log.h"
#include "manager-internal.h"
#include "manager.h"
#include "netlink.h"

int manager_forget_record(Manager *m, int ifindex)
{
        if (ARRAY_GROW(m->originals_forget, m->n_originals_forget_allocated, m->n_originals_forget, 16) < 0)
                return -ENOMEM;
        m->originals_forget[m->n_originals_forget++] = ifindex;
        return 0;
}

/* Whether the first write of a restart would write what the last run left: every link's record
 * is the one read back, and the file holds those and nothing else. Then the file is taken as it
 * is (a restart with 4000 links formats, writes and syncs 800 KB less). */
static bool manager_record_as_saved(Manager *m)
{
        const Originals *o = &m->saved_originals;
        size_t i = 0, n = 0;
        void *v;

        if (!o->compact || m->originals.fd >= 0 || m->n_originals_forget > 0)
                return false;
        while (intmap_iterate(&m->links, &i, &v)) {
                const OriginalEntry *saved;
                OriginalEntry e;

                link_record_entry(v, &e);
                if (!memchr(e.set, true, sizeof e.set))
                        continue;
                saved = originals_find(o, e.ifindex);
                if (!saved || !originals_entry_equal(&e, saved))
                        return false;
                n++;
        }
        return n == o->n;
}

/* Writes what changed in the links' records since the last time: appended, or the whole record
 * anew (the first time, after a failure, when the appends outgrew it, or with rewrite). A
 * failure is said once; igmpd goes on configuring links without a record then (as it did
 * before there was one: a crash would lose the originals). */
void manager_write_originals(Manager *m, bool rewrite)
{
        _cleanup_free_ Link **links = NULL;
        OriginalsWrite w;
        size_t i = 0, n = 0;
        void *v;
        int r = 0;

        if (!m->originals.dir || (!m->originals_dirty && !rewrite))
                return;
        rewrite = rewrite || originals_journal_wants_rewrite(&m->originals);

        if (rewrite && manager_record_as_saved(m) && originals_journal_adopt(&m->originals, &m->saved_originals) >= 0)
                goto done; /* r is 0 */
        /* A whole record by ifindex: the next start reads it without sorting (originals_load()). */
        if (rewrite && manager_sorted_links_full(m, true, &links, &n) < 0) {
                log_oom();
                return; /* still dirty: tried again with the next record */
        }
        originals_write_begin(&w, &m->originals, rewrite);
        while (rewrite ? i < n : intmap_iterate(&m->links, &i, &v)) {
                Link *l = rewrite ? links[i++] : v;
                OriginalEntry e;

                if (!rewrite && !l->record_dirty)
                        continue;
                link_record_entry(l, &e);
                if (!rewrite || memchr(e.set, true, sizeof e.set))
                        originals_write_entry(&w, &e);
        }
        for (size_t j = 0; !rewrite && j < m->n_originals_forget; j++)
                originals_write_entry(&w, &(OriginalEntry) { .ifindex = m->originals_forget[j] });
        r = originals_write_end(&w);
done:
        if (r < 0) {
                if (!m->originals_failed)
                        log_warning_errno(r, "Failed to record the knob values found before igmpd changed them "
                                          "in %s/" ORIGINALS_NAME ", continuing without: should igmpd crash, a "
                                          "policy removed afterwards would not put them back: %m",
                                          m->originals.dir);
                m->originals_failed = true; /* the next write is a whole one, with everything */
        } else if (m->originals_failed) {
                log_info("Recording the knob values found before igmpd changed them works again (%s/" ORIGINALS_NAME ").",
                         m->originals.dir);
                m->originals_failed = false;
        }

        i = 0;
        while (intmap_iterate(&m->links, &i, &v))
                ((Link *) v)->record_dirty = false;
        m->n_originals_forget = 0;
        m->originals_dirty = false;
}

/* link_configure_many()'s name check: the link events queued since. */
static int manager_check_names(Link *const *links, size_t n, bool *ret_in_doubt, void *userdata)
{
        Manager *m = userdata;
        int ifindexes[LINK_MANY_MAX];
        const char *names[LINK_MANY_MAX];

        if (!m->netlink)
                return -ENOTCONN;
        for (size_t i = 0; i < n; i++) {
                ifindexes[i] = links[i]->ifindex;
                names[i] = links[i]->ifname;
        }
        return netlink_pending_links(m->netlink, ifindexes, names, n, ret_in_doubt);
}

/* The end of a batch: writes the records its writes wait for, then configures the links that
 * wait, LINK_MANY_MAX at a time. A link never announced is announced now; notify false leaves
 * telling the observer of the others' changes to the caller. */
void manager_end_batch(Manager *m, bool notify)
{
        Link **links = NULL;
        size_t n = 0;

        manager_write_originals(m, false);
        /* With a reference each: configuring a link may find it gone and drop it from the table. */
        if (manager_ref_links(m, &links, &n) < 0)
                log_oom(); /* none then */
        manager_configure_waiting(m, links, n, notify);
        links_unref(links, n);
}

void manager_configure_waiting(Manager *m, Link **links, size_t n, bool notify)
{
        for (size_t i = 0; i < n;) {
                Link *chunk[LINK_MANY_MAX];
                LinkSnapshot before[LINK_MANY_MAX];
                size_t k = 0;

                for (; i < n && k < LINK_MANY_MAX; i++)
                        if (links[i]->record_wait && !links[i]->gone)
                                chunk[k++] = links[i];
                for (size_t j = 0; j < k; j++)
                        if (chunk[j]->announced && notify)
                                link_begin_change(chunk[j], &before[j]);
                link_configure_many(chunk, k, manager_check_names, m);
                for (size_t j = 0; j < k; j++) {
                        Link *l = chunk[j];

                        if (!l->announced) {
                                if (!l->record_wait)
                                        link_notify(l, LINK_EVENT_ADDED);
                        } else if (notify)
                                link_end_change(l, &before[j]);
                }
        }
}

int manager_on_originals_batch_end(sd_event_source *s, void *userdata)
{
        Manager *m = userdata;

        if (!netlink_enumerating(m->netlink) && !m->first_pass) /* else their end ends the batch */
                manager_end_batch(m, true);
        return 0;
}

/* LinkContext.record: a link's record changed. Before a write, it is written at once, unless a
 * batch is being handled: then the writes wait for the end of the batch. */
int manager_link_record(Link *l, bool before_write, void *userdata)
{
        Manager *m = userdata;

        if (!m->originals.dir)
                return 0; /* not recording (igmpd --check, --restore) */
        m->originals_dirty = true;
        if (before_write && !m->originals_batch) {
                manager_write_originals(m, false);
                return 0;
        }
        /* Link events: after the burst being read. Other batches end it themselves. */
        (void) sd_event_source_set_enabled(m->originals_source, SD_EVENT_ONESHOT);
        return before_write ? -EAGAIN : 0;
}

char *manager_originals_path(Manager *m)
{
        _cleanup_free_ char *dir = path_join_root(m->root, ORIGINALS_DIR);
        char *p;

        if (!dir || !m->parent)
                return TAKE_PTR(dir);
        if (asprintf(&p, "%s/netns/%s", dir, m->netns_name) < 0)
                return NULL;
        return p;
}

/* Where m's records live (manager_originals_path()), and in netns "DEV:INO" of the network
 * namespace they are of (igmpd's own: read by manager_new(); a followed one's: the one its fd
 * holds), or "" if unknown. NULL on ENOMEM. */
static char *manager_record_place(Manager *m, char netns[ORIGINALS_NETNS_MAX])
{
        netns[0] = '\0';
        if (m->link_ctx.netns_ino != 0)
                snprintf(netns, ORIGINALS_NETNS_MAX, "%llu:%llu", (unsigned long long) m->netns_dev,
                         (unsigned long long) m->link_ctx.netns_ino);
        return manager_originals_path(m);
}

int manager_read_originals(Manager *m, Originals *ret)
{
        char netns[ORIGINALS_NETNS_MAX];
        _cleanup_free_ char *dir = manager_record_place(m, netns);

        return dir ? originals_load(dir, netns, ret) : -ENOMEM;
}

/* Reads what the last run recorded, for the links of the first pass, and sets up this run's
 * record; the first pass writes it anew. */
void manager_load_originals(Manager *m)
{
        char netns[ORIGINALS_NETNS_MAX];
        _cleanup_free_ char *dir = manager_record_place(m, netns);
        int r;

        if (!dir || originals_journal_init(&m->originals, dir, netns) < 0) {
                log_oom();
                return;
        }
        r = originals_load(dir, netns, &m->saved_originals);
        if (r < 0)
                log_warning_errno(r, "Failed to read the knob values recorded by the last run, ignoring: %m");
        m->originals_dirty = true;
        if (ns_knobs_take_record(&m->ns_knobs, dir, netns) < 0)
                log_oom();
}

int manager_take_namespace_record(Manager *m)
{
        char netns[ORIGINALS_NETNS_MAX];
        _cleanup_free_ char *dir = manager_record_place(m, netns);

        return dir ? ns_knobs_take_record(&m->ns_knobs, dir, netns) : -ENOMEM;
}
