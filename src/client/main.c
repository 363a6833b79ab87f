/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * igmpctl: parses the command line (knob options come from the knob table), connects to the
 * bus and runs the verb. Exit 0 on success, 2 on bad usage, another
 * status per kind of failure (igmpctl.h, igmpctl(1) EXIT STATUS).
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "igmpctl.h"
#include "macro.h"
#include "netns-util.h"
#include "terminal.h"

typedef struct Verb {
        const char *name;
        int min_args, max_args; /* after the verb; -1 = unlimited */
        int (*run)(int argc, char **argv, sd_bus *bus);
} Verb;

static const Verb verbs[] = {
        { "list",        0, 0,  verb_list },
        { "status",      0, -1, verb_status },
        { "link",        1, 1,  verb_link },
        { "reconfigure", 1, -1, verb_reconfigure },
        { "reload",      0, 0,  verb_reload },
        { "audit",       0, -1, verb_audit },
        { "monitor",     0, 0,  verb_monitor },
        { "kernel",      0, 0,  verb_kernel },
        { "nm",          0, -1, verb_nm }, /* checks its own arguments */
};

/* knob_range_string() with "…" as the locale can show it. */
static const char *range_text(Knob k, char *buf, size_t size)
{
        const char *r = knob_range_string(k), *e = strstr(r, "…");

        if (!e || terminal_is_utf8())
                return r;
        snprintf(buf, size, "%.*s%s%s", (int) (e - r), r, glyph(GLYPH_ELLIPSIS), e + strlen("…"));
        return buf;
}

static void help(void)
{
        printf("Usage: igmpctl [OPTIONS...] COMMAND [ARGS...]\n"
               "\n"
               "Query and change igmpd, the per-link IGMP/MLD report-interval daemon.\n"
               "\n"
               "Commands:\n"
               "  list                     One line per link (the default command)\n"
               "  status [PATTERN...]      A summary; with PATTERN every knob of those links:\n"
               "                           kernel value, wanted value, source\n"
               "  link LINK [KNOB OPTIONS] [--persistent]\n"
               "                           Change knobs at runtime (until reboot, or kept)\n"
               "  link LINK --revert[=KNOB,...] [--runtime|--persistent]\n"
               "                           Remove runtime changes: every knob's, or those given\n"
               "                           (v3-interval, ...), from both layers or /run or /etc\n"
               "  reconfigure PATTERN...   Apply policy to the links again\n"
               "  reload                   Reload the policy files\n"
               "  audit [--follow]         Deprecated sysctl(2) calls seen (and follow new ones)\n"
               "  audit scan [PATH...]     Programs that import or call sysctl(2) (no daemon needed)\n"
               "  monitor                  Print link and knob changes (and who overrode\n"
               "                           a knob) until Ctrl-C\n"
               "  kernel                   Which knobs, audit sources and drift watch work here\n"
               "  nm [PROFILE [KNOB OPTIONS] [--clear] [--runtime] [--reapply]]\n"
               "                           Show or set igmpd's values in NetworkManager profiles\n"
               "\n"
               "Knob options (link, nm; values: durations like 200, 200ms, 0.2s, 1h; versions auto or N):\n");
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                const KnobInfo *i = knob_info(k);
                char opt[48], range[64];

                snprintf(opt, sizeof opt, "--%s %s", i->option, i->kind == KNOB_KIND_VERSION ? "V" : "MS");
                printf("  %-23s  %s (%s)\n", opt, i->name, range_text(k, range, sizeof range));
        }
        printf("  --persistent             Store in /etc/igmpd/runtime.d (survives reboots)\n"
               "                           instead of /run/igmpd/runtime.d; --revert: only there\n"
               "  --revert[=KNOB,...]      Remove the link's runtime changes (of these knobs)\n"
               "  --clear                  nm: remove igmpd's values (before setting knobs)\n"
               "  --runtime                nm: change the profile in memory only, until reboot;\n"
               "                           link --revert: only the temporary /run layer\n"
               "  --reapply                nm: apply the values on the profile's device now\n"
               "\n"
               "Options:\n"
               "  -h --help                Show this help\n"
               "     --version             Show the version\n"
               "     --json=pretty|short   JSON output (keys: see igmpctl(1))\n"
               "     --no-legend           No column headers and footers\n"
               "     --no-pager            Do not pipe the output into a pager\n"
               "     --no-ask-password     Do not let polkit ask for a password\n"
               "  -H --host=[USER@]HOST    Operate on a remote host (over ssh)\n"
               "  -M --machine=CONTAINER   Operate on a local container (systemd-machined)\n"
               "  -n --netns=NAME          LINKs are in network namespace NAME (Namespaces=named;\n"
               "                           .host is igmpd's own); list shows that namespace only\n"
               "     --follow              With audit: keep printing new events\n"
               "\n"
               "LINK is an interface name, alternative name or index, or NETNS/IFNAME for a link of\n"
               "a followed namespace; a PATTERN is a LINK or a shell glob over names and alternative\n"
               "names ('iptv*'). See igmpctl(1).\n");
}

