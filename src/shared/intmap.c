/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The ifindex → object map.
 */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "intmap.h"

static size_t slot_of(const IntMap *m, int key)
{
        uint32_t h = (uint32_t) key * 2654435761u; /* Knuth's multiplicative hash */
        return h & (m->n_slots - 1);
}

static IntMapEntry *find(const IntMap *m, int key)
{
        if (m->n_slots == 0)
                return NULL;
        for (size_t i = slot_of(m, key);; i = (i + 1) & (m->n_slots - 1)) {
                if (!m->slots[i].value)
                        return NULL;
                if (m->slots[i].key == key)
                        return &m->slots[i];
        }
}

void *intmap_get(const IntMap *m, int key)
{
        IntMapEntry *e = find(m, key);

        return e ? e->value : NULL;
}

/* Puts e in the first free slot from its home on (there is one: the load factor is at most 1/2). */
static void place(IntMap *m, IntMapEntry e)
{
        size_t i = slot_of(m, e.key);

        while (m->slots[i].value)
                i = (i + 1) & (m->n_slots - 1);
        m->slots[i] = e;
        m->n++;
}

static int resize(IntMap *m, size_t n_slots)
{
        IntMap new = { .n_slots = n_slots };

        new.slots = calloc(n_slots, sizeof *new.slots);
        if (!new.slots)
                return -ENOMEM;
        for (size_t i = 0; i < m->n_slots; i++)
                if (m->slots[i].value)
                        place(&new, m->slots[i]);
        free(m->slots);
        *m = new;
        return 0;
}

int intmap_reserve(IntMap *m, size_t n)
{
        size_t n_slots = m->n_slots ? m->n_slots : 16;

        if (n == 0)
                return 0;
        while (n_slots < (m->n + n) * 2)
                n_slots *= 2;
        return n_slots == m->n_slots ? 0 : resize(m, n_slots);
}

int intmap_put(IntMap *m, int key, void *value)
{
        IntMapEntry *e;
        int r;

        if (!value)
                return -EINVAL;
        /* Replacing never allocates, so it never fails (namemap.c relies on that). */
        e = find(m, key);
        if (e) {
                e->value = value;
                return 0;
        }
        r = intmap_reserve(m, 1); /* the load factor stays at or below 1/2 */
        if (r < 0)
                return r;
        place(m, (IntMapEntry) { .key = key, .value = value });
        return 0;
}

void *intmap_remove(IntMap *m, int key)
{
        IntMapEntry *e = find(m, key);
        size_t mask = m->n_slots - 1, i;
        void *v;

        if (!e)
                return NULL;
        i = (size_t) (e - m->slots);
        v = e->value;
        m->slots[i] = (IntMapEntry) {};
        m->n--;

        /* Backward-shift the following entries of the cluster into the hole. */
        for (size_t j = (i + 1) & mask; m->slots[j].value; j = (j + 1) & mask) {
                size_t home = slot_of(m, m->slots[j].key);
                /* Move j to i if home is not cyclically in (i, j]. */
                if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) {
                        m->slots[i] = m->slots[j];
                        m->slots[j] = (IntMapEntry) {};
                        i = j;
                }
        }

        if (m->n_slots > 16 && m->n * 8 < m->n_slots)
                (void) resize(m, m->n_slots / 2); /* failure to shrink is harmless */
        return v;
}

void intmap_done(IntMap *m)
{
        free(m->slots);
        *m = (IntMap) {};
}

int intmap_iterate(const IntMap *m, size_t *i, void **ret_value)
{
        for (; *i < m->n_slots; (*i)++)
                if (m->slots[*i].value) {
                        *ret_value = m->slots[(*i)++].value;
                        return 1;
                }
        return 0;
}

int intmap_values(const IntMap *m, void ***ret, size_t *ret_n)
{
        void **l = malloc((m->n ?: 1) * sizeof *l);
        size_t n = 0, i = 0;
        void *v;

        if (!l)
                return -ENOMEM;
        while (intmap_iterate(m, &i, &v))
                l[n++] = v;
        *ret = l;
        *ret_n = n;
        return 0;
}
