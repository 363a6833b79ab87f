/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The write path: a link's effective values → /proc/sys, keyed by ifindex, safe against renames.
 * One configuration pass plans what each knob should hold, reads what the message did not bring,
 * has the owner record the originals, then writes; the rename window is retried on a timer.
 */

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event-util.h"
#include "ifname.h"
#include "link-internal.h"
#include "link.h"
#include "log.h"
#include "sysctl-util.h"

#define LINK_RENAME_RETRIES 3
#define LINK_RETRY_MAX 6            /* 5, 10, 20, 40, 80, 160 ms */
#define LINK_RETRY_FIRST_USEC 5000

/* Permission denied or a read-only /proc/sys: the same for every write, so one warning that
 * says what to change, not one per link and knob. */
#define ERRNO_IS_WRITE_REFUSED(r) ((r) == -EPERM || (r) == -EACCES || (r) == -EROFS)

static void link_log_write_refused(Link *l, const KnobInfo *i, int r)
{
        LinkContext *ctx = l->ctx;

        if (ctx->write_denied_warned) {
                log_link_debug_errno(l, r, "Writing %s refused too: %m", i->name);
                return;
        }
        ctx->write_denied_warned = true;
        log_link_warning_errno(l, r,
                               "Writing /proc/sys/net/%s/conf/%s/%s was refused (%m): igmpd needs CAP_NET_ADMIN in "
                               "this network namespace and a writable /proc/sys/net (with ProtectKernelTunables=yes, "
                               "ReadWritePaths=/proc/sys/net). Links stay failed; further refused writes are logged "
                               "at debug level only.",
                               knob_family_dir(i->family), l->ifname, i->name);
}

/* What one configuration pass does with one knob. */
typedef struct KnobPlan {
        bool act;    /* the knob has a value to hold */
        bool known;  /* old is the kernel's value now */
        bool write;  /* old is not what the knob should hold */
        bool record; /* writing it changes what the record of originals says: recorded first */
        int32_t want, old;
} KnobPlan;

/* Whether v is a value igmpd wrote to knob k (as recorded). */
static bool link_holds_own_value(const Link *l, Knob k, int32_t v)
{
        return l->changed[k] && (knob_value_matches(k, l->written[k], v) ||
                                 (l->has_previous[k] && knob_value_matches(k, l->previous[k], v)));
}

static void link_plan_known(const Link *l, Knob k, KnobPlan *p, int32_t old)
{
        p->known = true;
        p->old = old;
        p->write = !knob_value_matches(k, p->want, old);
        p->record = p->write && l->effective[k].set && (!l->changed[k] || l->written[k] != p->want);
}

/* What each knob should hold: its effective value, or the original of a knob igmpd changed that
 * no source covers any more. Knows the kernel value where the message being handled brought it;
 * link_pass_read() reads the others. No I/O. */
static void link_plan(Link *l, KnobPlan plan[_KNOB_MAX])
{
        LinkContext *ctx = l->ctx;

        for (Knob k = 0; k < _KNOB_MAX; k++) {
                const KnobInfo *i = knob_info(k);
                KnobPlan *p = &plan[k];

                *p = (KnobPlan) {};
                if (l->effective[k].set)
                        p->want = l->effective[k].value;
                else if (l->changed[k])
                        p->want = l->original[k]; /* no longer covered: put back what we found */
                else
                        continue;

                if (!ctx->knob_supported[k]) {
                        if (l->effective[k].set && !ctx->knob_missing_warned[k]) {
                                log_warning("Policy sets %s (from %s), but this kernel does not have it "
                                            "(added by %s); ignoring it on all links.",
                                            i->name, knob_value_source(&l->effective[k]), i->patch);
                                ctx->knob_missing_warned[k] = true;
                        }
                        continue;
                }
                p->act = true;
                if (l->kernel_fresh[k])
                        link_plan_known(l, k, p, l->kernel[k]);
        }
}

/* Whether every knob to act on has a known kernel value, and at least one needs recording. */
static bool link_plan_records_from_message(const KnobPlan plan[_KNOB_MAX])
{
        bool record = false;

        for (Knob k = 0; k < _KNOB_MAX; k++) {
                if (plan[k].act && !plan[k].known)
                        return false;
                record = record || plan[k].record;
        }
        return record;
}

