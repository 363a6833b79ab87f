/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A map from names (NUL-terminated byte strings, any bytes but NUL) to pointers: the link table's
 * index by interface name. A balanced tree (glibc's tsearch(3), a red-black tree), so that no
 * choice of names (interface names are chosen by whoever holds CAP_NET_ADMIN in the namespace)
 * makes it slower than O(log n). The map copies the names it holds. Not thread-safe.
 */

#include <stdbool.h>
#include <stddef.h>

typedef struct NameMap {
        void *root; /* tsearch(3) tree of entries (namemap.c) */
        size_t n;
} NameMap;

void *namemap_get(const NameMap *m, const char *name);
/* Maps name to value, replacing what it mapped to. value must not be NULL. 0 or -ENOMEM. */
int namemap_put(NameMap *m, const char *name, void *value);
/* Removes name only if it maps to value. Returns whether it did. */
bool namemap_remove_value(NameMap *m, const char *name, const void *value);
void namemap_done(NameMap *m);
