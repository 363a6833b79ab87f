/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * NULL-terminated string arrays; see strv.h.
 */

#include <ctype.h>
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
        size_t n = strv_length(*l);

        if (isempty(value)) {
                strv_freep(l);
                return 0;
        }
        for (const char *p = value; *p;) {
                const char *e;
                char **nl;

                while (isspace((unsigned char) *p))
                        p++;
                if (!*p)
                        break;
                e = p;
                while (*e && !isspace((unsigned char) *e))
                        e++;
                nl = realloc(*l, (n + 2) * sizeof(char *));
                if (!nl)
                        return -ENOMEM;
                *l = nl;
                nl[n] = strndup(p, (size_t) (e - p));
                if (!nl[n])
                        return -ENOMEM;
                nl[++n] = NULL;
                p = e;
        }
        return 0;
}
