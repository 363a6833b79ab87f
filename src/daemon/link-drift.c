/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Writes of a link's knobs by other processes ("drift"): told by the drift watch (who wrote,
 * and the value before) or suspected from a link message (nobody knows who). Either way the
 * knob is read back first — the kernel may have rejected the write, or the message may be older
 * than igmpd's own last write — and only a value that really changed counts.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "event-util.h"
#include "ifname.h"
#include "link-internal.h"
#include "link.h"
#include "log.h"
#include "sysctl-util.h"

/* At most one report (log line and signal) per knob in this time, whoever writes: a writer picks
 * its command name, pid and uid, so none of them may make more reports. */
#define LINK_OVERRIDE_REPORT_USEC (1000ULL * 1000ULL)

static const char *const link_override_action_table[_LINK_OVERRIDE_ACTION_MAX] = {
        [LINK_OVERRIDE_REVERTED] = "reverted",
        [LINK_OVERRIDE_KEPT] = "kept",
        [LINK_OVERRIDE_FAILED] = "failed",
};

const char *link_override_action_to_string(LinkOverrideAction a)
{
        return TABLE_NAME(link_override_action_table, a);
}

int link_open_family_dir(Link *l, KnobFamily f)
{
        int conf_fd = l->ctx->conf_fd[f];
        _cleanup_close_ int dfd = -EBADF;
        char now[IF_NAMESIZE];
        int r;

        if (conf_fd < 0 || !ifname_valid(l->ifname))
                return -ENOENT;
        dfd = sysctl_open_link_dir(conf_fd, l->ifname);
        if (dfd < 0)
                return dfd;
        r = link_current_name(l, now);
        if (r < 0)
                return r;
        if (!streq(now, l->ifname))
                return -ESTALE;
        return TAKE_FD(dfd);
}

void log_drift_override(const char *netns, const char *ifname, int ifindex, const char *knob, const char *name,
                        const char *source, const LinkOverride *o, const LinkWriter *w, const char *unseen,
                        unsigned suppressed, int error)
{
        char who[160], old[16] = "?", more[96] = "", f[8][64];
        const char *fields[] = { f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], NULL };

        if (w)
                snprintf(who, sizeof who, "process '%s' (pid %" PRIu32 ", uid %" PRIu32 ")%s%s", strempty(w->comm),
                         w->pid, w->uid, w->via ? " through " : "", strempty(w->via));
        else
                snprintf(who, sizeof who, "%s", unseen);
        if (o->old_known)
                snprintf(old, sizeof old, "%" PRIi32, o->old_value);
        if (suppressed > 0)
                snprintf(more, sizeof more, "; changed %u more time%s since the last report", suppressed,
                         suppressed == 1 ? "" : "s");

        snprintf(f[0], sizeof f[0], "KNOB=%s", knob);
        snprintf(f[1], sizeof f[1], "OLD_VALUE=%s", old);
        snprintf(f[2], sizeof f[2], "NEW_VALUE=%" PRIi32, o->new_value);
        snprintf(f[3], sizeof f[3], "IGMPD_VALUE=%" PRIi32, o->value);
        snprintf(f[4], sizeof f[4], "WRITER_PID=%" PRIu32, o->pid);
        snprintf(f[5], sizeof f[5], "WRITER_UID=%" PRIu32, o->uid);
        snprintf(f[6], sizeof f[6], "WRITER_COMM=%s", o->comm);
        snprintf(f[7], sizeof f[7], "DRIFT_ACTION=%s", link_override_action_to_string(o->action));

        (void) log_internal_link(LOG_WARNING, error, netns, ifname, ifindex, DRIFT_MESSAGE_ID, fields,
                                 "%s changed from %s to %" PRIi32 " by %s; igmpd's value is %" PRIi32 " (from %s): %s%s.",
                                 name, old, o->new_value, who, o->value, source,
                                 o->action == LINK_OVERRIDE_REVERTED ? "reverted" :
                                 o->action == LINK_OVERRIDE_KEPT ? "kept (DriftAction=warn)" :
                                 "writing it back failed: %m", more);
}

/* Takes igmpd's write of want over another process's value now into the record of originals (a
 * first change keeps now as the value found: what igmpd overrode) and has the owner record it,
 * before the write, as link_configure() does. Returns false when the write must wait for the
 * owner's batch. */
static bool link_record_revert(Link *l, Knob k, int32_t now, int32_t want)
{
        if (l->changed[k] && l->written[k] == want) {
                /* Recorded already. A previous value of igmpd's was overwritten by now. */
                if (l->has_previous[k]) {
                        l->has_previous[k] = false;
                        (void) link_record_touch(l, false);
                }
                return true;
        }
        if (!l->changed[k]) {
                l->original[k] = now;
                l->changed[k] = true;
        }
        l->has_previous[k] = false; /* now is someone else's value: not ours to claim */
        l->written[k] = want;
        return link_record_touch(l, true);
}

