/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Link verbs: list, status, link, reconfigure, reload.
 */

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "igmpctl.h"
#include "macro.h"
#include "output.h"
#include "terminal.h"
#include "utf8.h"

int verb_list(int argc, char **argv, sd_bus *bus)
{
        ClientLink *links = NULL;
        Table *t = NULL;
        size_t n = 0;
        int r;

        r = client_links_get_all(bus, &links, &n);
        if (r < 0)
                return r;
        pager_open(arg_no_pager);

        if (arg_json != JSON_OFF) {
                JsonWriter w;

                json_start(&w);
                json_begin_array(&w);
                for (size_t i = 0; i < n; i++) {
                        const ClientLink *l = &links[i];

                        json_begin_object(&w);
                        json_key(&w, "index");
                        json_int(&w, l->ifindex);
                        json_key(&w, "name");
                        json_string(&w, strempty(l->name));
                        json_key(&w, "kind");
                        json_string(&w, isempty(l->kind) ? NULL : l->kind);
                        json_key(&w, "state");
                        json_string(&w, strempty(l->state));
                        json_end_object(&w);
                }
                json_end_array(&w);
                r = json_done(&w);
                goto finish;
        }

        t = table_new((const char *const[]) { "IDX", "LINK", "KIND", "STATE", NULL });
        if (!t) {
                r = -ENOMEM;
                goto finish;
        }
        table_set_align_right(t, 0);
        table_set_ellipsize(t, 1, ELLIPSIZE_END);
        for (size_t i = 0; i < n && r >= 0; i++) {
                const ClientLink *l = &links[i];

                r = table_add_cellf(t, "%d", l->ifindex);
                if (r >= 0)
                        r = table_add_cell(t, l->name);
                if (r >= 0)
                        r = table_add_cell(t, isempty(l->kind) ? "-" : l->kind);
                if (r >= 0)
                        r = table_add_cell_color(t, l->state, state_color(l->state));
        }
        if (r >= 0)
                r = table_print(t, stdout, arg_legend);
        if (r >= 0 && arg_legend)
                printf("\n%zu link%s listed.\n", table_rows(t), table_rows(t) == 1 ? "" : "s");
finish:
        table_free(t);
        client_links_free(links, n);
        return r;
}

#define FIELD_WIDTH 17 /* "Alternative names" */
#define PROBLEMS_SHOWN 3 /* in status; reload shows up to what the daemon keeps (64) */

/* The problems of the daemon's configuration: NConfigProblems and the first of them,
 * "FILE:LINE: message" each. Both empty with an igmpd that does not have the properties. */
typedef struct ClientProblems {
        uint32_t total;
        char **lines;
        size_t n;
} ClientProblems;

static void client_problems_done(ClientProblems *p)
{
        for (size_t i = 0; i < p->n; i++)
                free(p->lines[i]);
        free(p->lines);
        *p = (ClientProblems) {};
}

static int client_problems_fetch(sd_bus *bus, ClientProblems *ret)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        ClientProblems p = {};
        const char *file, *message;
        uint32_t line;
        int r;

        r = sd_bus_get_property_trivial(bus, IGMPD_BUS_NAME, IGMPD_MANAGER_PATH, IGMPD_MANAGER_INTERFACE,
                                        "NConfigProblems", &error, 'u', &p.total);
        if (r < 0) {
                /* An igmpd from before the property: nothing to say. */
                sd_bus_error_free(&error);
                *ret = p;
                return 0;
        }
        if (p.total == 0) {
                *ret = p;
                return 0;
        }
        r = sd_bus_get_property(bus, IGMPD_BUS_NAME, IGMPD_MANAGER_PATH, IGMPD_MANAGER_INTERFACE, "ConfigProblems",
                                &error, &reply, "a(sus)");
        sd_bus_error_free(&error);
        if (r >= 0)
                r = sd_bus_message_enter_container(reply, 'a', "(sus)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(sus)", &file, &line, &message)) > 0) {
                char **a = realloc(p.lines, (p.n + 1) * sizeof *a);
                int k;

                if (!a) {
                        r = -ENOMEM;
                        break;
                }
                p.lines = a;
                if (isempty(file))
                        k = asprintf(&p.lines[p.n], "%s", message);
                else if (line > 0)
                        k = asprintf(&p.lines[p.n], "%s:%" PRIu32 ": %s", file, line, message);
                else
                        k = asprintf(&p.lines[p.n], "%s: %s", file, message);
                if (k < 0) {
                        r = -ENOMEM;
                        break;
                }
                p.n++;
        }
        sd_bus_message_unref(reply);
        if (r == -ENOMEM) {
                client_problems_done(&p);
                return r;
        }
        *ret = p; /* a reply that does not parse leaves the count alone */
        return 0;
}

