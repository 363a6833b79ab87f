/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The JSON of org.igmpd1.Manager.Describe() (igmpd(8)): the manager's state and every link's,
 * in one document. The method handler is in manager-bus-vtable.c.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "audit-bus.h"
#include "drift.h"
#include "json-link.h"
#include "json-writer.h"
#include "link-bus.h"
#include "manager-bus-internal.h"
#include "manager.h"

/* The Describe() JSON:
 *   { "version": "0.1",
 *     "kernel_features": { "<knob>": true|false, … },
 *     "config_files": [ "<path>", … ],
 *     "config_problems": [ { "file": "<path>"|null, "line": N, "message": "…" }, … ],  (the first 64)
 *     "n_config_problems": N,
 *     "audit_sources": [ … ],
 *     "drift_watch": { "state": "active"|…, "note": "…", "action": "revert"|"warn" },
 *     "namespace": { "igmp_qrv"|"mld_qrv": { "kernel": N|null, "wanted": N|null,
 *                                            "source": "<path>"|null }, … },   (null kernel: absent here)
 *     "links": [ <link, see json-link.h>, … ] }          (igmpd's own namespace's links by ifindex,
 *                                                         then each followed namespace's: "netns") */
int manager_describe(Manager *m, char **ret)
{
        _cleanup_free_ Link **links = NULL;
        char *buf = NULL;
        size_t size = 0, n = 0;
        JsonWriter w;
        FILE *f;
        int r;

        r = manager_sorted_links(m, &links, &n);
        if (r < 0)
                return r;
        f = open_memstream(&buf, &size);
        if (!f)
                return -ENOMEM;

        json_writer_init(&w, f, false);
        w.bytes = true; /* names, paths and messages: in utf8_escape()'s form, as on the bus */
        json_begin_object(&w);
        json_field_string(&w, "version", PACKAGE_VERSION);
        json_key(&w, "kernel_features");
        json_begin_object(&w);
        for (Knob k = 0; k < _KNOB_MAX; k++)
                json_field_bool(&w, knob_to_string(k), m->link_ctx.knob_supported[k]);
        json_end_object(&w);
        json_key(&w, "config_files");
        json_begin_array(&w);
        for (size_t i = 0; m->policy && i < m->policy->n_files; i++)
                json_string(&w, m->policy->files[i]->path);
        json_end_array(&w);
        json_key(&w, "config_problems");
        json_begin_array(&w);
        for (size_t i = 0; i < m->problems.n; i++) {
                const ConfigProblem *p = &m->problems.items[i];

                json_begin_object(&w);
                json_field_string(&w, "file", p->file);
                json_field_uint(&w, "line", p->line);
                json_field_string(&w, "message", p->message);
                json_end_object(&w);
        }
        json_end_array(&w);
        json_field_uint(&w, "n_config_problems", m->n_config_errors);
        const char *audit_sources[_AUDIT_EVENT_SOURCE_MAX + 1];
        audit_bus_active_sources(m->audit, audit_sources);
        json_field_strv(&w, "audit_sources", audit_sources);
        {
                char note[512];
                DriftWatchState state = drift_watch_state(m->drift, note, sizeof note);

                json_key(&w, "drift_watch");
                json_begin_object(&w);
                json_field_string(&w, "state", run_state_to_string(state));
                json_field_string(&w, "note", note);
                json_field_string(&w, "action", drift_action_to_string(m->config.drift_action));
                json_end_object(&w);
        }
        json_key(&w, "namespace");
        json_begin_object(&w);
        for (NsKnob k = 0; k < _NS_KNOB_MAX; k++) {
                const NsKnobState *s = &m->ns_knobs.knobs[k];

                json_key(&w, ns_knob_info(k)->name);
                json_begin_object(&w);
                json_key(&w, "kernel");
                if (s->available && s->kernel_known)
                        json_int(&w, s->kernel);
                else
                        json_null(&w);
                json_key(&w, "wanted");
                if (s->want.set)
                        json_int(&w, s->want.value);
                else
                        json_null(&w);
                json_field_string(&w, "source", knob_value_source(&s->want));
                json_end_object(&w);
        }
        json_end_object(&w);
        json_field_uint(&w, "kernel_values_age_usec", manager_kernel_values_age(m));
        json_key(&w, "links");
        json_begin_array(&w);
        for (size_t i = 0; i < n; i++) {
                const char **matched = calloc(links[i]->n_matched + 1, sizeof *matched);
                LinkStatus s;

                if (!matched) {
                        fclose(f);
                        free(buf);
                        return -ENOMEM;
                }
                link_bus_status(links[i], &s, matched);
                json_write_link(&w, &s);
                free(matched);
        }
        json_end_array(&w);
        json_end_object(&w);
        r = json_writer_finish(&w);
        if (fclose(f) != 0 && r >= 0)
                r = -ENOMEM;
        if (r < 0) {
                free(buf);
                return r;
        }
        *ret = buf;
        return 0;
}
