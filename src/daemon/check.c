/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * igmpd --check: a dry run for operators, to run before a reload. The problems go to stderr as
 * the daemon logs them (FILE:LINE: …); stdout gets the files read, each link's effective
 * values, and last a summary line.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-bus.h>

#include "array-util.h"
#include "check.h"
#include "conf-parser.h"
#include "link.h"
#include "log.h"
#include "nm.h"
#include "policy.h"

/* How long --check waits for NetworkManager's profiles. */
#define CHECK_NM_TIMEOUT_USEC (10 * 1000000ULL)

static void check_on_nm_changed(int ifindex, void *userdata)
{
        /* Nothing to configure: --check reads the table once it is complete. */
}

/* With [Daemon] NetworkManager=auto the daemon applies the profile active on each device over
 * the policy files: read NetworkManager once, as the daemon would now, so the values and sources
 * shown are the ones that would apply. Says what it could do in note. The bus connection is
 * returned in *ret_bus (m->nm holds on to it too). */
static void check_network_manager(Manager *m, sd_bus **ret_bus, char *note, size_t size)
{
        sd_bus *bus = NULL;
        uint64_t deadline, now;
        bool present = false;
        int r;

        if (m->config.network_manager != NM_MODE_AUTO) {
                snprintf(note, size, "not used ([Daemon] NetworkManager=no)");
                return;
        }
        r = sd_bus_open_system(&bus);
        if (r >= 0)
                r = sd_bus_attach_event(bus, m->event, 0);
        if (r < 0) {
                snprintf(note, size, "NOT included: cannot reach the system bus (%s); the values below leave "
                         "out the profiles NetworkManager would add", strerror(-r));
                sd_bus_unref(bus);
                return;
        }
        *ret_bus = bus;
        r = nm_new(check_on_nm_changed, manager_config_diag, m, &m->nm);
        if (r < 0) {
                snprintf(note, size, "NOT included: %s", strerror(-r));
                return;
        }
        nm_set_bus(m->nm, bus);

        (void) sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        deadline = now + CHECK_NM_TIMEOUT_USEC;
        while (nm_first_read_done(m->nm, &present) == 0 && now < deadline) {
                r = sd_event_run(m->event, deadline - now);
                if (r < 0)
                        break;
                (void) sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        }
        if (nm_first_read_done(m->nm, &present) == 0) {
                snprintf(note, size, "NOT included: NetworkManager did not answer within %llu s",
                         CHECK_NM_TIMEOUT_USEC / 1000000ULL);
                m->nm = nm_free(m->nm);
        } else if (!present)
                snprintf(note, size, "included: NetworkManager is not on the bus (or could not be read), "
                         "so no profile applies now");
        else
                snprintf(note, size, "included: the profiles active now (source NetworkManager:<profile>)");
}

typedef struct CheckFile {
        char *path;
        ConfigFileUse use;
} CheckFile;

typedef struct CheckFiles {
        CheckFile *files;
        size_t n, allocated;
        bool oom;
} CheckFiles;

static void check_on_file(void *userdata, const char *path, ConfigFileUse use)
{
        CheckFiles *c = userdata;

        if (c->oom || ARRAY_GROW(c->files, c->allocated, c->n, 16) < 0) {
                c->oom = true;
                return;
        }
        c->files[c->n] = (CheckFile) { .path = strdup(path), .use = use };
        if (c->files[c->n].path)
                c->n++;
        else
                c->oom = true;
}

static void check_files_done(CheckFiles *c)
{
        for (size_t i = 0; i < c->n; i++)
                free(c->files[i].path);
        free(c->files);
}

/* Why a file was skipped: the problem that said so ("…, file skipped.", "Failed to read …"),
 * else the last one reported for it. NULL if none was kept. */
static const ConfigProblem *skip_reason(const ConfigProblems *p, const char *path)
{
        const ConfigProblem *last = NULL;

        for (size_t i = 0; i < p->n; i++) {
                if (!streq_ptr(p->items[i].file, path))
                        continue;
                last = &p->items[i];
                if (endswith(p->items[i].message, "file skipped."))
                        return last;
        }
        return last;
}