/* The first max lines, then how many more there are. */
static void print_problem_lines(FILE *f, const ClientProblems *p, size_t max, const char *indent)
{
        for (size_t i = 0; i < p->n && i < max; i++)
                fprintf(f, "%s%s\n", indent, p->lines[i]);
        if (p->total > MIN(p->n, max))
                fprintf(f, "%s%s and %zu more.\n", indent, glyph(GLYPH_ELLIPSIS), (size_t) p->total - MIN(p->n, max));
}

static void print_field(const char *label, const char *value)
{
        output_field(stdout, FIELD_WIDTH, label, value);
}

static void print_field_list(const char *label, char **values, const char *none)
{
        if (!values || !values[0]) {
                if (none)
                        print_field(label, none);
                return;
        }
        print_field(label, values[0]);
        for (char **v = values + 1; *v; v++)
                print_field("", *v);
}

static int print_link_status(const ClientLink *l)
{
        _cleanup_free_ char *name = utf8_escape_dup(strempty(l->name), UTF8_ESCAPE_SHOWN);
        Color state = state_color(l->state);
        Table *t;
        int r = 0;

        if (!name)
                return -ENOMEM;
        printf("%s%s%s %d: %s\n", ansi(state), glyph(GLYPH_BULLET), ansi(COLOR_NORMAL), l->ifindex, name);
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

        t = table_new((const char *const[]) { "KNOB", "KERNEL", "POLICY", "SOURCE", NULL });
        if (!t)
                return -ENOMEM;
        table_set_align_right(t, 1);
        table_set_align_right(t, 2);
        table_set_ellipsize(t, 3, ELLIPSIZE_PATH);
        for (Knob k = 0; k < _KNOB_MAX && r >= 0; k++) {
                char kb[32], pb[32];

                if (!l->has[k])
                        continue;
                r = table_add_cell(t, knob_to_string(k));
                if (r >= 0)
                        r = l->kernel[k] < 0 ? table_add_cell_color(t, "unavailable", COLOR_GREY)
                                             : table_add_cell(t, knob_format(k, l->kernel[k], kb));
                if (r >= 0)
                        r = table_add_cell(t, knob_format(k, l->policy[k], pb));
                if (r >= 0)
                        r = isempty(l->source[k]) ? table_add_cell_color(t, knob_source_format(l->source[k]), COLOR_GREY)
                                                : table_add_cell(t, knob_source_format(l->source[k]));
        }
        if (r >= 0)
                r = table_print(t, stdout, arg_legend);
        table_free(t);
        return r;
}

static bool is_pattern(const char *s)
{
        return strpbrk(s, "*?[") != NULL;
}

/* Whether a name, as the bus shows it, matches a LINK argument: as a glob, or literally (a
 * name may hold '[' or '*'), or in the form igmpctl prints it, or, for a name shown escaped
 * ("bad\xff"), through its bytes (an argument typed with the raw bytes). */
