/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The write path: a link's effective values → /proc/sys, keyed by ifindex, safe against renames.
 * One configuration pass plans what each knob should hold, reads what the message did not bring,
 * has the owner record the originals, then writes; the rename window is retried on a timer.
 */

#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

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

        ctx->n_write_denied++;
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
 * link_read_family() reads the others. No I/O. */
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

/* Reads the knobs of one family the message did not bring, through an already verified
 * directory fd. Returns the number of knobs that failed, or -ENOENT if the directory vanished
 * under us (renamed). */
static int link_read_family(Link *l, KnobFamily family, int dfd, KnobPlan plan[_KNOB_MAX])
{
        unsigned failed = 0;

        for (Knob k = 0; k < _KNOB_MAX; k++) {
                const KnobInfo *i = knob_info(k);
                int32_t old;
                int r;

                if (i->family != family || !plan[k].act || plan[k].known)
                        continue;
                r = sysctl_read_int_at(dfd, i->name, &old);
                if (r == -ENOENT)
                        return -ENOENT;
                if (r < 0) {
                        log_link_warning_errno(l, r, "Failed to read %s, not setting it to %d: %m", i->name,
                                               plan[k].want);
                        link_set_error(l, "Failed to read %s: %s", i->name, strerror(-r));
                        plan[k].act = false;
                        failed++;
                        continue;
                }
                link_plan_known(l, k, &plan[k], old);
        }
        return (int) failed;
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
        l->record_dirty = true;
        return !l->ctx->record || l->ctx->record(l, true, l->ctx->record_userdata) != -EAGAIN;
}

/* Writes the planned knobs of one family through an already verified directory fd; with
 * recorded false, those whose write needs a record wait. Returns the number of knobs that
 * failed, or -ENOENT if the directory vanished under us (renamed). */
