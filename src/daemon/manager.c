/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The Manager: its life (new, free, start), the signals, the kernel probe and the audit's start.
 * manager.h lists its other parts and the layering.
 */

#include <errno.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <sys/socket.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "audit.h"
#include "drift.h"
#include "link.h"
#include "log.h"
#include "manager-internal.h"
#include "manager.h"
#include "netlink.h"
#include "nm.h"
#include "sysctl-util.h"

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

static const int manager_signals[] = { SIGTERM, SIGINT, SIGHUP };
_Static_assert(ELEMENTSOF(manager_signals) == ELEMENTSOF(((Manager *) NULL)->signal_sources),
               "one event source per signal");

static void manager_link_effective(const LinkInfo *info, KnobValue out[_KNOB_MAX], const PolicyFile **matched,
                                   size_t max_matched, size_t *ret_n_matched, void *userdata)
{
        manager_effective(userdata, info, out, matched, max_matched, ret_n_matched);
}

/* A followed namespace's Manager has no NetworkManager (nm NULL): nothing is ignored there. */
static int manager_link_ignored(int ifindex, char **ret, void *userdata)
{
        return nm_ignored_source(((Manager *) userdata)->nm, ifindex, ret);
}

Manager *manager_alloc(void)
{
        Manager *m = calloc(1, sizeof *m);

        if (!m)
                return NULL;
        for (KnobFamily f = 0; f < _KNOB_FAMILY_MAX; f++)
                m->link_ctx.conf_fd[f] = -EBADF;
        m->link_ctx.ioctl_fd = -EBADF;
        m->ns_knobs.dir_fd[KNOB_FAMILY_IPV4] = m->ns_knobs.dir_fd[KNOB_FAMILY_IPV6] = -EBADF;
        m->link_ctx.userdata = m;
        m->link_ctx.effective = manager_link_effective;
        m->link_ctx.ignored = manager_link_ignored;
        m->link_ctx.record = manager_link_record;
        m->link_ctx.renamed = manager_on_link_renamed;
        m->link_ctx.vanished = manager_on_link_vanished;
        m->originals.fd = -EBADF;
        m->netns_fd = -EBADF;
        return m;
}

int manager_new(const char *root, Manager **ret)
{
        _cleanup_(manager_freep) Manager *m = NULL;
        struct stat st;
        int r;

        m = manager_alloc();
        if (!m)
                return -ENOMEM;
        daemon_config_defaults(&m->config);

        m->root = strdup(root ?: "");
        if (!m->root)
                return -ENOMEM;

        /* Under systemd with WatchdogSec=, the loop itself sends WATCHDOG=1: a hung loop is
         * restarted. Without $WATCHDOG_USEC this adds no timer, so idle stays idle. */
        r = sd_event_default(&m->event);
        if (r >= 0)
                r = sd_event_set_watchdog(m->event, true);
        if (r < 0)
                return r;
        m->link_ctx.event = m->event;

        for (size_t i = 0; i < ELEMENTSOF(manager_signals); i++) {
                int sig = manager_signals[i];

                r = sd_event_add_signal(m->event, &m->signal_sources[i], sig | SD_EVENT_SIGNAL_PROCMASK,
                                        sig == SIGHUP ? on_sighup : on_sigterm, m);
                if (r < 0)
                        return r;
        }
        r = sd_event_add_defer(m->event, &m->originals_source, manager_on_originals_batch_end, m);
        if (r < 0)
                return r;
        (void) sd_event_source_set_enabled(m->originals_source, SD_EVENT_OFF);
        (void) sd_event_source_set_description(m->originals_source, "originals-batch");

        for (KnobFamily f = 0; f < _KNOB_FAMILY_MAX; f++)
                m->link_ctx.conf_fd[f] = sysctl_open_conf_dir(knob_family_dir(f));
        if (m->link_ctx.conf_fd[KNOB_FAMILY_IPV4] < 0)
                return m->link_ctx.conf_fd[KNOB_FAMILY_IPV4];

        r = ns_knobs_init(&m->ns_knobs, m->event);
        if (r < 0)
                return r;

        m->link_ctx.ioctl_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (m->link_ctx.ioctl_fd < 0)
                return negative_errno();
        if (stat("/proc/self/ns/net", &st) >= 0) {
                m->netns_dev = (uint64_t) st.st_dev;
                m->link_ctx.netns_ino = (uint64_t) st.st_ino; /* the Link's NamespaceId */
        }

        r = drift_watch_new(m->event, manager_on_drift_write, manager_on_drift_lost, manager_on_drift_state, m,
                            &m->drift);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(m);
        return 0;
}