static bool name_matches(const char *name, const char *pattern)
{
        _cleanup_free_ char *shown = NULL;
        char raw[128]; /* ALTIFNAMSIZ */

        if (!name)
                return false;
        if (streq(name, pattern) || fnmatch(pattern, name, 0) == 0)
                return true;
        shown = utf8_escape_dup(name, UTF8_ESCAPE_SHOWN);
        if (shown && streq(shown, pattern))
                return true;
        return strstr(name, "\\x") && utf8_unescape(name, raw, sizeof raw) >= 0 && !streq(raw, name) &&
               (streq(raw, pattern) || fnmatch(pattern, raw, 0) == 0);
}

static bool link_matches(const ClientLink *l, const char *pattern)
{
        if (name_matches(l->name, pattern))
                return true;
        for (char **a = l->alternative_names; a && *a; a++)
                if (name_matches(*a, pattern))
                        return true;
        return false;
}

static bool contains(const int *v, size_t n, int x)
{
        for (size_t i = 0; i < n; i++)
                if (v[i] == x)
                        return true;
        return false;
}

/* Resolves LINK arguments and shell globs over names and alternative names ('iptv*') to
 * ifindexes, in argument order (a glob's matches in index order), each link once. A glob that
 * matches nothing is an error, as is an unknown LINK. Globs are matched against *all (every
 * link, fetched on the first glob; the caller frees it). */
static int resolve_patterns(sd_bus *bus, char **args, size_t n_args, ClientLink **all, size_t *n_all,
                            int **ret, size_t *ret_n)
{
        _cleanup_free_ int *idx = NULL;
        size_t n = 0;
        int r = 0;

        idx = calloc(1, sizeof *idx); /* grown below; never NULL on success */
        if (!idx)
                return -ENOMEM;
        for (size_t i = 0; i < n_args && r >= 0; i++) {
                bool any = false;

                if (!is_pattern(args[i])) {
                        int ifindex;

                        r = client_resolve_link(bus, args[i], &ifindex, NULL);
                        if (r < 0)
                                break;
                        if (contains(idx, n, ifindex))
                                continue;
                        int *a = realloc(idx, (n + 1) * sizeof *a);
                        if (!a)
                                return -ENOMEM;
                        idx = a;
                        idx[n++] = ifindex;
                        continue;
                }

                if (!*all) {
                        r = client_links_get_all(bus, all, n_all);
                        if (r < 0)
                                break;
                }
                for (size_t j = 0; j < *n_all; j++) {
                        const ClientLink *l = &(*all)[j];

                        if (!link_matches(l, args[i]))
                                continue;
                        any = true;
                        if (contains(idx, n, l->ifindex))
                                continue;
                        int *a = realloc(idx, (n + 1) * sizeof *a);
                        if (!a)
                                return -ENOMEM;
                        idx = a;
                        idx[n++] = l->ifindex;
                }
                if (!any) {
                        _cleanup_free_ char *shown = utf8_escape_dup(args[i], UTF8_ESCAPE_SHOWN);

                        fprintf(stderr, "No link matches '%s' (see igmpctl list).\n", shown ?: "?");
                        client_exit_status = EXIT_NO_SUCH_LINK;
                        r = -ENODEV;
                }
        }
        if (r < 0)
                return r;
        *ret = TAKE_PTR(idx);
        *ret_n = n;
        return 0;
}

static int compare_ifindex(const void *key, const void *elem)
{
        int x = *(const int *) key, y = ((const ClientLink *) elem)->ifindex;

        return (x > y) - (x < y);
}

