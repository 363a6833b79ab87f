/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The one UTF-8 validator (JSON output, audit strings from the kernel).
 */

#include <stddef.h>

/* Length of the valid UTF-8 sequence at s (1…4 bytes, never more than max), or 0 if there is
 * none there: a stray continuation byte, an overlong form, a surrogate, a code point past
 * U+10FFFF, or a sequence cut short. Any ASCII byte, NUL included, is 1. With max = SIZE_MAX
 * a NUL-terminated string is never read past its terminator. */
size_t utf8_valid_len(const char *s, size_t max);