/* For a policy file no link present matches: says so, and what a comma in Name= means (systemd's
 * lists are space-separated: "Name=eth0,eth1" is the one name "eth0,eth1"); else "". */
static void check_file_note(Manager *m, const char *path, Link **links, size_t n, char *buf, size_t size)
{
        const PolicyFile *f = NULL;
        char *const *comma = NULL;

        buf[0] = '\0';
        for (size_t i = 0; m->policy && i < m->policy->n_files && !f; i++)
                if (streq(m->policy->files[i]->path, path))
                        f = m->policy->files[i];
        for (size_t i = 0; f && i < n; i++) {
                LinkInfo info;

                link_to_info(links[i], &info);
                if (policy_match(&f->match, &info))
                        return;
        }
        if (!f)
                return;
        for (char **g = f->match.names; g && *g && !comma; g++)
                comma = strchr(*g, ',') ? g : NULL;
        snprintf(buf, size, ": matches no link present now%s%s%s", comma ? "; Name=" : "", comma ? *comma : "",
                 comma ? " is one name with a comma in it: Name= takes names separated by spaces" : "");
}

/* Returns how many files match no link present now. */
static size_t check_print_files(Manager *m, const CheckFiles *c, Link **links, size_t n)
{
        size_t unmatched = 0;

        printf("Configuration files read, in this order:\n");
        if (c->n == 0)
                printf("    none\n");
        for (size_t i = 0; i < c->n; i++) {
                const CheckFile *f = &c->files[i];
                const ConfigProblem *why;
                char note[512];

                switch (f->use) {
                case CONFIG_FILE_USED:
                        check_file_note(m, f->path, links, n, note, sizeof note);
                        printf("    %s%s\n", f->path, note);
                        unmatched += note[0] != '\0';
                        break;
                case CONFIG_FILE_MASKED:
                        printf("    %s: masked (empty or a link to /dev/null): no file of this name applies\n",
                               f->path);
                        break;
                case CONFIG_FILE_SKIPPED:
                        why = skip_reason(&m->problems, f->path);
                        if (why && why->line > 0)
                                printf("    %s: SKIPPED, line %u: %s\n", f->path, why->line, why->message);
                        else if (why)
                                printf("    %s: SKIPPED: %s\n", f->path, why->message);
                        else
                                printf("    %s: SKIPPED (see above)\n", f->path);
                        break;
                }
        }
        putchar('\n');
        return unmatched;
}

/* Says where igmpd looked when it read no policy file at all: a wrong --config-root, or a fresh
 * installation with no policy yet. */
static void check_warn_no_files(Manager *m, const CheckFiles *c)
{
        char dirs[1024];
        size_t off = 0;

        dirs[0] = '\0';
        for (size_t i = 0; policy_dirs[i]; i++) {
                _cleanup_free_ char *d = path_join_root(m->root, policy_dirs[i]);

                for (size_t j = 0; d && j < c->n; j++) {
                        const char *rest = startswith(c->files[j].path, d);

                        if (c->files[j].use != CONFIG_FILE_MASKED && rest && rest[0] == '/' && !strchr(rest + 1, '/'))
                                return;
                }
                if (off < sizeof dirs)
                        off += (size_t) MAX(0, snprintf(dirs + off, sizeof dirs - off, "%s%s", i > 0 ? ", " : "",
                                                        d ? d : policy_dirs[i]));
        }
        log_warning("No policy file found (looked in %s): igmpd would leave every knob as it is.", dirs);
}

