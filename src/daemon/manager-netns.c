/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The network namespaces igmpd follows besides its own ([Daemon] Namespaces=named): every one
 * bound under /run/netns (ip netns, containerd/CNI), found at start and followed as binds appear
 * and go, with one child Manager each (see Manager.parent).
 *
 * Finding them: inotify on /run/netns says when a name appears or goes; a bind mount over a name
 * comes after its file and inotify does not see mounts, so the mount table's change notification
 * (POLLPRI on /proc/self/mountinfo) says when to look again. Either schedules one rescan (a
 * deferred event source), which compares the directory with what is followed: each name is
 * followed while it is bound to the same namespace (nsfs st_dev/st_ino).
 *
 * Entering one: setns(2) (CAP_SYS_ADMIN) only while the child's sockets and /proc/sys
 * directories are made, then straight back (netns-util.h); nothing is ever written from inside.
 * A namespace bound under two names, or igmpd's own one bound there, is followed once (igmpd's
 * own is ".host").
 *
 * Bounds: at most NETNS_MAX namespaces (the rest are said once and left alone); each costs
 * NETNS_FDS file descriptors.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array-util.h"
#include "conf-parser.h"
#include "fs-util.h"
#include "link.h"
#include "log.h"
#include "manager-internal.h"
#include "manager.h"
#include "netlink.h"
#include "netns-util.h"
#include "sysctl-util.h"

struct NetnsWatch {
        Manager *manager;
        int home_fd;           /* igmpd's own namespace: where it always comes back to */
        NetnsId home_id;
        int dir_fd;            /* NETNS_RUN_DIR, -EBADF until it exists */
        int inotify_fd;
        int dir_wd, run_wd;    /* watch of NETNS_RUN_DIR, or of /run until it exists */
        int mounts_fd;         /* /proc/self/mountinfo */
        sd_event_source *inotify_source, *mounts_source, *rescan_source;
        Manager **children;
        size_t n_children, n_allocated;
        bool full_warned;
        bool denied;           /* setns() refused (no CAP_SYS_ADMIN): said once, none followed */
        /* Namespaces that could not be followed: not tried again. Bounded like the followed ones,
         * the oldest forgotten first (failed[n_failed % NETNS_MAX] is the next to go). */
        NetnsId failed[NETNS_MAX];
        size_t n_failed;
};

size_t manager_netns_count(const Manager *m)
{
        return m->netns_watch ? m->netns_watch->n_children : 0;
}

Manager *manager_netns_get(const Manager *m, size_t i)
{
        return i < manager_netns_count(m) ? m->netns_watch->children[i] : NULL;
}

Manager *manager_netns_by_name(const Manager *m, const char *name)
{
        for (size_t i = 0; name && i < manager_netns_count(m); i++)
                if (streq(m->netns_watch->children[i]->netns_name, name))
                        return m->netns_watch->children[i];
        return NULL;
}

Manager *manager_netns_by_ino(const Manager *m, uint64_t ino)
{
        for (size_t i = 0; i < manager_netns_count(m); i++)
                if (m->netns_watch->children[i]->link_ctx.netns_ino == ino)
                        return m->netns_watch->children[i];
        return NULL;
}

/* Makes what the child reads and writes through, inside its namespace, and comes back. Says why
 * not; setns() refused (no CAP_SYS_ADMIN) is said once and ends w's following. */
