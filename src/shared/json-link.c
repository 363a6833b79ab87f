/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The JSON rendering of one link (see json-link.h for the keys).
 */

#include "json-link.h"
#include "macro.h"

static void json_string_or_null(JsonWriter *w, const char *s)
{
        if (isempty(s))
                json_null(w);
        else
                json_string(w, s);
}

static void json_value_or_null(JsonWriter *w, int64_t v)
{
        if (v < 0)
                json_null(w);
        else
                json_int(w, v);
}

bool knob_status_drifted(Knob k, const KnobStatus *s)
{
        return s->policy >= 0 && s->kernel >= 0 && !knob_value_matches(k, (int32_t) s->policy, (int32_t) s->kernel);
}

void json_write_link(JsonWriter *w, const LinkStatus *s)
{
        json_begin_object(w);
        json_key(w, "index");
        json_int(w, s->ifindex);
        if (s->netns) {
                json_key(w, "netns");
                json_string(w, s->netns);
        }
        json_key(w, "name");
        json_string(w, strempty(s->name));
        json_key(w, "alternative_names");
        json_begin_array(w);
        for (const char *const *a = s->alternative_names; a && *a; a++)
                json_string(w, *a);
        json_end_array(w);
        json_key(w, "kind");
        json_string_or_null(w, s->kind);
        json_key(w, "type");
        json_string_or_null(w, s->type);
        json_key(w, "mac_address");
        json_string_or_null(w, s->mac_address);
        json_key(w, "state");
        json_string(w, strempty(s->state));

        json_key(w, "knobs");
        json_begin_object(w);
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                json_key(w, knob_to_string(k));
                json_begin_object(w);
                json_key(w, "kernel");
                json_value_or_null(w, s->knobs[k].kernel);
                json_key(w, "policy");
                json_value_or_null(w, s->knobs[k].policy);
                json_key(w, "source");
                json_string_or_null(w, s->knobs[k].source);
                json_key(w, "drifted");
                json_bool(w, knob_status_drifted(k, &s->knobs[k]));
                json_end_object(w);
        }
        json_end_object(w);

        json_key(w, "matched_files");
        json_begin_array(w);
        for (const char *const *f = s->matched_files; f && *f; f++)
                json_string(w, *f);
        json_end_array(w);

        json_key(w, "last_error");
        json_string_or_null(w, s->last_error);

        json_key(w, "ignored_sources");
        json_begin_array(w);
        if (s->ignored_source && *s->ignored_source)
                json_string(w, s->ignored_source);
        json_end_array(w);
        json_end_object(w);
}