Manager *manager_free(Manager *m)
{
        size_t i = 0;
        void *v;

        if (!m)
                return NULL;

        manager_netns_done(m);
        /* A clean stop leaves the record whole and compact (or none, with nothing to undo). One
         * the last rewrite left as it is already is (no change since: a write and two fsync()
         * spared at every restart). Unlike a link's knobs, the namespace's are given back at a
         * stop: nothing else owns them. */
        if (m->ready && !m->check_only && !m->netns_forget) {
                if (m->originals_dirty || m->originals_failed || !originals_journal_compact(&m->originals))
                        manager_write_originals(m, true);
                (void) ns_knobs_restore(&m->ns_knobs, NULL);
        }
        ns_knobs_done(&m->ns_knobs);
        originals_done(&m->saved_originals);
        originals_journal_done(&m->originals);
        free(m->originals_forget);
        sd_event_source_disable_unref(m->originals_source);
        sd_event_source_disable_unref(m->first_pass_source);
        links_unref(m->first_pass_links, m->n_first_pass_links);
        m->audit = audit_manager_free(m->audit); /* removes the audit rules it added */
        manager_refresh_done(m);
        m->drift = drift_watch_free(m->drift);   /* detaches the program */
        netlink_free(m->netlink);
        while (intmap_iterate(&m->links, &i, &v)) {
                link_detach(v);
                link_unref(v);
        }
        intmap_done(&m->links);
        namemap_done(&m->links_by_name);
        nm_free(m->nm);

        policy_free(m->policy);
        runtime_config_free(m->runtime);
        config_problems_done(&m->problems);

        for (size_t s = 0; s < ELEMENTSOF(m->signal_sources); s++)
                sd_event_source_unref(m->signal_sources[s]);
        sd_event_unref(m->event);

        for (KnobFamily f = 0; f < _KNOB_FAMILY_MAX; f++)
                safe_close(m->link_ctx.conf_fd[f]);
        safe_close(m->link_ctx.ioctl_fd);
        safe_close(m->netns_fd);
        free(m->netns_name);
        free(m->root);
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
        log_full(m->parent ? LOG_DEBUG : LOG_INFO, "%s%sKernel knobs: %s%s.", strempty(m->netns_name),
                 m->parent ? ": " : "", line,
                 ctx->conf_fd[KNOB_FAMILY_IPV6] < 0 ? " (no IPv6 in this kernel or namespace)" : "");
}

void manager_notify_status(Manager *m, bool ready)
{
        size_t n = intmap_size(&m->links), n_ns = manager_netns_count(m);
        char ns[64] = "";

        if (m->parent)
                return; /* igmpd's own Manager speaks for all */
        for (size_t i = 0; i < n_ns; i++)
                n += intmap_size(&manager_netns_get(m, i)->links);
        if (n_ns > 0)
                snprintf(ns, sizeof ns, " in %zu network namespaces", n_ns + 1);
        (void) sd_notifyf(false, "%sSTATUS=Managing %zu links%s, %zu policies", ready ? "READY=1\n" : "", n, ns,
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
                         m->link_ctx.write_denied_warned ? "writes refused, see above" : "see above");
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
                m->drift_all_netns = m->config.namespaces == NETNS_MODE_NAMED;
                drift_watch_start(m->drift, m->config.drift_watch, m->drift_all_netns);
        }
        manager_configure_namespace(m);
        /* The deprecated sysctl(2) audit: optional, never stops the daemon. Made before the D-Bus
         * face, which observes it, started after the first pass. */
        r = audit_manager_new(m->event, m->root, m->config.audit_history, manager_resolve_ifindex, m, &m->audit);
        if (r < 0)
                log_warning_errno(r, "Failed to set up the deprecated sysctl(2) audit, continuing without: %m");
        return 0;
}

