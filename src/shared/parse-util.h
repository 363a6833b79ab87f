/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Numbers in a [s, e) range of a larger buffer, locale-free: every byte must be a digit. And
 * the other way: an int in decimal, written without printf (hot paths: every knob write at
 * start, every line of the originals record). And durations, for config files and the command
 * line, always into milliseconds. */

#include <stdint.h>

/* The whole [s, e) as an unsigned number in base 10 or 16, at most max. 0 or -EINVAL. */
int parse_unsigned_range(const char *s, const char *e, unsigned base, uint64_t max, uint64_t *ret);
/* The whole [s, e) as a decimal int, with an optional leading '-'. 0 or -EINVAL. */
int parse_int_range(const char *s, const char *e, int *ret);
/* The decimal of v at p (at most 11 bytes: "-2147483648"; no NUL). Returns the end. */
char *format_int32(char *p, int32_t v);

/*
 * Parses a duration into milliseconds: a bare number is milliseconds; "ms", "msec", "s", "sec",
 * "min", "m", "h", "hr" suffixes and decimals ("1.5s") are accepted, whitespace between number and unit too.
 * A result that is not a whole number of milliseconds is rejected.
 * Returns 0, -EINVAL for bad syntax, -ERANGE if the value does not fit in int64 milliseconds.
 */
int parse_duration_ms(const char *s, int64_t *ret);
