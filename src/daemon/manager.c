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
#include "ifname.h"
#include "link.h"
#include "log.h"
#include "manager.h"
#include "netlink.h"
#include "nm.h"
#include "sysctl-util.h"

#define ORIGINALS_DIR "/run/igmpd"

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
        m->link_ctx.effective_userdata = m;
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

        for (KnobFamily f = 0; f < _KNOB_FAMILY_MAX; f++)
                m->link_ctx.conf_fd[f] = sysctl_open_conf_dir(m->proc_root, knob_family_dir(f));
        if (m->link_ctx.conf_fd[KNOB_FAMILY_IPV4] < 0)
                return m->link_ctx.conf_fd[KNOB_FAMILY_IPV4];

        m->link_ctx.ioctl_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (m->link_ctx.ioctl_fd < 0)
                return negative_errno();

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

/* After a completed first pass, what igmpd changed can be undone by the next start: the
 * original of every knob igmpd changed, with the value it wrote, one entry per link. */
static int manager_save_originals(Manager *m)
{
        _cleanup_free_ char *dir = path_join_root(m->root, ORIGINALS_DIR);
        _cleanup_free_ OriginalEntry *entries = NULL;
        char netns[ORIGINALS_NETNS_MAX];
        size_t n = 0, n_knobs = 0, i = 0;
        void *v;
        int r;

        if (!dir)
                return -ENOMEM;
        manager_netns_id(m, netns);
        if (isempty(netns))
                return -EOPNOTSUPP;
        entries = calloc(MAX(intmap_size(&m->links), (size_t) 1), sizeof *entries);
        if (!entries)
                return -ENOMEM;
        while (intmap_iterate(&m->links, &i, &v)) {
                const Link *l = v;
                OriginalEntry *e = &entries[n];

                if (!ifname_valid(l->ifname) || strlen(l->ifname) >= sizeof e->ifname)
                        continue;
                *e = (OriginalEntry) { .ifindex = l->ifindex };
                strcpy(e->ifname, l->ifname);
                for (Knob k = 0; k < _KNOB_MAX; k++) {
                        if (!l->changed[k] || !l->kernel_known[k])
                                continue;
                        e->set[k] = true;
                        e->original[k] = l->original[k];
                        e->written[k] = l->kernel[k];
                        n_knobs++;
                }
                if (n_knobs > 0 && memchr(e->set, true, sizeof e->set))
                        n++;
        }
        r = originals_save(dir, netns, entries, n);
        if (r > 0)
                log_debug("Saved %zu original knob value(s) to %s/" ORIGINALS_NAME ".", n_knobs, dir);
        return r;
}

Manager *manager_free(Manager *m)
{
        void **links = NULL;
        size_t n = 0;

        if (!m)
                return NULL;

        if (m->ready && !m->check_only) {
                int r = manager_save_originals(m);
                if (r < 0)
                        log_warning_errno(r, "Failed to save the knob values found before igmpd changed them; "
                                          "a policy removed while igmpd is stopped will not be undone: %m");
        }
        originals_done(&m->saved_originals);
        m->audit = audit_manager_free(m->audit); /* removes the audit rules it added */
        manager_refresh_done(m);
        netlink_free(m->netlink);
        if (intmap_values(&m->links, &links, &n) >= 0) {
                for (size_t i = 0; i < n; i++)
                        link_free(links[i]);
                free(links);
        }
        intmap_done(&m->links);
        nm_free(m->nm);

        policy_free(m->policy);
        runtime_config_free(m->runtime);

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
        unsigned n_errors;
} ConfigSet;

static void config_set_done(ConfigSet *s)
{
        policy_free(s->policy);
        runtime_config_free(s->runtime);
        *s = (ConfigSet) {};
}

