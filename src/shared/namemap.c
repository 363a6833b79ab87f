/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The name → object map (see namemap.h).
 */

#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include "namemap.h"

typedef struct NameMapEntry {
        const char *name; /* right after the entry, in the same allocation */
        void *value;
} NameMapEntry;

static int entry_cmp(const void *a, const void *b)
{
        return strcmp(((const NameMapEntry *) a)->name, ((const NameMapEntry *) b)->name);
}

static NameMapEntry *find(const NameMap *m, const char *name)
{
        NameMapEntry key = { .name = name };
        void *const *node = name ? tfind(&key, &m->root, entry_cmp) : NULL;

        return node ? *node : NULL;
}

void *namemap_get(const NameMap *m, const char *name)
{
        NameMapEntry *e = find(m, name);

        return e ? e->value : NULL;
}

int namemap_put(NameMap *m, const char *name, void *value)
{
        NameMapEntry *e;
        size_t len;

        if (!name || !value)
                return -EINVAL;
        e = find(m, name);
        if (e) {
                e->value = value;
                return 0;
        }

        len = strlen(name);
        e = malloc(sizeof *e + len + 1);
        if (!e)
                return -ENOMEM;
        *e = (NameMapEntry) { .name = memcpy(e + 1, name, len + 1), .value = value };
        if (!tsearch(e, &m->root, entry_cmp)) {
                free(e);
                return -ENOMEM;
        }
        m->n++;
        return 0;
}

bool namemap_remove_value(NameMap *m, const char *name, const void *value)
{
        NameMapEntry *e = find(m, name);

        if (!e || !value || e->value != value)
                return false;
        (void) tdelete(e, &m->root, entry_cmp);
        free(e);
        m->n--;
        return true;
}

void namemap_done(NameMap *m)
{
        tdestroy(m->root, free);
        *m = (NameMap) {};
}
