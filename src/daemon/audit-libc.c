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
#include "log.h"

/* The host's library directories, watched for a replaced libc (the sweep then finds the
 * programs that map the new one). */
static const char *const libc_dirs[] = {
        "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", NULL,
};

typedef struct AuditLibcFile {
        BpfFileId id;
        bool probed;
} AuditLibcFile;

struct AuditLibc {
        AuditLibcContext ctx;
        AuditLibcFile files[BPF_PROTOCOL_MAX_KNOWN];
        size_t n_files;
        unsigned n_probed;

        uint32_t pids[BPF_PROTOCOL_MAX_PIDS]; /* waiting for the next rescan */
        size_t n_pids;
        bool sweep;

        BpfHelperCall *call;
        uint64_t last_usec;        /* when the last rescan ended */
        sd_event_source *timer;    /* exists only while a rescan waits for its turn */
        uint64_t n_rescans;

        int inotify_fd;
        sd_event_source *inotify_source;
};

/* The event loop's idea of now (the time of this wake-up). */
static uint64_t now_monotonic(const AuditLibc *l)
{
        uint64_t now = 0;

        (void) sd_event_now(l->ctx.event, CLOCK_MONOTONIC, &now);
        return now;
}

static bool libc_name(const char *name)
{
        return startswith(name, "libc.so") || startswith(name, "libc-2.");
}

static void audit_libc_schedule(AuditLibc *l);

static int on_inotify(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        AuditLibc *l = userdata;
        union {
                struct inotify_event e;
                char buf[4096];
        } u;
        bool changed = false;
        ssize_t n;

        while ((n = read(fd, &u, sizeof u)) > 0)
                for (char *p = u.buf; p < u.buf + n;) {
                        struct inotify_event *e = (struct inotify_event *) p;

                        if (e->len > 0 && libc_name(e->name))
                                changed = true;
                        p += sizeof *e + e->len;
                }
        if (changed) {
                log_info("A libc file changed in the library directories, looking for processes that map a new one.");
                audit_libc_request_sweep(l);
        }
        return 0;
}

static void audit_libc_watch_dirs(AuditLibc *l)
{
        int r;

        l->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (l->inotify_fd < 0) {
                log_debug_errno(errno, "Cannot watch the library directories for a new libc, ignoring: %m");
                return;
        }
        for (size_t i = 0; libc_dirs[i]; i++)
                (void) inotify_add_watch(l->inotify_fd, libc_dirs[i], IN_MOVED_TO | IN_CREATE | IN_ONLYDIR);
        r = sd_event_add_io(l->ctx.event, &l->inotify_source, l->inotify_fd, EPOLLIN, on_inotify, l);
        if (r >= 0)
                r = sd_event_source_set_priority(l->inotify_source, AUDIT_EVENT_PRIORITY);
        if (r < 0)
                log_debug_errno(r, "Cannot watch the library directories for a new libc, ignoring: %m");
}

int audit_libc_new(const AuditLibcContext *ctx, AuditLibc **ret)
{
        AuditLibc *l;

        assert(ctx);
        assert(ret);

        l = calloc(1, sizeof *l);
        if (!l)
                return -ENOMEM;
        l->ctx = *ctx;
        l->inotify_fd = -EBADF;
        audit_libc_watch_dirs(l);
        *ret = l;
        return 0;
}

AuditLibc *audit_libc_free(AuditLibc *l)
{
        if (!l)
                return NULL;
        bpf_helper_call_cancel(l->ctx.helper, l->call);
        sd_event_source_disable_unref(l->timer);
        sd_event_source_disable_unref(l->inotify_source);
        safe_close(l->inotify_fd);
        free(l);
        return NULL;
}

unsigned audit_libc_n_probed(const AuditLibc *l)
{
        return l ? l->n_probed : 0;
}

uint64_t audit_libc_n_rescans(const AuditLibc *l)
{
        return l ? l->n_rescans : 0;
}

