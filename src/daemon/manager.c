/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The Manager: event loop, configuration sets, the link table, and the glue between netlink
 * events and link configuration. See manager.h for the layering.
 */

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "audit.h"
#include "conf-files.h"
#include "drift.h"
#include "ifname.h"
#include "link.h"
#include "log.h"
#include "manager.h"
#include "netlink.h"
#include "nm.h"
#include "sysctl-util.h"

void manager_config_diag(void *userdata, const char *file, unsigned line, const char *message)
{
        if (file && line > 0)
                log_warning("%s:%u: %s", file, line, message);
        else if (file)
                log_warning("%s: %s", file, message);
        else
                log_warning("%s", message);
}

static int on_sigterm(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
        Manager *m = userdata;

        log_info("Received SIG%s, stopping.", sigabbrev_np((int) si->ssi_signo));
        (void) sd_notify(false, "STOPPING=1");
        return sd_event_exit(m->event, 0);
}

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
        (void) manager_reload(userdata);
        return 0;
}

static void manager_link_effective(const LinkInfo *info, KnobValue out[_KNOB_MAX], const PolicyFile **matched,
                                   size_t max_matched, size_t *ret_n_matched, void *userdata)
{
        manager_effective(userdata, info, out, matched, max_matched, ret_n_matched);
}

static int manager_link_ignored(int ifindex, char **ret, void *userdata)
{
        Manager *m = userdata;

        return nm_ignored_source(m->nm, ifindex, ret);
}

/* ---- the record of originals (see originals.h) ---- */

static int manager_forget_record(Manager *m, int ifindex)
{
        if (m->n_originals_forget == m->n_originals_forget_allocated) {
                size_t n = MAX(m->n_originals_forget_allocated * 2, (size_t) 16);
                int *a = realloc(m->originals_forget, n * sizeof *a);

                if (!a)
                        return -ENOMEM;
                m->originals_forget = a;
                m->n_originals_forget_allocated = n;
        }
        m->originals_forget[m->n_originals_forget++] = ifindex;
        return 0;
}

/* Writes what changed in the links' records since the last time: appended, or the whole record
 * anew (the first time, after a failure, when the appends outgrew it, or with rewrite). A
 * failure is said once; igmpd goes on configuring links without a record then (as it did
 * before there was one: a crash would lose the originals). */
static void manager_write_originals(Manager *m, bool rewrite)
{
        _cleanup_free_ char *buf = NULL;
        size_t len = 0, allocated = 0, i = 0;
        void *v;
        int r;

        if (!m->originals.dir || (!m->originals_dirty && !rewrite))
                return;
        rewrite = rewrite || originals_journal_wants_rewrite(&m->originals);

        while (intmap_iterate(&m->links, &i, &v)) {
                Link *l = v;
                OriginalEntry e;

                if (!rewrite && !l->record_dirty)
                        continue;
                link_record_entry(l, &e);
                if (rewrite && !memchr(e.set, true, sizeof e.set))
                        continue;
                if (originals_format_entry(&e, &buf, &len, &allocated) < 0) {
                        log_oom();
                        return; /* still dirty: tried again with the next record */
                }
        }
        for (size_t j = 0; !rewrite && j < m->n_originals_forget; j++) {
                OriginalEntry e = { .ifindex = m->originals_forget[j] };

                if (originals_format_entry(&e, &buf, &len, &allocated) < 0) {
                        log_oom();
                        return;
                }
        }

        if (rewrite)
                r = originals_journal_rewrite(&m->originals, buf ?: "", len);
        else
                r = len > 0 ? originals_journal_append(&m->originals, buf, len) : 0;
        if (r < 0) {
                if (!m->originals_failed)
                        log_warning_errno(r, "Failed to record the knob values found before igmpd changed them "
                                          "in %s/" ORIGINALS_NAME ", continuing without: should igmpd crash, a "
                                          "policy removed afterwards would not put them back: %m",
                                          m->originals.dir);
                m->originals_failed = true; /* the next write is a whole one, with everything */
        } else if (m->originals_failed) {
                log_info("Recording the knob values found before igmpd changed them works again (%s/" ORIGINALS_NAME ").",
                         m->originals.dir);
                m->originals_failed = false;
        }

        i = 0;
        while (intmap_iterate(&m->links, &i, &v))
                ((Link *) v)->record_dirty = false;
        m->n_originals_forget = 0;
        m->originals_dirty = false;
}

