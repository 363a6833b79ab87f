/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * status: without arguments a summary of igmpd (how many links in which state, which are not
 * as igmpd wants them, the policy files, the drift watch); with LINK arguments, each link in
 * full, its knobs read from the kernel by igmpd as it answers.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "igmpctl.h"
#include "strv.h"
#include "macro.h"
#include "output.h"
#include "terminal.h"
#include "utf8.h"

#define FIELD_WIDTH 17 /* "Alternative names" */
#define PROBLEMS_SHOWN 3 /* reload shows up to what the daemon keeps (64) */
#define NAMES_SHOWN 8   /* per state in the summary */
/* Bulk reads serve igmpd's cached kernel values; say how old they are from this age on. */
#define KERNEL_AGE_SHOWN_USEC (10 * UINT64_C(1000000))

static void print_field(const char *label, const char *value)
{
        output_field(stdout, FIELD_WIDTH, label, value);
}

static void print_field_list(const char *label, char **values, const char *none)
{
        if ((!values || !values[0]) && none)
                print_field(label, none);
        for (char **v = values; v && *v; v++)
                print_field(v == values ? label : "", *v);
}

static int print_link_status(const ClientLink *l)
{
        _cleanup_free_ char *name = utf8_escape_dup(strempty(l->name), UTF8_ESCAPE_SHOWN);
        Color state = state_color(l->state);
        _cleanup_(table_freep) Table *t = NULL;
        bool drifted = false;
        int r;

        if (!name)
                return -ENOMEM;
        /* A followed namespace's link: NETNS/IFNAME, as list names it. */
        bool other_ns = l->netns && !streq(l->netns, ".host") && !strchr(strempty(l->name), '/');
        _cleanup_free_ char *ns = other_ns ? utf8_escape_dup(l->netns, UTF8_ESCAPE_SHOWN) : NULL;
        printf("%s%s%s %d: %s%s%s\n", ansi(state), glyph(GLYPH_BULLET), ansi(COLOR_NORMAL), l->ifindex,
               strempty(ns), ns ? "/" : "", name);
        /* Everything [Match] can match on, then what igmpd made of it. */
        print_field("Type", isempty(l->type) ? "-" : l->type);
        print_field("Kind", isempty(l->kind) ? "-" : l->kind);
        print_field_list("Alternative names", l->alternative_names, NULL);
        if (!isempty(l->mac_address))
                print_field("MAC address", l->mac_address);
        output_field_color(stdout, FIELD_WIDTH, "State", strempty(l->state), state);
        print_field_list("Matched files", l->matched_files, "none");
        print_field_list("Ignored sources", l->ignored_sources, NULL);
        if (!isempty(l->last_error))
                output_field_color(stdout, FIELD_WIDTH, "Last error", l->last_error, COLOR_RED);
        putchar('\n');

        t = table_new((const char *const[]) { "KNOB", "KERNEL", "WANTED", "SOURCE", NULL });
        table_set_align_right(t, 1);
        table_set_align_right(t, 2);
        table_set_ellipsize(t, 3, ELLIPSIZE_PATH);
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                char kb[32], pb[32];

                if (!l->has[k])
                        continue;
                table_add_cell(t, knob_to_string(k));
                if (knob_status_drifted(k, &(KnobStatus) { .kernel = l->kernel[k], .policy = l->policy[k] })) {
                        /* Marked, in colour or not: another value than igmpd's (footnote below). */
                        char mark[40];

                        drifted = true;
                        snprintf(mark, sizeof mark, "%s*", knob_format(k, l->kernel[k], kb));
                        table_add_cell_color(t, mark, COLOR_YELLOW);
                } else if (l->kernel[k] < 0)
                        table_add_cell_color(t, "unavailable", COLOR_GREY);
                else
                        table_add_cell(t, knob_format(k, l->kernel[k], kb));
                table_add_cell(t, knob_format(k, l->policy[k], pb));
                table_add_cell_color(t, knob_source_format(l->source[k]),
                                     isempty(l->source[k]) ? COLOR_GREY : COLOR_NORMAL);
        }
        r = table_print(t, stdout, arg_legend);
        if (r >= 0 && drifted)
                printf("\n* Another process changed it: the kernel has another value than igmpd's. igmpd puts its own\n"
                       "  back when it next configures the link (at once with the drift watch and DriftAction=revert);\n"
                       "  'igmpctl reconfigure %s' does it now.\n", name);
        return r;
}

/* Problems in the configuration may be why a link is not as expected. */
static void print_problems(sd_bus *bus)
{
        ClientProblems p;

        if (client_problems_fetch(bus, &p) >= 0 && p.total > 0) {
                char head[128];

                snprintf(head, sizeof head, "%" PRIu32 " in the configuration; igmpd --check shows %s", p.total,
                         p.total == 1 ? "it" : "them all");
                output_field_color(stdout, FIELD_WIDTH, "Problems", head, COLOR_YELLOW);
                for (size_t i = 0; i < p.n && i < PROBLEMS_SHOWN; i++)
                        print_field("", p.lines[i]);
                if (p.total > MIN(p.n, (size_t) PROBLEMS_SHOWN)) {
                        char more[64];

                        snprintf(more, sizeof more, "%s and %zu more", glyph(GLYPH_ELLIPSIS),
                                 (size_t) p.total - MIN(p.n, (size_t) PROBLEMS_SHOWN));
                        print_field("", more);
                }
                putchar('\n');
        }
        client_problems_done(&p);
}

