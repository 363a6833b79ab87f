/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What every benchmark program needs: a monotonic clock in microseconds and a sort order. */

#include <stdint.h>
#include <time.h>

static inline uint64_t now_us(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

/* qsort() comparison of uint64_t. */
static inline int cmp_u64(const void *a, const void *b)
{
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

        return x < y ? -1 : x > y;
}
