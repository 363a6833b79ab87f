/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * AuditLibc: which libc files are probed, and the rescans that find new ones (audit-libc.h).
 */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>

#include "audit-event.h"
#include "audit-libc.h"
#include "elf-sysctl.h"
#include "event-util.h"
#include "log.h"

/* The host's library directories, watched for a replaced libc (the sweep then finds the
 * programs that map the new one). */
static const char *const libc_dirs[] = {
        "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", NULL,
};

struct AuditLibc {
        sd_event *event;
        BpfHelper *helper;
        int program_fd;            /* the uprobe program; -EBADF until the attach reply */
        int links[AUDIT_LIBC_PROBES_MAX]; /* uprobe links kept */
        size_t n_links;
        BpfFileId files[BPF_PROTOCOL_MAX_KNOWN]; /* content != 0: probed */
        size_t n_files;
        unsigned n_probed, n_copies;
        uint64_t n_refused;        /* candidates the helper refused unread, each time it did */
        bool incomplete;           /* the last scan stopped early */
        bool failing;              /* the last rescan failed */

        AuditBpfNewRoot pending[BPF_PROTOCOL_MAX_PIDS]; /* waiting for the next rescan */
        size_t n_pending;
        bool sweep;
        AuditBpfNewRoot running[BPF_PROTOCOL_MAX_PIDS]; /* the rescan under way */
        size_t n_running;
        bool sweeping;

        BpfHelperCall *call;
        uint64_t last_usec;        /* when the last rescan ended */
        sd_event_source *timer;    /* armed only while a rescan waits for its turn */
        uint64_t n_rescans;

        int inotify_fd;
        sd_event_source *inotify_source;
};

static void audit_libc_schedule(AuditLibc *l);

static int on_inotify(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        AuditLibc *l = userdata;
        _Alignas(struct inotify_event) char buf[4096];
        bool changed = false;
        ssize_t n;

        while ((n = read(fd, buf, sizeof buf)) > 0)
                for (char *p = buf; p < buf + n;) {
                        struct inotify_event *e = (struct inotify_event *) p;

                        if (e->len > 0 && elf_libc_name(e->name))
                                changed = true;
                        p += sizeof *e + e->len;
                }
        if (changed) {
                log_info("A libc file changed in the library directories, looking for processes that map a new one.");
                audit_libc_request_sweep(l);
        }
        return 0;
}

int audit_libc_new(sd_event *event, BpfHelper *helper, AuditLibc **ret)
{
        AuditLibc *l;
        int r;

        assert(ret);

        l = calloc(1, sizeof *l);
        if (!l)
                return -ENOMEM;
        l->event = event;
        l->helper = helper;
        l->program_fd = -EBADF;
        l->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        for (size_t i = 0; l->inotify_fd >= 0 && libc_dirs[i]; i++)
                (void) inotify_add_watch(l->inotify_fd, libc_dirs[i], IN_MOVED_TO | IN_CREATE | IN_ONLYDIR);
        r = l->inotify_fd < 0 ? -errno : sd_event_add_io(l->event, &l->inotify_source, l->inotify_fd, EPOLLIN,
                                                          on_inotify, l);
        if (r >= 0)
                r = sd_event_source_set_priority(l->inotify_source, AUDIT_EVENT_PRIORITY);
        if (r < 0)
                log_debug_errno(r, "Cannot watch the library directories for a new libc, ignoring: %m");
        *ret = l;
        return 0;
}

AuditLibc *audit_libc_free(AuditLibc *l)
{
        if (!l)
                return NULL;
        bpf_helper_call_cancel(l->helper, l->call);
        close_many(l->links, l->n_links);
        safe_close(l->program_fd);
        sd_event_source_disable_unref(l->timer);
        sd_event_source_disable_unref(l->inotify_source);
        safe_close(l->inotify_fd);
        free(l);
        return NULL;
}

