/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The JSON rendering of one link (see json-link.h for the keys).
 */

#include "json-link.h"
#include "macro.h"

static void json_field_string_or_null(JsonWriter *w, const char *key, const char *s)
{
        json_field_string(w, key, isempty(s) ? NULL : s);
}

static void json_field_value_or_null(JsonWriter *w, const char *key, int64_t v)
{
        json_key(w, key);
        v < 0 ? json_null(w) : json_int(w, v);
}

bool knob_status_drifted(Knob k, const KnobStatus *s)
{
        return s->policy >= 0 && s->kernel >= 0 && !knob_value_matches(k, (int32_t) s->policy, (int32_t) s->kernel);
}

void json_write_link(JsonWriter *w, const LinkStatus *s)
{
        json_begin_object(w);
        json_field_int(w, "index", s->ifindex);
        if (s->netns)
                json_field_string(w, "netns", s->netns);
        json_field_string(w, "name", strempty(s->name));
        json_field_strv(w, "alternative_names", s->alternative_names);
        json_field_string_or_null(w, "kind", s->kind);
        json_field_string_or_null(w, "type", s->type);
        json_field_string_or_null(w, "mac_address", s->mac_address);
        json_field_string(w, "state", strempty(s->state));

        json_key(w, "knobs");
        json_begin_object(w);
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                json_key(w, knob_to_string(k));
                json_begin_object(w);
                json_field_value_or_null(w, "kernel", s->knobs[k].kernel);
                json_field_value_or_null(w, "policy", s->knobs[k].policy);
                json_field_string_or_null(w, "source", s->knobs[k].source);
                json_field_bool(w, "drifted", knob_status_drifted(k, &s->knobs[k]));
                json_end_object(w);
        }
        json_end_object(w);

        json_field_strv(w, "matched_files", s->matched_files);
        json_field_string_or_null(w, "last_error", s->last_error);
        json_field_strv(w, "ignored_sources", isempty(s->ignored_source) ? NULL : (const char *const[]) { s->ignored_source, NULL });
        json_end_object(w);
}