/* Takes the planned writes that change the record into it (a first change keeps the value found
 * as the original; a new value keeps the one it replaces as igmpd's previous one, should a crash
 * come before the write), and has the owner record them. Returns false when those writes must
 * wait for the owner's batch. */
static bool link_record_plan(Link *l, const KnobPlan plan[_KNOB_MAX])
{
        bool any = false;

        for (Knob k = 0; k < _KNOB_MAX; k++) {
                const KnobPlan *p = &plan[k];

                if (!p->act || !p->record)
                        continue;
                if (!l->changed[k]) {
                        l->original[k] = p->old;
                        l->changed[k] = true;
                        l->has_previous[k] = false;
                } else if (link_holds_own_value(l, k, p->old)) {
                        l->previous[k] = p->old;
                        l->has_previous[k] = true;
                } else
                        l->has_previous[k] = false; /* someone else's value: not ours to claim */
                l->written[k] = p->want;
                any = true;
        }
        if (!any)
                return true;
        l->record_dirty = true; /* link_record_touch(l, true), without a call per link on the first pass */
        return !l->ctx->record || l->ctx->record(l, true, l->ctx->userdata) != -EAGAIN;
}

/* One attempt at configuring a link: the plan, and the knob files it needs. Each knob is opened
 * by path, "IF/KNOB" below its family's conf directory fd (the name is one validated path
 * component; /proc/sys has no symbolic links): no directory fds. An fd keeps the sysctl table
 * of the link it was opened on, and a rename replaces the link's tables (a read or write
 * through an older fd fails with ENOENT): once the link is known to carry the name with the
 * fds open, the writes reach that link or fail. */
typedef struct LinkPass {
        KnobPlan plan[_KNOB_MAX];
        int fd[_KNOB_MAX];          /* the knob's file, -EBADF if not needed, or -errno */
        int write_error[_KNOB_MAX]; /* opening it for writing was refused: fd is read-only, if any */
        bool usable[_KNOB_FAMILY_MAX];
        bool opened;        /* a knob file was asked for: the name must be checked */
        bool ipv4_missing;  /* a conf directory missing: renamed meanwhile, or the rename window */
        bool ipv6_missing;
        int error;          /* opening an IPv4 knob failed otherwise */
} LinkPass;

/* Whether the pass does knob k: its family's files opened, and the knob's too where it needs one. */
static bool link_pass_has(const LinkPass *p, Knob k)
{
        const KnobPlan *kp = &p->plan[k];

        if (!kp->act || !p->usable[knob_info(k)->family])
                return false;
        return (kp->known && !kp->write) || p->fd[k] >= 0 || p->write_error[k] < 0;
}

/* Reads the knobs the message did not bring through their files. Returns the number of knobs
 * that failed, or -ENOENT if a file's link lost its name under us (renamed). */
static int link_pass_read(Link *l, LinkPass *p)
{
        unsigned failed = 0;

        for (Knob k = 0; k < _KNOB_MAX; k++) {
                const KnobInfo *i = knob_info(k);
                int32_t old;
                int r;

                if (!link_pass_has(p, k) || p->plan[k].known || p->fd[k] < 0)
                        continue;
                r = sysctl_read_int_fd(p->fd[k], &old);
                if (r == -ENOENT)
                        return -ENOENT;
                if (r < 0) {
                        log_link_warning_errno(l, r, "Failed to read %s, not setting it to %d: %m", i->name,
                                               p->plan[k].want);
                        link_set_error(l, "Failed to read %s: %s", i->name, strerror(-r));
                        p->plan[k].act = false;
                        failed++;
                        continue;
                }
                link_plan_known(l, k, &p->plan[k], old);
        }
        return (int) failed;
}

/* Writes the planned knobs through their files; with recorded false, those whose write needs a
 * record wait. Returns the number of knobs that failed, or -ENOENT if a file's link lost its
 * name under us (renamed). */
