/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The string table of a reply; see strpool.h.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "array-util.h"
#include "strpool.h"
#include "utf8.h"

static int strpool_append(StrPool *p, const char *s, uint32_t *ret)
{
        if (p->n + 1 >= UINT32_MAX || ARRAY_GROW(p->strings, p->n_alloc, p->n + 1, 64) < 0)
                return -ENOMEM;
        p->strings[p->n] = s;
        *ret = (uint32_t) p->n++;
        p->strings[p->n] = NULL;
        return 0;
}

/* s, or a copy in utf8_escape()'s form (as everywhere on the bus) that the pool keeps; NULL on
 * -ENOMEM. */
static const char *strpool_valid(StrPool *p, const char *s, bool *ret_owned)
{
        char **a, *r;

        *ret_owned = false;
        if (utf8_is_plain(s))
                return s;
        a = realloc(p->owned, (p->n_owned + 1) * sizeof *a);
        if (!a)
                return NULL;
        p->owned = a;
        r = utf8_escape_dup(s, UTF8_ESCAPE_INVALID);
        if (!r)
                return NULL;
        p->owned[p->n_owned++] = r;
        *ret_owned = true;
        return r;
}

int strpool_init(StrPool *p)
{
        uint32_t i;

        *p = (StrPool) {};
        return strpool_append(p, "", &i);
}

int strpool_put(StrPool *p, const char *s, bool intern, uint32_t *ret)
{
        bool owned;
        void *v;
        int r;

        if (!s || !*s) {
                *ret = 0;
                return 0;
        }
        s = strpool_valid(p, s, &owned);
        if (!s)
                return -ENOMEM;
        v = intern ? namemap_get(&p->interned, s) : NULL;
        if (v) {
                *ret = (uint32_t) ((uintptr_t) v - 1);
                if (owned) /* the copy just made is not needed */
                        free(p->owned[--p->n_owned]);
                return 0;
        }
        r = strpool_append(p, s, ret);
        if (r < 0 || !intern)
                return r;
        return namemap_put(&p->interned, s, (void *) ((uintptr_t) *ret + 1));
}

void strpool_done(StrPool *p)
{
        for (size_t i = 0; i < p->n_owned; i++)
                free(p->owned[i]);
        free(p->owned);
        free(p->strings);
        namemap_done(&p->interned);
        *p = (StrPool) {};
}
