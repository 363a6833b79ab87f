/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading NetworkManager's replies (see nm-profile.h).
 */

#include <errno.h>
#include <string.h>

#include "fnv.h"
#include "log.h"
#include "nm-parse.h"
#include "nm-profile.h"
#include "strv.h"

/* NMActiveConnectionState: only these two apply the profile. */
#define NM_ACTIVE_CONNECTION_STATE_ACTIVATING 1
#define NM_ACTIVE_CONNECTION_STATE_ACTIVATED 2

bool nm_reply_failed(sd_bus_message *reply, const char *what, const char *path)
{
        const sd_bus_error *e;

        if (!sd_bus_message_is_method_error(reply, NULL))
                return false;
        e = sd_bus_message_get_error(reply);
        log_debug("NetworkManager: reading %s of %s failed, skipping: %s", what, path,
                  e && e->message ? e->message : "unknown error");
        return true;
}

/* Walks an a{sv}: fn consumes the variant of key and returns 1, or returns 0 to have it
 * skipped, or -errno to stop. 0 or -errno. */
static int read_properties(sd_bus_message *m, int (*fn)(sd_bus_message *m, const char *key, void *userdata),
                           void *userdata)
{
        int r;

        r = sd_bus_message_enter_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                const char *key;

                r = sd_bus_message_read(m, "s", &key);
                if (r < 0)
                        return r;
                r = fn(m, key, userdata);
                if (r == 0)
                        r = sd_bus_message_skip(m, "v");
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

/* A variant holding an array of strings or object paths (type "as" or "ao"). 1 or -errno. */
static int read_variant_strv(sd_bus_message *m, const char *type, char ***ret)
{
        int r;

        *ret = strv_free(*ret);
        r = sd_bus_message_enter_container(m, 'v', type);
        if (r >= 0)
                r = sd_bus_message_read_strv(m, ret);
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        return r < 0 ? r : 1;
}

/* A variant holding a string or an object path (type "s" or "o") into *ret. 1 or -errno. */
static int read_variant_string(sd_bus_message *m, const char *type, char **ret)
{
        const char *s;
        int r;

        r = sd_bus_message_read(m, "v", type, &s);
        if (r >= 0)
                r = free_and_strdup(ret, s);
        return r < 0 ? r : 1;
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

int nm_read_active_connections(sd_bus_message *reply, char ***ret)
{
        int r = read_variant_strv(reply, "ao", ret);
        return r < 0 ? r : 0;
}

static int device_property(sd_bus_message *m, const char *key, void *userdata)
{
        NMDeviceProps *p = userdata;

        if (streq(key, "Interface"))
                return read_variant_string(m, "s", &p->ifname);
        if (streq(key, "Ifindex"))
                return read_variant_ifindex(m, &p->ifindex);
        if (streq(key, "ActiveConnection"))
                return read_variant_string(m, "o", &p->active);
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
        return read_properties(reply, device_property, ret);
}

static int active_property(sd_bus_message *m, const char *key, void *userdata)
{
        NMActiveProps *p = userdata;

        if (streq(key, "Id"))
                return read_variant_string(m, "s", &p->id);
        if (streq(key, "Connection"))
                return read_variant_string(m, "o", &p->connection);
        if (streq(key, "Devices"))
                return read_variant_strv(m, "ao", &p->devices);
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
        return read_properties(reply, active_property, ret);
}

bool nm_active_props_usable(const NMActiveProps *p)
{
        return p->id && p->connection && !streq(p->connection, "/") && !p->vpn &&
               (p->state == NM_ACTIVE_CONNECTION_STATE_ACTIVATING || p->state == NM_ACTIVE_CONNECTION_STATE_ACTIVATED);
}

unsigned nm_count_knobs(const KnobSetting knobs[_KNOB_MAX])
{
        unsigned n = 0;

        for (Knob k = 0; k < _KNOB_MAX; k++)
                n += knobs[k].line > 0;
        return n;
}

static bool reported_before(NMProfileReports *reports, uint64_t h)
{
        for (size_t i = 0; i < MIN(reports->n, (size_t) NM_PROFILE_REPORTS_MAX); i++)
                if (reports->hashes[i] == h)
                        return true;
        reports->hashes[reports->n++ % NM_PROFILE_REPORTS_MAX] = h;
        return false;
}

typedef struct UserDataPair {
        const char *key, *value; /* borrowed from the reply */
} UserDataPair;

typedef struct ProfileRead {
        const char *id;          /* connection.id, borrowed from the reply (NULL if absent) */
        const char *owner;       /* the first connection.permissions entry, borrowed; NULL if none */
        UserDataPair pairs[256]; /* the igmpd keys of user.data; NetworkManager allows 256 keys */
        size_t n_pairs;
        uint64_t hash;           /* of the igmpd keys and values, order-independent */
} ProfileRead;

/* The "data" dictionary (a{ss} in a variant) of the "user" section: its igmpd keys only. */
static int read_user_data(sd_bus_message *m, ProfileRead *p)
{
        const char *k, *v;
        int r;

        r = sd_bus_message_enter_container(m, 'v', "a{ss}");
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(m, 'a', "{ss}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(m, "{ss}", &k, &v)) > 0) {
                if (strncmp(k, NM_USER_DATA_PREFIX, strlen(NM_USER_DATA_PREFIX)) != 0)
                        continue;
                if (p->n_pairs >= ELEMENTSOF(p->pairs))
                        continue;
                p->pairs[p->n_pairs++] = (UserDataPair) { k, v };
                /* Order-independent: NetworkManager may send the dictionary in any order. */
                p->hash ^= fnv1a64_str(fnv1a64_str(FNV1A64_INIT, k), v);
        }
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(m);
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(m);
        return r < 0 ? r : 1;
}

/* The profile's "user" section: only its "data" dictionary matters. */
static int user_property(sd_bus_message *m, const char *key, void *userdata)
{
        return streq(key, "data") ? read_user_data(m, userdata) : 0;
}

/* connection.permissions (as): a profile with any entry belongs to those users. */
static int read_permissions(sd_bus_message *m, ProfileRead *p)
{
        const char *s;
        int r;

        r = sd_bus_message_enter_container(m, 'v', "as");
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(m, 'a', "s");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(m, "s", &s)) > 0)
                if (!p->owner)
                        p->owner = s;
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(m);
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(m);
        return r < 0 ? r : 1;
}

