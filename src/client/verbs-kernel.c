/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What this kernel offers (kernel) and the deprecated sysctl(2) audit (audit [--follow]).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array-util.h"
#include "audit-format.h"
#include "igmpctl.h"
#include "macro.h"
#include "output.h"
#include "terminal.h"

/* One audit source's state and note, borrowed from the SourceStates reply. */
typedef struct SourceState {
        const char *source, *state, *note;
} SourceState;

/* Every audit source's state and note (SourceStates), appended to *states (the caller frees it,
 * even on failure). */
static int get_source_states(sd_bus *bus, sd_bus_message **reply, SourceState **states, size_t *n)
{
        size_t allocated = 0;
        SourceState s;
        int r;

        r = client_get_property(bus, IGMPD_AUDIT_INTERFACE, "SourceStates", "a(sss)", 0,
                                "read the audit source states", reply);
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(*reply, 'a', "(sss)");
        while (r >= 0 && (r = sd_bus_message_read(*reply, "(sss)", &s.source, &s.state, &s.note)) > 0 &&
               (r = ARRAY_GROW(*states, allocated, *n, 8)) >= 0)
                (*states)[(*n)++] = s;
        return r < 0 ? failed_errno(r, "parse the audit source states") : 0;
}

/* The Audit Coverage property: "some", "starting", "uncertain" or "none", and what to change;
 * borrowed from *reply. Both NULL if it cannot be read. */
static void get_coverage(sd_bus *bus, sd_bus_message **reply, const char **ret_coverage, const char **ret_advice)
{
        if (client_read_property(bus, IGMPD_AUDIT_INTERFACE, "Coverage", CLIENT_CALL_QUIET, NULL, reply, "(ss)",
                                 ret_coverage, ret_advice) <= 0)
                *ret_coverage = *ret_advice = NULL;
}

/* Says plainly when an empty audit means nothing, and what to change. Nothing when a source
 * sees calls (or the daemon does not say). */
static void print_coverage(FILE *f, const char *coverage, const char *advice)
{
        if (streq_ptr(coverage, "none"))
                fprintf(f, "%sNo audit source can see a deprecated sysctl(2) call here: igmpctl audit stays "
                        "empty whatever programs call it.%s\n", ansi(COLOR_YELLOW), ansi(COLOR_NORMAL));
        else if (streq_ptr(coverage, "uncertain"))
                fprintf(f, "%sOnly the audit source could see a deprecated sysctl(2) call, and only if an audit "
                        "rule for it is loaded: igmpd does not load one (AuditRule=no) and cannot tell whether "
                        "auditd did.%s\n", ansi(COLOR_YELLOW), ansi(COLOR_NORMAL));
        else if (streq_ptr(coverage, "starting"))
                fprintf(f, "The BPF audit sources are still starting.\n");
        else
                return;
        if (!isempty(advice))
                fprintf(f, "%s\n", advice);
}

void drift_info_done(DriftInfo *d)
{
        sd_bus_message_unref(d->replies[0]);
        sd_bus_message_unref(d->replies[1]);
        *d = (DriftInfo) {};
}

int get_drift_info(sd_bus *bus, DriftInfo *ret)
{
        int r;

        *ret = (DriftInfo) {};
        r = client_read_property(bus, IGMPD_MANAGER_INTERFACE, "DriftWatch", 0, "read the drift watch state",
                                 &ret->replies[0], "(ss)", &ret->state, &ret->note);
        if (r >= 0)
                r = client_read_property(bus, IGMPD_MANAGER_INTERFACE, "DriftAction", 0, "read the drift watch state",
                                         &ret->replies[1], "s", &ret->action);
        if (r < 0)
                drift_info_done(ret);
        return r;
}