static int netns_child_open(NetnsWatch *w, Manager *c)
{
        int r;

        if (setns(c->netns_fd, CLONE_NEWNET) < 0) {
                if (errno != EPERM)
                        return log_warning_errno(-errno, "%s: cannot enter the network namespace, not "
                                                 "following it: %m", c->netns_name);
                log_warning("Cannot enter the network namespaces under " NETNS_RUN_DIR " (setns() needs "
                            "CAP_SYS_ADMIN: see igmpd(8) for the unit's drop-in), managing igmpd's own only.");
                w->denied = true;
                return -EPERM;
        }
        for (KnobFamily f = 0; f < _KNOB_FAMILY_MAX; f++)
                c->link_ctx.conf_fd[f] = sysctl_open_conf_dir(knob_family_dir(f));
        c->link_ctx.ioctl_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        r = c->link_ctx.ioctl_fd < 0 ? -errno : 0;
        if (r >= 0) /* [IGMP] Robustness=: the namespace's igmp_qrv (mld_qrv is the host's alone) */
                r = ns_knobs_init(&c->ns_knobs, c->event);
        c->ns_knobs.name = c->netns_name;
        if (r >= 0)
                r = manager_open_netlink(c);
        /* Back home at once: any failure to is fatal, every later socket and path would be wrong. */
        if (setns(w->home_fd, CLONE_NEWNET) < 0)
                abort();
        if (r < 0)
                return log_warning_errno(r, "%s: cannot open the namespace's sockets, not following it: %m",
                                         c->netns_name);
        if (c->link_ctx.conf_fd[KNOB_FAMILY_IPV4] < 0)
                return log_warning_errno(c->link_ctx.conf_fd[KNOB_FAMILY_IPV4],
                                         "%s: no /proc/sys/net/ipv4/conf in the namespace, not following it: %m",
                                         c->netns_name);
        netlink_set_netns(c->netlink, c->netns_fd, w->home_fd);
        return 0;
}

/* A child Manager of m for the namespace name, fd (taken, also on failure) and id. */
static int netns_child_new(Manager *m, const char *name, int fd, NetnsId id, Manager **ret)
{
        _cleanup_(manager_freep) Manager *c = manager_alloc();

        if (!c) {
                safe_close(fd);
                return log_oom();
        }
        c->parent = m;
        c->netns_fd = fd;
        c->netns_dev = id.dev;
        c->netns_name = strdup(name);
        c->root = strdup(m->root);
        if (!c->netns_name || !c->root)
                return log_oom();
        c->link_ctx.netns_name = c->netns_name;
        c->link_ctx.netns_ino = id.ino;
        *ret = TAKE_PTR(c);
        return 0;
}

static void netns_child_observe(Manager *c, const Manager *m)
{
        c->link_ctx.observer = m->link_ctx.observer;
        c->link_ctx.observer_userdata = m->link_ctx.observer_userdata;
        c->link_ctx.overridden = m->link_ctx.overridden;
}

/* Follows one namespace: takes fd. */
static int netns_follow(NetnsWatch *w, const char *name, int fd, NetnsId id)
{
        Manager *m = w->manager;
        _cleanup_(manager_freep) Manager *c = NULL;
        int r;

        r = netns_child_new(m, name, fd, id, &c);
        if (r < 0)
                return r;
        c->config = m->config;
        c->event = sd_event_ref(m->event);
        c->link_ctx.event = c->event;
        c->link_ctx.drift_action = m->config.drift_action;
        netns_child_observe(c, m);
        /* Its writes reach igmpd only if the drift watch covers every namespace (from the start). */
        c->refresh.watched = m->refresh.watched && m->drift_all_netns;

        r = sd_event_add_defer(c->event, &c->originals_source, manager_on_originals_batch_end, c);
        if (r < 0)
                return log_oom();
        (void) sd_event_source_set_enabled(c->originals_source, SD_EVENT_OFF);

        r = netns_child_open(w, c);
        if (r < 0)
                return r;
        manager_probe_kernel(c);
        r = runtime_config_load(m->root, name, manager_config_diag, NULL, c, &c->runtime);
        if (r < 0)
                return log_oom();

        if (ARRAY_GROW(w->children, w->n_allocated, w->n_children, 8) < 0)
                return log_oom();

        manager_load_originals(c);
        manager_configure_namespace(c);
        r = manager_enumerate(c);
        originals_done(&c->saved_originals);
        if (r < 0)
                return r; /* said */
        c->ready = true;
        log_info("Following network namespace %s (%zu links).", name, intmap_size(&c->links));
        w->children[w->n_children++] = TAKE_PTR(c);
        return 0;
}

/* Removes the records of a namespace that went (its links' and its namespace knobs') and their
 * directory: what they held went with it. */
static void netns_records_remove(const char *dir)
{
        (void) remove_file_sync(dir, ORIGINALS_NAME);
        (void) remove_file_sync(dir, NS_KNOBS_RECORD_NAME);
        (void) rmdir(dir);
}

/* The namespace went (or its name now means another one): its links are dropped without a
 * write (they went with it), its record too. */
