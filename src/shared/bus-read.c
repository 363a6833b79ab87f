/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Dictionary walkers for D-Bus replies (see bus-read.h).
 */

#include "bus-read.h"
#include "macro.h"

static int read_dict(sd_bus_message *m, const char *array, const char *entry, const char *value, BusEntryFn fn,
                     void *userdata)
{
        const char *key;
        int r;

        r = sd_bus_message_enter_container(m, 'a', array);
        while (r >= 0 && (r = sd_bus_message_enter_container(m, 'e', entry)) > 0) {
                r = sd_bus_message_read_basic(m, 's', &key);
                if (r >= 0)
                        r = fn(m, key, userdata);
                if (r == 0)
                        r = sd_bus_message_skip(m, value);
                if (r >= 0)
                        r = sd_bus_message_exit_container(m);
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        return r < 0 ? r : 0;
}

int bus_read_dict(sd_bus_message *m, BusEntryFn fn, void *userdata)
{
        return read_dict(m, "{sv}", "sv", "v", fn, userdata);
}

int bus_read_sections(sd_bus_message *m, BusEntryFn fn, void *userdata)
{
        return read_dict(m, "{sa{sv}}", "sa{sv}", "a{sv}", fn, userdata);
}

int bus_read_variant_string(sd_bus_message *m, const char *type, char **ret)
{
        const char *s;
        int r;

        r = sd_bus_message_read(m, "v", type, &s);
        if (r >= 0)
                r = free_and_strdup(ret, s);
        return r < 0 ? r : 1;
}

int bus_read_variant_strv(sd_bus_message *m, const char *type, char ***ret)
{
        char **l = NULL;
        int r;

        r = sd_bus_message_enter_container(m, 'v', type);
        if (r >= 0)
                r = sd_bus_message_read_strv(m, &l);
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        if (r < 0) {
                strv_free(l);
                return r;
        }
        strv_free(*ret);
        *ret = l;
        return 1;
}