void audit_libc_note_file(AuditLibc *l, const BpfReplyEntry *e, bool probed)
{
        for (size_t i = 0; i < l->n_files; i++)
                if (l->files[i].id.dev == e->file.dev && l->files[i].id.ino == e->file.ino)
                        return;
        if (probed) {
                l->n_probed++;
                log_info("Audit source libc: probing sysctl@GLIBC_2.2.5 in %s.", e->path);
        } else
                log_debug("Audit source libc: %s", e->path);
        /* Beyond the bound the helper may look at a file again: harmless, it is then known by
         * its kept link and is simply reported once more. */
        if (l->n_files < ELEMENTSOF(l->files))
                l->files[l->n_files++] = (AuditLibcFile) { .id = e->file, .probed = probed };
}

static void audit_libc_on_rescanned(int error, const char *reason, const BpfReply *reply, int *fds, size_t n_fds,
                                    void *userdata)
{
        AuditLibc *l = userdata;
        size_t k = 0;

        l->call = NULL;
        l->last_usec = now_monotonic(l);
        l->n_rescans++;
        if (error < 0)
                log_warning("Audit source libc: looking for new libc copies failed: %s", reason);
        else
                for (size_t i = 0; i < reply->n_entries; i++) {
                        const BpfReplyEntry *e = &reply->entries[i];

                        if (e->role == BPF_FD_NONE) {
                                audit_libc_note_file(l, e, false);
                                continue;
                        }
                        if (e->role == BPF_FD_LINK && l->ctx.keep_link(fds[k], l->ctx.userdata) >= 0)
                                audit_libc_note_file(l, e, true);
                        else if (e->role != BPF_FD_LINK)
                                safe_close(fds[k]);
                        k++;
                }
        audit_libc_schedule(l);
}

static void audit_libc_rescan_now(AuditLibc *l)
{
        BpfRequest req = { .op = BPF_OP_LIBC_RESCAN };
        int r;

        req.flags = l->sweep ? BPF_REQUEST_SWEEP : 0;
        req.n_pids = (uint32_t) l->n_pids;
        memcpy(req.pids, l->pids, l->n_pids * sizeof l->pids[0]);
        for (size_t i = 0; i < l->n_files; i++)
                req.known[req.n_known++] = l->files[i].id;
        r = bpf_helper_call(l->ctx.helper, &req, l->ctx.program_fd, 1, audit_libc_on_rescanned, l,
                            &l->call);
        if (r < 0) {
                log_warning_errno(r, "Audit source libc: cannot ask the BPF helper for a rescan, ignoring: %m");
                return;
        }
        l->n_pids = 0;
        l->sweep = false;
}

static int on_rescan_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        AuditLibc *l = userdata;

        l->timer = sd_event_source_disable_unref(l->timer);
        audit_libc_schedule(l);
        return 0;
}

/* Starts a rescan if one is waiting and its turn has come, else arms the timer for it. */
static void audit_libc_schedule(AuditLibc *l)
{
        uint64_t now, due;
        int r;

        if (l->call || (l->n_pids == 0 && !l->sweep) || *l->ctx.program_fd < 0)
                return;
        now = now_monotonic(l);
        due = l->last_usec + AUDIT_LIBC_RESCAN_SPACING_USEC;
        if (l->last_usec == 0 || now >= due) {
                audit_libc_rescan_now(l);
                return;
        }
        if (l->timer)
                return;
        r = sd_event_add_time(l->ctx.event, &l->timer, CLOCK_MONOTONIC, due, 0, on_rescan_timer, l);
        if (r < 0)
                log_warning_errno(r, "Audit source libc: cannot schedule a rescan, it waits for the next trigger: %m");
}

void audit_libc_on_new_root(AuditLibc *l, const AuditBpfNewRoot *n)
{
        for (size_t i = 0; i < l->n_pids; i++)
                if (l->pids[i] == n->pid)
                        return;
        log_debug("Audit source libc: pid %" PRIu32 " started in a new root or mount namespace (mnt:[%" PRIu32 "]), "
                  "looking for its libc.", n->pid, n->mntns);
        if (l->n_pids < ELEMENTSOF(l->pids))
                l->pids[l->n_pids++] = n->pid;
        else
                l->sweep = true; /* too many at once: look at everyone */
        audit_libc_schedule(l);
}

void audit_libc_request_sweep(AuditLibc *l)
{
        l->sweep = true;
        audit_libc_schedule(l);
}