/* links is ordered by ifindex (client_links_get_all()). */
static const ClientLink *find_link(const ClientLink *links, size_t n, int ifindex)
{
        return n > 0 ? bsearch(&ifindex, links, n, sizeof *links, compare_ifindex) : NULL;
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
        ClientLink *all = NULL;
        _cleanup_free_ int *idx = NULL;
        size_t n_all = 0, n = 0;
        JsonWriter w;
        int r = 0;

        /* Without arguments every link comes in one call; with names, each is looked up and
         * read (GetAll), and globs are matched against every link (one call). */
        if (argc > 1)
                r = resolve_patterns(bus, argv + 1, (size_t) argc - 1, &all, &n_all, &idx, &n);
        else
                r = client_links_get_all(bus, &all, &n_all);
        if (r < 0)
                goto finish;
        pager_open(arg_no_pager);

        if (arg_json == JSON_OFF) {
                ClientProblems p;

                /* Problems in the configuration may be why a link is not as expected. */
                if (client_problems_fetch(bus, &p) >= 0 && p.total > 0) {
                        char head[128];

                        snprintf(head, sizeof head, "%" PRIu32 " in the configuration; igmpd --check shows %s",
                                 p.total, p.total == 1 ? "it" : "them all");
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
        } else {
                json_start(&w);
                json_begin_array(&w);
        }
        if (argc <= 1)
                for (size_t i = 0; i < n_all && r >= 0; i++)
                        r = show_link(&all[i], i == 0, &w);
        for (size_t i = 0; i < n && r >= 0; i++) {
                const ClientLink *l = find_link(all, n_all, idx[i]);
                ClientLink fetched;
                _cleanup_free_ char *path = NULL;
                char buf[16];

                if (!l) {
                        snprintf(buf, sizeof buf, "%d", idx[i]);
                        r = sd_bus_path_encode(IGMPD_MANAGER_PATH "/link", buf, &path);
                        if (r < 0)
                                break;
                        r = client_link_fetch(bus, path, &fetched);
                        if (r < 0)
                                break;
                        l = &fetched;
                }
                r = show_link(l, i == 0, &w);
                if (l == &fetched)
                        client_link_done(&fetched);
        }
        if (arg_json != JSON_OFF && r >= 0) {
                json_end_array(&w);
                r = json_done(&w);
        }
finish:
        client_links_free(all, n_all);
        return r;
}

/* A temporary runtime change (/run) beats a persistent one (/etc): say so when it hides what
 * was just stored. */
static void warn_shadowed(sd_bus *bus, int ifindex, const char *link)
{
        _cleanup_free_ char *path = NULL;
        char arg[16];
        ClientLink l;

        snprintf(arg, sizeof arg, "%d", ifindex);
        if (client_resolve_link(bus, arg, NULL, &path) < 0 || client_link_fetch(bus, path, &l) < 0)
                return;
        for (Knob k = 0; k < _KNOB_MAX; k++)
                if (arg_knob_set[k] && l.has[k] && l.policy[k] != arg_knob[k])
                        fprintf(stderr,
                                "Stored %s=%d persistently, but a temporary runtime change (%lld) "
                                "overrides it until reboot; 'igmpctl link %s --revert' removes both.\n",
                                knob_to_string(k), arg_knob[k], (long long) l.policy[k], link);
        client_link_done(&l);
}

int verb_link(int argc, char **argv, sd_bus *bus)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *call = NULL;
        bool any = false;
        int ifindex, r;

        for (Knob k = 0; k < _KNOB_MAX; k++)
                any = any || arg_knob_set[k];
        if (argc != 2)
                return usage_error("link takes exactly one LINK (got %d). See igmpctl --help.", argc - 1);
        if (arg_revert && any)
                return usage_error("--revert cannot be combined with knob options: it removes the link's "
                                   "runtime changes.");
        if (arg_revert && arg_persistent)
                return usage_error("--revert removes both the runtime and the persistent changes; drop "
                                   "--persistent.");
        if (!arg_revert && !any)
                return usage_error("link %s: nothing to do; give knob options (e.g. --v3-interval 200) "
                                   "or --revert.", argv[1]);

        r = client_resolve_link(bus, argv[1], &ifindex, NULL);
        if (r < 0)
                return r;

        if (arg_revert)
                r = sd_bus_call_method(bus, IGMPD_BUS_NAME, IGMPD_MANAGER_PATH, IGMPD_MANAGER_INTERFACE,
                                       "RevertLink", &error, NULL, "iu", (int32_t) ifindex, UINT32_C(0));
        else {
                r = sd_bus_message_new_method_call(bus, &call, IGMPD_BUS_NAME, IGMPD_MANAGER_PATH,
                                                   IGMPD_MANAGER_INTERFACE, "SetLinkKnobs");
                if (r >= 0)
                        r = sd_bus_message_append(call, "i", (int32_t) ifindex);
                if (r >= 0)
                        r = sd_bus_message_open_container(call, 'a', "{sv}");
                for (Knob k = 0; r >= 0 && k < _KNOB_MAX; k++)
                        if (arg_knob_set[k])
                                r = sd_bus_message_append(call, "{sv}", knob_to_string(k), "u",
                                                          (uint32_t) arg_knob[k]);
                if (r >= 0)
                        r = sd_bus_message_close_container(call);
                if (r >= 0)
                        r = sd_bus_message_append(call, "u", arg_persistent ? UINT32_C(1) : UINT32_C(0));
                if (r >= 0)
                        r = sd_bus_call(bus, call, 0, &error, NULL);
                sd_bus_message_unref(call);
        }
        if (r < 0) {
                r = client_call_error(&error, r, arg_revert ? "revert the link" : "set the link's knobs",
                                      argv[1]);
                sd_bus_error_free(&error);
                return r;
        }
        if (arg_persistent)
                warn_shadowed(bus, ifindex, argv[1]);
        return 0;
}

