/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ListLinksState: every link in one reply, its strings interned in a shared table (see
 * data/dbus/org.igmpd1.xml), built without a per-link lookup.
 */

#include <errno.h>
#include <stdlib.h>

#include "array-util.h"
#include "link-bus.h"
#include "strpool.h"

/* A link's strings as indexes into the reply's string table; the alternative names, matched
 * files and ignored sources are n_altnames + n_matched + n_ignored indexes in the shared extra
 * array from first. */
typedef struct LinkStateRow {
        uint32_t name, type, kind, mac, state, last_error, source[_KNOB_MAX];
        size_t first;
        uint32_t n_altnames, n_matched, n_ignored;
        char mac_buf[18]; /* the pool borrows it: rows do not move once filled */
        char name_buf[LINK_BUS_NAME_MAX + 1]; /* NETNS/IFNAME, borrowed likewise */
} LinkStateRow;

typedef struct IndexArray {
        uint32_t *v;
        size_t n, n_alloc;
} IndexArray;

/* Adds s to the pool (interned or not) and its index to extra, counting it in *n. */
static int extra_push(StrPool *pool, IndexArray *extra, const char *s, bool intern, uint32_t *n)
{
        uint32_t i;
        int r;

        r = intern ? strpool_intern(pool, s, &i) : strpool_add(pool, s, &i);
        if (r >= 0 && ARRAY_GROW(extra->v, extra->n_alloc, extra->n, 256) < 0)
                r = -ENOMEM;
        if (r >= 0)
                extra->v[extra->n++] = i;
        (*n)++;
        return r;
}

/* Names, alternative names and addresses are each link's own (and chosen by whoever names
 * links): appended without a lookup. What links share is interned: one entry each. */
static int link_state_row(const Link *l, StrPool *pool, IndexArray *extra, LinkStateRow *row)
{
        int r;

        r = strpool_add(pool, link_bus_name(l, row->name_buf), &row->name);
        if (r >= 0)
                r = strpool_intern(pool, l->type, &row->type);
        if (r >= 0)
                r = strpool_intern(pool, l->kind, &row->kind);
        if (r >= 0)
                r = strpool_add(pool, link_mac_string(l, row->mac_buf), &row->mac);
        if (r >= 0)
                r = strpool_intern(pool, link_state_to_string(link_get_state(l)), &row->state);
        if (r >= 0)
                r = strpool_intern(pool, l->last_error, &row->last_error);
        for (Knob k = 0; r >= 0 && k < _KNOB_MAX; k++)
                r = strpool_intern(pool, knob_value_source(&l->effective[k]), &row->source[k]);
        row->first = extra->n;
        for (char **a = l->altnames; r >= 0 && a && *a; a++)
                r = extra_push(pool, extra, *a, false, &row->n_altnames);
        for (size_t m = 0; r >= 0 && m < l->n_matched; m++)
                r = extra_push(pool, extra, l->matched[m]->path, true, &row->n_matched);
        if (r >= 0 && l->ignored_source)
                r = extra_push(pool, extra, l->ignored_source, true, &row->n_ignored);
        return r;
}

static int link_state_append(sd_bus_message *reply, const Link *l, const LinkStateRow *row, const uint32_t *extra)
{
        int32_t kernel[_KNOB_MAX], policy[_KNOB_MAX];
        int r;

        for (Knob k = 0; k < _KNOB_MAX; k++) {
                kernel[k] = l->kernel_known[k] ? l->kernel[k] : -1;
                policy[k] = l->effective[k].set ? l->effective[k].value : -1;
        }
        r = sd_bus_message_open_container(reply, 'r', LINK_STATE_SIGNATURE);
        if (r >= 0)
                r = sd_bus_message_append(reply, "iuuuuuu", l->ifindex, row->name, row->type, row->kind, row->mac,
                                          row->state, row->last_error);
        if (r >= 0)
                r = sd_bus_message_append_array(reply, 'u', extra + row->first, row->n_altnames * sizeof *extra);
        if (r >= 0)
                r = sd_bus_message_append_array(reply, 'u', extra + row->first + row->n_altnames,
                                                row->n_matched * sizeof *extra);
        if (r >= 0)
                r = sd_bus_message_append_array(reply, 'i', kernel, sizeof kernel);
        if (r >= 0)
                r = sd_bus_message_append_array(reply, 'i', policy, sizeof policy);
        if (r >= 0)
                r = sd_bus_message_append_array(reply, 'u', row->source, sizeof row->source);
        if (r >= 0)
                r = sd_bus_message_append_array(reply, 'u', extra + row->first + row->n_altnames + row->n_matched,
                                                row->n_ignored * sizeof *extra);
        return bus_message_close_containers(reply, 1, r);
}

int link_bus_append_states(sd_bus_message *reply, Link *const *links, size_t n)
{
        _cleanup_free_ LinkStateRow *rows = NULL;
        IndexArray extra = {};
        StrPool pool;
        int r;

        rows = calloc(MAX(n, (size_t) 1), sizeof *rows);
        if (!rows)
                return -ENOMEM;
        r = strpool_init(&pool);
        if (r < 0)
                return r;
        /* Strings first, so that a client reads the table before the rows that point into it. */
        for (size_t i = 0; r >= 0 && i < n; i++)
                r = link_state_row(links[i], &pool, &extra, &rows[i]);
        if (r >= 0)
                r = sd_bus_message_append_strv(reply, (char **) pool.strings); /* escaped by the pool */
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(" LINK_STATE_SIGNATURE ")");
        for (size_t i = 0; r >= 0 && i < n; i++)
                r = link_state_append(reply, links[i], &rows[i], extra.v ?: (const uint32_t[1]) { 0 });
        r = bus_message_close_containers(reply, 1, r);
        strpool_done(&pool);
        free(extra.v);
        return r;
}
