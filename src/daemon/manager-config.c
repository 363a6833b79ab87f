/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The Manager's configuration sets: loading policy, runtime overrides and [Daemon] settings as
 * one set (kept whole, or not taken at all), the reload that swaps a new set in and
 * reconfigures every link, the effective values the set gives a link (policy < NetworkManager <
 * runtime), and following NetworkManager as [Daemon] NetworkManager= says.
 */

#include <stdlib.h>
#include <systemd/sd-daemon.h>

#include "audit.h"
#include "drift.h"
#include "link.h"
#include "log.h"
#include "manager-internal.h"
#include "manager.h"
#include "nm.h"

void manager_config_diag(void *userdata, const char *file, unsigned line, const char *message)
{
        if (file && line > 0)
                log_warning("%s:%u: %s", file, line, message);
        else if (file)
                log_warning("%s: %s", file, message);
        else
                log_warning("%s", message);
}

typedef struct ConfigSet {
        Manager *manager; /* being loaded for */
        Policy *policy;
        RuntimeConfig *runtime;
        DaemonConfig config;
        ConfigProblems problems; /* every diagnostic of the load, whichever file it is about */
} ConfigSet;

static void config_set_done(ConfigSet *s)
{
        policy_free(s->policy);
        runtime_config_free(s->runtime);
        config_problems_done(&s->problems);
        *s = (ConfigSet) {};
}

/* Every problem is logged and kept with the set it was found in. */
static void config_load_diag(void *userdata, const char *file, unsigned line, const char *message)
{
        ConfigSet *s = userdata;

        (void) config_problems_add(&s->problems, file, line, message); /* counted even on ENOMEM */
        manager_config_diag(s->manager, file, line, message);
}

static void config_load_file(void *userdata, const char *path, ConfigFileUse use)
{
        Manager *m = ((ConfigSet *) userdata)->manager;

        if (m->config_file)
                m->config_file(m->config_file_userdata, path, use);
}

static int config_set_load(Manager *m, ConfigSet *ret)
{
        _cleanup_(config_set_done) ConfigSet s = { .manager = m };
        int r;

        r = daemon_config_load(&s.config, m->root, config_load_diag, config_load_file, &s);
        if (r < 0)
                return r;

        r = policy_load(m->root, config_load_diag, config_load_file, &s, &s.policy);
        if (r < 0)
                return r;
        bool host = ns_knobs_available(&m->ns_knobs, NS_KNOB_MLD_QRV);
        policy_refuse_namespace_knob(s.policy, NS_KNOB_MLD_QRV, host,
                                     host ? "sets net.ipv6.mld_qrv, one value for the whole host, but the file is for "
                                            "other network namespaces (Namespace= does not match .host)"
                                          : "sets net.ipv6.mld_qrv, one value for the whole host, which only the "
                                            "host's initial network namespace has (igmpd runs in another one, or "
                                            "IPv6 is off)", config_load_diag, &s);

        r = runtime_config_load(m->root, NULL, config_load_diag, config_load_file, &s, &s.runtime);
        if (r < 0)
                return r;

        *ret = s;
        s = (ConfigSet) {};
        return 0;
}

int manager_load_config(Manager *m)
{
        ConfigSet s = {};
        int r;

        r = config_set_load(m, &s);
        if (r < 0)
                return log_error_errno(r, "Failed to load configuration, keeping the previous one: %m");

        config_set_done(&(ConfigSet) { .policy = m->policy, .runtime = m->runtime,
                                       .problems = m->problems }); /* the set taken out */
        m->policy = s.policy;
        m->runtime = s.runtime;
        m->config = s.config;
        m->problems = s.problems;
        m->link_ctx.drift_action = m->config.drift_action;
        log_info("Loaded %zu policy file%s (%zu masked, %zu skipped as invalid), %zu runtime override%s%s.",
                 m->policy->n_files, m->policy->n_files == 1 ? "" : "s", m->policy->n_masked,
                 m->policy->n_skipped, m->runtime->n,
                 m->runtime->n == 1 ? "" : "s", m->problems.n_total > 0 ? ", with problems (see above)" : "");
        return 0;
}

/* Reconfigures every link after a reload. before[] holds the links' snapshots, taken while the
 * previous policy (which links borrow file paths from) was still alive; NULL when nobody
 * observes the links (or out of memory): no change is announced then. */
