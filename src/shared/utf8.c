/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * UTF-8 validation and the \\xNN escaping of names that are not UTF-8; see utf8.h.
 */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
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

bool utf8_is_valid(const char *s)
{
        for (size_t n; *s; s += n) {
                n = utf8_valid_len(s, SIZE_MAX);
                if (n == 0)
                        return false;
        }
        return true;
}

static bool is_control(const unsigned char *u, size_t n)
{
        if (n == 1)
                return u[0] < 0x20 || u[0] == 0x7f;
        return n == 2 && u[0] == 0xc2 && u[1] < 0xa0; /* U+0080…U+009F */
}

size_t utf8_escape_bytes(const char *s, size_t len, Utf8EscapeMode mode, char *buf)
{
        const unsigned char *u = (const unsigned char *) s;
        char *d = buf;

        for (size_t i = 0; i < len;) {
                size_t n = utf8_valid_len(s + i, len - i);
                bool escape = n == 0 || (mode != UTF8_ESCAPE_SHOWN && u[i] == '\\') ||
                              (mode != UTF8_ESCAPE_INVALID && is_control(u + i, n));

                for (size_t end = i + MAX(n, (size_t) 1); i < end; i++)
                        if (escape)
                                d += sprintf(d, "\\x%02x", u[i]);
                        else
                                *d++ = (char) u[i];
        }
        *d = '\0';
        return (size_t) (d - buf);
}

char *utf8_escape_dup(const char *s, Utf8EscapeMode mode)
{
        char *buf = malloc(UTF8_ESCAPED_SIZE(strlen(s)));

        return buf ? utf8_escape(s, mode, buf) : NULL;
}

int utf8_unescape(const char *s, char *buf, size_t size)
{
        size_t n = 0;

        while (*s) {
                char c = *s++;

                if (c == '\\' && s[0] == 'x' && unhexchar(s[1]) >= 0 && unhexchar(s[2]) >= 0) {
                        c = (char) (unhexchar(s[1]) << 4 | unhexchar(s[2]));
                        if (c == '\0')
                                return -EINVAL;
                        s += 3;
                }
                if (n + 1 >= size)
                        return -ENOBUFS;
                buf[n++] = c;
        }
        if (n >= size)
                return -ENOBUFS;
        buf[n] = '\0';
        return 0;
}

char *utf8_escape_vasprintf(Utf8EscapeMode mode, const char *format, va_list ap)
{
        _cleanup_free_ char *s = NULL;

        return vasprintf(&s, format, ap) < 0 ? NULL : utf8_escape_dup(s, mode);
}
