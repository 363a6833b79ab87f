/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A hash map from names (NUL-terminated byte strings, any bytes but NUL) to pointers: the
 * link table's index by interface name. Built on IntMap: the name's hash (FNV-1a 64, folded
 * to 32 bits) is the IntMap key, and names that share a hash chain from there. The hash
 * starts from a random basis drawn once per process, so which names collide is not known in
 * advance (interface names are chosen by whoever holds CAP_NET_ADMIN in the namespace).
 * Lookups, insertions and removals are O(1) on average. The map copies the names it holds.
 * Not thread-safe.
 */

#include <stdbool.h>
#include <stddef.h>

#include "intmap.h"

typedef struct NameMap {
        IntMap buckets; /* hash → chain of entries (namemap.c) */
        size_t n;
} NameMap;

void *namemap_get(const NameMap *m, const char *name);
/* Maps name to value, replacing what it mapped to. value must not be NULL. 0 or -ENOMEM. */
int namemap_put(NameMap *m, const char *name, void *value);
/* Removes name only if it maps to value. Returns whether it did. */
bool namemap_remove_value(NameMap *m, const char *name, const void *value);
void namemap_done(NameMap *m);
/* The IntMap key a name hashes to (for tests). */
int namemap_key_of(const char *name);
