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

#include "refstr.h"

RefStr *refstr_new(const char *s)
{
        assert(s);
        return refstr_newf("%s", s);
}

RefStr *refstr_newf(const char *fmt, ...)
{
        va_list ap;
        RefStr *r;
        int n;

        va_start(ap, fmt);
        n = vsnprintf(NULL, 0, fmt, ap);
        va_end(ap);
        if (n < 0 || (size_t) n > SIZE_MAX - sizeof(RefStr) - 1)
                return NULL;
        r = malloc(sizeof(RefStr) + (size_t) n + 1);
        if (!r)
                return NULL;
        *r = (RefStr) { .n_ref = 1, .str = (char *) (r + 1) };
        va_start(ap, fmt);
        (void) vsnprintf((char *) (r + 1), (size_t) n + 1, fmt, ap);
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