static int link_pass_write(Link *l, const LinkPass *pass, bool recorded)
{
        unsigned failed = 0;
        bool touched = false;

        for (Knob k = 0; k < _KNOB_MAX; k++) {
                const KnobInfo *i = knob_info(k);
                const KnobPlan *p = &pass->plan[k];
                int r;

                if (!link_pass_has(pass, k) || !p->known || (p->record && !recorded))
                        continue;
                if (p->write) {
                        r = pass->write_error[k] < 0 ? pass->write_error[k] : sysctl_write_int_fd(pass->fd[k], p->want);
                        if (r == -ENOENT)
                                return -ENOENT;
                        if (r < 0) {
                                if (ERRNO_IS_WRITE_REFUSED(r))
                                        link_log_write_refused(l, i, r);
                                else
                                        log_link_warning_errno(l, r, "Failed to set %s to %d, ignoring: %m", i->name,
                                                               p->want);
                                link_set_error(l, "Failed to set %s to %d: %s", i->name, p->want, strerror(-r));
                                failed++;
                                continue;
                        }
                }

                if (l->effective[k].set) {
                        if (p->write && l->has_previous[k]) {
                                l->has_previous[k] = false; /* the write is in: only written[] is ours */
                                touched = true;
                        }
                } else if (l->changed[k]) {
                        l->changed[k] = false; /* back at the original */
                        l->has_previous[k] = false;
                        touched = true;
                }

                link_set_kernel(l, k, true, p->write ? p->want : p->old);

                if (p->write)
                        log_link_debug(l, "Set %s=%d (was %d, from %s).", i->name, p->want, p->old,
                                       l->effective[k].set ? knob_value_source(&l->effective[k]) : "value before igmpd");
        }
        if (touched)
                (void) link_record_touch(l, false);
        return (int) failed;
}
/* Writes waiting for the record keep the kernel values they were planned with, so the pass
 * after the record does not read them again. Returns whether any write waits. */
static bool link_hold(Link *l, const KnobPlan plan[_KNOB_MAX], bool recorded)
{
        bool held = false;

        for (Knob k = 0; k < _KNOB_MAX; k++) {
                if (recorded || !plan[k].act || !plan[k].known || !plan[k].record)
                        continue;
                link_set_kernel(l, k, true, plan[k].old);
                l->kernel_fresh[k] = true;
                held = true;
        }
        l->record_wait = l->record_wait || held;
        return held;
}

static bool link_has_policy(const Link *l)
{
        for (Knob k = 0; k < _KNOB_MAX; k++)
                if (l->effective[k].set)
                        return true;
        return false;
}

static bool link_wants_family(Link *l, KnobFamily family)
{
        for (Knob k = 0; k < _KNOB_MAX; k++)
                if (knob_info(k)->family == family && (l->effective[k].set || l->changed[k]))
                        return true;
        return false;
}

static void link_check_mld_all(Link *l)
{
        LinkContext *ctx = l->ctx;
        int32_t all;

        if (ctx->mld_all_warned || !l->effective[KNOB_MLD_VERSION].set || ctx->conf_fd[KNOB_FAMILY_IPV6] < 0)
                return;
        if (sysctl_read_int_at(ctx->conf_fd[KNOB_FAMILY_IPV6], "all/force_mld_version", &all) < 0 || all == 0)
                return;
        log_link_warning(l, "net.ipv6.conf.all.force_mld_version=%d overrides the per-link MLD version "
                         "%d set by %s.", all, l->effective[KNOB_MLD_VERSION].value,
                         knob_value_source(&l->effective[KNOB_MLD_VERSION]));
        ctx->mld_all_warned = true;
}

static int link_on_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
        _cleanup_(link_unrefp) Link *l = link_ref(userdata); /* the pass may find it gone */

        l->retry_source = sd_event_source_disable_unref(l->retry_source);
        memset(l->kernel_fresh, 0, sizeof l->kernel_fresh);
        log_link_debug(l, "Retrying configuration (attempt %u).", l->n_retries);
        (void) link_reconfigure(l);
        return 0;
}

/* Arms the one-shot retry; returns false once the attempts are used up. */
static bool link_schedule_retry(Link *l)
{
        if (l->retry_source)
                return true;
        if (l->gone || l->n_retries >= LINK_RETRY_MAX)
                return false;
        if (event_arm_timer_in(l->ctx->event, &l->retry_source, LINK_RETRY_FIRST_USEC << l->n_retries, 1000,
                               link_on_retry, l) < 0)
                return false;
        l->n_retries++;
        return true;
}

/* openat(conf_fd, "IFNAME/KNOB"): ifname is a valid interface name, one path component. */
static int link_open_knob(int conf_fd, const char *ifname, const char *knob, int flags)
{
        char path[IF_NAMESIZE + 64], *e;
        int fd;

        e = stpcpy(path, ifname);
        *e++ = '/';
        if (strlen(knob) >= sizeof path - (size_t) (e - path))
                return -ENAMETOOLONG;
        strcpy(e, knob);
        fd = openat(conf_fd, path, flags | O_CLOEXEC | O_NOFOLLOW);
        return fd < 0 ? negative_errno() : fd;
}