/* The end of a batch: writes the records its writes wait for, then configures the links that
 * wait. A link never announced is announced now; notify false leaves telling the observer of
 * the others' changes to the caller. */
static int manager_ref_links(Manager *m, Link ***ret, size_t *ret_n);
static void links_unref(Link **links, size_t n);

static void manager_end_batch(Manager *m, bool notify)
{
        Link **links = NULL;
        size_t n = 0;

        manager_write_originals(m, false);
        /* With a reference each: configuring a link may find it gone and drop it from the table. */
        if (manager_ref_links(m, &links, &n) < 0) {
                log_oom();
                return;
        }
        for (size_t i = 0; i < n; i++) {
                Link *l = links[i];

                if (!l->record_wait || l->gone)
                        continue;
                if (!l->announced) {
                        (void) link_configure(l);
                        if (!l->record_wait)
                                link_notify(l, LINK_EVENT_ADDED);
                } else if (notify)
                        (void) link_reconfigure(l);
                else
                        (void) link_configure(l);
        }
        links_unref(links, n);
}

static int manager_on_originals_batch_end(sd_event_source *s, void *userdata)
{
        manager_end_batch(userdata, true);
        return 0;
}

/* LinkContext.record: a link's record changed. Before a write, it is written at once, unless a
 * batch is being handled: then the writes wait for the end of the batch. */
static int manager_link_record(Link *l, bool before_write, void *userdata)
{
        Manager *m = userdata;

        if (!m->originals.dir)
                return 0; /* not recording (igmpd --check, --restore) */
        m->originals_dirty = true;
        if (before_write && !m->originals_batch) {
                manager_write_originals(m, false);
                return 0;
        }
        /* Link events: after the burst being read. Other batches end it themselves. */
        (void) sd_event_source_set_enabled(m->originals_source, SD_EVENT_ONESHOT);
        return before_write ? -EAGAIN : 0;
}

static void manager_on_link_renamed(Link *l, const char *old_ifname, char *const *old_altnames, void *userdata);
static void manager_on_link_vanished(Link *l, void *userdata);

int manager_new(const char *root, Manager **ret)
{
        _cleanup_(manager_freep) Manager *m = NULL;
        sigset_t mask;
        int r;

        m = calloc(1, sizeof *m);
        if (!m)
                return -ENOMEM;
        for (KnobFamily f = 0; f < _KNOB_FAMILY_MAX; f++)
                m->link_ctx.conf_fd[f] = -EBADF;
        m->link_ctx.ioctl_fd = -EBADF;
        m->link_ctx.effective = manager_link_effective;
        m->link_ctx.ignored = manager_link_ignored;
        m->link_ctx.effective_userdata = m;
        m->link_ctx.record = manager_link_record;
        m->link_ctx.record_userdata = m;
        m->originals.fd = -EBADF;
        m->link_ctx.renamed = manager_on_link_renamed;
        m->link_ctx.vanished = manager_on_link_vanished;
        m->link_ctx.table_userdata = m;
        daemon_config_defaults(&m->config);

        m->root = strdup(root ?: "");
        m->proc_root = strdup("/proc");
        if (!m->root || !m->proc_root)
                return -ENOMEM;

        r = sd_event_default(&m->event);
        if (r < 0)
                return r;
        m->link_ctx.event = m->event;
        /* Under systemd with WatchdogSec=, the loop itself sends WATCHDOG=1: a hung loop is
         * restarted. Without $WATCHDOG_USEC this adds no timer, so idle stays idle. */
        r = sd_event_set_watchdog(m->event, true);
        if (r < 0)
                return r;

        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
                return negative_errno();
        r = sd_event_add_signal(m->event, &m->sigterm_source, SIGTERM, on_sigterm, m);
        if (r < 0)
                return r;
        r = sd_event_add_signal(m->event, &m->sigint_source, SIGINT, on_sigterm, m);
        if (r < 0)
                return r;
        r = sd_event_add_signal(m->event, &m->sighup_source, SIGHUP, on_sighup, m);
        if (r < 0)
                return r;
        r = sd_event_add_defer(m->event, &m->originals_source, manager_on_originals_batch_end, m);
        if (r < 0)
                return r;
        (void) sd_event_source_set_enabled(m->originals_source, SD_EVENT_OFF);
        (void) sd_event_source_set_description(m->originals_source, "originals-batch");

        for (KnobFamily f = 0; f < _KNOB_FAMILY_MAX; f++)
                m->link_ctx.conf_fd[f] = sysctl_open_conf_dir(m->proc_root, knob_family_dir(f));
        if (m->link_ctx.conf_fd[KNOB_FAMILY_IPV4] < 0)
                return m->link_ctx.conf_fd[KNOB_FAMILY_IPV4];

        m->link_ctx.ioctl_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (m->link_ctx.ioctl_fd < 0)
                return negative_errno();

        r = drift_watch_new(m->event, manager_on_drift_write, manager_on_drift_lost, manager_on_drift_state, m,
                            &m->drift);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(m);
        return 0;
}

