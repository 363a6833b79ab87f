/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A small hash map from int keys (ifindexes) to pointers: open addressing, linear probing,
 * backward-shift deletion (no tombstones, so churn never degrades it). Not thread-safe.
 */

#include <stddef.h>

typedef struct IntMapEntry {
        int key;
        void *value; /* NULL marks a free slot */
} IntMapEntry;

typedef struct IntMap {
        IntMapEntry *slots;
        size_t n_slots; /* power of two, or 0 */
        size_t n;
} IntMap;

void *intmap_get(const IntMap *m, int key);
/* Inserts or replaces. value must not be NULL. 0 or -ENOMEM (replacing never fails). */
int intmap_put(IntMap *m, int key, void *value);
/* Makes room for n entries at once (a hint: the map still grows past it). 0 or -ENOMEM. */
int intmap_reserve(IntMap *m, size_t n);
/* Removes and returns the value, or NULL. Shrinks when mostly empty. */
void *intmap_remove(IntMap *m, int key);
void intmap_done(IntMap *m);
static inline size_t intmap_size(const IntMap *m)
{
        return m->n;
}

/* Iterate: for (size_t i = 0; intmap_iterate(m, &i, &v);) — do not insert while iterating;
 * removing the current entry is fine only via a collected list. */
int intmap_iterate(const IntMap *m, size_t *i, void **ret_value);

/* Snapshot of all values (caller frees the array); handy for safe iteration with removal. */
int intmap_values(const IntMap *m, void ***ret, size_t *ret_n);