int verb_reconfigure(int argc, char **argv, sd_bus *bus)
{
        ClientLink *all = NULL;
        _cleanup_free_ int *idx = NULL;
        size_t n_all = 0, n = 0;
        int r;

        if (argc < 2)
                return usage_error("reconfigure needs at least one LINK or pattern. See igmpctl --help.");

        r = resolve_patterns(bus, argv + 1, (size_t) argc - 1, &all, &n_all, &idx, &n);
        client_links_free(all, n_all);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n && r >= 0; i++) {
                sd_bus_error error = SD_BUS_ERROR_NULL;
                char what[64];

                r = sd_bus_call_method(bus, IGMPD_BUS_NAME, IGMPD_MANAGER_PATH, IGMPD_MANAGER_INTERFACE,
                                       "ReconfigureLink", &error, NULL, "i", (int32_t) idx[i]);
                if (r < 0) {
                        snprintf(what, sizeof what, "%d", idx[i]);
                        r = client_call_error(&error, r, "reconfigure the link", what);
                        sd_bus_error_free(&error);
                }
        }
        return r;
}

int verb_reload(int argc, char **argv, sd_bus *bus)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        ClientProblems p = {};
        uint32_t problems = 0;
        int r;

        if (argc > 1)
                return usage_error("reload takes no arguments. See igmpctl --help.");
        r = sd_bus_call_method(bus, IGMPD_BUS_NAME, IGMPD_MANAGER_PATH, IGMPD_MANAGER_INTERFACE, "ReloadEx",
                               &error, &reply, "u", UINT32_C(0));
        if (r >= 0)
                r = sd_bus_message_read(reply, "u", &problems);
        else if (sd_bus_error_has_name(&error, SD_BUS_ERROR_UNKNOWN_METHOD)) {
                /* An igmpd from before ReloadEx: reload, but it cannot say how it went. */
                sd_bus_error_free(&error);
                r = sd_bus_call_method(bus, IGMPD_BUS_NAME, IGMPD_MANAGER_PATH, IGMPD_MANAGER_INTERFACE, "Reload",
                                       &error, NULL, NULL);
        }
        sd_bus_message_unref(reply);
        if (r < 0) {
                r = client_call_error(&error, r, "reload igmpd", NULL);
                sd_bus_error_free(&error);
                return r;
        }
        if (problems == 0)
                return 0;

        /* The new configuration is in force without what the problems name: say so, and fail. */
        fprintf(stderr, "igmpd reloaded with %" PRIu32 " problem%s; see igmpd --check.\n", problems,
                problems == 1 ? "" : "s");
        if (client_problems_fetch(bus, &p) >= 0)
                print_problem_lines(stderr, &p, SIZE_MAX, "  ");
        client_problems_done(&p);
        client_exit_status = EXIT_RELOAD_PROBLEMS;
        return -EUCLEAN;
}
