/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What this kernel offers (kernel) and the deprecated sysctl(2) audit (audit [--follow]).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit-format.h"
#include "igmpctl.h"
#include "macro.h"
#include "output.h"
#include "terminal.h"

static int get_audit_sources(sd_bus *bus, char ***ret)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = client_get_property(bus, IGMPD_AUDIT_INTERFACE, "Sources", "as", 0, "read the audit sources", &reply);
        return r < 0 ? r : sd_bus_message_read_strv(reply, ret);
}

typedef struct SourceState {
        char *source, *state, *note;
} SourceState;

static void source_states_free(SourceState *s, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(s[i].source);
                free(s[i].state);
                free(s[i].note);
        }
        free(s);
}

/* Every audit source's state and note (SourceStates); *ret_n = 0 from a daemon without it. */
static int get_source_states(sd_bus *bus, SourceState **ret, size_t *ret_n)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        SourceState *states = NULL;
        const char *a, *b, *c;
        size_t n = 0;
        int r;

        *ret = NULL;
        *ret_n = 0;
        /* A daemon from before SourceStates: the Sources line is all there is. */
        r = client_get_property(bus, IGMPD_AUDIT_INTERFACE, "SourceStates", "a(sss)", CLIENT_CALL_OPTIONAL,
                                "read the audit source states", &reply);
        if (r <= 0)
                return r;
        r = sd_bus_message_enter_container(reply, 'a', "(sss)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(sss)", &a, &b, &c)) > 0) {
                SourceState *ns = realloc(states, (n + 1) * sizeof *ns);
                if (!ns) {
                        r = -ENOMEM;
                        break;
                }
                states = ns;
                states[n] = (SourceState) { strdup(a), strdup(b), strdup(c) };
                n++;
                if (!states[n - 1].source || !states[n - 1].state || !states[n - 1].note)
                        r = -ENOMEM;
        }
        if (r < 0) {
                source_states_free(states, n);
                fprintf(stderr, "Failed to parse the audit source states: %s\n", strerror(-r));
                return r;
        }
        *ret = states;
        *ret_n = n;
        return 0;
}

/* The Audit Coverage property: "some", "starting", "uncertain" or "none", and what to change.
 * Both NULL with an igmpd from before it. */
static int get_coverage(sd_bus *bus, char **ret_coverage, char **ret_advice)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *c, *a;
        int r;

        *ret_coverage = *ret_advice = NULL;
        r = client_get_property(bus, IGMPD_AUDIT_INTERFACE, "Coverage", "(ss)", CLIENT_CALL_QUIET, NULL, &reply);
        if (r <= 0)
                return 0; /* nothing to say */
        r = sd_bus_message_read(reply, "(ss)", &c, &a);
        if (r > 0) {
                *ret_coverage = strdup(c);
                *ret_advice = strdup(a);
                if (!*ret_coverage || !*ret_advice) {
                        free(*ret_coverage);
                        free(*ret_advice);
                        *ret_coverage = *ret_advice = NULL;
                        r = -ENOMEM;
                }
        }
        return r < 0 ? r : 0;
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

/* Prints text word-wrapped to the output width, each line indented by indent spaces (words longer
 * than a line stay whole). */
static void print_wrapped(FILE *f, size_t indent, const char *text)
{
        size_t columns = output_columns();
        size_t width = columns == SIZE_MAX ? SIZE_MAX : MAX(columns, indent + 20) - indent;
        const char *p = text;

        for (;;) {
                const char *end, *space = NULL;
                size_t w = 0;

                while (*p == ' ')
                        p++;
                if (!*p)
                        break;
                for (end = p; *end; end++) {
                        if ((*end & 0xc0) != 0x80) { /* the first byte of a code point */
                                if (w == width)
                                        break;
                                w++;
                        }
                        if (*end == ' ')
                                space = end;
                }
                if (*end && *end != ' ') {
                        if (space) /* break at the last space that fits */
                                end = space;
                        else       /* one word longer than the line: keep it whole */
                                while (*end && *end != ' ')
                                        end++;
                }
                fprintf(f, "%*s%.*s\n", (int) indent, "", (int) (end - p), p);
                p = end;
        }
}

void drift_info_done(DriftInfo *d)
{
        free(d->state);
        free(d->note);
        free(d->action);
}

