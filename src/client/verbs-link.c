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

#include "array-util.h"
#include "igmpctl.h"
#include "macro.h"
#include "output.h"
#include "strv.h"
#include "terminal.h"
#include "utf8.h"

/* A link of a followed namespace is named NETNS/IFNAME (no interface name has a '/'): its
 * namespace, or ".host" for igmpd's own; *ret_ifname is the rest. */
static const char *link_netns(const char *name, char buf[static NETNS_NAME_MAX + 1], const char **ret_ifname)
{
        const char *slash = name ? strchr(name, '/') : NULL;

        *ret_ifname = slash ? slash + 1 : strempty(name);
        if (!slash)
                return ".host";
        snprintf(buf, NETNS_NAME_MAX + 1, "%.*s", (int) MIN((size_t) (slash - name), (size_t) NETNS_NAME_MAX), name);
        return buf;
}

int verb_list(int argc, char **argv, sd_bus *bus)
{
        _cleanup_(table_freep) Table *t = NULL;
        ClientLink *links = NULL;
        JsonWriter w;
        size_t n = 0;
        char age[64];
        bool old, netns = false;
        int r;

        /* The states come from igmpd's cached kernel values: how old they are, before the read
         * that refreshes them. */
        old = arg_json == JSON_OFF && client_kernel_age(bus, age);
        r = client_links_get_all(bus, &links, &n);
        if (r < 0)
                return r;
        pager_open(arg_no_pager);
        /* More than one namespace followed (Namespaces=named): a NETNS column. */
        for (size_t i = 0; i < n; i++)
                netns = netns || (links[i].name && strchr(links[i].name, '/'));

        if (arg_json != JSON_OFF) {
                json_start(&w);
                json_begin_array(&w);
        } else {
                t = netns ? table_new((const char *const[]) { "IDX", "NETNS", "LINK", "KIND", "STATE", NULL })
                          : table_new((const char *const[]) { "IDX", "LINK", "KIND", "STATE", NULL });
                table_set_align_right(t, 0);
                table_set_ellipsize(t, netns ? 2 : 1, ELLIPSIZE_END);
        }
        for (size_t i = 0; i < n; i++) {
                const ClientLink *l = &links[i];
                char buf[NETNS_NAME_MAX + 1];
                const char *ifname, *ns = link_netns(l->name, buf, &ifname);

                if (arg_netns && !streq(ns, arg_netns)) /* --netns NAME: only that namespace's links */
                        continue;
                if (arg_json != JSON_OFF) {
                        json_begin_object(&w);
                        json_field_int(&w, "index", l->ifindex);
                        if (netns)
                                json_field_string(&w, "netns", ns);
                        json_fields(&w, "name", netns ? ifname : strempty(l->name), "kind",
                                    isempty(l->kind) ? NULL : l->kind, "state", strempty(l->state), NULL);
                        json_end_object(&w);
                        continue;
                }
                table_add_cellf(t, "%d", l->ifindex);
                if (netns)
                        table_add_cell(t, ns);
                table_add_cell(t, netns ? ifname : l->name);
                table_add_cell(t, isempty(l->kind) ? "-" : l->kind);
                table_add_cell_color(t, l->state, state_color(l->state));
        }
        client_links_free(links, n);
        if (arg_json != JSON_OFF) {
                json_end_array(&w);
                return json_done(&w);
        }
        r = table_print(t, stdout, arg_legend);
        if (r >= 0 && arg_legend) {
                if (old)
                        printf("\nKernel values %s (no drift watch); 'igmpctl status LINK' reads a link's now.",
                               age);
                printf("\n%zu link%s listed.\n", table_rows(t), table_rows(t) == 1 ? "" : "s");
        }
        return r;
}

void client_problems_done(ClientProblems *p)
{
        for (size_t i = 0; i < p->n; i++)
                free(p->lines[i]);
        free(p->lines);
        *p = (ClientProblems) {};
}

