/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>

/*
 * Parses a duration into milliseconds: a bare number is milliseconds; "ms", "msec", "s", "sec",
 * "min", "m", "h", "hr" suffixes and decimals ("1.5s") are accepted, whitespace between number and unit too.
 * A result that is not a whole number of milliseconds is rejected.
 * Returns 0, -EINVAL for bad syntax, -ERANGE if the value does not fit in int64 milliseconds.
 */
int parse_duration_ms(const char *s, int64_t *ret);