static void netns_forget(NetnsWatch *w, size_t i)
{
        Manager *c = w->children[i];
        Link **links = NULL;
        size_t n = 0;

        memmove(w->children + i, w->children + i + 1, (w->n_children - i - 1) * sizeof *w->children);
        w->n_children--;

        log_info("Network namespace %s is gone, forgetting its %zu links.", c->netns_name, intmap_size(&c->links));
        c->netns_forget = true;
        if (manager_ref_links(c, &links, &n) >= 0) {
                for (size_t j = 0; j < n; j++)
                        manager_on_link_vanished(links[j], c);
                links_unref(links, n);
        }
        if (c->originals.dir)
                netns_records_remove(c->originals.dir);
        manager_free(c);
}

static bool netns_failed(NetnsWatch *w, NetnsId id)
{
        for (size_t i = 0; i < MIN(w->n_failed, (size_t) NETNS_MAX); i++)
                if (netns_id_equal(w->failed[i], id))
                        return true;
        return false;
}

/* Starts watching NETNS_RUN_DIR, creating it as ip netns does if it is missing; until it exists,
 * /run is watched for it. */
static void netns_watch_dir(NetnsWatch *w)
{
        if (w->dir_fd >= 0)
                return;
        (void) mkdir(NETNS_RUN_DIR, 0755);
        w->dir_fd = open(NETNS_RUN_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (w->dir_fd < 0) {
                if (w->run_wd < 0)
                        w->run_wd = inotify_add_watch(w->inotify_fd, "/run", IN_CREATE | IN_MOVED_TO | IN_ONLYDIR);
                return;
        }
        w->dir_wd = inotify_add_watch(w->inotify_fd, NETNS_RUN_DIR,
                                      IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF |
                                      IN_MOVE_SELF | IN_ONLYDIR);
        if (w->dir_wd < 0)
                log_warning_errno(-errno, "Cannot watch " NETNS_RUN_DIR ", namespaces are found when the mount "
                                  "table changes only: %m");
}

static void netns_schedule_rescan(NetnsWatch *w)
{
        (void) sd_event_source_set_enabled(w->rescan_source, SD_EVENT_ONESHOT);
}

/* A name still unbound (its file made, the bind not yet) is found again when the mount table
 * changes: nothing to poll. */
static int netns_on_rescan(sd_event_source *s, void *userdata)
{
        NetnsWatch *w = userdata;
        _cleanup_free_ bool *seen = NULL;
        _cleanup_(closedirp) DIR *d = NULL;
        struct dirent *de;
        int dfd;

        netns_watch_dir(w);
        seen = calloc(w->n_children + 1, sizeof *seen);
        if (!seen) {
                log_oom();
                return 0;
        }
        /* A description of its own: the stream starts at the first entry. */
        if (w->dir_fd >= 0 && (dfd = openat(w->dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
                d = fdopendir(dfd);
                if (!d)
                        close(dfd);
        }
        size_t n_before = w->n_children;
        while (d && (de = readdir(d))) {
                Manager *c = NULL;
                NetnsId id;
                size_t i;
                _cleanup_close_ int fd = -EBADF;

                if (!netns_name_valid(de->d_name))
                        continue;
                for (i = 0; i < n_before; i++)
                        if (!seen[i] && streq(w->children[i]->netns_name, de->d_name)) {
                                c = w->children[i];
                                break;
                        }
                fd = netns_open_at(w->dir_fd, de->d_name, &id);
                if (fd == -EAGAIN)
                        continue; /* not bound yet (or unbound): the mount shows up next */
                if (fd < 0) {
                        if (fd != -ENOENT && fd != -EMEDIUMTYPE && fd != -EINVAL)
                                log_debug_errno(fd, "%s/%s: cannot open, ignoring: %m", NETNS_RUN_DIR, de->d_name);
                        continue;
                }
                if (c) {
                        if (c->netns_dev == id.dev && c->link_ctx.netns_ino == id.ino)
                                seen[i] = true;
                        else /* bound to another namespace now: forgotten below, followed anew next rescan */
                                netns_schedule_rescan(w);
                        continue;
                }
                Manager *same = manager_netns_by_ino(w->manager, id.ino);

                if (netns_id_equal(id, w->home_id) || (same && same->netns_dev == id.dev))
                        continue; /* igmpd's own namespace, or one already followed by another name */
                if (w->n_children >= NETNS_MAX) {
                        if (!w->full_warned)
                                log_warning("Already following %d network namespaces (the most igmpd follows); "
                                            "%s and any further one are left alone.", NETNS_MAX, de->d_name);
                        w->full_warned = true;
                        continue;
                }
                if (netns_failed(w, id) || w->denied)
                        continue; /* said when it failed; a new bind is another namespace */
                if (netns_follow(w, de->d_name, TAKE_FD(fd), id) < 0 && !w->denied)
                        w->failed[w->n_failed++ % NETNS_MAX] = id;
        }

        /* What was followed before and was not found the same: gone. */
        for (size_t i = n_before; i-- > 0;)
                if (!seen[i])
                        netns_forget(w, i);
        if (w->n_children < NETNS_MAX)
                w->full_warned = false; /* room again: said again when it runs out */
        manager_notify_status(w->manager, false);
        return 0;
}

static int netns_on_inotify(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        NetnsWatch *w = userdata;
        union {
                struct inotify_event ev;
                char buf[4096];
        } u;
        ssize_t n;

        while ((n = read(fd, &u, sizeof u)) > 0) /* until EAGAIN: drained */
                for (char *p = u.buf; p < u.buf + n;) {
                        struct inotify_event *e = (struct inotify_event *) p;
                        if (e->wd == w->dir_wd && (e->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED))) {
                                /* /run/netns itself went: watch for it again. */
                                w->dir_fd = safe_close(w->dir_fd);
                                w->dir_wd = -1;
                        }
                        p += sizeof *e + e->len;
                }
        netns_schedule_rescan(w);
        return 0;
}

static int netns_on_mounts(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        /* The poll itself acknowledges the change; nothing to read. */
        netns_schedule_rescan(userdata);
        return 0;
}

static NetnsWatch *netns_watch_free(NetnsWatch *w)
{
        if (!w)
                return NULL;
        for (size_t i = 0; i < w->n_children; i++)
                manager_free(w->children[i]);
        free(w->children);
        sd_event_source_disable_unref(w->inotify_source);
        sd_event_source_disable_unref(w->mounts_source);
        sd_event_source_disable_unref(w->rescan_source);
        safe_close(w->inotify_fd);
        safe_close(w->mounts_fd);
        safe_close(w->dir_fd);
        safe_close(w->home_fd);
        free(w);
        return NULL;
}

void manager_netns_done(Manager *m)
{
        m->netns_watch = netns_watch_free(m->netns_watch);
}

static int netns_watch_new(Manager *m, NetnsWatch **ret)
{
        NetnsWatch *w;
        int r;

        w = calloc(1, sizeof *w);
        if (!w)
                return -ENOMEM;
        *w = (NetnsWatch) {
                .manager = m,
                .home_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC),
                .dir_fd = -EBADF,
                .inotify_fd = -EBADF,
                .mounts_fd = -EBADF,
                .dir_wd = -1,
                .run_wd = -1,
        };
        r = w->home_fd < 0 ? -errno : netns_fd_id(w->home_fd, &w->home_id);
        if (r >= 0) {
                w->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
                r = w->inotify_fd < 0 ? -errno : 0;
        }
        if (r >= 0)
                r = sd_event_add_io(m->event, &w->inotify_source, w->inotify_fd, EPOLLIN, netns_on_inotify, w);
        if (r >= 0) {
                w->mounts_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
                r = w->mounts_fd < 0 ? -errno : 0;
        }
        if (r >= 0)
                r = sd_event_add_io(m->event, &w->mounts_source, w->mounts_fd, EPOLLPRI, netns_on_mounts, w);
        if (r >= 0)
                r = sd_event_add_defer(m->event, &w->rescan_source, netns_on_rescan, w);
        if (r < 0) {
                netns_watch_free(w);
                return r;
        }
        (void) sd_event_source_set_enabled(w->rescan_source, SD_EVENT_OFF);
        (void) sd_event_source_set_description(w->rescan_source, "netns-rescan");
        *ret = w;
        return 0;
}

void manager_follow_netns(Manager *m)
{
        int r;

        if (m->parent || m->check_only)
                return;
        if (m->config.namespaces != NETNS_MODE_NAMED) {
                if (m->netns_watch)
                        log_info("Namespaces=self: no longer following the network namespaces under " NETNS_RUN_DIR ".");
                manager_netns_done(m);
                return;
        }
        if (m->netns_watch)
                return;
        r = netns_watch_new(m, &m->netns_watch);
        if (r < 0) {
                log_warning_errno(r, "Failed to watch " NETNS_RUN_DIR " (Namespaces=named), managing igmpd's own "
                                  "network namespace only: %m");
                return;
        }
        (void) netns_on_rescan(NULL, m->netns_watch); /* at once: the first pass covers them too */
        log_info("Namespaces=named: following %zu network namespace%s under " NETNS_RUN_DIR ".",
                 m->netns_watch->n_children, m->netns_watch->n_children == 1 ? "" : "s");
}

void manager_netns_reload(Manager *m)
{
        for (size_t i = 0; i < manager_netns_count(m); i++) {
                Manager *c = m->netns_watch->children[i];
                RuntimeConfig *runtime = NULL;

                c->config = m->config;
                c->link_ctx.drift_action = m->config.drift_action;
                if (runtime_config_load(m->root, c->netns_name, manager_config_diag, NULL, c, &runtime) >= 0) {
                        runtime_config_free(c->runtime);
                        c->runtime = runtime;
                }
                manager_configure_namespace(c);
        }
}

void manager_set_link_observers(Manager *m, LinkObserver observer, LinkOverrideFn overridden, void *userdata)
{
        m->link_ctx.observer = observer;
        m->link_ctx.observer_userdata = userdata;
        m->link_ctx.overridden = overridden;
        for (size_t i = 0; i < manager_netns_count(m); i++)
                netns_child_observe(m->netns_watch->children[i], m);
}

unsigned manager_netns_foreach_record(Manager *m, int (*fn)(Manager *c, void *userdata), void *userdata)
{
        _cleanup_free_ char *base = NULL, *dir = path_join_root(m->root, ORIGINALS_DIR);
        _cleanup_close_ int home_fd = -EBADF, run_fd = -EBADF;
        _cleanup_(closedirp) DIR *d = NULL;
        struct dirent *de;
        unsigned n_left = 0;

        if (!dir || asprintf(&base, "%s/netns", dir) < 0) {
                log_oom();
                return 1;
        }
        d = opendir(base);
        if (!d)
                return 0; /* no followed namespace left a record */
        home_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
        run_fd = open(NETNS_RUN_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        while ((de = readdir(d))) {
                _cleanup_(manager_freep) Manager *c = NULL;
                NetnsId id;
                int fd, r;

                if (!netns_name_valid(de->d_name))
                        continue;
                fd = run_fd >= 0 ? netns_open_at(run_fd, de->d_name, &id) : -ENOENT;
                if (fd < 0) {
                        _cleanup_free_ char *p = NULL;

                        printf("%s: network namespace gone, its links with it: nothing to restore\n", de->d_name);
                        if (asprintf(&p, "%s/%s", base, de->d_name) >= 0)
                                netns_records_remove(p);
                        continue;
                }
                if (netns_child_new(m, de->d_name, fd, id, &c) < 0) {
                        n_left++;
                        break;
                }
                c->check_only = true;
                if (home_fd < 0 || setns(fd, CLONE_NEWNET) < 0) {
                        log_error_errno(-errno, "%s: cannot enter the network namespace, left as is: %m", de->d_name);
                        n_left++;
                        continue;
                }
                for (KnobFamily f = 0; f < _KNOB_FAMILY_MAX; f++)
                        c->link_ctx.conf_fd[f] = sysctl_open_conf_dir(knob_family_dir(f));
                r = ns_knobs_init(&c->ns_knobs, NULL);
                c->ns_knobs.name = c->netns_name;
                if (r < 0) {
                        log_error_errno(r, "%s: cannot open /proc/sys/net/ipv4 in the network namespace, "
                                        "left as is: %m", de->d_name);
                        n_left++;
                } else
                        (void) fn(c, userdata);
                if (setns(home_fd, CLONE_NEWNET) < 0)
                        abort();
        }
        return n_left;
}