bool client_kernel_age(sd_bus *bus, char buf[static 64])
{
        uint64_t age = 0, s;

        (void) client_read_property(bus, IGMPD_MANAGER_INTERFACE, "KernelValuesAgeUSec", CLIENT_CALL_QUIET, NULL, NULL,
                                    "t", &age);
        if (age < KERNEL_AGE_SHOWN_USEC)
                return false;
        s = age / UINT64_C(1000000);
        snprintf(buf, 64, "read %" PRIu64 "%s ago", s < 120 ? s : s < 7200 ? s / 60 : s / 3600,
                 s < 120 ? "s" : s < 7200 ? "min" : "h");
        return true;
}

/* "Drifted: iptv0, iptv3": the links in a state, the first few. */
static void print_state_names(const ClientLink *links, size_t n, const char *state, const char *label)
{
        char line[512] = "";
        size_t shown = 0, total = 0, off = 0;

        /* Names as they are: output_field_color() escapes the line. */
        for (size_t i = 0; i < n; i++) {
                if (!streq_ptr(links[i].state, state) || total++ >= NAMES_SHOWN)
                        continue;
                off += (size_t) snprintf(line + off, sizeof line - MIN(off, sizeof line), "%s%s", shown++ ? ", " : "",
                                         strempty(links[i].name));
        }
        if (total > shown)
                snprintf(line + MIN(off, sizeof line - 1), sizeof line - MIN(off, sizeof line - 1), " %s and %zu more",
                         glyph(GLYPH_ELLIPSIS), total - shown);
        if (total > 0)
                output_field_color(stdout, FIELD_WIDTH, label, line, state_color(state));
}

/* Prints under label (after "NETNS: " with netns) "3 from /etc/igmpd/conf.d/10-ns.conf": a
 * namespace knob's value (now; -1: the knob is not there) and where igmpd's (want; -1: none) came from. */
static void print_ns_knob_line(NsKnob k, const char *label, const char *netns, int32_t now, int32_t want,
                               const char *source)
{
        char line[600];
        size_t n = netns ? (size_t) snprintf(line, sizeof line, "%.*s: ", NETNS_NAME_MAX, netns) : 0;
        size_t size = sizeof line - n;

        if (now < 0)
                snprintf(line + n, size, "unavailable (%s exists only in the host's initial network namespace)%s%s",
                         ns_knob_sysctl_name(k), want >= 0 ? "; wanted by " : "", want >= 0 ? strempty(source) : "");
        else if (want < 0)
                snprintf(line + n, size, "%" PRIi32 " (%s: no file sets it, igmpd leaves it)", now,
                         ns_knob_sysctl_name(k));
        else if (now != want)
                snprintf(line + n, size, "%" PRIi32 "* (igmpd's value is %" PRIi32 " from %s: another process changed it)",
                         now, want, strempty(source));
        else
                snprintf(line + n, size, "%" PRIi32 " from %s", now, strempty(source));
        output_field_color(stdout, FIELD_WIDTH, label, line,
                           now < 0 ? COLOR_GREY : want >= 0 && now != want ? COLOR_YELLOW : COLOR_NORMAL);
}

/* A namespace knob of igmpd's own namespace (Manager.IGMPRobustness, MLDRobustness); nothing
 * when it cannot be read. */
static void print_ns_knob(sd_bus *bus, NsKnob k, const char *label)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *source = NULL;
        int32_t now = -1, want = -1;

        if (client_read_property(bus, IGMPD_MANAGER_INTERFACE, ns_knob_info(k)->property, CLIENT_CALL_QUIET, NULL,
                                 &reply, "(iis)", &now, &want, &source) > 0)
                print_ns_knob_line(k, label, NULL, now, want, source);
}

/* igmp_qrv of each followed namespace a file sets it in (or someone changed it in), then how many
 * others keep the kernel's: "pod-a: 5 from /etc/igmpd/conf.d/30-pods.conf". */
static void print_ns_robustness(sd_bus *bus)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *netns, *source;
        int32_t now, want;
        size_t n_left = 0;
        char line[600];

        if (client_get_property(bus, IGMPD_MANAGER_INTERFACE, "IGMPRobustnessByNamespace", "a{s(iis)}",
                                CLIENT_CALL_QUIET, NULL, &reply) <= 0 ||
            sd_bus_message_enter_container(reply, 'a', "{s(iis)}") < 0)
                return;
        while (sd_bus_message_read(reply, "{s(iis)}", &netns, &now, &want, &source) > 0) {
                if (want < 0)
                        n_left++;
                else
                        print_ns_knob_line(NS_KNOB_IGMP_QRV, "", netns, now, want, source);
        }
        if (n_left > 0) {
                snprintf(line, sizeof line, "%zu other followed namespace%s: no file sets igmp_qrv", n_left,
                         n_left == 1 ? "" : "s");
                output_field_color(stdout, FIELD_WIDTH, "", line, COLOR_GREY);
        }
}

