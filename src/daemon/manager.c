/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The Manager: event loop, configuration sets, the link table, and the glue between netlink
 * events and link configuration.
 */

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "audit-bus.h"
#include "audit.h"
#include "link-bus.h"
#include "link.h"
#include "log.h"
#include "manager-bus.h"
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

int manager_new(const char *root, Manager **ret)
{
        _cleanup_(manager_freep) Manager *m = NULL;
        sigset_t mask;
        int r;

        m = calloc(1, sizeof *m);
        if (!m)
                return -ENOMEM;
        for (KnobFamily f = 0; f < _KNOB_FAMILY_MAX; f++)
                m->conf_fd[f] = -EBADF;
        m->ioctl_fd = -EBADF;
        daemon_config_defaults(&m->config);

        m->root = strdup(root ?: "");
        m->proc_root = strdup("/proc");
        if (!m->root || !m->proc_root)
                return -ENOMEM;

        r = sd_event_default(&m->event);
        if (r < 0)
                return r;
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
                m->conf_fd[f] = sysctl_open_conf_dir(m->proc_root, knob_family_dir(f));
        if (m->conf_fd[KNOB_FAMILY_IPV4] < 0)
                return m->conf_fd[KNOB_FAMILY_IPV4];

        m->ioctl_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (m->ioctl_fd < 0)
                return negative_errno();

        *ret = TAKE_PTR(m);
        return 0;
}

Manager *manager_free(Manager *m)
{
        void **links = NULL;
        size_t n = 0;

        if (!m)
                return NULL;

        /* After a completed first pass, what igmpd changed can be undone by the next start. */
        if (m->ready && !m->check_only) {
                int r = originals_save(m);
                if (r < 0)
                        log_warning_errno(r, "Failed to save the knob values found before igmpd changed them; "
                                          "a policy removed while igmpd is stopped will not be undone: %m");
        }
        originals_done(&m->saved_originals);
        manager_bus_stop(m);
        m->audit = audit_manager_free(m->audit); /* removes the audit rules it added */
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
                safe_close(m->conf_fd[f]);
        safe_close(m->ioctl_fd);
        free(m->root);
        free(m->proc_root);
        free(m);
        return NULL;
}

