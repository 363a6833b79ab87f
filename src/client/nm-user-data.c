/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Editing a profile's user data (see nm-user-data.h).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "igmpctl.h"
#include "macro.h"
#include "nm-user-data.h"

void user_data_done(UserData *d)
{
        for (size_t i = 0; i < d->n; i++) {
                free(d->entries[i].key);
                free(d->entries[i].value);
        }
        free(d->entries);
        *d = (UserData) {};
}

bool user_data_key_is_igmpd(const char *key)
{
        return key && startswith(key, NM_USER_DATA_PREFIX);
}

const char *user_data_get(const UserData *d, const char *key)
{
        for (size_t i = 0; i < d->n; i++)
                if (streq(d->entries[i].key, key))
                        return d->entries[i].value;
        return NULL;
}

int user_data_set(UserData *d, const char *key, const char *value)
{
        _cleanup_free_ char *k = NULL, *v = NULL;
        UserDataEntry *a;

        for (size_t i = 0; i < d->n; i++)
                if (streq(d->entries[i].key, key))
                        return free_and_strdup(&d->entries[i].value, value);
        k = strdup(key);
        v = strdup(value);
        if (!k || !v)
                return -ENOMEM;
        a = realloc(d->entries, (d->n + 1) * sizeof *a);
        if (!a)
                return -ENOMEM;
        d->entries = a;
        d->entries[d->n++] = (UserDataEntry) { TAKE_PTR(k), TAKE_PTR(v) };
        return 0;
}

size_t user_data_count_igmpd(const UserData *d)
{
        size_t n = 0;

        for (size_t i = 0; i < d->n; i++)
                n += user_data_key_is_igmpd(d->entries[i].key);
        return n;
}

/* Sets the entries of from in d: every one (igmpd 0), igmpd's (igmpd > 0) or the others (< 0). */
static int user_data_set_all(UserData *d, const UserData *from, int igmpd)
{
        int r = 0;

        for (size_t i = 0; r >= 0 && i < from->n; i++)
                if (igmpd == 0 || user_data_key_is_igmpd(from->entries[i].key) == (igmpd > 0))
                        r = user_data_set(d, from->entries[i].key, from->entries[i].value);
        return r;
}

void user_data_knob_entry(Knob k, int32_t v, char key[64], char value[32])
{
        char buf[32];

        snprintf(key, 64, NM_USER_DATA_PREFIX "%s", knob_to_string(k));
        snprintf(value, 32, "%s", knob_format(k, v, buf));
}

/* On a copy of d, so that a failure leaves d as it was: with clear every igmpd key removed,
 * then the igmpd keys of from (if given) and the knobs of set (if given) set. */
static int user_data_rewrite(UserData *d, bool clear, const UserData *from, const bool *set, const int32_t *value)
{
        UserData new = {};
        int r;

        r = user_data_set_all(&new, d, clear ? -1 : 0);
        if (r >= 0 && from)
                r = user_data_set_all(&new, from, 1);
        for (Knob k = 0; r >= 0 && set && k < _KNOB_MAX; k++) {
                char key[64], v[32];

                if (!set[k])
                        continue;
                user_data_knob_entry(k, value[k], key, v);
                r = user_data_set(&new, key, v);
        }
        if (r < 0) {
                user_data_done(&new);
                return r;
        }
        user_data_done(d);
        *d = new;
        return 0;
}

int user_data_edit(UserData *d, bool clear, const bool set[_KNOB_MAX], const int32_t value[_KNOB_MAX])
{
        return user_data_rewrite(d, clear, NULL, set, value);
}

int user_data_take_igmpd(UserData *d, const UserData *from)
{
        return user_data_rewrite(d, true, from, NULL, NULL);
}

bool user_data_igmpd_equal(const UserData *a, const UserData *b)
{
        if (user_data_count_igmpd(a) != user_data_count_igmpd(b))
                return false;
        for (size_t i = 0; i < a->n; i++)
                if (user_data_key_is_igmpd(a->entries[i].key) &&
                    !streq_ptr(user_data_get(b, a->entries[i].key), a->entries[i].value))
                        return false;
        return true;
}

static int entry_compare(const void *a, const void *b)
{
        return strcmp(((const UserDataEntry *) a)->key, ((const UserDataEntry *) b)->key);
}

void user_data_sort(UserData *d)
{
        if (d->n > 1)
                qsort(d->entries, d->n, sizeof *d->entries, entry_compare);
}