/* "DEV:INO" of the network namespace igmpd runs in, or "" if unknown. */
static void manager_netns_id(Manager *m, char buf[ORIGINALS_NETNS_MAX])
{
        _cleanup_free_ char *path = NULL;
        struct stat st;

        buf[0] = '\0';
        if (asprintf(&path, "%s/self/ns/net", m->proc_root) < 0 || stat(path, &st) < 0)
                return;
        snprintf(buf, ORIGINALS_NETNS_MAX, "%llu:%llu", (unsigned long long) st.st_dev,
                 (unsigned long long) st.st_ino);
}

Manager *manager_free(Manager *m)
{
        void **links = NULL;
        size_t n = 0;

        if (!m)
                return NULL;

        /* A clean stop leaves the record whole and compact (or none, with nothing to undo). */
        if (m->ready && !m->check_only)
                manager_write_originals(m, true);
        originals_done(&m->saved_originals);
        originals_journal_done(&m->originals);
        free(m->originals_forget);
        sd_event_source_disable_unref(m->originals_source);
        m->audit = audit_manager_free(m->audit); /* removes the audit rules it added */
        manager_refresh_done(m);
        m->drift = drift_watch_free(m->drift);   /* detaches the program */
        netlink_free(m->netlink);
        if (intmap_values(&m->links, &links, &n) >= 0) {
                for (size_t i = 0; i < n; i++) {
                        link_detach(links[i]);
                        link_unref(links[i]);
                }
                free(links);
        }
        intmap_done(&m->links);
        namemap_done(&m->links_by_name);
        nm_free(m->nm);

        policy_free(m->policy);
        runtime_config_free(m->runtime);
        config_problems_done(&m->problems);

        sd_event_source_unref(m->sigterm_source);
        sd_event_source_unref(m->sigint_source);
        sd_event_source_unref(m->sighup_source);
        sd_event_unref(m->event);

        for (KnobFamily f = 0; f < _KNOB_FAMILY_MAX; f++)
                safe_close(m->link_ctx.conf_fd[f]);
        safe_close(m->link_ctx.ioctl_fd);
        free(m->root);
        free(m->proc_root);
        free(m);
        return NULL;
}

