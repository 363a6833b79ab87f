/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Arrays that grow by doubling: one element at a time, amortized. */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "macro.h"

/* Makes room for element n of *p (allocated elements of size bytes each; n ≤ allocated): doubles
 * the allocation, to at least min elements, when it is full. 0 or -ENOMEM (*p unchanged). */
static inline int array_grow(void **p, size_t *allocated, size_t n, size_t size, size_t min)
{
        size_t na = MAX(*allocated * 2, min);
        void *q;

        if (n < *allocated)
                return 0;
        if (na > SIZE_MAX / size || !(q = realloc(*p, na * size)))
                return -ENOMEM;
        *p = q;
        *allocated = na;
        return 0;
}
#define ARRAY_GROW(array, allocated, n, min) \
        array_grow((void **) &(array), &(allocated), (n), sizeof *(array), (min))
