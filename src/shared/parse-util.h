/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Numbers in a [s, e) range of a larger buffer, locale-free: every byte must be a digit. */

#include <stdint.h>

/* The whole [s, e) as an unsigned number in base 10 or 16, at most max. 0 or -EINVAL. */
int parse_unsigned_range(const char *s, const char *e, unsigned base, uint64_t max, uint64_t *ret);
/* The whole [s, e) as a decimal int, with an optional leading '-'. 0 or -EINVAL. */
int parse_int_range(const char *s, const char *e, int *ret);
