/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The one UTF-8 validator (JSON output, audit strings from the kernel).
 */

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (1…4 bytes, never more than max), or 0 if there is
 * none there: a stray continuation byte, an overlong form, a surrogate, a code point past
 * U+10FFFF, or a sequence cut short. Any ASCII byte, NUL included, is 1. With max = SIZE_MAX
 * a NUL-terminated string is never read past its terminator. */
size_t utf8_valid_len(const char *s, size_t max);

/* Whether all of the NUL-terminated s is valid UTF-8. */
bool utf8_is_valid(const char *s);

/* Interface names (and file names) are bytes; D-Bus strings and JSON are UTF-8. utf8_escape()
 * writes each byte that is not part of valid UTF-8, and each backslash, as "\xNN" (two lowercase
 * hex digits; a backslash is "\x5c"), so that no two byte strings look alike ("a\xff" is a and
 * byte 0xff, "a\x5cxff" the five characters a\xff) and a name that is valid UTF-8 without a
 * backslash is its own escaped form. UTF8_ESCAPE_CONTROL escapes each byte of a control character
 * too (C0, DEL, and C1 U+0080…U+009F, which a terminal also obeys). UTF8_ESCAPE_SHOWN is for a
 * string that is already escaped (what igmpd sent on the bus) on its way to a terminal: control
 * characters and bytes that are not UTF-8 are escaped, a backslash is kept. utf8_unescape()
 * reverses "\xNN" (either case); a backslash not followed by "x" and two hex digits is kept. */
typedef enum Utf8EscapeMode {
        UTF8_ESCAPE_INVALID,
        UTF8_ESCAPE_CONTROL,
        UTF8_ESCAPE_SHOWN,
} Utf8EscapeMode;

/* The room utf8_escape() needs for a string of len bytes, NUL included. */
#define UTF8_ESCAPED_SIZE(len) ((len) * 4 + 1)

/* Whether s is its own UTF8_ESCAPE_INVALID form: valid UTF-8 without a backslash. */
#define utf8_is_plain(s) (utf8_is_valid(s) && !strchr(s, '\\'))
/* Writes s[0..len) escaped into buf, which holds UTF8_ESCAPED_SIZE(len) bytes (a NUL within s
 * is a control character: "\x00" with UTF8_ESCAPE_CONTROL). Returns the length written. */
size_t utf8_escape_bytes(const char *s, size_t len, Utf8EscapeMode mode, char *buf);
/* The same for a NUL-terminated s; returns buf. */
#define utf8_escape(s, mode, buf) (utf8_escape_bytes(s, strlen(s), mode, buf), (buf))
/* The same, allocated; NULL when out of memory. */
char *utf8_escape_dup(const char *s, Utf8EscapeMode mode);
/* The text printf would make of format and ap, escaped and allocated; NULL when out of memory. */
char *utf8_escape_vasprintf(Utf8EscapeMode mode, const char *format, va_list ap);
/* Writes the unescaped s into buf of size bytes. 0, -ENOBUFS if it does not fit (NUL
 * included), -EINVAL for "\x00". */
int utf8_unescape(const char *s, char *buf, size_t size);