void manager_probe_kernel(Manager *m)
{
        LinkContext *ctx = &m->link_ctx;
        char line[512];
        size_t off = 0;

        for (Knob k = 0; k < _KNOB_MAX; k++) {
                const KnobInfo *i = knob_info(k);
                int fd = ctx->conf_fd[i->family];
                char path[96];

                snprintf(path, sizeof path, "default/%s", i->name);
                ctx->knob_supported[k] = fd >= 0 && faccessat(fd, path, F_OK, 0) == 0;
                off += (size_t) snprintf(line + off, sizeof line - off, "%s%s %s", k > 0 ? ", " : "", i->name,
                                         ctx->knob_supported[k] ? "yes" : "no");
        }
        log_info("Kernel knobs: %s%s.", line,
                 ctx->conf_fd[KNOB_FAMILY_IPV6] < 0 ? " (no IPv6 in this kernel or namespace)" : "");
}

typedef struct ConfigSet {
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

typedef struct ConfigLoad {
        Manager *manager;
        ConfigSet *set;
} ConfigLoad;

/* Every problem is logged and kept with the set it was found in. */
static void config_load_diag(void *userdata, const char *file, unsigned line, const char *message)
{
        ConfigLoad *c = userdata;

        (void) config_problems_add(&c->set->problems, file, line, message); /* counted even on ENOMEM */
        manager_config_diag(c->manager, file, line, message);
}

static void config_load_file(void *userdata, const char *path, ConfigFileUse use)
{
        Manager *m = ((ConfigLoad *) userdata)->manager;

        if (m->config_file)
                m->config_file(m->config_file_userdata, path, use);
}

static int config_set_load(Manager *m, ConfigSet *ret)
{
        _cleanup_(config_set_done) ConfigSet s = {};
        ConfigLoad c = { .manager = m, .set = &s };
        int r;

        r = daemon_config_load(&s.config, m->root, config_load_diag, config_load_file, &c);
        if (r < 0)
                return r;

        r = policy_load(m->root, config_load_diag, config_load_file, &c, &s.policy);
        if (r < 0)
                return r;

        r = runtime_config_load(m->root, config_load_diag, config_load_file, &c, &s.runtime);
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

        policy_free(m->policy);
        runtime_config_free(m->runtime);
        config_problems_done(&m->problems);
        m->policy = s.policy;
        m->runtime = s.runtime;
        m->config = s.config;
        m->problems = s.problems;
        m->n_config_errors = s.problems.n_total;
        m->link_ctx.drift_action = m->config.drift_action;
        log_info("Loaded %zu policy file%s (%zu masked, %zu skipped as invalid), %zu runtime override%s%s.",
                 m->policy->n_files, m->policy->n_files == 1 ? "" : "s", m->policy->n_masked,
                 m->policy->n_skipped, m->runtime->n,
                 m->runtime->n == 1 ? "" : "s", m->n_config_errors > 0 ? ", with problems (see above)" : "");
        return 0;
}

/* Reconfigures every link after a reload. before[] holds the links' snapshots, taken while the
 * previous policy (which links borrow file paths from) was still alive; NULL when nobody
 * observes the links (or out of memory): no change is announced then. */
static void manager_configure_all(Manager *m, Link **links, size_t n, const LinkSnapshot *before)
{
        bool batch = m->originals_batch;

        /* One record for the whole pass, before its writes. */
        m->originals_batch = true;
        for (size_t i = 0; i < n; i++)
                (void) link_configure(links[i]);
        m->originals_batch = batch;
        manager_end_batch(m, !before);
        for (size_t i = 0; before && i < n; i++)
                link_end_change(links[i], &before[i]);
}

/* Every link, each with a reference: a configuration pass may drop any of them from the table
 * (the kernel no longer has it) while the caller still walks the array. */
static int manager_ref_links(Manager *m, Link ***ret, size_t *ret_n)
{
        void **links = NULL;
        size_t n = 0;
        int r;

        r = intmap_values(&m->links, &links, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                link_ref(links[i]);
        *ret = (Link **) links;
        *ret_n = n;
        return 0;
}

static void links_unref(Link **links, size_t n)
{
        for (size_t i = 0; i < n; i++)
                link_unref(links[i]);
        free(links);
}

/* NetworkManager's values for a link changed: configure that link again. */
static void manager_on_nm_changed(int ifindex, void *userdata)
{
        _cleanup_(link_unrefp) Link *l = link_ref(manager_get_link(userdata, ifindex));

        if (l)
                (void) link_reconfigure(l);
}

/* [Daemon] NetworkManager=: follow NetworkManager's profiles or not (at start and on reload).
 * The follower gets its bus from the D-Bus face (nm_set_bus()), told by the reloaded hook. */
static void manager_follow_network_manager(Manager *m)
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

        log_info("Reloading configuration.");
        (void) sd_notify(false, "RELOADING=1");
        if (manager_ref_links(m, &links, &n) < 0) {
                (void) sd_notify(false, "READY=1");
                return log_oom(); /* the previous configuration stays in force */
        }
        if (m->link_ctx.observer)
                before = calloc(MAX(n, (size_t) 1), sizeof *before);
        for (size_t i = 0; before && i < n; i++)
                link_begin_change(links[i], &before[i]);

        r = manager_load_config(m);
        if (r >= 0) {
                manager_follow_network_manager(m);
                if (m->audit)
                        audit_manager_reload(m->audit, &m->config, m->kmsg_path);
                drift_watch_start(m->drift, m->config.drift_watch);
                manager_configure_all(m, links, n, before);
                if (m->reloaded)
                        m->reloaded(m, m->reloaded_userdata);
        }
        links_unref(links, n);
        manager_notify_status(m);
        (void) sd_notify(false, "READY=1");
        return r;
}

void manager_effective(Manager *m, const LinkInfo *info, KnobValue out[_KNOB_MAX],
                       const PolicyFile **matched, size_t max_matched, size_t *ret_n_matched)
{
        policy_merge(m->policy, info, out, matched, max_matched, ret_n_matched);
        nm_merge(m->nm, info->ifindex, out);
        runtime_config_merge(m->runtime, info->name, out);
}

Link *manager_get_link(Manager *m, int ifindex)
{
        return intmap_get(&m->links, ifindex);
}

Link *manager_get_link_by_name(Manager *m, const char *name)
{
        return namemap_get(&m->links_by_name, name);
}

/* ---- the link table ---- */

/* Points the link's names at it: the latest statement of who carries a name wins. */
static void manager_index_names(Manager *m, Link *l)
{
        int r;

        r = namemap_put(&m->links_by_name, l->ifname, l);
        for (char **a = l->altnames; r >= 0 && a && *a; a++)
                r = namemap_put(&m->links_by_name, *a, l);
        if (r < 0)
                log_link_warning_errno(l, r, "Failed to index the link's names, it can be found by "
                                       "ifindex only until its next event: %m");
}

/* Drops the names that still point at the link (another link may have claimed one since). */
static void manager_unindex_names(Manager *m, Link *l, const char *ifname, char *const *altnames)
{
        (void) namemap_remove_value(&m->links_by_name, ifname, l);
        for (char *const *a = altnames; a && *a; a++)
                (void) namemap_remove_value(&m->links_by_name, *a, l);
}

/* The table takes a reference. 0 or -ENOMEM. */
static int manager_add_link(Manager *m, Link *l)
{
        int r;

        r = intmap_put(&m->links, l->ifindex, l);
        if (r < 0)
                return r;
        link_ref(l);
        manager_index_names(m, l);
        return 0;
}

/* Announces the removal, takes the link out of both maps and drops the table's reference. */
static void manager_drop_link(Manager *m, Link *l)
{
        link_notify(l, LINK_EVENT_REMOVED); /* while the link can still be found */
        if (link_has_record(l) && m->originals.dir) {
                if (manager_forget_record(m, l->ifindex) < 0)
                        log_oom(); /* its line stays: harmless, ifindexes are not reused */
                else
                        (void) manager_link_record(l, false, m);
        }
        if (intmap_get(&m->links, l->ifindex) == l)
                (void) intmap_remove(&m->links, l->ifindex);
        manager_unindex_names(m, l, l->ifname, l->altnames);
        log_link_debug(l, "Link %d removed.", l->ifindex);
        link_detach(l);
        link_unref(l);
}

static void manager_on_link_renamed(Link *l, const char *old_ifname, char *const *old_altnames, void *userdata)
{
        Manager *m = userdata;

        manager_unindex_names(m, l, old_ifname, old_altnames);
        manager_index_names(m, l);
}

static void manager_on_link_vanished(Link *l, void *userdata)
{
        manager_drop_link(userdata, l);
}

static int compare_links(const void *a, const void *b)
{
        const Link *x = *(const Link *const *) a, *y = *(const Link *const *) b;

        return (x->ifindex > y->ifindex) - (x->ifindex < y->ifindex);
}

int manager_sorted_links(Manager *m, Link ***ret, size_t *ret_n)
{
        void **links = NULL;
        size_t n = 0;
        int r;

        r = intmap_values(&m->links, &links, &n);
        if (r < 0)
                return r;
        if (n > 1)
                qsort(links, n, sizeof *links, compare_links);
        *ret = (Link **) links;
        *ret_n = n;
        return 0;
}

static void manager_handle_link_message(Manager *m, const LinkMessage *msg)
{
        _cleanup_(link_unrefp) Link *l = NULL; /* configuring it may find it gone */
        LinkSnapshot before = {};
        bool reconfigure = true, is_new = false;
        unsigned suspects = 0;
        int r;

        if (msg->ifindex <= 0 || !msg->ifname)
                return;

        /* A write made before this message left the kernel is in the drift watch's ring by now:
         * hear who made it before the message's values are believed. */
        drift_watch_flush(m->drift);

        l = link_ref(manager_get_link(m, msg->ifindex));
        if (!l) {
                const OriginalEntry *saved;

                r = link_new(&m->link_ctx, msg, &l);
                if (r < 0) {
                        log_oom();
                        return;
                }
                r = manager_add_link(m, l);
                if (r < 0) {
                        log_oom();
                        return;
                }
                log_link_debug(l, "New link %d.", l->ifindex);
                is_new = true;
                saved = originals_find(&m->saved_originals, l->ifindex, l->ifname);
                if (saved)
                        originals_take(saved, msg->devconf, msg->devconf_known, l->original, l->written,
                                       l->changed);
        } else {
                link_begin_change(l, &before);
                r = link_update(l, msg, &reconfigure, &suspects);
                if (r < 0) {
                        log_oom();
                        return;
                }
                /* This message is the kernel's latest word on the names it states. */
                manager_index_names(m, l);
        }
        l->seen = true;

        if (suspects && !m->check_only)
                link_check_knobs(l, suspects, NULL);

        if (reconfigure && !m->check_only)
                (void) link_configure(l);
        if (is_new && !l->record_wait)
                link_notify(l, LINK_EVENT_ADDED); /* else once configured (manager_end_batch()) */
        else if (!is_new)
                link_end_change(l, &before);
}

/* Link events come in bursts (one netlink read hands over many): the records their writes need
 * are written once, after the burst (manager_on_originals_batch_end()). */
static void manager_on_link_message(const LinkMessage *msg, void *userdata)
{
        Manager *m = userdata;
        bool batch = m->originals_batch;

        m->originals_batch = true;
        manager_handle_link_message(m, msg);
        m->originals_batch = batch;
}

static void manager_on_link_removed(int ifindex, void *userdata)
{
        Manager *m = userdata;
        Link *l = manager_get_link(m, ifindex);

        if (l)
                manager_drop_link(m, l);
}

static void manager_on_ipv6_changed(int ifindex, void *userdata)
{
        Manager *m = userdata;
        _cleanup_(link_unrefp) Link *l = link_ref(manager_get_link(m, ifindex));
        bool reconfigure = false;

        if (!l || l->ipv6_available)
                return;
        LinkMessage same = {
                .ifindex = l->ifindex, .ifname = l->ifname, .altnames = l->altnames, .kind = l->kind,
                .type = l->type, .mac = l->has_mac ? &l->mac : NULL, .flags = l->flags, .mtu = l->mtu,
        };
        LinkSnapshot before;
        bool batch = m->originals_batch;

        m->originals_batch = true;
        link_begin_change(l, &before);
        if (link_update(l, &same, &reconfigure, NULL) >= 0 && reconfigure)
                (void) link_configure(l);
        link_end_change(l, &before);
        m->originals_batch = batch;
}

#define ENUMERATE_ATTEMPTS 3

int manager_enumerate(Manager *m)
{
        Link **links = NULL;
        size_t n = 0;
        int r;

        if (manager_ref_links(m, &links, &n) < 0)
                return log_oom();
        for (size_t i = 0; i < n; i++)
                links[i]->seen = false;

        /* One record for the whole dump, before its writes. */
        bool batch = m->originals_batch;
        m->originals_batch = true;
        for (int attempt = 1;; attempt++) {
                r = netlink_enumerate(m->netlink);
                if (r != -EAGAIN || attempt >= ENUMERATE_ATTEMPTS)
                        break;
                log_debug("Link dump interrupted by concurrent changes, dumping again.");
        }
        m->originals_batch = batch;
        if (!batch)
                manager_end_batch(m, true);
        if (r == -EAGAIN)
                log_debug("Link dump still interrupted after %d attempts; link events fill the gaps.",
                          ENUMERATE_ATTEMPTS);
        else if (r < 0) {
                links_unref(links, n);
                return log_error_errno(r, "Failed to enumerate links: %m");
        }

        /* Links missing from the dump vanished while we were not listening — or an interrupted
         * dump skipped them. Ask the kernel about each before forgetting it (glibc says ENXIO
         * for an ifindex it does not have). */
        for (size_t i = 0; i < n; i++) {
                Link *l = links[i];
                char name[IF_NAMESIZE];

                if (l->seen || l->gone)
                        continue;
                if (!if_indextoname((unsigned) l->ifindex, name) && (errno == ENXIO || errno == ENODEV))
                        manager_drop_link(m, l);
        }
        links_unref(links, n);
        return 0;
}

/* ENOBUFS: the kernel dropped link events. Nothing tells which, so take a fresh full picture
 * and reconcile every link against it. */
static void manager_on_netlink_overrun(void *userdata)
{
        Manager *m = userdata;

        m->n_resyncs++;
        log_warning("Netlink receive buffer overrun (ENOBUFS), link events were lost; "
                    "re-enumerating all links (resync #%u).", m->n_resyncs);
        (void) manager_enumerate(m);
}

static const NetlinkHandlers manager_netlink_handlers = {
        .link = manager_on_link_message,
        .link_removed = manager_on_link_removed,
        .ipv6_changed = manager_on_ipv6_changed,
        .overrun = manager_on_netlink_overrun,
        .refreshed = manager_on_refreshed,
        .refresh_done = manager_on_refresh_done,
};

int manager_open_netlink(Manager *m)
{
        int r;

        r = netlink_new(m->event, m->config.netlink_rcvbuf, &manager_netlink_handlers, m, &m->netlink);
        if (r < 0)
                return log_error_errno(r, "Failed to open the netlink socket: %m");
        return 0;
}

void manager_notify_status(Manager *m)
{
        (void) sd_notifyf(false, "STATUS=Managing %zu links, %zu policies", intmap_size(&m->links),
                          m->policy ? m->policy->n_files : 0);
}

/* The audit's ifindex resolver: the name the kernel gives the ifindex now. */
static int manager_resolve_ifindex(int ifindex, char *buf, size_t len, void *userdata)
{
        char name[IF_NAMESIZE];

        if (ifindex <= 0 || !if_indextoname((unsigned) ifindex, name))
                return -ENODEV;
        if (strlen(name) >= len)
                return -ENOBUFS;
        strcpy(buf, name);
        return 0;
}

/* The deprecated sysctl(2) audit: optional, never stops the daemon. */
static void manager_start_audit(Manager *m)
{
        int r;

        r = audit_manager_new(m->event, m->root, m->config.audit_history, manager_resolve_ifindex, m, &m->audit);
        if (r < 0) {
                log_warning_errno(r, "Failed to set up the deprecated sysctl(2) audit, continuing without: %m");
                return;
        }
        audit_manager_start(m->audit, &m->config, m->kmsg_path);
}

int manager_read_originals(Manager *m, Originals *ret)
{
        _cleanup_free_ char *dir = path_join_root(m->root, ORIGINALS_DIR);
        char netns[ORIGINALS_NETNS_MAX];

        if (!dir)
                return -ENOMEM;
        manager_netns_id(m, netns);
        return originals_load(dir, netns, ret);
}

/* Reads what the last run recorded, for the links of the first pass, and sets up this run's
 * record; the first pass writes it anew. */
static void manager_load_originals(Manager *m)
{
        _cleanup_free_ char *dir = path_join_root(m->root, ORIGINALS_DIR);
        char netns[ORIGINALS_NETNS_MAX];
        int r;

        r = manager_read_originals(m, &m->saved_originals);
        if (r < 0)
                log_warning_errno(r, "Failed to read the knob values recorded by the last run, ignoring: %m");
        manager_netns_id(m, netns);
        if (!dir || originals_journal_init(&m->originals, dir, netns) < 0) {
                log_oom();
                return;
        }
        m->originals_dirty = true;
}

/* "Configured 3 of 4 links, ready; 1 failed (see above); 2 unmanaged (…)." Only links some
 * source sets a knob on count: loopback and links no policy matches are not failures. The
 * "Configured N of M links" and "links, ready" parts are what scripts and tests look for. */
static void manager_log_ready(Manager *m)
{
        size_t n[_LINK_STATE_MAX] = {}, i = 0, managed;
        char failed[160] = "", unmanaged[96] = "";
        void *v;

        while (intmap_iterate(&m->links, &i, &v)) {
                LinkState s = ((Link *) v)->state;
                if (s >= 0 && s < _LINK_STATE_MAX)
                        n[s]++;
        }
        managed = n[LINK_STATE_CONFIGURED] + n[LINK_STATE_FAILED] + n[LINK_STATE_PENDING];
        if (n[LINK_STATE_FAILED] > 0)
                snprintf(failed, sizeof failed, "; %zu failed (%s)", n[LINK_STATE_FAILED],
                         m->link_ctx.n_write_denied > 0 ? "writes refused, see above" : "see above");
        if (n[LINK_STATE_PENDING] > 0)
                snprintf(failed + strlen(failed), sizeof failed - strlen(failed), "; %zu pending",
                         n[LINK_STATE_PENDING]);
        if (n[LINK_STATE_UNMANAGED] > 0)
                snprintf(unmanaged, sizeof unmanaged, "; %zu unmanaged (no source sets any of %s knobs)",
                         n[LINK_STATE_UNMANAGED], n[LINK_STATE_UNMANAGED] == 1 ? "its" : "their");
        log_info("Configured %zu of %zu links, ready%s%s.", n[LINK_STATE_CONFIGURED], managed, failed, unmanaged);
}

int manager_start(Manager *m)
{
        int r;

        r = manager_open_netlink(m);
        if (r < 0)
                return r;

        if (!m->check_only) {
                manager_load_originals(m);
                /* Asked now, attached while the first pass runs. */
                drift_watch_start(m->drift, m->config.drift_watch);
        }
        r = manager_enumerate(m);
        originals_done(&m->saved_originals); /* they belong to the links present now */
        if (r < 0)
                return r;

        manager_start_audit(m);
        m->ready = true;
        manager_log_ready(m);
        manager_notify_status(m);
        (void) sd_notify(false, "READY=1");

        /* The D-Bus face comes next (main.c), after the kernel-facing job, and never stops it. */
        manager_follow_network_manager(m);
        return 0;
}

int manager_run(Manager *m)
{
        return sd_event_loop(m->event);
}