static int config_set_load(const char *root, ConfigDiagFn diag, void *userdata, ConfigSet *ret)
{
        _cleanup_(config_set_done) ConfigSet s = {};
        int r;

        r = daemon_config_load(&s.config, root, diag, userdata);
        if (r < 0)
                return r;
        s.n_errors += (unsigned) r;

        r = policy_load(root, diag, userdata, &s.policy);
        if (r < 0)
                return r;
        s.n_errors += s.policy->n_errors;

        r = runtime_config_load(root, diag, userdata, &s.runtime);
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

        r = config_set_load(m->root, manager_config_diag, m, &s);
        if (r < 0)
                return log_error_errno(r, "Failed to load configuration, keeping the previous one: %m");

        policy_free(m->policy);
        runtime_config_free(m->runtime);
        m->policy = s.policy;
        m->runtime = s.runtime;
        m->config = s.config;
        m->n_config_errors = s.n_errors;
        log_info("Loaded %zu policy file%s (%zu masked, %zu skipped as invalid), %zu runtime override%s%s.",
                 m->policy->n_files, m->policy->n_files == 1 ? "" : "s", m->policy->n_masked,
                 m->policy->n_skipped, m->runtime->n,
                 m->runtime->n == 1 ? "" : "s", s.n_errors > 0 ? ", with problems (see above)" : "");
        return 0;
}

/* Reconfigures every link after a reload. before[] holds the links' snapshots, taken while the
 * previous policy (which links borrow file paths from) was still alive; NULL when nobody
 * observes the links (or out of memory): no change is announced then. */
static void manager_configure_all(Manager *m, void **links, size_t n, const LinkSnapshot *before)
{
        for (size_t i = 0; i < n; i++) {
                (void) link_configure(links[i]);
                if (before)
                        link_end_change(links[i], &before[i]);
        }
}

/* NetworkManager's values for a link changed: configure that link again. */
static void manager_on_nm_changed(int ifindex, void *userdata)
{
        Link *l = manager_get_link(userdata, ifindex);

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
        if (m->nm)
                return;
        r = nm_new(manager_on_nm_changed, manager_config_diag, m, &m->nm);
        if (r < 0)
                log_warning_errno(r, "Failed to set up following NetworkManager, ignoring: %m");
}