int verb_kernel(int argc, char **argv, sd_bus *bus)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL, *sources_reply = NULL, *states_reply = NULL,
                                                       *coverage_reply = NULL;
        _cleanup_(drift_info_done) DriftInfo drift = {};
        int present[_KNOB_MAX] = { [0 ... _KNOB_MAX - 1] = -1 }; /* -1: igmpd does not say */
        const char *name, *coverage, *advice;
        _cleanup_free_ SourceState *states = NULL;
        _cleanup_strv_free_ char **sources = NULL;
        _cleanup_(table_freep) Table *t = NULL;
        size_t n_states = 0;
        int b, r;

        r = client_get_property(bus, IGMPD_MANAGER_INTERFACE, "KernelFeatures", "a{sb}", 0,
                                "read the kernel features", &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(reply, 'a', "{sb}");
        while (r >= 0 && (r = sd_bus_message_read(reply, "{sb}", &name, &b)) > 0) {
                Knob k = knob_from_string(name);
                if (k >= 0)
                        present[k] = b;
        }
        if (r < 0)
                return failed_errno(r, "parse the kernel features");
        r = client_get_property(bus, IGMPD_AUDIT_INTERFACE, "Sources", "as", 0, "read the audit sources",
                                &sources_reply);
        if (r >= 0 && (r = sd_bus_message_read_strv(sources_reply, &sources)) < 0)
                return failed_errno(r, "parse the audit sources");
        if (r >= 0)
                r = get_source_states(bus, &states_reply, &states, &n_states);
        if (r >= 0)
                r = get_drift_info(bus, &drift);
        if (r < 0)
                return r;
        get_coverage(bus, &coverage_reply, &coverage, &advice);
        pager_open(arg_no_pager);

        if (arg_json != JSON_OFF) {
                JsonWriter w;

                json_start(&w);
                json_begin_object(&w);
                json_key(&w, "knobs");
                json_begin_object(&w);
                for (Knob k = 0; k < _KNOB_MAX; k++) {
                        if (present[k] < 0)
                                continue;
                        json_key(&w, knob_to_string(k));
                        json_begin_object(&w);
                        json_field_bool(&w, "present", present[k]);
                        json_field_string(&w, "patch", knob_info(k)->patch);
                        json_end_object(&w);
                }
                json_end_object(&w);
                json_field_strv(&w, "audit_sources", (const char *const *) sources);
                json_key(&w, "audit_source_states");
                json_begin_array(&w);
                for (size_t i = 0; i < n_states; i++) {
                        json_begin_object(&w);
                        json_fields(&w, "source", states[i].source, "state", states[i].state, "note", states[i].note,
                                    NULL);
                        json_end_object(&w);
                }
                json_end_array(&w);
                if (coverage)
                        json_fields(&w, "audit_coverage", coverage, "audit_advice", isempty(advice) ? NULL : advice,
                                    NULL);
                json_key(&w, "drift_watch");
                json_begin_object(&w);
                json_fields(&w, "state", drift.state, "note", drift.note, "action", drift.action, NULL);
                json_end_object(&w);
                json_end_object(&w);
                return json_done(&w);
        }

        t = table_new((const char *const[]) { "KNOB", "PRESENT", "NOTE", NULL });
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                if (present[k] < 0)
                        continue;
                table_add_cell(t, knob_to_string(k));
                table_add_cell_color(t, present[k] ? "yes" : "no", present[k] ? COLOR_NORMAL : COLOR_RED);
                table_add_cellf(t, "%s%s", present[k] ? "" : "needs ", present[k] ? "" : knob_info(k)->patch);
        }
        r = table_print(t, stdout, arg_legend);
        if (r >= 0 && n_states > 0) {
                /* Every source, and why it is not active. */
                _cleanup_(table_freep) Table *st = NULL;

                st = table_new((const char *const[]) { "AUDIT SOURCE", "STATE", "NOTE", NULL });
                for (size_t i = 0; i < n_states; i++) {
                        table_add_cell(st, states[i].source);
                        table_add_cell(st, states[i].state);
                        table_add_cell(st, states[i].note);
                }
                putchar('\n');
                r = table_print(st, stdout, arg_legend);
        }
        if (r < 0)
                return r;
        _cleanup_free_ char *list = client_strv_join(sources, ", ");
        printf("\nAudit sources: %s\n", !sources || !sources[0] ? "none active" : strna(list));
        print_coverage(stdout, coverage, advice);
        printf("Drift watch: %s, DriftAction=%s\n", drift.state, drift.action);
        output_wrapped(stdout, 2, drift.note);
        return 0;
}