void audit_libc_describe(const AuditLibc *l, char *buf, size_t size)
{
        char cap[96] = "", refused[96] = "";

        if (l->n_probed >= AUDIT_LIBC_PROBES_MAX)
                snprintf(cap, sizeof cap, "; at its limit of %u: further libc copies are not probed",
                         AUDIT_LIBC_PROBES_MAX);
        if (l->n_refused > 0)
                snprintf(refused, sizeof refused, "; %" PRIu64 " files refused unread (not a regular file of root's)",
                         l->n_refused);
        snprintf(buf, size, "uprobe on sysctl@GLIBC_2.2.5 in %u libc cop%s, %" PRIu64 " rescan%s%s%s%s", l->n_probed,
                 l->n_probed == 1 ? "y" : "ies", l->n_rescans, l->n_rescans == 1 ? "" : "s", cap,
                 l->incomplete ? "; the last scan stopped early" : "", refused);
}

/* Files the helper need not look at again. Beyond the bound it may: harmless, it then finds a
 * probed one by its content, or reports it once more. */
static void audit_libc_note_file(AuditLibc *l, const BpfReplyEntry *e, bool probed)
{
        BpfFileId id = e->file;
        bool copy = false;

        for (size_t i = 0; i < l->n_files; i++) {
                if (l->files[i].dev == id.dev && l->files[i].ino == id.ino)
                        return;
                copy = copy || (id.content != 0 && l->files[i].content == id.content);
        }
        if (probed) {
                l->n_probed++;
                l->n_copies += copy;
                log_info("Audit source libc: probing sysctl@GLIBC_2.2.5 in %s.", e->path);
                if (l->n_probed == AUDIT_LIBC_PROBES_MAX)
                        log_warning("Audit source libc: probing %u libc copies, its limit: further copies are not "
                                    "probed, and legacy programs that use them are not seen. Restarting igmpd "
                                    "drops the probes on copies no longer in use.", AUDIT_LIBC_PROBES_MAX);
        } else {
                id.content = 0;
                log_debug("Audit source libc: %s", e->path);
        }
        if (l->n_files < ELEMENTSOF(l->files))
                l->files[l->n_files++] = id;
}

void audit_libc_take_reply(AuditLibc *l, const BpfReply *reply, int *fds)
{
        size_t k = 0;

        for (size_t i = 0; i < reply->n_entries; i++) {
                const BpfReplyEntry *e = &reply->entries[i];

                if (e->role == BPF_FD_NONE)
                        audit_libc_note_file(l, e, false);
                else if (e->role == BPF_FD_PROGRAM) {
                        safe_close(l->program_fd);
                        l->program_fd = TAKE_FD(fds[k]);
                } else if (e->role == BPF_FD_LINK && e->file.ino != 0) {
                        /* The helper is told the cap: it never sends more. */
                        if (l->n_probed < AUDIT_LIBC_PROBES_MAX && l->n_links < ELEMENTSOF(l->links)) {
                                l->links[l->n_links++] = fds[k];
                                audit_libc_note_file(l, e, true);
                        } else
                                safe_close(fds[k]);
                        fds[k] = -EBADF;
                }
                k += e->role != BPF_FD_NONE;
        }
        l->n_refused += reply->n_refused;
        if ((reply->flags & BPF_REPLY_INCOMPLETE) && !l->incomplete)
                log_warning("Audit source libc: a scan for libc copies %s.", reply->reason);
        l->incomplete = reply->flags & BPF_REPLY_INCOMPLETE;
}

void audit_libc_fill_request(const AuditLibc *l, BpfRequest *req)
{
        req->max_probes = AUDIT_LIBC_PROBES_MAX - MIN(l->n_probed, AUDIT_LIBC_PROBES_MAX);
        req->max_copies = MIN(req->max_probes, AUDIT_LIBC_PROBES_MAX / 2 - MIN(l->n_copies, AUDIT_LIBC_PROBES_MAX / 2));
        req->n_known = (uint32_t) l->n_files;
        memcpy(req->known, l->files, l->n_files * sizeof l->files[0]);
}

/* One process per mount namespace and root: the latest, which sees it most settled. */
static void audit_libc_queue(AuditLibc *l, const AuditBpfNewRoot *n)
{
        size_t i;

        for (i = 0; i < l->n_pending; i++)
                if (l->pending[i].mntns == n->mntns && l->pending[i].root_dev == n->root_dev &&
                    l->pending[i].root_ino == n->root_ino)
                        break;
        if (i < ELEMENTSOF(l->pending)) {
                l->pending[i] = *n;
                l->n_pending = MAX(l->n_pending, i + 1);
        } else
                l->sweep = true; /* too many at once: look at everyone */
}

