/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading NetworkManager connection settings (see nm-settings.h).
 */

#include <errno.h>
#include <string.h>

#include "bus-read.h"
#include "macro.h"
#include "nm-settings.h"

/* NMActiveConnectionState: only these two apply the profile. */
#define NM_ACTIVE_CONNECTION_STATE_ACTIVATING 1
#define NM_ACTIVE_CONNECTION_STATE_ACTIVATED 2

int nm_bus_new_call(sd_bus *bus, const char *path, const char *iface, const char *member, sd_bus_message **ret)
{
        int r = sd_bus_message_new_method_call(bus, ret, NM_BUS_NAME, path, iface, member);

        return r < 0 ? r : sd_bus_message_set_auto_start(*ret, false);
}

static int read_user_data(sd_bus_message *m, NMSettings *s)
{
        const char *k, *v;
        int r;

        r = sd_bus_message_enter_container(m, 'v', "a{ss}");
        if (r >= 0)
                r = sd_bus_message_enter_container(m, 'a', "{ss}");
        while (r >= 0 && (r = sd_bus_message_read(m, "{ss}", &k, &v)) > 0)
                r = s->user_data ? s->user_data(k, v, s->userdata) : 0;
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        return r < 0 ? r : 1;
}

static int user_setting(sd_bus_message *m, const char *key, void *userdata)
{
        return streq(key, "data") ? read_user_data(m, userdata) : 0;
}

static int connection_setting(sd_bus_message *m, const char *key, void *userdata)
{
        NMSettings *s = userdata;
        const char **field = streq(key, "id") ? &s->id : streq(key, "uuid") ? &s->uuid : streq(key, "type") ? &s->type
                                                                                                           : NULL;

        if (field)
                return sd_bus_message_read(m, "v", "s", field) < 0 ? -EBADMSG : 1;
        if (streq(key, "permissions"))
                return bus_read_variant_strv(m, "as", &s->permissions);
        return 0;
}

static int settings_section(sd_bus_message *m, const char *section, void *userdata)
{
        BusEntryFn fn = streq(section, "connection") ? connection_setting :
                        streq(section, "user")       ? user_setting : NULL;
        int r = fn ? bus_read_dict(m, fn, userdata) : 0;

        return r < 0 ? r : !!fn;
}

int nm_settings_read(sd_bus_message *m, NMSettings *s)
{
        return bus_read_sections(m, settings_section, s);
}

int nm_user_data_parse(const char *key, const char *value, Knob *ret_knob, int32_t *ret_value)
{
        if (!key || !startswith(key, NM_USER_DATA_PREFIX))
                return 0;
        *ret_knob = knob_from_string(key + STRLEN(NM_USER_DATA_PREFIX));
        if (*ret_knob < 0)
                return -ENOENT;
        if (!value || knob_parse_value(*ret_knob, value, ret_value) < 0)
                return -EINVAL;
        return 1;
}

/* Device.Ifindex (not in NetworkManager 1.42, Debian 12's): read as "u" or "i", a negative index
 * is no link (0). 1 or -EBADMSG. */
static int read_variant_ifindex(sd_bus_message *m, uint32_t *ret)
{
        const char *contents;
        int32_t i;

        if (sd_bus_message_peek_type(m, NULL, &contents) < 0 || !contents)
                return -EBADMSG;
        if (streq(contents, "u"))
                return sd_bus_message_read(m, "v", "u", ret) < 0 ? -EBADMSG : 1;
        if (!streq(contents, "i") || sd_bus_message_read(m, "v", "i", &i) < 0)
                return -EBADMSG;
        *ret = i > 0 ? (uint32_t) i : 0;
        return 1;
}

static int device_property(sd_bus_message *m, const char *key, void *userdata)
{
        NMDeviceProps *p = userdata;

        if (streq(key, "Interface"))
                return bus_read_variant_string(m, "s", &p->ifname);
        if (streq(key, "Ifindex"))
                return read_variant_ifindex(m, &p->ifindex);
        if (streq(key, "ActiveConnection"))
                return bus_read_variant_string(m, "o", &p->active);
        return 0;
}

void nm_device_props_done(NMDeviceProps *p)
{
        free(p->ifname);
        free(p->active);
        *p = (NMDeviceProps) {};
}

int nm_read_device_props(sd_bus_message *reply, NMDeviceProps *ret)
{
        nm_device_props_done(ret);
        return bus_read_dict(reply, device_property, ret);
}

static int active_property(sd_bus_message *m, const char *key, void *userdata)
{
        NMActiveProps *p = userdata;

        if (streq(key, "Id"))
                return bus_read_variant_string(m, "s", &p->id);
        if (streq(key, "Connection"))
                return bus_read_variant_string(m, "o", &p->connection);
        if (streq(key, "Devices"))
                return bus_read_variant_strv(m, "ao", &p->devices);
        if (streq(key, "State"))
                return sd_bus_message_read(m, "v", "u", &p->state) < 0 ? -EBADMSG : 1;
        if (streq(key, "Vpn"))
                return sd_bus_message_read(m, "v", "b", &p->vpn) < 0 ? -EBADMSG : 1;
        return 0;
}

void nm_active_props_done(NMActiveProps *p)
{
        free(p->id);
        free(p->connection);
        strv_free(p->devices);
        *p = (NMActiveProps) {};
}

int nm_read_active_props(sd_bus_message *reply, NMActiveProps *ret)
{
        nm_active_props_done(ret);
        return bus_read_dict(reply, active_property, ret);
}

bool nm_active_props_usable(const NMActiveProps *p)
{
        return p->id && p->connection && !streq(p->connection, "/") && !p->vpn &&
               (p->state == NM_ACTIVE_CONNECTION_STATE_ACTIVATING || p->state == NM_ACTIVE_CONNECTION_STATE_ACTIVATED);
}
