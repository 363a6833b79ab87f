/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reference-counted immutable strings (see refstr.h): one allocation, the characters right
 * after the header.
 */

#include <assert.h>
#include <limits.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "refstr.h"

static RefStr *refstr_alloc(size_t len, char **ret_chars)
{
        RefStr *r;

        if (len > SIZE_MAX - sizeof(RefStr) - 1)
                return NULL;
        r = malloc(sizeof(RefStr) + len + 1);
        if (!r)
                return NULL;
        *ret_chars = (char *) (r + 1);
        *r = (RefStr) { .n_ref = 1, .str = *ret_chars };
        return r;
}

RefStr *refstr_new(const char *s)
{
        size_t len;
        RefStr *r;
        char *c;

        assert(s);

        len = strlen(s);
        r = refstr_alloc(len, &c);
        if (r)
                memcpy(c, s, len + 1);
        return r;
}

RefStr *refstr_newf(const char *fmt, ...)
{
        va_list ap;
        RefStr *r;
        char *c;
        int n;

        va_start(ap, fmt);
        n = vsnprintf(NULL, 0, fmt, ap);
        va_end(ap);
        if (n < 0)
                return NULL;
        r = refstr_alloc((size_t) n, &c);
        if (!r)
                return NULL;
        va_start(ap, fmt);
        (void) vsnprintf(c, (size_t) n + 1, fmt, ap);
        va_end(ap);
        return r;
}

RefStr *refstr_ref(RefStr *r)
{
        if (r && r->n_ref > 0) {
                assert(r->n_ref < UINT_MAX);
                r->n_ref++;
        }
        return r;
}

RefStr *refstr_unref(RefStr *r)
{
        if (r && r->n_ref > 0 && --r->n_ref == 0)
                free(r);
        return NULL;
}