static int link_write_family(Link *l, KnobFamily family, int dfd, const KnobPlan plan[_KNOB_MAX], bool recorded)
{
        unsigned failed = 0;
        bool touched = false;

        for (Knob k = 0; k < _KNOB_MAX; k++) {
                const KnobInfo *i = knob_info(k);
                const KnobPlan *p = &plan[k];
                int r;

                if (i->family != family || !p->act || !p->known || (p->record && !recorded))
                        continue;
                if (p->write) {
                        r = sysctl_write_int_at(dfd, i->name, p->want);
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
                link_record_touch(l);
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
        uint64_t now_usec;

        if (l->retry_source)
                return true;
        if (l->gone || l->n_retries >= LINK_RETRY_MAX)
                return false;
        if (sd_event_now(l->ctx->event, CLOCK_MONOTONIC, &now_usec) < 0)
                return false;
        if (sd_event_add_time(l->ctx->event, &l->retry_source, CLOCK_MONOTONIC,
                              now_usec + (LINK_RETRY_FIRST_USEC << l->n_retries), 1000, link_on_retry, l) < 0)
                return false;
        l->n_retries++;
        return true;
}

/* Opens the conf directories of the families that have something to do, then checks once that
 * our ifindex still carries the name they were opened by (the name may have moved to another
 * link meanwhile). Returns 0, -ESTALE (renamed: l->ifname updated, try again), -ENODEV (gone),
 * -EAGAIN (the kernel has not re-created the directory after a rename yet) or -errno. */
static int link_open_dirs(Link *l, int dfd[_KNOB_FAMILY_MAX], bool *ret_any)
{
        LinkContext *ctx = l->ctx;
        char now[IF_NAMESIZE];
        bool any = false, opened = false;
        int r;

        for (KnobFamily f = 0; f < _KNOB_FAMILY_MAX; f++) {
                if (!link_wants_family(l, f)) {
                        if (f == KNOB_FAMILY_IPV6)
                                l->ipv6_available = link_ipv6_dir_exists(l);
                        continue;
                }
                any = true;
                if (ctx->conf_fd[f] < 0)
                        continue; /* whole family absent from this kernel */
                dfd[f] = sysctl_open_link_dir(ctx->conf_fd[f], l->ifname);
                opened = true;
                if (f == KNOB_FAMILY_IPV6)
                        l->ipv6_available = dfd[f] >= 0;
        }
        *ret_any = any;
        if (!opened)
                return 0;

        r = link_current_name(l, now);
        if (r == -ENODEV || r == -ENXIO)
                return -ENODEV; /* RTM_DELLINK follows */
        if (r >= 0 && !streq(now, l->ifname)) {
                r = link_set_names(l, now, LINK_KEEP_ALTNAMES, false);
                return r < 0 ? r : -ESTALE;
        }

        if (dfd[KNOB_FAMILY_IPV4] == -ENOENT)
                return -EAGAIN; /* name verified, directory not (yet) there: rename window */
        if (dfd[KNOB_FAMILY_IPV4] < 0 && dfd[KNOB_FAMILY_IPV4] != -EBADF)
                return dfd[KNOB_FAMILY_IPV4];
        if (dfd[KNOB_FAMILY_IPV6] == -ENOENT) {
                /* MTU < 1280: unavailable, applied when it appears. With a large enough MTU it
                 * may be the rename window: look again shortly. */
                if (l->mtu >= IPV6_MIN_MTU && link_schedule_retry(l))
                        log_link_debug(l, "IPv6 configuration not present yet, retrying shortly.");
                else
                        log_link_debug(l, "IPv6 configuration not present, MLD knobs wait for it.");
        }
        return 0;
}

/* The kernel denies our ifindex: the owner drops the link from its table. */
static int link_vanished(Link *l)
{
        if (l->gone)
                return -ENODEV;
        log_link_debug(l, "The kernel has no link %d any more, forgetting it.", l->ifindex);
        link_set_error(l, "The link is gone");
        if (l->ctx->vanished)
                l->ctx->vanished(l, l->ctx->table_userdata);
        return -ENODEV;
}

int link_configure(Link *l)
{
        KnobPlan plan[_KNOB_MAX];
        unsigned failed = 0;
        bool any = false, recorded = true;
        int r;

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

        for (int attempt = 0;; attempt++) {
                int dfd[_KNOB_FAMILY_MAX] = { -EBADF, -EBADF };
                bool renamed = false;

                if (!ifname_valid(l->ifname)) {
                        link_set_error(l, "Interface name is not usable as a path component");
                        l->state = LINK_STATE_FAILED;
                        return log_link_warning_errno(l, EINVAL, "Interface name is not valid, not configuring.");
                }

                r = link_open_dirs(l, dfd, &any);
                if (r == 0) {
                        link_plan(l, plan);
                        failed = 0;
                        for (KnobFamily f = 0; f < _KNOB_FAMILY_MAX && !renamed; f++) {
                                int k;

                                if (dfd[f] < 0)
                                        continue;
                                if (f == KNOB_FAMILY_IPV6)
                                        link_check_mld_all(l);
                                k = link_read_family(l, f, dfd[f], plan);
                                if (k == -ENOENT)
                                        renamed = true;
                                else
                                        failed += (unsigned) k;
                        }
                        if (!renamed)
                                recorded = link_record_plan(l, plan);
                        for (KnobFamily f = 0; f < _KNOB_FAMILY_MAX && !renamed; f++) {
                                int k;

                                if (dfd[f] < 0)
                                        continue;
                                k = link_write_family(l, f, dfd[f], plan, recorded);
                                if (k == -ENOENT)
                                        renamed = true;
                                else
                                        failed += (unsigned) k;
                        }
                        if (renamed) {
                                /* The directory went away under us: renamed meanwhile. */
                                char now[IF_NAMESIZE];

                                if (link_current_name(l, now) >= 0 && !streq(now, l->ifname) &&
                                    link_set_names(l, now, LINK_KEEP_ALTNAMES, false) >= 0 && link_has_record(l))
                                        link_record_touch(l);
                        }
                }
                for (KnobFamily f = 0; f < _KNOB_FAMILY_MAX; f++)
                        safe_close(dfd[f]);

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
                                link_record_touch(l); /* link_open_dirs() took the new name */
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
        if (link_hold(l, plan, recorded) && failed == 0) {
                l->state = LINK_STATE_PENDING;
                return 0;
        }

        if (failed > 0) {
                l->state = LINK_STATE_FAILED;
                return -EIO;
        }
        if (!l->retry_source)
                l->n_retries = 0;
        free(l->last_error);
        l->last_error = NULL;
        /* Managed means some source sets a knob now. A pass that only wrote back the values found
         * before igmpd (a runtime change reverted, a policy removed) leaves the link unmanaged. */
        l->state = any && link_has_policy(l) ? LINK_STATE_CONFIGURED : LINK_STATE_UNMANAGED;
        return 0;
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