int check_run(Manager *m)
{
        _cleanup_free_ Link **links = NULL;
        _cleanup_(check_files_done) CheckFiles files = {};
        _cleanup_(sd_bus_unrefp) sd_bus *bus = NULL;
        char nm_note[256] = "";
        unsigned problems;
        bool root_missing = false;
        size_t n = 0, n_read = 0, unmatched;
        struct stat st;
        int r;

        m->check_only = true;

        /* A mistyped --config-root would otherwise pass as "no problems": nothing below it exists. */
        if (!isempty(m->root) && stat(m->root, &st) < 0) {
                log_error_errno(errno, "--config-root %s: %m; no configuration below it can be read.", m->root);
                root_missing = true;
        }

        m->config_file = check_on_file;
        m->config_file_userdata = &files;
        r = manager_load_config(m);
        m->config_file = NULL;
        m->config_file_userdata = NULL;
        if (r < 0)
                return r;
        if (files.oom)
                return log_oom();
        if (!root_missing)
                check_warn_no_files(m, &files);
        check_network_manager(m, &bus, nm_note, sizeof nm_note);

        r = manager_open_netlink(m);
        if (r < 0)
                return r;
        r = manager_enumerate(m);
        if (r < 0)
                return r;

        r = manager_sorted_links(m, &links, &n);
        if (r < 0)
                return log_oom();

        unmatched = check_print_files(m, &files, links, n);
        printf("NetworkManager profiles: %s.\n", nm_note);

        /* The namespace knobs ([IGMP]/[MLD] Robustness=), read only. */
        manager_configure_namespace(m);
        printf("Network namespace:\n");
        printf("    %-34s  %11s  %7s  %s\n", "KNOB", "KERNEL", "WANTED", "SOURCE");
        for (NsKnob k = 0; k < _NS_KNOB_MAX; k++) {
                const NsKnobState *s = &m->ns_knobs.knobs[k];
                char now[16] = "unavailable", want[16] = "-";

                if (s->available && s->kernel_known)
                        snprintf(now, sizeof now, "%d", (int) s->kernel);
                if (s->want.set)
                        snprintf(want, sizeof want, "%d", (int) s->want.value);
                printf("    %-34s  %11s  %7s  %s\n", ns_knob_sysctl_name(k), now, want,
                       knob_source_format(knob_value_source(&s->want)));
        }

        for (size_t i = 0; i < n; i++) {
                Link *l = links[i];
                KnobValue eff[_KNOB_MAX] = {};
                LinkInfo info;

                link_to_info(l, &info);
                manager_effective(m, &info, eff, NULL, 0, NULL);
                /* kernel[]: the values the dump just carried. */

                /* The words and formats of igmpctl status LINK. */
                printf("%d: %s%s%s%s\n", l->ifindex, l->ifname, l->kind ? " (" : "", strempty(l->kind), l->kind ? ")" : "");
                printf("    %-34s  %11s  %7s  %s\n", "KNOB", "KERNEL", "WANTED", "SOURCE");
                for (Knob k = 0; k < _KNOB_MAX; k++) {
                        char now[32], want[32];

                        printf("    %-34s  %11s  %7s  %s\n", knob_info(k)->name,
                               l->kernel_known[k] ? knob_format(k, l->kernel[k], now) : "unavailable",
                               knob_format(k, eff[k].set ? eff[k].value : -1, want),
                               knob_source_format(knob_value_source(&eff[k])));
                }
                knob_values_clear(eff);
        }
        if (n > 0)
                putchar('\n');

        /* The summary is the last line, whether stdout and stderr go to one place or not. */
        for (size_t i = 0; i < files.n; i++)
                if (files.files[i].use != CONFIG_FILE_MASKED)
                        n_read++;
        problems = m->problems.n_total + (root_missing ? 1 : 0);
        if (problems == 0) {
                printf("%zu file%s read, no problems", n_read, n_read == 1 ? "" : "s");
                if (unmatched > 0)
                        printf("; %zu match%s no link present now (see the files above)", unmatched,
                               unmatched == 1 ? "es" : "");
                printf(".\n");
                return 0;
        }
        fflush(stdout);
        fprintf(stderr, "%zu file%s read, %u problem%s (see above); fix before reloading.\n", n_read,
                n_read == 1 ? "" : "s", problems, problems == 1 ? "" : "s");
        return 1;
}