int get_drift_info(sd_bus *bus, DriftInfo *ret)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL, *action = NULL;
        const char *state, *note, *a;
        int r;

        *ret = (DriftInfo) {};
        /* Nothing from a daemon from before the drift watch. */
        r = client_get_property(bus, IGMPD_MANAGER_INTERFACE, "DriftWatch", "(ss)", CLIENT_CALL_OPTIONAL,
                                "read the drift watch state", &reply);
        if (r <= 0)
                return r;
        r = client_get_property(bus, IGMPD_MANAGER_INTERFACE, "DriftAction", "s", 0, "read the drift watch state",
                                &action);
        if (r < 0)
                return r;
        r = sd_bus_message_read(reply, "(ss)", &state, &note);
        if (r >= 0)
                r = sd_bus_message_read(action, "s", &a);
        if (r >= 0) {
                ret->state = strdup(state);
                ret->note = strdup(note);
                ret->action = strdup(a);
                if (!ret->state || !ret->note || !ret->action)
                        r = -ENOMEM;
        }
        if (r < 0) {
                fprintf(stderr, "Failed to read the drift watch state: %s\n", strerror(-r));
                drift_info_done(ret);
                *ret = (DriftInfo) {};
        }
        return r;
}

int verb_kernel(int argc, char **argv, sd_bus *bus)
{
        _cleanup_(drift_info_done) DriftInfo drift = {};
        sd_bus_message *reply = NULL;
        bool present[_KNOB_MAX] = {}, known[_KNOB_MAX] = {};
        char **sources = NULL, *coverage = NULL, *advice = NULL;
        SourceState *states = NULL;
        size_t n_states = 0;
        const char *name;
        Table *t = NULL;
        int b, r;

        if (argc > 1)
                return usage_error("kernel takes no arguments. See igmpctl --help.");

        r = client_get_property(bus, IGMPD_MANAGER_INTERFACE, "KernelFeatures", "a{sb}", 0,
                                "read the kernel features", &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(reply, 'a', "{sb}");
        while (r >= 0 && (r = sd_bus_message_read(reply, "{sb}", &name, &b)) > 0) {
                Knob k = knob_from_string(name);
                if (k >= 0) {
                        present[k] = b;
                        known[k] = true;
                }
        }
        sd_bus_message_unref(reply);
        if (r < 0) {
                fprintf(stderr, "Failed to parse the kernel features: %s\n", strerror(-r));
                return r;
        }
        r = get_audit_sources(bus, &sources);
        if (r < 0)
                return r;
        r = get_source_states(bus, &states, &n_states);
        if (r < 0)
                goto finish;
        r = get_coverage(bus, &coverage, &advice);
        if (r < 0)
                goto finish;
        r = get_drift_info(bus, &drift);
        if (r < 0)
                goto finish;
        pager_open(arg_no_pager);

        if (arg_json != JSON_OFF) {
                JsonWriter w;

                json_start(&w);
                json_begin_object(&w);
                json_key(&w, "knobs");
                json_begin_object(&w);
                for (Knob k = 0; k < _KNOB_MAX; k++) {
                        if (!known[k])
                                continue;
                        json_key(&w, knob_to_string(k));
                        json_begin_object(&w);
                        json_key(&w, "present");
                        json_bool(&w, present[k]);
                        json_key(&w, "patch");
                        json_string(&w, knob_info(k)->patch);
                        json_end_object(&w);
                }
                json_end_object(&w);
                json_key(&w, "audit_sources");
                json_begin_array(&w);
                for (char **s = sources; s && *s; s++)
                        json_string(&w, *s);
                json_end_array(&w);
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
                if (drift.state) {
                        json_key(&w, "drift_watch");
                        json_begin_object(&w);
                        json_fields(&w, "state", drift.state, "note", drift.note, "action", drift.action, NULL);
                        json_end_object(&w);
                }
                json_end_object(&w);
                r = json_done(&w);
                goto finish;
        }

        t = table_new((const char *const[]) { "KNOB", "PRESENT", "NOTE", NULL });
        if (!t) {
                r = -ENOMEM;
                goto finish;
        }
        for (Knob k = 0; k < _KNOB_MAX && r >= 0; k++) {
                char note[128];

                if (!known[k])
                        continue;
                if (present[k])
                        note[0] = '\0';
                else
                        snprintf(note, sizeof note, "needs %s", knob_info(k)->patch);
                r = table_add_cell(t, knob_to_string(k));
                if (r >= 0)
                        r = table_add_cell_color(t, present[k] ? "yes" : "no", present[k] ? COLOR_NORMAL : COLOR_RED);
                if (r >= 0)
                        r = table_add_cell(t, note);
        }
        if (r >= 0)
                r = table_print(t, stdout, arg_legend);
        if (r >= 0 && n_states > 0) {
                /* Every source, and why it is not active. */
                table_free(t);
                t = table_new((const char *const[]) { "AUDIT SOURCE", "STATE", "NOTE", NULL });
                if (!t)
                        r = -ENOMEM;
                for (size_t i = 0; r >= 0 && i < n_states; i++) {
                        r = table_add_cell(t, states[i].source);
                        if (r >= 0)
                                r = table_add_cell(t, states[i].state);
                        if (r >= 0)
                                r = table_add_cell(t, states[i].note);
                }
                if (r >= 0) {
                        putchar('\n');
                        r = table_print(t, stdout, arg_legend);
                }
        }
        if (r >= 0) {
                printf("\nAudit sources: ");
                if (!sources || !sources[0])
                        printf("none active\n");
                else
                        for (char **s = sources; *s; s++)
                                printf("%s%s", *s, s[1] ? ", " : "\n");
                print_coverage(stdout, coverage, advice);
        }
        if (r >= 0 && drift.state) {
                printf("Drift watch: %s, DriftAction=%s\n", drift.state, drift.action);
                print_wrapped(stdout, 2, drift.note);
        }
finish:
        table_free(t);
        free(coverage);
        free(advice);
        strv_freep(&sources);
        source_states_free(states, n_states);
        return r;
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
        sd_bus_message *reply = NULL;
        char *coverage = NULL, *advice = NULL;
        Table *t = NULL;
        JsonWriter w;
        size_t n = 0;
        int r;

        if (argc > 1)
                return usage_error("audit takes no arguments but scan (and --follow). See igmpctl --help.");

        if (arg_follow) {
                /* Subscribe first, so nothing falls between the history and the live events. */
                r = sd_bus_match_signal(bus, NULL, IGMPD_BUS_NAME, IGMPD_MANAGER_PATH, IGMPD_AUDIT_INTERFACE,
                                        "DeprecatedSysctl", on_deprecated_sysctl, NULL);
                if (r < 0) {
                        fprintf(stderr, "Failed to subscribe to audit events: %s\n", strerror(-r));
                        return r;
                }
        }

        r = client_call(bus, NULL, IGMPD_AUDIT_INTERFACE, "ListEvents", 0, "list audit events", NULL, &reply, NULL);
        if (r < 0)
                return r;

        if (arg_json != JSON_OFF && !arg_follow) {
                pager_open(arg_no_pager);
                json_start(&w);
                json_begin_array(&w);
        } else if (arg_json == JSON_OFF && !arg_follow) {
                pager_open(arg_no_pager);
                t = table_new(
                        (const char *const[]){"TIME", "SOURCE", "PID", "COMM", "SYSCTL", "CALLS", NULL});
                if (!t) {
                        r = -ENOMEM;
                        goto finish;
                }
                table_set_align_right(t, 2);
                table_set_align_right(t, 5);
                table_set_ellipsize(t, 4, ELLIPSIZE_PATH);
        }

        r = sd_bus_message_enter_container(reply, 'a', "(tsussaisu)");
        while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'r', "tsussaisu")) > 0) {
                AuditEventView e;
                char when[32], pid[16], what[512];

                r = audit_view_read(reply, &e);
                if (r < 0)
                        break;
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
                        r = table_add_cell(t, when);
                        if (r >= 0)
                                r = table_add_cell(t, e.source);
                        if (r >= 0)
                                r = table_add_cell(t, audit_view_format_pid(&e, pid));
                        if (r >= 0)
                                r = table_add_cell(t, e.comm);
                        if (r >= 0)
                                r = table_add_cell(t, what);
                        if (r >= 0)
                                r = table_add_cellf(t, "%" PRIu32, e.repeats);
                }
        }
        if (r < 0) {
                fprintf(stderr, "Failed to parse the audit events: %s\n", strerror(-r));
                goto finish;
        }

        /* An empty list can mean that nothing can see a call: say so (stderr when stdout is data). */
        (void) get_coverage(bus, &coverage, &advice);
        if (arg_follow) {
                if (arg_legend && arg_json == JSON_OFF)
                        fprintf(stderr, "Following deprecated sysctl(2) calls; press Ctrl-C to stop.\n");
                print_coverage(stderr, coverage, advice);
                fflush(stdout);
                r = client_run_until_interrupted(bus);
        } else if (arg_json != JSON_OFF) {
                json_end_array(&w);
                r = json_done(&w);
                print_coverage(stderr, coverage, advice);
        } else if (n == 0) {
                if (arg_legend)
                        printf("No events.\n");
                if (coverage && !streq(coverage, "some"))
                        putchar('\n');
                print_coverage(stdout, coverage, advice);
                r = 0;
        } else {
                r = table_print(t, stdout, arg_legend);
                if (r >= 0 && arg_legend)
                        printf("\n%zu event%s listed.\n", n, n == 1 ? "" : "s");
                if (r >= 0 && coverage && !streq(coverage, "some"))
                        putchar('\n');
                print_coverage(stdout, coverage, advice);
        }
finish:
        table_free(t);
        free(coverage);
        free(advice);
        sd_bus_message_unref(reply);
        return r;
}
