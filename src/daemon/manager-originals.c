/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The Manager's record of originals (originals.h): the knob values found before igmpd changed
 * them, read from what the last run left, and written for this run before the writes that need
 * it — at once, or once for a batch (the first pass, a reload, a burst of link events), whose
 * end configures the links that waited for it.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* Writes what changed in the links' records since the last time: appended, or the whole record
 * anew (the first time, after a failure, when the appends outgrew it, or with rewrite). A
 * failure is said once; igmpd goes on configuring links without a record then (as it did
 * before there was one: a crash would lose the originals). */
void manager_write_originals(Manager *m, bool rewrite)
{
        _cleanup_free_ char *buf = NULL;
        size_t len = 0, allocated = 0, i = 0;
        void *v;
        int r;

        if (!m->originals.dir || (!m->originals_dirty && !rewrite))
                return;
        rewrite = rewrite || originals_journal_wants_rewrite(&m->originals);

        while (intmap_iterate(&m->links, &i, &v)) {
                Link *l = v;
                OriginalEntry e;

                if (!rewrite && !l->record_dirty)
                        continue;
                link_record_entry(l, &e);
                if (rewrite && !memchr(e.set, true, sizeof e.set))
                        continue;
                if (originals_format_entry(&e, &buf, &len, &allocated) < 0) {
                        log_oom();
                        return; /* still dirty: tried again with the next record */
                }
        }
        for (size_t j = 0; !rewrite && j < m->n_originals_forget; j++) {
                OriginalEntry e = { .ifindex = m->originals_forget[j] };

                if (originals_format_entry(&e, &buf, &len, &allocated) < 0) {
                        log_oom();
                        return;
                }
        }

        if (rewrite)
                r = originals_journal_rewrite(&m->originals, buf ?: "", len);
        else
                r = len > 0 ? originals_journal_append(&m->originals, buf, len) : 0;
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
        if (manager_ref_links(m, &links, &n) < 0) {
                log_oom();
                return;
        }
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
        links_unref(links, n);
}

int manager_on_originals_batch_end(sd_event_source *s, void *userdata)
{
        manager_end_batch(userdata, true);
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

/* "DEV:INO" of the network namespace igmpd runs in, or "" if unknown. */
static void manager_netns_id(Manager *m, char buf[ORIGINALS_NETNS_MAX])
{
        _cleanup_free_ char *path = NULL;
        struct stat st;

        buf[0] = '\0';
        if (m->parent) { /* a followed namespace: the one its fd holds */
                snprintf(buf, ORIGINALS_NETNS_MAX, "%llu:%llu", (unsigned long long) m->netns_dev,
                         (unsigned long long) m->link_ctx.netns_ino);
                return;
        }
        if (asprintf(&path, "%s/self/ns/net", m->proc_root) < 0 || stat(path, &st) < 0)
                return;
        snprintf(buf, ORIGINALS_NETNS_MAX, "%llu:%llu", (unsigned long long) st.st_dev,
                 (unsigned long long) st.st_ino);
}

/* ROOT/run/igmpd, and ROOT/run/igmpd/netns/NAME for a followed namespace. NULL on ENOMEM. */
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

int manager_read_originals(Manager *m, Originals *ret)
{
        _cleanup_free_ char *dir = manager_originals_path(m);
        char netns[ORIGINALS_NETNS_MAX];

        if (!dir)
                return -ENOMEM;
        manager_netns_id(m, netns);
        return originals_load(dir, netns, ret);
}

/* Reads what the last run recorded, for the links of the first pass, and sets up this run's
 * record; the first pass writes it anew. */
void manager_load_originals(Manager *m)
{
        _cleanup_free_ char *dir = manager_originals_path(m);
        char netns[ORIGINALS_NETNS_MAX];
        int r;

        r = manager_read_originals(m, &m->saved_originals);
        if (r < 0)
                log_warning_errno(r, "Failed to read the knob values recorded by the last run, ignoring: %m");
        manager_netns_id(m, netns);
        if (!dir || originals_journal_init(&m->originals, dir, netns) < 0) {
                log_oom();
                return;
        }
        m->originals_dirty = true;
        if (ns_knobs_take_record(&m->ns_knobs, dir, netns) < 0)
                log_oom();
}

int manager_take_namespace_record(Manager *m)
{
        _cleanup_free_ char *dir = path_join_root(m->root, ORIGINALS_DIR);
        char netns[ORIGINALS_NETNS_MAX];

        if (!dir)
                return -ENOMEM;
        manager_netns_id(m, netns);
        return ns_knobs_take_record(&m->ns_knobs, dir, netns);
}
