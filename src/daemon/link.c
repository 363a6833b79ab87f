/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Link lifecycle and the write path: effective values → /proc/sys, keyed by ifindex, safe
 * against renames. Everything from above comes through the LinkContext (link.h).
 */

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fnv.h"
#include "ifname.h"
#include "link.h"
#include "log.h"
#include "strv.h"
#include "sysctl-util.h"

#define LINK_MATCHED_MAX 64 /* files remembered per link for display; matching itself is unbounded */
#define LINK_RENAME_RETRIES 3
#define IPV6_MIN_MTU 1280
#define LINK_RETRY_MAX 6            /* 5, 10, 20, 40, 80, 160 ms */
#define LINK_RETRY_FIRST_USEC 5000

static const char *const link_state_table[_LINK_STATE_MAX] = {
        [LINK_STATE_PENDING] = "pending",
        [LINK_STATE_CONFIGURED] = "configured",
        [LINK_STATE_FAILED] = "failed",
        [LINK_STATE_UNMANAGED] = "unmanaged",
};

const char *link_state_to_string(LinkState s)
{
        if (s < 0 || s >= _LINK_STATE_MAX)
                return NULL;
        return link_state_table[s];
}

static Link *link_free(Link *l)
{
        if (!l)
                return NULL;
        free(l->ifname);
        strv_freep(&l->altnames);
        free(l->kind);
        free(l->last_error);
        free(l->matched);
        free(l->ignored_source);
        knob_values_clear(l->effective);
        sd_event_source_disable_unref(l->retry_source);
        free(l);
        return NULL;
}

/* The record changed in a way the owner may write later. */
static void link_record_touch(Link *l)
{
        l->record_dirty = true;
        if (l->ctx->record)
                (void) l->ctx->record(l, false, l->ctx->record_userdata);
}


Link *link_ref(Link *l)
{
        if (l) {
                assert(l->n_ref > 0);
                l->n_ref++;
        }
        return l;
}

Link *link_unref(Link *l)
{
        if (!l)
                return NULL;
        assert(l->n_ref > 0);
        if (--l->n_ref == 0)
                link_free(l);
        return NULL;
}

void link_detach(Link *l)
{
        l->gone = true;
        l->retry_source = sd_event_source_disable_unref(l->retry_source);
}

/* Sets the names (ifname NULL: keep it; altnames (char **) -1: keep them) and, unless the link
 * is new, tells the table what they were. Nothing changes on failure. */
#define LINK_KEEP_ALTNAMES ((char **) -1)
static int link_set_names(Link *l, const char *ifname, char **altnames, bool is_new)
{
        _cleanup_free_ char *old_ifname = NULL, *new_ifname = NULL;
        char **old_altnames = NULL, **new_altnames = NULL;
        bool name_changed = ifname && !streq_ptr(l->ifname, ifname),
             altnames_changed = altnames != LINK_KEEP_ALTNAMES && !strv_equal(l->altnames, altnames);

        if (!name_changed && !altnames_changed)
                return 0;
        if (name_changed) {
                new_ifname = strdup(ifname);
                if (!new_ifname)
                        return -ENOMEM;
        }
        if (altnames_changed && altnames) {
                new_altnames = strv_copy(altnames);
                if (!new_altnames)
                        return -ENOMEM;
        }

        if (name_changed) {
                old_ifname = l->ifname;
                l->ifname = TAKE_PTR(new_ifname);
        }
        if (altnames_changed) {
                old_altnames = l->altnames;
                l->altnames = new_altnames;
        }
        if (!is_new && !l->gone && l->ctx->renamed)
                l->ctx->renamed(l, name_changed ? old_ifname : l->ifname,
                                altnames_changed ? old_altnames : l->altnames, l->ctx->table_userdata);
        strv_freep(&old_altnames);
        return 0;
}

static int link_set_info(Link *l, const LinkMessage *msg, bool is_new)
{
        int r;

        r = link_set_names(l, msg->ifname, msg->altnames, is_new);
        if (r < 0)
                return r;
        if (!streq_ptr(l->kind, msg->kind)) {
                r = free_and_strdup(&l->kind, msg->kind);
                if (r < 0)
                        return r;
        }
        snprintf(l->type, sizeof l->type, "%s", strempty(msg->type));
        l->has_mac = msg->mac;
        if (msg->mac)
                l->mac = *msg->mac;
        l->flags = msg->flags;
        l->mtu = msg->mtu;
        for (Knob k = 0; k < _KNOB_MAX; k++)
                if (msg->devconf_known[k]) {
                        link_set_kernel(l, k, true, msg->devconf[k]);
                        l->kernel_fresh[k] = true;
                }
        return 0;
}

