/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The one hash for change detection and duplicate suppression: 64-bit FNV-1a. Not for hash
 * tables fed by peers (no seed) and not cryptographic.
 */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FNV1A64_INIT UINT64_C(0xcbf29ce484222325)

static inline uint64_t fnv1a64(uint64_t h, const void *p, size_t n)
{
        const unsigned char *b = p;

        for (size_t i = 0; i < n; i++) {
                h ^= b[i];
                h *= UINT64_C(0x100000001b3);
        }
        return h;
}

/* With the terminator, so that "ab" + "c" and "a" + "bc" differ; NULL differs from "". */
static inline uint64_t fnv1a64_str(uint64_t h, const char *s)
{
        return s ? fnv1a64(h, s, strlen(s) + 1) : fnv1a64(h, "\xff", 1);
}
