/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * NULL-terminated string arrays; see strv.h.
 */

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "strv.h"

char **strv_free(char **l)
{
        for (char **i = l; i && *i; i++)
                free(*i);
        free(l);
        return NULL;
}

size_t strv_length(char *const *l)
{
        size_t n = 0;

        while (l && l[n])
                n++;
        return n;
}

char **strv_copy(char *const *l)
{
        size_t n = strv_length(l);
        char **c;

        if (!l)
                return NULL;
        c = calloc(n + 1, sizeof *c);
        if (!c)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                c[i] = strdup(l[i]);
                if (!c[i])
                        return strv_free(c);
        }
        return c;
}

bool strv_equal(char *const *a, char *const *b)
{
        size_t i = 0;

        for (; a && b && a[i] && b[i]; i++)
                if (!streq(a[i], b[i]))
                        return false;
        return (!a || !a[i]) && (!b || !b[i]);
}

bool strv_contains(char *const *l, const char *s)
{
        for (char *const *p = l; s && p && *p; p++)
                if (streq(*p, s))
                        return true;
        return false;
}

bool strv_fnmatch(char *const *patterns, const char *s)
{
        for (char *const *p = patterns; s && p && *p; p++)
                if (fnmatch(*p, s, 0) == 0)
                        return true;
        return false;
}

int strv_extend_words(char ***l, const char *value)
{
        _cleanup_free_ char *copy = NULL;
        size_t n = strv_length(*l);
        char *state = NULL;

        if (isempty(value)) {
                strv_freep(l);
                return 0;
        }
        copy = strdup(value);
        if (!copy)
                return -ENOMEM;
        /* The bytes isspace() takes for whitespace in the C locale. */
        for (char *w = strtok_r(copy, " \t\n\v\f\r", &state); w; w = strtok_r(NULL, " \t\n\v\f\r", &state)) {
                char **nl = reallocarray(*l, n + 2, sizeof(char *));

                if (!nl)
                        return -ENOMEM;
                *l = nl;
                nl[n] = strdup(w);
                if (!nl[n])
                        return -ENOMEM;
                nl[++n] = NULL;
        }
        return 0;
}