void link_set_kernel(Link *l, Knob k, bool known, int32_t value)
{
        l->kernel[k] = value;
        l->kernel_known[k] = known;
        l->kernel_seq = ++l->ctx->kernel_seq;
}

int link_new(LinkContext *ctx, const LinkMessage *msg, Link **ret)
{
        _cleanup_(link_unrefp) Link *l = NULL;
        int r;

        assert(ctx);
        assert(msg);

        l = calloc(1, sizeof *l);
        if (!l)
                return -ENOMEM;
        l->n_ref = 1;
        l->ctx = ctx;
        l->ifindex = msg->ifindex;
        l->state = LINK_STATE_PENDING;
        r = link_set_info(l, msg, true);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(l);
        return 0;
}

static bool ipv6_dir_exists(Link *l)
{
        int fd = l->ctx->conf_fd[KNOB_FAMILY_IPV6];

        if (fd < 0 || !ifname_valid(l->ifname))
                return false;
        return faccessat(fd, l->ifname, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

int link_update(Link *l, const LinkMessage *msg, bool *ret_reconfigure, unsigned *ret_suspects)
{
        bool renamed, went_up, ipv6_appeared, rematch, drift = false, ipv6_now, mtu_up;
        int32_t known[_KNOB_MAX];
        bool was_known[_KNOB_MAX];
        unsigned suspects = 0;
        int r;

        renamed = !streq_ptr(l->ifname, msg->ifname);
        mtu_up = l->mtu < IPV6_MIN_MTU && msg->mtu >= IPV6_MIN_MTU;
        went_up = !(l->flags & IFF_UP) && (msg->flags & IFF_UP);
        /* Matching also looks at altnames, kind and MAC address. */
        rematch = !strv_equal(l->altnames, msg->altnames) || !streq_ptr(l->kind, msg->kind) ||
                  (msg->mac && (!l->has_mac || memcmp(&l->mac, msg->mac, sizeof l->mac) != 0));
        memcpy(known, l->kernel, sizeof known);
        memcpy(was_known, l->kernel_known, sizeof was_known);

        r = link_set_info(l, msg, false);
        if (r < 0)
                return r;

        /* The IPv6 device (and its conf directory) goes away below MTU 1280 and comes back with
         * default values: track it on every message, not only when we configure. The kernel may
         * announce an MTU change before addrconf has created or destroyed the device, so the
         * message alone is not enough: below 1280 there is none; above, look at the directory
         * now; and crossing 1280 upwards always reconfigures (which retries briefly if the
         * directory is still missing). */
        if (msg->mtu < IPV6_MIN_MTU)
                ipv6_now = false;
        else
                ipv6_now = (msg->full && msg->has_ipv6_conf) || ipv6_dir_exists(l);
        ipv6_appeared = (ipv6_now && !l->ipv6_available) || mtu_up;
        l->ipv6_available = ipv6_now;

        /* A value that differs from what igmpd last knew: another process changed it (through
         * netlink, RTM_SETLINK with IFLA_INET_CONF, which no cgroup/sysctl program sees; or
         * through /proc/sys without the drift watch) — or the message left the kernel before
         * igmpd's own last write. Keep what igmpd knew: link_check_knobs() reads the knob back to
         * tell. A new IPv6 device starts from the defaults: nobody wrote those. */
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                if (!msg->devconf_known[k] || !was_known[k] || knob_value_matches(k, known[k], msg->devconf[k]))
                        continue;
                if (knob_info(k)->family == KNOB_FAMILY_IPV6 && ipv6_appeared)
                        continue;
                suspects |= 1U << k;
                link_set_kernel(l, k, true, known[k]);
                l->kernel_fresh[k] = false;
        }

        /* The message carries the current values for free: with DriftAction=revert, correct
         * drift whenever we see it (also a write of igmpd's that failed before). */
        for (Knob k = 0; k < _KNOB_MAX; k++)
                if (l->ctx->drift_action == DRIFT_ACTION_REVERT && l->kernel_fresh[k] && l->effective[k].set &&
                    !knob_value_matches(k, l->effective[k].value, l->kernel[k]))
                        drift = true;

        if (renamed) {
                log_link_debug(l, "Link %d renamed, matching policy by the new name.", l->ifindex);
                if (link_has_record(l))
                        link_record_touch(l); /* the record names the link */
        }
        if (went_up)
                log_link_debug(l, "Link went up, re-checking values.");
        if (ipv6_appeared)
                log_link_debug(l, "IPv6 configuration appeared.");
        if (drift && !renamed && !ipv6_appeared)
                log_link_debug(l, "A knob differs from its policy value, correcting.");

        *ret_reconfigure = renamed || went_up || ipv6_appeared || rematch || drift ||
                           l->state == LINK_STATE_PENDING;
        if (!*ret_reconfigure)
                memset(l->kernel_fresh, 0, sizeof l->kernel_fresh);
        if (ret_suspects)
                *ret_suspects = suspects;
        return 0;
}

void link_to_info(const Link *l, LinkInfo *ret)
{
        *ret = (LinkInfo) {
                .ifindex = l->ifindex,
                .name = l->ifname,
                .altnames = l->altnames,
                .kind = l->kind,
                .type = l->type,
                .mac = l->has_mac ? &l->mac : NULL,
                .loopback = (l->flags & IFF_LOOPBACK) || streq(l->type, "loopback"),
        };
}

void link_set_error(Link *l, const char *fmt, ...)
{
        char *s = NULL;
        va_list ap;

        va_start(ap, fmt);
        if (vasprintf(&s, fmt, ap) < 0)
                s = NULL;
        va_end(ap);
        free(l->last_error);
        l->last_error = s;
}

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

void link_record_entry(const Link *l, OriginalEntry *ret)
{
        *ret = (OriginalEntry) { .ifindex = l->ifindex };
        if (!ifname_valid(l->ifname) || strlen(l->ifname) >= sizeof ret->ifname)
                return; /* not a name a record can hold: "forgotten" */
        strcpy(ret->ifname, l->ifname);
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                if (!l->changed[k])
                        continue;
                ret->set[k] = true;
                ret->original[k] = l->original[k];
                ret->written[k] = l->written[k];
                ret->has_previous[k] = l->has_previous[k];
                ret->previous[k] = l->previous[k];
        }
}

