/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * NULL-terminated string arrays ("strv", as in systemd): the one place the daemon, igmpctl and
 * the tests copy, compare, search and free them (strv_free() is declared in macro.h beside the
 * other cleanup helpers). NULL is the empty list everywhere.
 */

#include <stdbool.h>
#include <stddef.h>

#include "macro.h" /* strv_free(), strv_freep() and _cleanup_strv_free_, with the other cleanups */

size_t strv_length(char *const *l);
/* A deep copy; NULL for NULL, and on ENOMEM (check l != NULL). */
char **strv_copy(char *const *l);
bool strv_equal(char *const *a, char *const *b);
bool strv_contains(char *const *l, const char *s);
/* Whether s matches one of the shell globs in patterns (fnmatch(3), no flags). */
bool strv_fnmatch(char *const *patterns, const char *s);

/* Appends the whitespace-separated words of value to *l; an empty value frees the list
 * (config semantics: "Key=" resets). 0 or -ENOMEM (*l keeps what was appended). */
int strv_extend_words(char ***l, const char *value);