static void audit_libc_on_rescanned(int error, const char *reason, const BpfReply *reply, int *fds, size_t n_fds,
                                    void *userdata)
{
        AuditLibc *l = userdata;

        l->call = NULL;
        (void) sd_event_now(l->event, CLOCK_MONOTONIC, &l->last_usec);
        l->n_rescans++;
        if (error < 0)
                log_full(l->failing ? LOG_DEBUG : LOG_WARNING, "Audit source libc: looking for new libc copies "
                         "failed: %s%s", reason, l->failing ? "" : " (until one works, further failures are logged "
                         "at debug level)");
        l->failing = error < 0;
        if (error >= 0) {
                audit_libc_take_reply(l, reply, fds);
                /* A rescan cut short that found something goes on at the next turn (what it
                 * found is known now and skipped). */
                if ((reply->flags & BPF_REPLY_INCOMPLETE) && reply->n_entries > 0) {
                        for (size_t i = 0; i < l->n_running; i++)
                                audit_libc_queue(l, &l->running[i]);
                        l->sweep = l->sweep || l->sweeping;
                }
        }
        close_many(fds, n_fds); /* what take_reply left: nothing a rescan should bring */
        audit_libc_schedule(l);
}

static void audit_libc_rescan_now(AuditLibc *l)
{
        BpfRequest req = { .op = BPF_OP_LIBC_RESCAN, .flags = l->sweep ? BPF_REQUEST_SWEEP : 0 };
        int r;

        for (size_t i = 0; i < l->n_pending; i++)
                req.pids[req.n_pids++] = l->pending[i].pid;
        audit_libc_fill_request(l, &req);
        r = bpf_helper_call(l->helper, &req, &l->program_fd, 1, audit_libc_on_rescanned, l, &l->call);
        if (r < 0) {
                log_warning_errno(r, "Audit source libc: cannot ask the BPF helper for a rescan, ignoring: %m");
                return;
        }
        /* Calls run one at a time, each counted when it ends: this is rescan n_rescans + 1. */
        if (l->sweep)
                log_debug("Audit source libc: rescan %" PRIu64 " looks at every process.", l->n_rescans + 1);
        memcpy(l->running, l->pending, l->n_pending * sizeof l->pending[0]);
        l->n_running = l->n_pending;
        l->sweeping = l->sweep;
        l->n_pending = 0;
        l->sweep = false;
}

static int on_rescan_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        audit_libc_schedule(userdata);
        return 0;
}

/* Starts a rescan if one is waiting and its turn has come, else arms the timer for it. */
static void audit_libc_schedule(AuditLibc *l)
{
        uint64_t now = 0, due;
        int r;

        if (l->n_probed >= AUDIT_LIBC_PROBES_MAX) {
                l->n_pending = 0; /* nothing more can be probed */
                l->sweep = false;
        }
        if (l->call || (l->n_pending == 0 && !l->sweep) || l->program_fd < 0)
                return;
        (void) sd_event_now(l->event, CLOCK_MONOTONIC, &now);
        due = l->last_usec + AUDIT_LIBC_RESCAN_SPACING_USEC;
        if (l->last_usec == 0 || now >= due) {
                audit_libc_rescan_now(l);
                return;
        }
        if (event_source_armed(l->timer))
                return;
        r = event_arm_timer(l->event, &l->timer, due, 0, on_rescan_timer, l);
        if (r < 0)
                log_warning_errno(r, "Audit source libc: cannot schedule a rescan, it waits for the next trigger: %m");
}

void audit_libc_on_new_root(AuditLibc *l, const AuditBpfNewRoot *n)
{
        log_debug("Audit source libc: pid %" PRIu32 " started in a new root or mount namespace (mnt:[%" PRIu32 "]), "
                  "looking for its libc.", n->pid, n->mntns);
        audit_libc_queue(l, n);
        audit_libc_schedule(l);
}

void audit_libc_request_sweep(AuditLibc *l)
{
        l->sweep = true;
        audit_libc_schedule(l);
}