/* Plans the pass and opens the files of the knobs it reads or writes: read-write where the value
 * is not known yet, write-only where it is and differs; none where it is what it should be. The
 * name is not checked here: see link_pass_check(). */
static void link_pass_open(Link *l, LinkPass *p)
{
        LinkContext *ctx = l->ctx;

        *p = (LinkPass) {};
        for (Knob k = 0; k < _KNOB_MAX; k++)
                p->fd[k] = -EBADF;
        link_plan(l, p->plan);
        for (KnobFamily f = 0; f < _KNOB_FAMILY_MAX; f++) {
                bool missing = false, asked = false;

                if (!link_wants_family(l, f)) {
                        if (f == KNOB_FAMILY_IPV6)
                                l->ipv6_available = link_ipv6_dir_exists(l);
                        continue;
                }
                if (ctx->conf_fd[f] < 0)
                        continue; /* whole family absent from this kernel */
                p->usable[f] = true;
                for (Knob k = 0; k < _KNOB_MAX; k++) {
                        const KnobInfo *i = knob_info(k);
                        const KnobPlan *kp = &p->plan[k];
                        int r;

                        if (i->family != f || !kp->act || (kp->known && !kp->write))
                                continue;
                        asked = true;
                        r = link_open_knob(ctx->conf_fd[f], l->ifname, i->name, kp->known ? O_WRONLY : O_RDWR);
                        if (ERRNO_IS_WRITE_REFUSED(r)) {
                                /* Said at the write, if one is needed: the value may be right. */
                                p->write_error[k] = r;
                                if (!kp->known)
                                        r = link_open_knob(ctx->conf_fd[f], l->ifname, i->name, O_RDONLY);
                        }
                        p->fd[k] = r;
                        if (r == -ENOENT)
                                missing = true;
                        else if (r < 0 && p->write_error[k] == 0) {
                                p->usable[f] = false;
                                if (f == KNOB_FAMILY_IPV4 && p->error == 0)
                                        p->error = r;
                        }
                }
                if (!asked)
                        continue;
                p->opened = true;
                if (missing)
                        p->usable[f] = false;
                if (f == KNOB_FAMILY_IPV4)
                        p->ipv4_missing = missing;
                else {
                        p->ipv6_missing = missing;
                        l->ipv6_available = !missing;
                }
        }
}

/* After the files are open: name_r and now are what the kernel calls our ifindex now (from
 * link_current_name(), or, for a whole batch, its events: link_configure_many()). The name may
 * have moved to another link meanwhile. Returns 0, -ESTALE (renamed: l->ifname updated, try
 * again), -ENODEV (gone), -EAGAIN (the kernel has not re-created the directory after a rename
 * yet) or -errno. */
static int link_pass_check(Link *l, const LinkPass *p, int name_r, const char *now)
{
        int r;

        if (!p->opened)
                return 0;
        if (name_r == -ENODEV || name_r == -ENXIO)
                return -ENODEV; /* RTM_DELLINK follows */
        if (name_r >= 0 && !streq(now, l->ifname)) {
                r = link_set_names(l, now, LINK_KEEP_ALTNAMES, false);
                return r < 0 ? r : -ESTALE;
        }

        if (p->ipv4_missing)
                return -EAGAIN; /* name verified, directory not (yet) there: rename window */
        if (p->error < 0)
                return p->error;
        if (p->ipv6_missing) {
                /* MTU < 1280: unavailable, applied when it appears. With a large enough MTU it
                 * may be the rename window: look again shortly. */
                if (l->mtu >= IPV6_MIN_MTU && link_schedule_retry(l))
                        log_link_debug(l, "IPv6 configuration not present yet, retrying shortly.");
                else
                        log_link_debug(l, "IPv6 configuration not present, MLD knobs wait for it.");
        }
        return 0;
}

/* The name check of one link on its own: SIOCGIFNAME. */
static int link_pass_check_alone(Link *l, const LinkPass *p)
{
        char now[IF_NAMESIZE];
        int r = 0;

        if (p->opened)
                r = link_current_name(l, now);
        return link_pass_check(l, p, r, now);
}