/* --revert, or --revert=KNOB[,KNOB...] with the knob options' names (v3-interval) or the kernel's. */
static int parse_revert(const char *arg)
{
        const char *p = arg;

        if (!arg) {
                arg_revert = (1U << _KNOB_MAX) - 1;
                return 0;
        }
        do {
                size_t len = strcspn(p, ",");
                char word[64];
                Knob k;

                snprintf(word, sizeof word, "%.*s", (int) MIN(len, sizeof word - 1), p);
                k = knob_from_option(word);
                if (k < 0)
                        k = knob_from_string(word);
                if (k < 0)
                        return usage_error("--revert=%s: '%s' is no knob (knobs: v2-interval, v3-interval, igmp-version, "
                                           "mld-v1-interval, mld-v2-interval, mld-version).", arg, word);
                arg_revert |= 1U << k;
                p += len;
        } while (*p++ == ',');
        return 0;
}

static int parse_argv(int argc, char *argv[])
{
        enum {
                ARG_VERSION = 0x100,
                ARG_JSON,
                ARG_REVERT,
                ARG_SWITCH_BASE = 0x180,
                ARG_KNOB_BASE = 0x200,
        };
        static const struct option fixed[] = {
                { "help",       no_argument,       NULL, 'h' },
                { "version",    no_argument,       NULL, ARG_VERSION },
                { "json",       required_argument, NULL, ARG_JSON },
                { "host",       required_argument, NULL, 'H' },
                { "machine",    required_argument, NULL, 'M' },
                { "netns",      required_argument, NULL, 'n' },
                { "revert",     optional_argument, NULL, ARG_REVERT },
        };
        /* Options without a value that set one flag. */
        static const struct {
                const char *name;
                bool *arg, value;
        } switches[] = {
                { "no-legend",       &arg_legend,       false },
                { "persistent",      &arg_persistent,   true },
                { "follow",          &arg_follow,       true },
                { "clear",           &arg_clear,        true },
                { "reapply",         &arg_reapply,      true },
                { "runtime",         &arg_runtime,      true },
                { "no-pager",        &arg_no_pager,     true },
                { "no-ask-password", &arg_ask_password, false },
        };
        /* The knob options come from the knob table. */
        struct option options[ELEMENTSOF(fixed) + ELEMENTSOF(switches) + _KNOB_MAX + 1], *o = options;
        int c, r;

        for (size_t i = 0; i < ELEMENTSOF(fixed); i++)
                *o++ = fixed[i];
        for (size_t i = 0; i < ELEMENTSOF(switches); i++)
                *o++ = (struct option) { switches[i].name, no_argument, NULL, ARG_SWITCH_BASE + (int) i };
        for (Knob k = 0; k < _KNOB_MAX; k++)
                *o++ = (struct option) { knob_info(k)->option, required_argument, NULL, ARG_KNOB_BASE + (int) k };
        *o = (struct option) {};

        opterr = 0;
        /* The leading ':' makes a missing value ':' rather than '?' (an unknown option). */
        while ((c = getopt_long(argc, argv, ":hH:M:n:", options, NULL)) >= 0) {
                if (c >= ARG_SWITCH_BASE && c < ARG_SWITCH_BASE + (int) ELEMENTSOF(switches)) {
                        *switches[c - ARG_SWITCH_BASE].arg = switches[c - ARG_SWITCH_BASE].value;
                        continue;
                }
                if (c >= ARG_KNOB_BASE && c < ARG_KNOB_BASE + _KNOB_MAX) {
                        Knob k = (Knob) (c - ARG_KNOB_BASE);
                        char range[64];

                        /* "--v3-interval --persistent": the value was forgotten (no value of
                         * a knob starts with '-'). */
                        if (optarg[0] == '-' && optarg[1] == '-')
                                return usage_error("option '--%s' needs a value, not the option '%s'. "
                                                   "See igmpctl --help.", knob_info(k)->option, optarg);
                        r = knob_parse_value(k, optarg, &arg_knob[k]);
                        if (r < 0)
                                return usage_error("Invalid value for --%s: '%s' (%s; valid: %s).",
                                                   knob_info(k)->option, optarg,
                                                   r == -ERANGE ? "out of range" : "not understood",
                                                   range_text(k, range, sizeof range));
                        arg_knob_set[k] = arg_knobs_given = true;
                        continue;
                }
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case ARG_VERSION:
                        printf("igmpctl %s\n", PACKAGE_VERSION);
                        return 0;
                case ARG_JSON:
                        if (streq(optarg, "pretty"))
                                arg_json = JSON_PRETTY;
                        else if (streq(optarg, "short"))
                                arg_json = JSON_SHORT;
                        else
                                return usage_error("--json takes 'pretty' or 'short', not '%s'.", optarg);
                        break;
                case 'H':
                case 'M':
                        if (isempty(optarg))
                                return usage_error("option '-%c' needs a %s name, not an empty string.", c,
                                                   c == 'H' ? "host" : "container");
                        *(c == 'H' ? &arg_host : &arg_machine) = optarg;
                        break;
                case 'n':
                        if (!netns_name_valid(optarg))
                                return usage_error("option '-n' needs a network namespace name (as in "
                                                   "/run/netns, or .host), not '%s'.", optarg);
                        arg_netns = optarg;
                        break;
                case ARG_REVERT:
                        r = parse_revert(optarg);
                        if (r < 0)
                                return r;
                        break;
                case ':':
                        return usage_error("option '%s' needs a value. See igmpctl --help.",
                                           argv[optind - 1]);
                default:
                        if (optopt > 0 && optopt < 0x100)
                                return usage_error("Unknown option '-%c'. See igmpctl --help.", optopt);
                        return usage_error("Unknown option '%s'. See igmpctl --help.", argv[optind - 1]);
                }
        }
        return 1;
}

