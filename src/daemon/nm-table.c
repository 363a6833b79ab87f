/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The NetworkManager table (see nm-table.h).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "nm-profile.h"
#include "nm-table.h"

static void entries_free(NMEntry *e, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(e[i].device);
                free(e[i].ignored);
                refstr_unref(e[i].source);
        }
        free(e);
}

void nm_table_done(NMTable *t)
{
        entries_free(t->entries, t->n);
        *t = (NMTable) {};
}

static const NMEntry *find(const NMEntry *e, size_t n, int ifindex)
{
        for (size_t i = 0; i < n; i++)
                if (e[i].ifindex == ifindex)
                        return &e[i];
        return NULL;
}

const NMEntry *nm_table_find(const NMTable *t, int ifindex)
{
        return find(t->entries, t->n, ifindex);
}

static bool entry_equal(const NMEntry *a, const NMEntry *b)
{
        if (!a || !b)
                return a == b;
        if (!streq(refstr_str(a->source), refstr_str(b->source)) || !streq_ptr(a->ignored, b->ignored))
                return false;
        for (Knob k = 0; k < _KNOB_MAX; k++)
                if ((a->knobs[k].line > 0) != (b->knobs[k].line > 0) ||
                    (a->knobs[k].line > 0 && a->knobs[k].value != b->knobs[k].value))
                        return false;
        return true;
}

/* Swaps in a new table and reports every ifindex whose values changed. */
static void table_replace(NMTable *t, NMEntry *entries, size_t n, NMChangedFn changed, void *userdata)
{
        NMEntry *old = t->entries;
        size_t n_old = t->n;

        t->entries = entries;
        t->n = n;

        /* Every old entry, then the new entries that have no old one. */
        for (size_t i = 0; i < n_old + n; i++) {
                int ifindex = i < n_old ? old[i].ifindex : entries[i - n_old].ifindex;
                const NMEntry *was = find(old, n_old, ifindex);
                const NMEntry *now = find(entries, n, ifindex);

                if (i >= n_old && was)
                        continue; /* handled with the old entries */
                /* Unchanged: the link is not configured again (it keeps its own reference to the
                 * source). */
                if (entry_equal(was, now))
                        continue;

                if (now && now->ignored)
                        log_info("%s: NetworkManager profile '%s' ignored: %s.", now->ifname,
                                 refstr_str(now->source) + strlen(NM_SOURCE_PREFIX), now->ignored);
                else if (now)
                        log_info("%s: NetworkManager profile '%s' %s, %u igmpd value%s.", now->ifname,
                                 refstr_str(now->source) + strlen(NM_SOURCE_PREFIX),
                                 was && streq(refstr_str(was->source), refstr_str(now->source)) ? "changed"
                                                                                                 : "is active",
                                 nm_count_knobs(now->knobs), nm_count_knobs(now->knobs) == 1 ? "" : "s");
                else
                        log_info("%s: no NetworkManager profile values any more, falling back.", was->ifname);
                changed(ifindex, userdata);
        }
        entries_free(old, n_old);
}

/* Appends an entry for what r says about its device (there is room for it). 0 or -ENOMEM. */
static int entry_add(NMTable *t, NMEntry *entries, size_t *n, const NMDeviceResult *r)
{
        NMEntry *e = &entries[*n];

        /* Keyed by ifindex: a device NetworkManager has no kernel link for (0) has nothing to
         * configure, and the first device found for an ifindex wins. */
        if (!r->profile || !r->ifname || strlen(r->ifname) >= IF_NAMESIZE || r->ifindex <= 0 ||
            find(entries, *n, r->ifindex))
                return 0;
        if (*n >= NM_ENTRIES_MAX) {
                if (!t->overflow_logged)
                        log_warning("More than %u NetworkManager devices with igmpd values, ignoring the rest.",
                                    NM_ENTRIES_MAX);
                t->overflow_logged = true;
                return 0;
        }
        *e = (NMEntry) { .ifindex = r->ifindex };
        strcpy(e->ifname, r->ifname);
        memcpy(e->knobs, r->knobs, sizeof e->knobs);
        e->device = strdup(r->path);
        e->source = nm_source_new(r->profile);
        e->ignored = r->ignored ? strdup(r->ignored) : NULL;
        (*n)++; /* freed with the array on failure */
        return e->device && e->source && (e->ignored || !r->ignored) ? 0 : -ENOMEM;
}

int nm_table_update(NMTable *t, const char *device, const NMDeviceResult *results, size_t n_results,
                    NMChangedFn changed, void *userdata)
{
        NMEntry *entries;
        size_t n = 0;
        int r = 0;

        entries = calloc(t->n + n_results + 1, sizeof *entries);
        if (!entries)
                return -ENOMEM;
        /* A device read keeps every entry but that device's (by object path, and by the ifindex
         * it has now, if it is still there). */
        for (size_t i = 0; device && r >= 0 && i < t->n; i++) {
                const NMEntry *o = &t->entries[i];

                if (streq(o->device, device) || (n_results > 0 && o->ifindex == results[0].ifindex))
                        continue;
                entries[n] = *o;
                entries[n].device = strdup(o->device);
                entries[n].source = refstr_ref(o->source);
                entries[n].ignored = o->ignored ? strdup(o->ignored) : NULL;
                r = entries[n].device && (entries[n].ignored || !o->ignored) ? 0 : -ENOMEM;
                n++;
        }
        for (size_t i = 0; r >= 0 && i < n_results; i++)
                r = entry_add(t, entries, &n, &results[i]);
        if (r < 0) {
                entries_free(entries, n);
                return r;
        }
        table_replace(t, entries, n, changed, userdata);
        return 0;
}

void nm_table_clear(NMTable *t, NMChangedFn changed, void *userdata)
{
        table_replace(t, NULL, 0, changed, userdata);
}