static int connection_property(sd_bus_message *m, const char *key, void *userdata)
{
        ProfileRead *p = userdata;

        if (streq(key, "permissions"))
                return read_permissions(m, p);
        if (streq(key, "id"))
                return sd_bus_message_read(m, "v", "s", &p->id) < 0 ? -EBADMSG : 1;
        return 0;
}

void nm_applied_done(NMApplied *a)
{
        free(a->id);
        free(a->owner);
        *a = (NMApplied) {};
}

int nm_profile_read_settings(sd_bus_message *reply, const char *fallback_id, NMApplied *ret,
                             NMProfileReports *reports, ConfigDiagFn diag, void *userdata)
{
        ProfileRead p = { .hash = FNV1A64_INIT };
        int r;

        nm_applied_done(ret);

        r = sd_bus_message_enter_container(reply, 'a', "{sa{sv}}");
        while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'e', "sa{sv}")) > 0) {
                const char *section;

                r = sd_bus_message_read(reply, "s", &section);
                if (r >= 0)
                        r = streq(section, "user")         ? read_properties(reply, user_property, &p)
                            : streq(section, "connection") ? read_properties(reply, connection_property, &p)
                                                           : sd_bus_message_skip(reply, "a{sv}");
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
        }
        if (r < 0)
                return r;

        ret->id = strdup(isempty(p.id) ? strempty(fallback_id) : p.id);
        if (!ret->id)
                return -ENOMEM;
        ret->n_keys = p.n_pairs;
        if (p.owner) {
                /* A user's profile: its igmpd keys are not looked at (nor reported). */
                ret->owner = strdup(p.owner);
                return ret->owner ? 0 : -ENOMEM;
        }

        /* A bad value is reported once per profile content, not on every read. */
        uint64_t h = fnv1a64_str(FNV1A64_INIT, ret->id) ^ p.hash;
        bool report = p.n_pairs > 0 && !reported_before(reports, h);
        for (size_t i = 0; i < p.n_pairs; i++)
                (void) nm_user_data_apply(ret->id, p.pairs[i].key, p.pairs[i].value, ret->knobs,
                                          report ? diag : NULL, userdata);
        return 0;
}