int manager_first_pass(Manager *m)
{
        /* Announced one by one as the pass finds them, thousands of links would cost the bus
         * more than the pass: clients ask for them (GetManagedObjects) as after a reconnect. */
        m->first_pass_observer = m->link_ctx.observer;
        m->link_ctx.observer = NULL;
        m->ready = m->first_pass = true;
        /* As many links as the last run recorded, likely: the tables made that big at once
         * rather than doubled through the dump (each doubling touches new pages). */
        (void) intmap_reserve(&m->links, m->saved_originals.n);
        (void) intmap_reserve(&m->links_by_name.buckets, m->saved_originals.n);
        return manager_enumerate_start(m);
}

/* After the dump, the first pass's writes: FIRST_PASS_STEP links per dispatch, so that bus calls
 * and link events take turns with them. */
#define FIRST_PASS_STEP (2 * LINK_MANY_MAX)

static int manager_on_first_pass_step(sd_event_source *s, void *userdata)
{
        Manager *m = userdata;
        size_t k = MIN(m->n_first_pass_links - m->first_pass_next, (size_t) FIRST_PASS_STEP);

        manager_configure_waiting(m, m->first_pass_links + m->first_pass_next, k, true);
        m->first_pass_next += k;
        /* Pending anew, behind what became pending meanwhile (ON would stay ahead of it all). */
        if (m->first_pass_next < m->n_first_pass_links)
                return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        links_unref(m->first_pass_links, m->n_first_pass_links);
        m->first_pass_links = NULL;
        m->n_first_pass_links = 0;
        m->first_pass_source = sd_event_source_disable_unref(m->first_pass_source);
        m->first_pass = false;
        manager_end_batch(m, true); /* what bus calls of the meantime left waiting */
        netlink_release_events(m->netlink); /* after the name checks, which read them ahead */
        if (m->link_ctx.observer_userdata) /* else the D-Bus face went meanwhile */
                m->link_ctx.observer = m->first_pass_observer;

        manager_follow_netns(m); /* Namespaces=named: the first pass of every other namespace too */
        if (m->audit)
                audit_manager_start(m->audit, &m->config, m->kmsg_path);
        manager_log_ready(m);
        manager_notify_status(m, true);

        manager_follow_network_manager(m);
        /* A new NetworkManager follower takes the bus through the reload hook. */
        if (m->reloaded)
                m->reloaded(m, m->reloaded_userdata);
        if (m->reload_pending) {
                m->reload_pending = false;
                (void) manager_reload(m);
        }
        return 0;
}

void manager_on_first_pass(Manager *m, int r)
{
        if (r >= 0 || r == -EAGAIN) {
                /* One record for the whole dump, before its writes; the last run's record may
                 * be taken as it is (manager_write_originals()). */
                manager_write_originals(m, false);
                r = manager_ref_links(m, &m->first_pass_links, &m->n_first_pass_links);
        }
        originals_done(&m->saved_originals); /* they belong to the links present now */
        if (r >= 0)
                r = sd_event_add_defer(m->event, &m->first_pass_source, manager_on_first_pass_step, m);
        if (r >= 0) /* as the dump's (netlink-dump.c) */
                r = sd_event_source_set_priority(m->first_pass_source, SD_EVENT_PRIORITY_NORMAL + 1);
        if (r < 0)
                (void) sd_event_exit(m->event, r); /* said */
}