/* One knob, read back through dfd (the verified conf directory of its family). */
static void link_check_one(Link *l, Knob k, int dfd, const LinkWriter *w)
{
        LinkContext *ctx = l->ctx;
        const KnobInfo *i = knob_info(k);
        LinkOverride o;
        unsigned suppressed = 0;
        bool writer_old;
        int32_t now, want;
        int r;

        r = sysctl_read_int_at(dfd, i->name, &now);
        if (r < 0) {
                log_link_debug_errno(l, r, "Cannot read %s back, ignoring: %m", i->name);
                return;
        }
        if (l->kernel_known[k] && knob_value_matches(k, l->kernel[k], now))
                return; /* rejected by the kernel, or the value it had: nothing changed */

        /* The value before: the writer's, unless igmpd's revert or a write over netlink (neither in
         * the ring) came after it was recorded and the burst ended on it; then igmpd's, which
         * differs from now (above). */
        writer_old = w && w->old_known && !knob_value_matches(k, w->old_value, now);
        o = (LinkOverride) {
                .knob = k,
                .old_known = writer_old || l->kernel_known[k],
                .old_value = writer_old ? w->old_value : l->kernel_known[k] ? l->kernel[k] : 0,
                .new_value = now,
                .pid = w ? w->pid : 0,
                .uid = w ? w->uid : 0,
                .comm = w ? strempty(w->comm) : "",
        };
        link_set_kernel(l, k, true, now);

        if (!l->effective[k].set || knob_value_matches(k, l->effective[k].value, now)) {
                /* Not igmpd's to keep (the caller announces the new value), or set to igmpd's
                 * own value. */
                log_link_debug(l, "%s changed to %" PRIi32 " by %s (pid %" PRIu32 ").", i->name, now,
                               w ? strempty(w->comm) : "another process", o.pid);
                return;
        }

        want = o.value = l->effective[k].value;
        r = 0;
        o.action = LINK_OVERRIDE_REVERTED;
        if (ctx->drift_action == DRIFT_ACTION_WARN)
                o.action = LINK_OVERRIDE_KEPT;
        else if (!link_record_revert(l, k, now, want)) {
                /* The record is written at the end of the batch being handled (link events), and
                 * the link configured then: that writes igmpd's value. */
                l->kernel_fresh[k] = true;
                l->record_wait = true;
        } else {
                r = sysctl_write_int_at(dfd, i->name, want);
                if (r >= 0)
                        link_set_kernel(l, k, true, want);
                else {
                        o.action = LINK_OVERRIDE_FAILED;
                        link_set_error(l, "Failed to set %s back to %" PRIi32 " after another process changed it: %s",
                                       i->name, want, strerror(-r));
                        l->state = LINK_STATE_FAILED;
                }
        }
        /* Overrides of this knob within a second of its last report are counted and mentioned
         * with the next report. (Out of memory for the counts: every one is reported.) */
        if (!l->reported)
                l->reported = calloc(_KNOB_MAX, sizeof *l->reported);
        if (l->reported && !event_report_due(ctx->event, LINK_OVERRIDE_REPORT_USEC, &l->reported[k].usec,
                                             &l->reported[k].suppressed, &suppressed))
                return;
        log_drift_override(ctx->netns_name, l->ifname, l->ifindex, i->name, i->name,
                           strempty(knob_value_source(&l->effective[k])), &o, w,
                           "another process (unseen by the drift watch: set over netlink, or while the watch was "
                           "not active)", suppressed, r);
        if (ctx->overridden)
                ctx->overridden(l, &o, ctx->observer_userdata);
}

void link_check_knobs(Link *l, unsigned mask, const LinkWriter *w)
{
        for (KnobFamily f = 0; f < _KNOB_FAMILY_MAX; f++) {
                _cleanup_close_ int dfd = -EBADF;
                unsigned want = 0;

                for (Knob k = 0; k < _KNOB_MAX; k++)
                        if ((mask & (1U << k)) && knob_info(k)->family == f && l->ctx->knob_supported[k])
                                want |= 1U << k;
                if (!want)
                        continue;
                dfd = link_open_family_dir(l, f);
                if (dfd < 0) {
                        /* Renamed or gone meanwhile, or no IPv6 now: its link message sorts it out. */
                        log_link_debug_errno(l, dfd, "Cannot read the %s knobs back, ignoring: %m", knob_family_dir(f));
                        continue;
                }
                for (Knob k = 0; k < _KNOB_MAX; k++)
                        if (want & (1U << k))
                                link_check_one(l, k, dfd, w);
        }
}