int client_problems_fetch(sd_bus *bus, ClientProblems *ret)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        ClientProblems p = {};
        const char *file, *message;
        size_t allocated = 0;
        uint32_t line;
        int r;

        /* An extra for status and reload: a failure to read it just says nothing. */
        if (client_read_property(bus, IGMPD_MANAGER_INTERFACE, "NConfigProblems", CLIENT_CALL_QUIET, NULL, NULL, "u",
                                 &p.total) <= 0 || p.total == 0 ||
            client_get_property(bus, IGMPD_MANAGER_INTERFACE, "ConfigProblems", "a(sus)", CLIENT_CALL_QUIET, NULL,
                                &reply) <= 0) {
                *ret = p;
                return 0;
        }
        r = sd_bus_message_enter_container(reply, 'a', "(sus)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(sus)", &file, &line, &message)) > 0) {
                int k = -1;

                if (ARRAY_GROW(p.lines, allocated, p.n, 8) >= 0)
                        k = isempty(file) ? asprintf(&p.lines[p.n], "%s", message)
                            : line > 0    ? asprintf(&p.lines[p.n], "%s:%" PRIu32 ": %s", file, line, message)
                                          : asprintf(&p.lines[p.n], "%s: %s", file, message);
                if (k < 0) {
                        client_problems_done(&p);
                        return -ENOMEM;
                }
                p.n++;
        }
        *ret = p; /* a reply that does not parse leaves the count alone */
        return 0;
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
        char buf[NETNS_NAME_MAX + 1];
        const char *ifname, *ns = link_netns(l->name, buf, &ifname);

        /* --netns NAME: that namespace's links, by their interface names. */
        if (arg_netns)
                return streq(ns, arg_netns) && name_matches(ifname, pattern);
        if (name_matches(l->name, pattern))
                return true;
        for (char **a = l->alternative_names; a && *a; a++)
                if (name_matches(*a, pattern))
                        return true;
        return false;
}

/* Appends the link (ifindex, path) to s unless it is there. Takes path. 0 or -ENOMEM. */
static int add_unique(LinkSelection *s, int ifindex, char *path)
{
        _cleanup_free_ char *owned = path;

        for (size_t i = 0; i < s->n; i++)
                if (s->links[i].ifindex == ifindex && streq(s->links[i].path, path))
                        return 0;
        if (ARRAY_GROW(s->links, s->allocated, s->n, 8) < 0)
                return -ENOMEM;
        s->links[s->n].ifindex = ifindex;
        s->links[s->n++].path = TAKE_PTR(owned);
        return 0;
}

/* Whether the object is a link of a followed namespace. */
static bool link_path_in_netns(const char *path)
{
        return path && strstr(path, "/link/ns");
}

int client_link_path(int ifindex, char **ret)
{
        char buf[16];

        snprintf(buf, sizeof buf, "%d", ifindex);
        return sd_bus_path_encode(IGMPD_MANAGER_PATH "/link", buf, ret);
}

/* Appends the link that LINK names (a followed namespace's link by its NETNS/IFNAME). */
static int add_link(sd_bus *bus, LinkSelection *s, const char *link)
{
        char *path = NULL;
        int ifindex, r;

        r = client_resolve_link(bus, link, &ifindex, &path);
        return r < 0 ? r : add_unique(s, ifindex, path);
}

void link_selection_done(LinkSelection *s)
{
        client_links_free(s->all, s->n_all);
        for (size_t i = 0; i < s->n; i++)
                free(s->links[i].path);
        free(s->links);
        *s = (LinkSelection) {};
}

