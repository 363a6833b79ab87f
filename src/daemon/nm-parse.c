/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Profile user data → knob settings (see nm-parse.h). Pure: no bus, no logging.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "knob.h"
#include "nm-parse.h"

static void nm_diag(ConfigDiagFn diag, void *userdata, const char *profile, const char *fmt, ...) _printf_(4, 5);

static void nm_diag(ConfigDiagFn diag, void *userdata, const char *profile, const char *fmt, ...)
{
        char where[512], msg[1024];
        va_list ap;

        if (!diag)
                return;
        snprintf(where, sizeof where, "NetworkManager profile '%s'", profile ?: "");
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        diag(userdata, where, 0, msg);
}

int nm_user_data_apply(const char *profile, const char *key, const char *value, KnobSetting knobs[_KNOB_MAX],
                       ConfigDiagFn diag, void *userdata)
{
        int32_t v;
        Knob k;
        int r;

        r = nm_user_data_parse(key, value, &k, &v);
        if (r == -ENOENT)
                nm_diag(diag, userdata, profile, "user.data %s=%s: unknown knob '%s', ignoring.", key, value ?: "",
                        key + STRLEN(NM_USER_DATA_PREFIX));
        else if (r < 0)
                nm_diag(diag, userdata, profile, "user.data %s=%s: invalid value, expected %s, ignoring.", key,
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

void nm_knobs_overlay(const KnobSetting knobs[_KNOB_MAX], RefStr *source, KnobValue out[_KNOB_MAX])
{
        for (Knob k = 0; k < _KNOB_MAX; k++)
                if (knobs[k].line > 0)
                        knob_value_set(&out[k], knobs[k].value, source);
}