/* Reads, records and writes through the files of a checked pass. Returns -ENOENT if renamed
 * under us, else the number of knobs that failed; *recorded says whether the writes that needed
 * the record were made. */
static int link_pass_run(Link *l, LinkPass *p, bool *recorded)
{
        int r, w;

        if (p->usable[KNOB_FAMILY_IPV6])
                link_check_mld_all(l);
        r = link_pass_read(l, p);
        if (r < 0)
                return r;
        *recorded = link_record_plan(l, p->plan);
        w = link_pass_write(l, p, *recorded);
        return w < 0 ? w : r + w;
}
/* The kernel denies our ifindex: the owner drops the link from its table. */
static int link_vanished(Link *l)
{
        if (l->gone)
                return -ENODEV;
        log_link_debug(l, "The kernel has no link %d any more, forgetting it.", l->ifindex);
        link_set_error(l, "The link is gone");
        if (l->ctx->vanished)
                l->ctx->vanished(l, l->ctx->userdata);
        return -ENODEV;
}

/* 1 if the name can be a path component, else the link fails. */
static int link_check_ifname(Link *l)
{
        if (ifname_valid(l->ifname))
                return 1;
        link_set_error(l, "Interface name is not usable as a path component");
        l->state = LINK_STATE_FAILED;
        return log_link_warning_errno(l, EINVAL, "Interface name is not valid, not configuring.");
}

/* The part of link_configure() before any file is opened: 1 to go on, else its result. */
static int link_configure_begin(Link *l)
{
        KnobPlan plan[_KNOB_MAX];

        if (l->gone)
                return -ENODEV;
        if (link_update_effective(l) < 0)
                return log_oom();
        l->record_wait = false;

        /* The usual first pass (a new link, every value in its message): if the writes need a
         * record and the owner batches records, wait for it without touching the kernel. */
        link_plan(l, plan);
        if (l->ctx->record && link_plan_records_from_message(plan) && !link_record_plan(l, plan)) {
                (void) link_hold(l, plan, false);
                l->state = LINK_STATE_PENDING;
                return 0;
        }
        return link_check_ifname(l);
}

/* The passes of link_configure(), renames retried. The first one, if given, the caller opened
 * and checked (first_r: link_pass_check()'s verdict), and closes its files. */
static int link_configure_passes(Link *l, LinkPass *first, int first_r)
{
        LinkPass pass, *p = &pass;
        unsigned failed = 0;
        bool recorded = true;
        int r;

        for (int attempt = 0;; attempt++) {
                bool renamed = false;

                if (attempt == 0 && first) {
                        p = first;
                        r = first_r;
                } else {
                        p = &pass;
                        if (attempt > 0 && (r = link_check_ifname(l)) < 0)
                                return r;
                        link_pass_open(l, p);
                        r = link_pass_check_alone(l, p);
                }
                if (r == 0) {
                        int k = link_pass_run(l, p, &recorded);

                        if (k == -ENOENT) {
                                /* A file's link went away under us: renamed meanwhile. */
                                char now[IF_NAMESIZE];

                                renamed = true;
                                if (link_current_name(l, now) >= 0 && !streq(now, l->ifname) &&
                                    link_set_names(l, now, LINK_KEEP_ALTNAMES, false) >= 0 && link_has_record(l))
                                        (void) link_record_touch(l, false);
                        } else
                                failed = (unsigned) k;
                }
                for (Knob k = 0; p != first && k < _KNOB_MAX; k++)
                        p->fd[k] = safe_close(p->fd[k]);

                if (r == -ENODEV)
                        return link_vanished(l);
                if (r == -EAGAIN) {
                        l->state = LINK_STATE_PENDING;
                        if (!link_schedule_retry(l))
                                log_link_warning(l, "IPv4 configuration directory missing, "
                                                 "waiting for the next event of this link.");
                        return 0;
                }
                if (r == -ESTALE) {
                        renamed = true;
                        if (link_has_record(l))
                                (void) link_record_touch(l, false); /* link_pass_check() took the new name */
                } else if (r < 0) {
                        link_set_error(l, "Cannot open the conf directory: %s", strerror(-r));
                        l->state = LINK_STATE_FAILED;
                        return log_link_warning_errno(l, r, "Failed to open the conf directory: %m");
                }

                if (!renamed)
                        break;
                if (attempt >= LINK_RENAME_RETRIES) {
                        link_set_error(l, "Link keeps being renamed");
                        l->state = LINK_STATE_PENDING;
                        return log_link_warning_errno(l, EAGAIN,
                                                      "Link renamed while configuring it, giving up for now; "
                                                      "the rename event will retry.");
                }
                log_link_debug(l, "Link was renamed while configuring it, redoing under the new name.");
                if (link_update_effective(l) < 0)
                        return log_oom();
        }

        /* Values from the message are only trusted for the configure pass it triggered (and
         * the one that follows the record the writes waited for). */
        memset(l->kernel_fresh, 0, sizeof l->kernel_fresh);
        if (link_hold(l, p->plan, recorded) && failed == 0) {
                l->state = LINK_STATE_PENDING;
                return 0;
        }

        if (failed > 0) {
                l->state = LINK_STATE_FAILED;
                return -EIO;
        }
        if (!l->retry_source)
                l->n_retries = 0;
        l->last_error = mfree(l->last_error);
        /* Managed means some source sets a knob now. A pass that only wrote back the values found
         * before igmpd (a runtime change reverted, a policy removed) leaves the link unmanaged. */
        l->state = link_has_policy(l) ? LINK_STATE_CONFIGURED : LINK_STATE_UNMANAGED;
        return 0;
}