/* networkctl status without arguments: a summary, not every link in full. */
static int status_summary(sd_bus *bus)
{
        static const char *const states[] = { "configured", "drifted", "pending", "failed", "unmanaged" };
        static const char *const labels[] = { NULL, "Drifted", "Pending", "Failed", NULL };
        _cleanup_(drift_info_done) DriftInfo drift = {};
        _cleanup_strv_free_ char **files = NULL;
        ClientLink *links = NULL;
        char line[256] = "", age[64];
        size_t n = 0, off = 0;
        Color color = COLOR_GREEN;
        bool old;
        int r;

        old = client_kernel_age(bus, age); /* of what the next read serves */
        r = client_links_get_all(bus, &links, &n);
        if (r < 0)
                return r;
        pager_open(arg_no_pager);
        print_problems(bus);

        for (size_t s = 0; s < ELEMENTSOF(states); s++) {
                Color c = state_color(states[s]);
                size_t count = 0;

                for (size_t i = 0; i < n; i++)
                        count += streq_ptr(links[i].state, states[s]);
                if (count > 0)
                        off += (size_t) snprintf(line + off, sizeof line - MIN(off, sizeof line), "%s%zu %s",
                                                 off > 0 ? ", " : "", count, states[s]);
                /* The worst state there is: red, else yellow. */
                if (count > 0 && color != COLOR_RED && (c == COLOR_RED || c == COLOR_YELLOW))
                        color = c;
        }
        printf("%s%s%s igmpd: %zu link%s\n", ansi(color), glyph(GLYPH_BULLET), ansi(COLOR_NORMAL), n, n == 1 ? "" : "s");
        print_field("State", n > 0 ? line : "no links");
        for (size_t s = 0; s < ELEMENTSOF(states); s++)
                if (labels[s])
                        print_state_names(links, n, states[s], labels[s]);

        if (sd_bus_get_property_strv(bus, IGMPD_BUS_NAME, IGMPD_MANAGER_PATH, IGMPD_MANAGER_INTERFACE, "ConfigFiles",
                                     NULL, &files) >= 0)
                print_field_list("Policy files", files, "none (every knob is left as it is)");
        print_ns_knob(bus, NS_KNOB_IGMP_QRV, "IGMP robustness");
        print_ns_robustness(bus);
        print_ns_knob(bus, NS_KNOB_MLD_QRV, "MLD robustness");
        if (get_drift_info(bus, &drift) >= 0) {
                snprintf(line, sizeof line, "%s, DriftAction=%s%s%s", drift.state, drift.action,
                         isempty(drift.note) ? "" : "; ", drift.note);
                output_field_color(stdout, FIELD_WIDTH, "Drift watch", line,
                                   streq(drift.state, "active") ? COLOR_NORMAL : COLOR_YELLOW);
        }
        if (old) {
                snprintf(line, sizeof line, "%s; 'igmpctl status LINK' reads a link's now", age);
                print_field("Kernel values", line);
        }
        if (arg_legend)
                printf("\nigmpctl status LINK... shows each knob of a link and where its value comes from.\n");
        client_links_free(links, n);
        return 0;
}

/* Prints one link, as a table or as JSON. */
static int show_link(const ClientLink *l, bool first, JsonWriter *w)
{
        if (arg_json != JSON_OFF) {
                LinkStatus s;

                client_link_status(l, &s);
                json_write_link(w, &s);
                return 0;
        }
        if (!first)
                putchar('\n');
        return print_link_status(l);
}

int verb_status(int argc, char **argv, sd_bus *bus)
{
        _cleanup_(link_selection_done) LinkSelection sel = {};
        JsonWriter w;
        int r;

        if (argc <= 1 && arg_json == JSON_OFF)
                return status_summary(bus);
        /* JSON of every link comes in one call. Named links are each read (GetAll: igmpd reads
         * the link's knobs from the kernel first), globs matched against every link. */
        if (argc > 1)
                r = client_resolve_patterns(bus, argv + 1, (size_t) argc - 1, &sel);
        else
                r = client_links_get_all(bus, &sel.all, &sel.n_all);
        if (r < 0)
                return r;
        pager_open(arg_no_pager);

        if (arg_json == JSON_OFF)
                print_problems(bus);
        else {
                json_start(&w);
                json_begin_array(&w);
        }
        for (size_t i = 0; argc <= 1 && i < sel.n_all && r >= 0; i++)
                r = show_link(&sel.all[i], i == 0, &w);
        for (size_t i = 0; i < sel.n && r >= 0; i++) {
                ClientLink l;

                r = client_link_fetch(bus, sel.links[i].path, &l);
                if (r < 0)
                        break;
                r = show_link(&l, i == 0, &w);
                client_link_done(&l);
        }
        if (arg_json != JSON_OFF && r >= 0) {
                json_end_array(&w);
                r = json_done(&w);
        }
        return r;
}