static void manager_configure_all(Manager *m, Link **links, size_t n, const LinkSnapshot *before)
{
        size_t n_ns = manager_netns_count(m);
        bool batch = m->originals_batch;

        /* One record for the whole pass, before its writes: one per namespace. */
        m->originals_batch = true;
        for (size_t j = 0; j < n_ns; j++)
                manager_netns_get(m, j)->originals_batch = true;
        for (size_t i = 0; i < n; i++)
                (void) link_configure(links[i]);
        m->originals_batch = batch;
        for (size_t j = 0; j < n_ns; j++) {
                Manager *c = manager_netns_get(m, j);
                c->originals_batch = false;
                manager_end_batch(c, !before);
        }
        manager_end_batch(m, !before);
        for (size_t i = 0; before && i < n; i++)
                link_end_change(links[i], &before[i]);
}

/* NetworkManager's values for a link changed: configure that link again. */
static void manager_on_nm_changed(int ifindex, void *userdata)
{
        _cleanup_(link_unrefp) Link *l = link_ref(manager_get_link(userdata, ifindex));

        if (l)
                (void) link_reconfigure(l);
}

/* The follower gets its bus from the D-Bus face (nm_set_bus()), told by the reloaded hook. */
void manager_follow_network_manager(Manager *m)
{
        int r;

        if (m->config.network_manager != NM_MODE_AUTO) {
                m->nm = nm_free(m->nm);
                return;
        }
        if (m->nm) {
                (void) nm_resync(m->nm, NULL, NULL, NULL); /* a reapply since, which NetworkManager does not announce */
                return;
        }
        r = nm_new(manager_on_nm_changed, manager_config_diag, m, &m->nm);
        if (r < 0)
                log_warning_errno(r, "Failed to set up following NetworkManager, ignoring: %m");
}

int manager_reload(Manager *m)
{
        _cleanup_free_ LinkSnapshot *before = NULL;
        Link **links = NULL;
        size_t n = 0;
        int r;

        if (m->first_pass) {
                /* Not half way through it: READY=1 and the rest come at its end, the reload after. */
                log_info("Reload requested during the first pass over the links, reloading when it ends.");
                m->reload_pending = true;
                return 0;
        }
        log_info("Reloading configuration.");
        (void) sd_notify(false, "RELOADING=1");
        /* Every namespace's links: their snapshots borrow from the policy about to be replaced. */
        if (manager_sorted_links(m, &links, &n) < 0) {
                (void) sd_notify(false, "READY=1");
                return log_oom(); /* the previous configuration stays in force */
        }
        for (size_t i = 0; i < n; i++)
                link_ref(links[i]);
        if (m->link_ctx.observer)
                before = calloc(MAX(n, (size_t) 1), sizeof *before);
        for (size_t i = 0; before && i < n; i++)
                link_begin_change(links[i], &before[i]);

        r = manager_load_config(m);
        if (r >= 0) {
                manager_follow_network_manager(m);
                if (m->audit)
                        audit_manager_reload(m->audit, &m->config, m->kmsg_path);
                drift_watch_start(m->drift, m->config.drift_watch, m->drift_all_netns);
                manager_configure_namespace(m);
                manager_netns_reload(m);
                manager_configure_all(m, links, n, before);
        }
        links_unref(links, n);
        if (r >= 0) {
                /* After the links are let go: turning Namespaces= off frees the children. */
                manager_follow_netns(m);
                if (m->reloaded)
                        m->reloaded(m, m->reloaded_userdata);
        }
        manager_notify_status(m, true);
        return r;
}

void manager_configure_namespace(Manager *m)
{
        KnobValue want[_NS_KNOB_MAX] = {};

        /* A followed namespace's Manager has the policy of igmpd's own. */
        policy_merge_namespace(m->parent ? m->parent->policy : m->policy, m->netns_name, want);
        ns_knobs_configure(&m->ns_knobs, want, !m->check_only);
        for (NsKnob k = 0; k < _NS_KNOB_MAX; k++)
                refstr_unref(want[k].source);
}

void manager_effective(Manager *m, const LinkInfo *info, KnobValue out[_KNOB_MAX],
                       const PolicyFile **matched, size_t max_matched, size_t *ret_n_matched)
{
        /* A followed namespace's Manager has the policy of igmpd's own, and no NetworkManager (nm
         * NULL). */
        policy_merge(m->parent ? m->parent->policy : m->policy, info, out, matched, max_matched, ret_n_matched);
        nm_merge(m->nm, info->ifindex, out);
        runtime_config_merge(m->runtime, info->name, out);
}
