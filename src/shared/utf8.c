/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * UTF-8 validation; see utf8.h.
 */

#include <stdint.h>

#include "utf8.h"

size_t utf8_valid_len(const char *s, size_t max)
{
        const unsigned char *u = (const unsigned char *) s;
        uint32_t cp;
        size_t n;

        if (max == 0)
                return 0;
        if (u[0] < 0x80)
                return 1;
        if (u[0] >= 0xc2 && u[0] <= 0xdf) {
                n = 2;
                cp = u[0] & 0x1f;
        } else if (u[0] >= 0xe0 && u[0] <= 0xef) {
                n = 3;
                cp = u[0] & 0x0f;
        } else if (u[0] >= 0xf0 && u[0] <= 0xf4) {
                n = 4;
                cp = u[0] & 0x07;
        } else
                return 0;
        if (n > max)
                return 0;
        /* A NUL is no continuation byte: the loop stops at it. */
        for (size_t i = 1; i < n; i++) {
                if ((u[i] & 0xc0) != 0x80)
                        return 0;
                cp = (cp << 6) | (u[i] & 0x3f);
        }
        if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        return n;
}