static int check_options_for(const Verb *v)
{
        if (arg_host && arg_machine)
                return usage_error("-H and -M cannot go together: one bus at a time.");
        if (!streq(v->name, "link") && !streq(v->name, "nm") && arg_knobs_given)
                return usage_error("Knob options go with the link and nm commands only.");
        if (!streq(v->name, "link") && (arg_persistent || arg_revert))
                return usage_error("--persistent and --revert go with the link command only.");
        if (!streq(v->name, "nm") && (arg_clear || arg_reapply))
                return usage_error("--clear and --reapply go with the nm command only.");
        if (!streq(v->name, "nm") && !streq(v->name, "link") && arg_runtime)
                return usage_error("--runtime goes with the nm and link --revert commands only.");
        if (!streq(v->name, "audit") && arg_follow)
                return usage_error("--follow goes with the audit command only.");
        return 0;
}

static int run(int argc, char *argv[])
{
        const char *verb_name;
        const Verb *v = NULL;
        sd_bus *bus = NULL;
        int r, n_args;

        r = parse_argv(argc, argv);
        if (r <= 0)
                return r;

        verb_name = optind < argc ? argv[optind] : "list";
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (streq(verbs[i].name, verb_name))
                        v = &verbs[i];
        if (!v)
                return usage_error("Unknown command '%s'. See igmpctl --help.", verb_name);

        n_args = optind < argc ? argc - optind - 1 : 0;
        if (n_args < v->min_args || (v->max_args >= 0 && n_args > v->max_args)) {
                if (v->max_args == 0)
                        return usage_error("%s takes no arguments. See igmpctl --help.", v->name);
                return usage_error("%s needs %s. See igmpctl --help.", v->name,
                                   v->max_args == 1 ? "exactly one LINK" : "at least one LINK or pattern");
        }
        r = check_options_for(v);
        if (r < 0)
                return r;
        if (streq(v->name, "audit") && n_args > 0 && streq(argv[optind + 1], "scan"))
                return verb_audit_scan(argc - optind - 1, argv + optind + 1);

        r = client_connect(&bus);
        if (r < 0)
                return r;

        if (optind < argc)
                r = v->run(argc - optind, argv + optind, bus);
        else
                r = v->run(1, (char *[]) { (char *) "list", NULL }, bus);

        sd_bus_flush_close_unref(bus);
        return r;
}

int main(int argc, char *argv[])
{
        int r;

        /* Before anything is printed: colours and glyphs depend on the terminal stdout is now,
         * not on the pager a verb may start. */
        terminal_init();
        r = run(argc, argv);
        pager_close();

        /* Each kind of failure has its exit status (igmpctl.h); usage errors alone exit 2. */
        if (r >= 0)
                return EXIT_SUCCESS;
        return client_exit_status > 0 ? client_exit_status : EXIT_FAILURE;
}