int client_resolve_patterns(sd_bus *bus, char **args, size_t n_args, LinkSelection *ret)
{
        LinkSelection s = {};
        int r = 0;

        for (size_t i = 0; i < n_args && r >= 0; i++) {
                bool any = false;

                if (!strpbrk(args[i], "*?[")) {
                        r = add_link(bus, &s, args[i]);
                        continue;
                }
                if (!s.all)
                        r = client_links_get_all(bus, &s.all, &s.n_all);
                for (size_t j = 0; j < s.n_all && r >= 0; j++) {
                        const ClientLink *l = &s.all[j];
                        char *path;

                        if (!link_matches(l, args[i]))
                                continue;
                        any = true;
                        if (strchr(strempty(l->name), '/'))
                                r = add_link(bus, &s, l->name);
                        else if ((r = client_link_path(l->ifindex, &path)) >= 0)
                                r = add_unique(&s, l->ifindex, path);
                }
                if (r >= 0 && !any) {
                        _cleanup_free_ char *shown = utf8_escape_dup(args[i], UTF8_ESCAPE_SHOWN);

                        fprintf(stderr, "No link matches '%s' (see igmpctl list).\n", shown ?: "?");
                        client_exit_status = EXIT_NO_SUCH_LINK;
                        r = -ENODEV;
                }
        }
        if (r < 0) {
                link_selection_done(&s);
                return r;
        }
        *ret = s;
        return 0;
}

/* A temporary runtime change (/run) beats a persistent one (/etc): say so when it hides what
 * was just stored. */
static void warn_shadowed(sd_bus *bus, const char *path, const char *link)
{
        ClientLink l;

        if (client_link_fetch(bus, path, &l) < 0)
                return;
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                char a[32], b[32];

                if (arg_knob_set[k] && l.has[k] && l.policy[k] != arg_knob[k])
                        fprintf(stderr,
                                "Stored %s=%s persistently, but a temporary runtime change (%s) overrides it "
                                "until reboot; 'igmpctl link %s --revert=%s --runtime' removes that.\n",
                                knob_to_string(k), knob_format(k, arg_knob[k], a), knob_format(k, l.policy[k], b),
                                link, knob_info(k)->option);
        }
        client_link_done(&l);
}

/* The link's RevertKnobs, then what it removed, as systemctl revert says it. */
static int link_revert(sd_bus *bus, const char *link_path, const char *link)
{
        uint32_t flags = (arg_runtime ? 2 : 0) | (arg_persistent ? 1 : 0); /* 0: both layers */
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL, *reply = NULL;
        const char *path, *values;
        int gone, r, n = 0;

        r = sd_bus_message_new_method_call(bus, &call, IGMPD_BUS_NAME, link_path, IGMPD_LINK_INTERFACE, "RevertKnobs");
        if (r >= 0)
                r = sd_bus_message_open_container(call, 'a', "s");
        for (Knob k = 0; r >= 0 && k < _KNOB_MAX; k++)
                if (arg_revert != (1U << _KNOB_MAX) - 1 && (arg_revert & (1U << k)))
                        r = sd_bus_message_append(call, "s", knob_to_string(k));
        if (r >= 0)
                r = sd_bus_message_close_container(call);
        if (r >= 0)
                r = sd_bus_message_append(call, "u", flags);
        r = client_send(bus, call, r, 0, "revert the link", link, &reply);
        if (r >= 0)
                r = sd_bus_message_enter_container(reply, 'a', "(sbs)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(sbs)", &path, &gone, &values)) > 0) {
                if (gone)
                        output_line(stdout, "Removed %s (%s).", path, values);
                else
                        output_line(stdout, "Removed %s from %s.", values, path);
                n++;
        }
        if (r >= 0 && n == 0)
                output_line(stdout, "%s has no runtime change%s to revert%s.", link,
                            arg_revert != (1U << _KNOB_MAX) - 1 ? " of the knobs given" : "",
                            flags == 2 ? " in /run/igmpd/runtime.d" : flags == 1 ? " in /etc/igmpd/runtime.d" :
                            " (igmpctl status shows where each value comes from)");
        if (r < 0 && reply)
                failed_errno(r, "read igmpd's answer to the revert");
        return r;
}