int link_configure(Link *l)
{
        int r = link_configure_begin(l);

        return r <= 0 ? r : link_configure_passes(l, NULL, 0);
}

/* Closes the files of a batch's first passes with one close_range(2) per run of consecutive fds:
 * the close(2) a file saves is a tenth of what writing a knob costs (BENCHMARKS.md). Every number
 * in a run is a file of ours, so nothing else is closed. */
static void link_passes_close(LinkPass *pass, const int *begun, size_t n)
{
        int fds[LINK_MANY_MAX * _KNOB_MAX];
        size_t m = 0;

        for (size_t i = 0; i < n; i++)
                for (Knob k = 0; begun[i] > 0 && k < _KNOB_MAX; k++)
                        if (pass[i].fd[k] >= 0)
                                fds[m++] = pass[i].fd[k];
        for (size_t i = 0, j; i < m; i = j) {
                for (j = i + 1; j < m && fds[j] == fds[j - 1] + 1; j++)
                        ;
                if (close_range((unsigned) fds[i], (unsigned) fds[j - 1], 0) < 0)
                        close_many(fds + i, j - i);
        }
}

void link_configure_many(Link *const *links, size_t n, LinkNamesCheck check, void *userdata)
{
        LinkPass pass[LINK_MANY_MAX];
        Link *asked[LINK_MANY_MAX];
        int begun[LINK_MANY_MAX];
        bool doubt[LINK_MANY_MAX];
        size_t n_asked = 0;
        int r;

        assert(n <= LINK_MANY_MAX);
        for (size_t i = 0; i < n; i++) {
                begun[i] = link_configure_begin(links[i]);
                if (begun[i] <= 0)
                        continue;
                link_pass_open(links[i], &pass[i]);
                if (pass[i].opened)
                        asked[n_asked++] = links[i];
        }
        /* With every file of the batch open: which links may have lost their name. */
        r = n_asked > 0 ? check(asked, n_asked, doubt, userdata) : 0;
        if (r < 0)
                log_debug_errno(r, "Cannot tell from the link events which of %zu links were renamed, "
                                "asking the kernel about each: %m", n_asked);
        else if (n_asked > 0 && memchr(doubt, true, n_asked))
                log_debug("Link events queued for some of %zu links being configured, asking the kernel "
                          "about their names.", n_asked);

        for (size_t i = 0, j = 0; i < n; i++) {
                Link *l = links[i];
                int v;

                if (begun[i] <= 0)
                        continue;
                if (!pass[i].opened)
                        v = 0;
                else if (r < 0 || doubt[j++])
                        v = link_pass_check_alone(l, &pass[i]);
                else
                        v = link_pass_check(l, &pass[i], 0, l->ifname); /* no event since: same name */
                (void) link_configure_passes(l, &pass[i], v);
        }
        link_passes_close(pass, begun, n);
}

int link_reconfigure(Link *l)
{
        LinkSnapshot before;
        int r;

        link_begin_change(l, &before);
        r = link_configure(l);
        link_end_change(l, &before);
        return r;
}
