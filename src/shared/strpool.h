/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A string table built for one reply (ListLinksState): strings by index, index 0 always "".
 * strpool_intern() gives each distinct string one index, found by content (for what many links
 * share: kinds, states, policy file paths, sources); strpool_add() appends without looking (for
 * what each link has of its own: names, addresses). A string that is not valid UTF-8 (D-Bus
 * refuses those) is stored with each invalid byte written "\xNN" (utf8_escape()), as igmpd
 * shows names everywhere on the bus.
 * Other strings are borrowed: the pool must not outlive them.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "namemap.h"

typedef struct StrPool {
        const char **strings; /* n strings, NULL-terminated */
        size_t n, n_alloc;
        NameMap interned;     /* content → index + 1 of the interned strings */
        char **owned;         /* replacements made for invalid UTF-8 */
        size_t n_owned;
} StrPool;

/* An empty pool holding "" at index 0. 0 or -ENOMEM. */
int strpool_init(StrPool *p);
/* Appends s as a new entry, or with intern gives the index of an equal string, adding s if there
 * is none. NULL and "" give 0. 0 or -ENOMEM. */
int strpool_put(StrPool *p, const char *s, bool intern, uint32_t *ret);
#define strpool_intern(p, s, ret) strpool_put(p, s, true, ret)
#define strpool_add(p, s, ret) strpool_put(p, s, false, ret)
void strpool_done(StrPool *p);