void manager_probe_kernel(Manager *m)
{
        char line[512];
        size_t off = 0;

        for (Knob k = 0; k < _KNOB_MAX; k++) {
                const KnobInfo *i = knob_info(k);
                int fd = m->conf_fd[i->family];
                char path[96];

                snprintf(path, sizeof path, "default/%s", i->name);
                m->knob_supported[k] = fd >= 0 && faccessat(fd, path, F_OK, 0) == 0;
                off += (size_t) snprintf(line + off, sizeof line - off, "%s%s %s", k > 0 ? ", " : "", i->name,
                                         m->knob_supported[k] ? "yes" : "no");
        }
        log_info("Kernel knobs: %s%s.", line,
                 m->conf_fd[KNOB_FAMILY_IPV6] < 0 ? " (no IPv6 in this kernel or namespace)" : "");
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

/* Reconfigures every link after a reload. before[] holds the links' bus snapshots, taken while
 * the previous policy (which links borrow file paths from) was still alive; NULL skips the
 * PropertiesChanged announcements (out of memory). */
static void manager_configure_all(Manager *m, void **links, size_t n, const LinkBusSnapshot *before)
{
        for (size_t i = 0; i < n; i++) {
                (void) link_configure(links[i]);
                if (before)
                        link_bus_emit_changes(links[i], &before[i]);
        }
}

/* [Daemon] NetworkManager=: follow NetworkManager's profiles or not (at start and on reload). */
static void manager_follow_network_manager(Manager *m)
{
        int r;

        if (m->config.network_manager != NM_MODE_AUTO) {
                m->nm = nm_free(m->nm);
                return;
        }
        if (m->nm)
                return;
        r = nm_new(m, &m->nm);
        if (r < 0)
                log_warning_errno(r, "Failed to set up following NetworkManager, ignoring: %m");
}

int manager_reload(Manager *m)
{
        _cleanup_free_ void **links = NULL;
        _cleanup_free_ LinkBusSnapshot *before = NULL;
        size_t n = 0;
        int r;

        log_info("Reloading configuration.");
        (void) sd_notify(false, "RELOADING=1");
        if (intmap_values(&m->links, &links, &n) < 0) {
                (void) sd_notify(false, "READY=1");
                return log_oom(); /* the previous configuration stays in force */
        }
        before = calloc(MAX(n, (size_t) 1), sizeof *before);
        for (size_t i = 0; before && i < n; i++)
                link_bus_snapshot(links[i], &before[i]);

        r = manager_load_config(m);
        if (r >= 0) {
                manager_follow_network_manager(m);
                if (m->audit)
                        audit_manager_reload(m->audit, &m->config, m->kmsg_path);
                manager_configure_all(m, links, n, before);
                manager_bus_emit_config_changed(m);
        }
        manager_notify_status(m);
        (void) sd_notify(false, "READY=1");
        return r;
}

void manager_effective(Manager *m, const LinkInfo *info, KnobValue out[_KNOB_MAX],
                       const PolicyFile **matched, size_t max_matched, size_t *ret_n_matched)
{
        policy_merge(m->policy, info, out, matched, max_matched, ret_n_matched);
        nm_merge(m->nm, info->name, out);
        runtime_config_merge(m->runtime, info->name, out);
}

Link *manager_get_link(Manager *m, int ifindex)
{
        return intmap_get(&m->links, ifindex);
}

int manager_link_configure(Manager *m, Link *l)
{
        LinkBusSnapshot before;
        int r;

        link_bus_snapshot(l, &before);
        r = link_configure(l);
        link_bus_emit_changes(l, &before);
        return r;
}

int manager_ifindex_to_name(Manager *m, int ifindex, char ret[IF_NAMESIZE])
{
        struct ifreq ifr = { .ifr_ifindex = ifindex };

        if (ioctl(m->ioctl_fd, SIOCGIFNAME, &ifr) < 0)
                return negative_errno();
        memcpy(ret, ifr.ifr_name, IF_NAMESIZE);
        ret[IF_NAMESIZE - 1] = '\0';
        return 0;
}

static void manager_on_link_message(const LinkMessage *msg, void *userdata)
{
        Manager *m = userdata;
        LinkBusSnapshot before = {};
        Link *l;
        bool reconfigure = true, is_new = false;
        int r;

        if (msg->ifindex <= 0 || !msg->ifname)
                return;

        l = manager_get_link(m, msg->ifindex);
        if (!l) {
                r = link_new(m, msg, &l);
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
                originals_apply(&m->saved_originals, l, msg->devconf, msg->devconf_known);
        } else {
                link_bus_snapshot(l, &before);
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
                link_bus_emit_added(l);
        else
                link_bus_emit_changes(l, &before);
}

static void manager_on_link_removed(int ifindex, void *userdata)
{
        Manager *m = userdata;
        Link *l = manager_get_link(m, ifindex);

        if (!l)
                return;
        link_bus_emit_removed(l); /* while the object can still be found */
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
        LinkBusSnapshot before;
        link_bus_snapshot(l, &before);
        if (link_update(l, &same, &reconfigure) >= 0 && reconfigure)
                (void) link_configure(l);
        link_bus_emit_changes(l, &before);
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
         * dump skipped them. Ask the kernel about each before forgetting it. */
        for (size_t i = 0; i < n; i++) {
                Link *l = links[i];
                char name[IF_NAMESIZE];

                if (l->seen)
                        continue;
                if (manager_ifindex_to_name(m, l->ifindex, name) == -ENODEV)
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

/* Each published deprecated-sysctl event becomes the DeprecatedSysctl signal. */
static void manager_on_audit_event(const AuditEvent *e, void *userdata)
{
        Manager *m = userdata;
        AuditBusEvent b = {
                .realtime_usec = e->realtime_usec,
                .source = audit_event_source_to_string(e->source),
                .pid = e->pid,
                .comm = e->comm,
                .exe = e->exe,
                .name = e->name,
                .n_name = e->n_name,
                .path = e->path,
                .repeats = e->repeats,
        };
        int r;

        r = audit_bus_emit_deprecated_sysctl(m, &b);
        if (r < 0)
                log_warning_errno(r, "Failed to send the DeprecatedSysctl signal, ignoring: %m");
}

/* The deprecated sysctl(2) audit: optional, never stops the daemon. */
static void manager_start_audit(Manager *m)
{
        int r;

        r = audit_manager_new(m, m->config.audit_history, &m->audit);
        if (r < 0) {
                log_warning_errno(r, "Failed to set up the deprecated sysctl(2) audit, continuing without: %m");
                return;
        }
        m->audit->on_event = manager_on_audit_event;
        m->audit->on_event_userdata = m;
        audit_manager_start(m->audit, &m->config, m->kmsg_path);
}

int manager_start(Manager *m)
{
        int r;

        r = manager_open_netlink(m);
        if (r < 0)
                return r;

        if (!m->check_only) {
                r = originals_load(m, &m->saved_originals);
                if (r < 0)
                        log_warning_errno(r, "Failed to read the knob values saved at the last stop, ignoring: %m");
        }
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

        /* The D-Bus face comes after the kernel-facing job, and never stops it. */
        manager_bus_start(m);
        manager_follow_network_manager(m);
        return 0;
}

int manager_run(Manager *m)
{
        return sd_event_loop(m->event);
}