static void audit_event_line(const AuditEventView *e)
{
        char line[1024];

        if (arg_json != JSON_OFF) {
                JsonWriter w;

                json_writer_init(&w, stdout, false);
                audit_view_json(&w, e);
                (void) json_done(&w);
                return;
        }
        audit_view_format_line(e, line, sizeof line);
        puts(line);
        fflush(stdout);
}

static int on_deprecated_sysctl(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        AuditEventView e;

        if (audit_view_read(m, &e) < 0) {
                fprintf(stderr, "Ignoring a malformed DeprecatedSysctl signal.\n");
                return 0;
        }
        audit_event_line(&e);
        return 0;
}

int verb_audit(int argc, char **argv, sd_bus *bus)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL, *coverage_reply = NULL;
        _cleanup_(table_freep) Table *t = NULL;
        const char *coverage, *advice;
        JsonWriter w;
        size_t n = 0;
        int r;

        if (argc > 1)
                return usage_error("audit takes no arguments but scan (and --follow). See igmpctl --help.");

        if (arg_follow) {
                /* Subscribe first, so nothing falls between the history and the live events. */
                r = sd_bus_match_signal(bus, NULL, IGMPD_BUS_NAME, IGMPD_MANAGER_PATH, IGMPD_AUDIT_INTERFACE,
                                        "DeprecatedSysctl", on_deprecated_sysctl, NULL);
                if (r < 0)
                        return failed_errno(r, "subscribe to audit events");
        }

        r = client_call(bus, NULL, IGMPD_AUDIT_INTERFACE, "ListEvents", 0, "list audit events", NULL, &reply, NULL);
        if (r < 0)
                return r;

        if (!arg_follow)
                pager_open(arg_no_pager);
        if (arg_json != JSON_OFF && !arg_follow) {
                json_start(&w);
                json_begin_array(&w);
        } else if (arg_json == JSON_OFF && !arg_follow) {
                t = table_new((const char *const[]) { "TIME", "SOURCE", "PID", "COMM", "SYSCTL", "CALLS", NULL });
                table_set_align_right(t, 2);
                table_set_align_right(t, 5);
                table_set_ellipsize(t, 4, ELLIPSIZE_PATH);
        }

        r = sd_bus_message_enter_container(reply, 'a', "(tsussaisu)");
        while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'r', "tsussaisu")) > 0) {
                AuditEventView e;
                char when[32], pid[16], what[512];

                r = audit_view_read(reply, &e);
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
                if (r < 0)
                        break;
                n++;
                if (arg_follow)
                        audit_event_line(&e);
                else if (arg_json != JSON_OFF)
                        audit_view_json(&w, &e);
                else {
                        audit_view_format_time(e.realtime_usec, when);
                        audit_view_format_sysctl(&e, what, sizeof what);
                        table_add_cell(t, when);
                        table_add_cell(t, e.source);
                        table_add_cell(t, audit_view_format_pid(&e, pid));
                        table_add_cell(t, e.comm);
                        table_add_cell(t, what);
                        table_add_cellf(t, "%" PRIu32, e.repeats);
                }
        }
        if (r < 0)
                return failed_errno(r, "parse the audit events");

        /* An empty list can mean that nothing can see a call: say so (stderr when stdout is data). */
        get_coverage(bus, &coverage_reply, &coverage, &advice);
        if (arg_follow) {
                if (arg_legend && arg_json == JSON_OFF)
                        fprintf(stderr, "Following deprecated sysctl(2) calls; press Ctrl-C to stop.\n");
                print_coverage(stderr, coverage, advice);
                fflush(stdout);
                return client_run_until_interrupted(bus);
        }
        if (arg_json != JSON_OFF) {
                json_end_array(&w);
                r = json_done(&w);
                print_coverage(stderr, coverage, advice);
                return r;
        }
        if (n == 0 && arg_legend)
                printf("No events.\n");
        else if (n > 0) {
                r = table_print(t, stdout, arg_legend);
                if (r < 0)
                        return r;
                if (arg_legend)
                        printf("\n%zu event%s listed.\n", n, n == 1 ? "" : "s");
        }
        if (coverage && !streq(coverage, "some"))
                putchar('\n');
        print_coverage(stdout, coverage, advice);
        return 0;
}