int manager_reload(Manager *m)
{
        _cleanup_free_ void **links = NULL;
        _cleanup_free_ LinkSnapshot *before = NULL;
        size_t n = 0;
        int r;

        log_info("Reloading configuration.");
        (void) sd_notify(false, "RELOADING=1");
        if (intmap_values(&m->links, &links, &n) < 0) {
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
                manager_configure_all(m, links, n, before);
                if (m->reloaded)
                        m->reloaded(m, m->reloaded_userdata);
        }
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
        size_t i = 0;
        void *v;

        while (intmap_iterate(&m->links, &i, &v)) {
                Link *l = v;

                if (streq_ptr(l->ifname, name))
                        return l;
                for (char **a = l->altnames; a && *a; a++)
                        if (streq(*a, name))
                                return l;
        }
        return NULL;
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

static void manager_on_link_message(const LinkMessage *msg, void *userdata)
{
        Manager *m = userdata;
        LinkSnapshot before = {};
        Link *l;
        bool reconfigure = true, is_new = false;
        int r;

        if (msg->ifindex <= 0 || !msg->ifname)
                return;

        l = manager_get_link(m, msg->ifindex);
        if (!l) {
                const OriginalEntry *saved;

                r = link_new(&m->link_ctx, msg, &l);
                if (r < 0) {
                        log_oom();
                        return;
                }
                r = intmap_put(&m->links, l->ifindex, l);
                if (r < 0) {
                        link_free(l);
                        log_oom();
                        return;
                }
                log_link_debug(l, "New link %d.", l->ifindex);
                is_new = true;
                saved = originals_find(&m->saved_originals, l->ifindex, l->ifname);
                if (saved)
                        originals_take(saved, msg->devconf, msg->devconf_known, l->original, l->changed);
        } else {
                link_begin_change(l, &before);
                r = link_update(l, msg, &reconfigure);
                if (r < 0) {
                        log_oom();
                        return;
                }
        }
        l->seen = true;

        if (reconfigure && !m->check_only)
                (void) link_configure(l);
        if (is_new)
                link_notify(l, LINK_EVENT_ADDED);
        else
                link_end_change(l, &before);
}

static void manager_on_link_removed(int ifindex, void *userdata)
{
        Manager *m = userdata;
        Link *l = manager_get_link(m, ifindex);

        if (!l)
                return;
        link_notify(l, LINK_EVENT_REMOVED); /* while the link can still be found */
        intmap_remove(&m->links, ifindex);
        log_link_debug(l, "Link %d removed.", ifindex);
        link_free(l);
}

static void manager_on_ipv6_changed(int ifindex, void *userdata)
{
        Manager *m = userdata;
        Link *l = manager_get_link(m, ifindex);
        bool reconfigure = false;

        if (!l || l->ipv6_available)
                return;
        LinkMessage same = {
                .ifindex = l->ifindex, .ifname = l->ifname, .altnames = l->altnames, .kind = l->kind,
                .type = l->type, .mac = l->has_mac ? &l->mac : NULL, .flags = l->flags, .mtu = l->mtu,
        };
        LinkSnapshot before;
        link_begin_change(l, &before);
        if (link_update(l, &same, &reconfigure) >= 0 && reconfigure)
                (void) link_configure(l);
        link_end_change(l, &before);
}

#define ENUMERATE_ATTEMPTS 3

int manager_enumerate(Manager *m)
{
        _cleanup_free_ void **links = NULL;
        size_t n = 0;
        int r;

        if (intmap_values(&m->links, &links, &n) < 0)
                return log_oom();
        for (size_t i = 0; i < n; i++)
                ((Link *) links[i])->seen = false;

        for (int attempt = 1;; attempt++) {
                r = netlink_enumerate(m->netlink);
                if (r != -EAGAIN || attempt >= ENUMERATE_ATTEMPTS)
                        break;
                log_debug("Link dump interrupted by concurrent changes, dumping again.");
        }
        if (r == -EAGAIN)
                log_debug("Link dump still interrupted after %d attempts; link events fill the gaps.",
                          ENUMERATE_ATTEMPTS);
        else if (r < 0)
                return log_error_errno(r, "Failed to enumerate links: %m");

        /* Links missing from the dump vanished while we were not listening — or an interrupted
         * dump skipped them. Ask the kernel about each before forgetting it (glibc says ENXIO
         * for an ifindex it does not have). */
        for (size_t i = 0; i < n; i++) {
                Link *l = links[i];
                char name[IF_NAMESIZE];

                if (l->seen)
                        continue;
                if (!if_indextoname((unsigned) l->ifindex, name) && (errno == ENXIO || errno == ENODEV))
                        manager_on_link_removed(l->ifindex, m);
        }
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

/* Reads (and removes) what the last clean stop saved, for the links of the first pass. */
static void manager_load_originals(Manager *m)
{
        int r = manager_read_originals(m, &m->saved_originals);
        if (r < 0)
                log_warning_errno(r, "Failed to read the knob values saved at the last stop, ignoring: %m");
}

int manager_start(Manager *m)
{
        int r;

        r = manager_open_netlink(m);
        if (r < 0)
                return r;

        if (!m->check_only)
                manager_load_originals(m);
        r = manager_enumerate(m);
        originals_done(&m->saved_originals); /* they belong to the links present now */
        if (r < 0)
                return r;

        size_t configured = 0, total = 0, i = 0;
        void *v;
        while (intmap_iterate(&m->links, &i, &v)) {
                total++;
                if (((Link *) v)->state == LINK_STATE_CONFIGURED)
                        configured++;
        }
        manager_start_audit(m);
        m->ready = true;
        log_info("Configured %zu of %zu links, ready.", configured, total);
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
