/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Prefix tests on a [p, end) range of a larger buffer, which need not be NUL-terminated. */

#include <string.h>

/* p + strlen(lit) if the bytes [p, end) start with lit, else NULL. */
static inline const char *range_skip_prefix(const char *p, const char *end, const char *lit)
{
        size_t l = strlen(lit);

        return (size_t) (end - p) >= l && memcmp(p, lit, l) == 0 ? p + l : NULL;
}