int verb_link(int argc, char **argv, sd_bus *bus)
{
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL;
        int r;

        if (arg_revert && arg_knobs_given)
                return usage_error("--revert takes the knobs to revert as its value (--revert=v3-interval), "
                                   "not knob options with values.");
        if (arg_revert && arg_persistent && arg_runtime)
                return usage_error("--revert with both --runtime and --persistent: leave both out to revert "
                                   "both layers.");
        if (!arg_revert && arg_runtime)
                return usage_error("--runtime goes with --revert here (a change without --persistent is a "
                                   "runtime change already).");
        if (!arg_revert && !arg_knobs_given)
                return usage_error("link %s: nothing to do; give knob options (e.g. --v3-interval 200) "
                                   "or --revert.", argv[1]);

        /* 'iptv*' or 'eth[01]' is no link: say so, unless a link has that very name (names may hold
         * * ? [ ]). A '[' without ']' globs nothing (an escape sequence in a name, "\e[2J"). */
        if ((strpbrk(argv[1], "*?") || strchr(strchrnul(argv[1], '['), ']')) &&
            sd_bus_call_method(bus, IGMPD_BUS_NAME, IGMPD_MANAGER_PATH, IGMPD_MANAGER_INTERFACE, "GetLinkByName",
                               &error, NULL, "s", argv[1]) < 0 &&
            sd_bus_error_has_name(&error, "org.igmpd1.Error.NoSuchLink")) {
                _cleanup_free_ char *shown = utf8_escape_dup(argv[1], UTF8_ESCAPE_SHOWN);

                return usage_error("link takes one link, not a pattern ('%s'); 'igmpctl status %s' shows "
                                   "which links it matches.", strna(shown), strna(shown));
        }
        _cleanup_free_ char *path = NULL;
        r = client_resolve_link(bus, argv[1], NULL, &path);
        if (r < 0)
                return r;

        if (arg_revert)
                r = link_revert(bus, path, argv[1]);
        else {
                r = sd_bus_message_new_method_call(bus, &call, IGMPD_BUS_NAME, path, IGMPD_LINK_INTERFACE, "SetKnobs");
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
                r = client_send(bus, call, r, 0, "set the link's knobs", argv[1], NULL);
        }
        if (r < 0)
                return r;
        if (arg_persistent && !arg_revert && !link_path_in_netns(path))
                warn_shadowed(bus, path, argv[1]);
        return 0;
}

int verb_reconfigure(int argc, char **argv, sd_bus *bus)
{
        _cleanup_(link_selection_done) LinkSelection sel = {};
        int r;

        r = client_resolve_patterns(bus, argv + 1, (size_t) argc - 1, &sel);
        for (size_t i = 0; r >= 0 && i < sel.n; i++) {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL;
                char what[64];

                snprintf(what, sizeof what, "%d", sel.links[i].ifindex);
                r = sd_bus_message_new_method_call(bus, &call, IGMPD_BUS_NAME, sel.links[i].path, IGMPD_LINK_INTERFACE,
                                                   "Reconfigure");
                r = client_send(bus, call, r, 0, "reconfigure the link", what, NULL);
        }
        return r;
}

int verb_reload(int argc, char **argv, sd_bus *bus)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        ClientProblems p = {};
        uint32_t problems = 0;
        int r;

        r = client_call(bus, NULL, IGMPD_MANAGER_INTERFACE, "ReloadEx", 0, "reload igmpd", NULL, &reply, "u",
                        UINT32_C(0));
        if (r > 0 && (r = sd_bus_message_read(reply, "u", &problems)) < 0)
                failed_errno(r, "read igmpd's answer to the reload");
        if (r < 0)
                return r;
        if (problems == 0)
                return 0;

        /* The new configuration is in force without what the problems name: say so, and fail. */
        fprintf(stderr, "igmpd reloaded with %" PRIu32 " problem%s; see igmpd --check.\n", problems,
                problems == 1 ? "" : "s");
        if (client_problems_fetch(bus, &p) >= 0) {
                for (size_t i = 0; i < p.n; i++)
                        fprintf(stderr, "  %s\n", p.lines[i]);
                if (p.total > p.n)
                        fprintf(stderr, "  %s and %zu more.\n", glyph(GLYPH_ELLIPSIS), (size_t) p.total - p.n);
        }
        client_problems_done(&p);
        client_exit_status = EXIT_RELOAD_PROBLEMS;
        return -EUCLEAN;
}