bool link_has_record(const Link *l)
{
        return memchr(l->changed, true, sizeof l->changed);
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

/* The name the kernel gives our ifindex now. SIOCGIFNAME on a socket the context keeps, rather
 * than if_indextoname(), which opens and closes a socket for every call: this runs once per
 * configuration pass, and the socket would cost 13 µs of the 17 µs (+50 ms for 4000 links at
 * start, measured). 0, -ENODEV if the link is gone, or -errno. */
int link_current_name(Link *l, char ret[IF_NAMESIZE])
{
        struct ifreq ifr = { .ifr_ifindex = l->ifindex };

        if (ioctl(l->ctx->ioctl_fd, SIOCGIFNAME, &ifr) < 0)
                return negative_errno();
        memcpy(ret, ifr.ifr_name, IF_NAMESIZE);
        ret[IF_NAMESIZE - 1] = '\0';
        return 0;
}

/* Recomputes the effective values and remembers exactly which files matched. */
static int link_update_effective(Link *l)
{
        const PolicyFile *matched[LINK_MATCHED_MAX];
        size_t n_matched = 0;
        LinkInfo info;

        link_to_info(l, &info);
        l->ctx->effective(&info, l->effective, matched, LINK_MATCHED_MAX, &n_matched, l->ctx->effective_userdata);
        n_matched = MIN(n_matched, (size_t) LINK_MATCHED_MAX);
        if (l->ctx->ignored) {
                char *ignored;

                if (l->ctx->ignored(l->ifindex, &ignored, l->ctx->effective_userdata) < 0)
                        return -ENOMEM;
                free(l->ignored_source);
                l->ignored_source = ignored;
        }

        /* Keep exactly what matched: a few pointers per link, not the worst case. */
        if (n_matched == l->n_matched &&
            (n_matched == 0 || memcmp(matched, l->matched, n_matched * sizeof *matched) == 0))
                return 0;

        const PolicyFile **copy = NULL;
        if (n_matched > 0) {
                copy = malloc(n_matched * sizeof *copy);
                if (!copy)
                        return -ENOMEM;
                memcpy(copy, matched, n_matched * sizeof *copy);
        }
        free(l->matched);
        l->matched = copy;
        l->n_matched = n_matched;
        return 0;
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
                                l->ipv6_available = ipv6_dir_exists(l);
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

void link_take_refreshed(Link *l, const LinkMessage *msg, uint64_t since_seq)
{
        int32_t value[_KNOB_MAX];
        bool known[_KNOB_MAX], differs = false;
        LinkSnapshot before;

        if (l->kernel_seq > since_seq)
                return; /* igmpd learnt or wrote values after the dump began: they are newer */

        for (Knob k = 0; k < _KNOB_MAX; k++) {
                value[k] = l->kernel[k];
                known[k] = l->kernel_known[k];
                if (!l->ctx->knob_supported[k])
                        continue;
                if (msg->devconf_known[k]) {
                        value[k] = msg->devconf[k];
                        known[k] = true;
                } else if (knob_info(k)->family == KNOB_FAMILY_IPV6 && !msg->has_ipv6_conf)
                        known[k] = false; /* no IPv6 device (MTU < 1280, disabled): unavailable */
                differs = differs || known[k] != l->kernel_known[k] ||
                          (known[k] && value[k] != l->kernel[k]);
        }
        if (!differs)
                return;

        link_begin_change(l, &before);
        for (Knob k = 0; k < _KNOB_MAX; k++)
                if (known[k] != l->kernel_known[k] || (known[k] && value[k] != l->kernel[k])) {
                        log_link_debug(l, "%s is %d in the kernel (was %d as far as igmpd knew).",
                                       knob_info(k)->name, known[k] ? value[k] : -1,
                                       l->kernel_known[k] ? l->kernel[k] : -1);
                        link_set_kernel(l, k, known[k], value[k]);
                }
        link_end_change(l, &before);
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

/* ---- what observers see ---- */

void link_snapshot(const Link *l, LinkSnapshot *ret)
{
        uint64_t h;

        *ret = (LinkSnapshot) {
                .name = fnv1a64_str(FNV1A64_INIT, l->ifname),
                .kind = fnv1a64_str(FNV1A64_INIT, l->kind),
                .type = fnv1a64_str(FNV1A64_INIT, l->type),
                .mac = l->has_mac ? fnv1a64(FNV1A64_INIT, &l->mac, sizeof l->mac) : 0,
                .state = fnv1a64(FNV1A64_INIT, &l->state, sizeof l->state),
                .last_error = fnv1a64_str(FNV1A64_INIT, l->last_error),
                .ignored = fnv1a64_str(FNV1A64_INIT, l->ignored_source),
        };

        h = FNV1A64_INIT;
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                int32_t kernel = l->kernel_known[k] ? l->kernel[k] : -1;
                int32_t policy = l->effective[k].set ? l->effective[k].value : -1;

                h = fnv1a64(h, &kernel, sizeof kernel);
                h = fnv1a64(h, &policy, sizeof policy);
                h = fnv1a64_str(h, strempty(knob_value_source(&l->effective[k])));
        }
        ret->knobs = h;

        h = FNV1A64_INIT;
        for (size_t i = 0; i < l->n_matched; i++)
                h = fnv1a64_str(h, l->matched[i]->path);
        ret->matched_files = h;

        h = FNV1A64_INIT;
        for (char **a = l->altnames; a && *a; a++)
                h = fnv1a64_str(h, *a);
        ret->altnames = h;
}

unsigned link_snapshot_diff(const Link *l, const LinkSnapshot *before)
{
        LinkSnapshot now;

        link_snapshot(l, &now);
        return (now.name != before->name ? LINK_CHANGE_NAME : 0) |
               (now.kind != before->kind ? LINK_CHANGE_KIND : 0) |
               (now.state != before->state ? LINK_CHANGE_STATE : 0) |
               (now.knobs != before->knobs ? LINK_CHANGE_KNOBS : 0) |
               (now.matched_files != before->matched_files ? LINK_CHANGE_MATCHED_FILES : 0) |
               (now.last_error != before->last_error ? LINK_CHANGE_LAST_ERROR : 0) |
               (now.altnames != before->altnames ? LINK_CHANGE_ALTNAMES : 0) |
               (now.type != before->type ? LINK_CHANGE_TYPE : 0) |
               (now.mac != before->mac ? LINK_CHANGE_MAC : 0) |
               (now.ignored != before->ignored ? LINK_CHANGE_IGNORED : 0);
}

void link_begin_change(const Link *l, LinkSnapshot *ret)
{
        if (l->ctx->observer)
                link_snapshot(l, ret);
}

void link_end_change(Link *l, const LinkSnapshot *before)
{
        if (l->ctx->observer && !l->gone && l->announced)
                l->ctx->observer(l, LINK_EVENT_CHANGED, before, l->ctx->observer_userdata);
}

void link_notify(Link *l, LinkEvent event)
{
        /* A link waiting for its first write is announced once configured; before that the
         * observer hears of no change, and at LINK_EVENT_REMOVED it can tell (l->announced).
         * A link the owner has let go (link_detach()) tells nobody anything. */
        if (l->gone)
                return;
        if (event == LINK_EVENT_ADDED)
                l->announced = true;
        if (l->ctx->observer)
                l->ctx->observer(l, event, NULL, l->ctx->observer_userdata);
}
