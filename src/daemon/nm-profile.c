/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading NetworkManager's replies: profile user data → knob settings (see nm-profile.h).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fnv.h"
#include "knob.h"
#include "nm-profile.h"
#include "strv.h"

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

typedef struct ProfileKeys {
        UserDataPair pairs[256]; /* the igmpd keys of user.data; NetworkManager allows 256 keys */
        size_t n_pairs;
        uint64_t hash;           /* of the igmpd keys and values, order-independent */
} ProfileKeys;

static int keep_igmpd_key(const char *k, const char *v, void *userdata)
{
        ProfileKeys *p = userdata;

        if (!startswith(k, NM_USER_DATA_PREFIX) || p->n_pairs >= ELEMENTSOF(p->pairs))
                return 0;
        p->pairs[p->n_pairs++] = (UserDataPair) { k, v };
        /* Order-independent: NetworkManager may send the dictionary in any order. */
        p->hash ^= fnv1a64_str(fnv1a64_str(FNV1A64_INIT, k), v);
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
        ProfileKeys p = { .hash = FNV1A64_INIT };
        NMSettings s = { .user_data = keep_igmpd_key, .userdata = &p };
        _cleanup_strv_free_ char **permissions = NULL;
        int r;

        nm_applied_done(ret);
        r = nm_settings_read(reply, &s);
        permissions = s.permissions;
        if (r < 0)
                return r;
        ret->id = strdup(isempty(s.id) ? strempty(fallback_id) : s.id);
        if (!ret->id)
                return -ENOMEM;
        ret->n_keys = p.n_pairs;
        if (permissions && permissions[0]) {
                /* A user's profile: its igmpd keys are not looked at (nor reported). */
                ret->owner = strdup(permissions[0]);
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

int nm_user_data_apply(const char *profile, const char *key, const char *value, KnobSetting knobs[_KNOB_MAX],
                       ConfigDiagFn diag, void *userdata)
{
        char where[512];
        int32_t v;
        Knob k;
        int r;

        r = nm_user_data_parse(key, value, &k, &v);
        if (r < 0)
                snprintf(where, sizeof where, "NetworkManager profile '%s'", profile ?: "");
        if (r == -ENOENT)
                config_diagf(diag, userdata, where, 0, "user.data %s=%s: unknown knob '%s', ignoring.", key,
                             value ?: "", key + STRLEN(NM_USER_DATA_PREFIX));
        else if (r < 0)
                config_diagf(diag, userdata, where, 0, "user.data %s=%s: invalid value, expected %s, ignoring.", key,
                             value ?: "", knob_range_string(k));
        if (r <= 0)
                return r < 0 ? -EINVAL : 0;
        knobs[k] = (KnobSetting) { .value = v, .line = 1 };
        return 1;
}

RefStr *nm_source_new(const char *profile_id)
{
        return refstr_newf(NM_SOURCE_PREFIX "%s", profile_id ?: "");
}
