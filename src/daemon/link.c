/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One Link: its lifecycle (reference counting), what the kernel says about it (names, kind,
 * flags, knob values), its effective values and its record of originals. The write path to
 * /proc/sys is link-configure.c, what observers see link-snapshot.c, writes by other processes
 * link-drift.c. Everything from above comes through the LinkContext (link.h).
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

#include "arphrd.h"
#include "ifname.h"
#include "link-internal.h"
#include "link.h"
#include "log.h"
#include "strv.h"
#include "sysctl-util.h"

#define LINK_MATCHED_MAX 64 /* files remembered per link for display; matching itself is unbounded */

static const char *const link_state_table[_LINK_STATE_MAX] = {
        [LINK_STATE_PENDING] = "pending",
        [LINK_STATE_CONFIGURED] = "configured",
        [LINK_STATE_FAILED] = "failed",
        [LINK_STATE_UNMANAGED] = "unmanaged",
        [LINK_STATE_DRIFTED] = "drifted",
};

const char *link_state_to_string(LinkState s)
{
        return TABLE_NAME(link_state_table, s);
}

LinkState link_get_state(const Link *l)
{
        if (l->state == LINK_STATE_CONFIGURED)
                for (Knob k = 0; k < _KNOB_MAX; k++)
                        if (l->effective[k].set && l->kernel_known[k] &&
                            !knob_value_matches(k, l->effective[k].value, l->kernel[k]))
                                return LINK_STATE_DRIFTED;
        return l->state;
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
        free(l->reported);
        knob_values_clear(l->effective);
        sd_event_source_disable_unref(l->retry_source);
        free(l);
        return NULL;
}

bool link_record_touch(Link *l, bool before_write)
{
        l->record_dirty = true;
        return !l->ctx->record || l->ctx->record(l, before_write, l->ctx->userdata) != -EAGAIN;
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

int link_set_names(Link *l, const char *ifname, char **altnames, bool is_new)
{
        _cleanup_free_ char *old_ifname = NULL, *new_ifname = NULL;
        _cleanup_strv_free_ char **old_altnames = NULL, **new_altnames = NULL;
        bool name_changed = ifname && !streq_ptr(l->ifname, ifname),
             altnames_changed = altnames != LINK_KEEP_ALTNAMES && !strv_equal(l->altnames, altnames);

        if ((name_changed && !(new_ifname = strdup(ifname))) ||
            (altnames_changed && altnames && !(new_altnames = strv_copy(altnames))))
                return -ENOMEM;
        if (name_changed) {
                old_ifname = l->ifname;
                l->ifname = TAKE_PTR(new_ifname);
        }
        if (altnames_changed) {
                old_altnames = l->altnames;
                l->altnames = TAKE_PTR(new_altnames);
        }
        if ((name_changed || altnames_changed) && !is_new && !l->gone && l->ctx->renamed)
                l->ctx->renamed(l, name_changed ? old_ifname : l->ifname,
                                altnames_changed ? old_altnames : l->altnames, l->ctx->userdata);
        return 0;
}

/* arphrd_format() searches a table and formats: the last answer is kept, as links mostly share
 * one type (a dump of 4000 veths asked it 4000 times). */
static void link_name_type(Link *l, unsigned short arphrd)
{
        static char name[sizeof l->type];
        static int named = -1;

        if (named != arphrd) {
                arphrd_format(arphrd, name, sizeof name);
                named = arphrd;
        }
        memcpy(l->type, name, sizeof l->type);
        l->arphrd = arphrd;
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
        if (is_new || l->arphrd != msg->arphrd)
                link_name_type(l, msg->arphrd);
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

bool link_ipv6_dir_exists(Link *l)
{
        int fd = l->ctx->conf_fd[KNOB_FAMILY_IPV6];

        if (fd < 0 || !ifname_valid(l->ifname))
                return false;
        return faccessat(fd, l->ifname, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

int link_update(Link *l, const LinkMessage *msg, bool *ret_reconfigure, unsigned *ret_suspects)
{
        bool renamed, went_up, ipv6_appeared, rematch, drift = false, ipv6_now, mtu_up,
             revert = l->ctx->drift_action == DRIFT_ACTION_REVERT;
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
        ipv6_now = msg->mtu >= IPV6_MIN_MTU && (msg->has_ipv6_conf || link_ipv6_dir_exists(l));
        ipv6_appeared = (ipv6_now && !l->ipv6_available) || mtu_up;
        l->ipv6_available = ipv6_now;

        /* A value that differs from what igmpd last knew: another process changed it (through
         * netlink, RTM_SETLINK with IFLA_INET_CONF, which no cgroup/sysctl program sees; or
         * through /proc/sys without the drift watch) — or the message left the kernel before
         * igmpd's own last write. Keep what igmpd knew: link_check_knobs() reads the knob back to
         * tell. A new IPv6 device starts from the defaults: nobody wrote those. */
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                bool ipv6_new = knob_info(k)->family == KNOB_FAMILY_IPV6 && ipv6_appeared;

                if (msg->devconf_known[k] && was_known[k] && !ipv6_new &&
                    !knob_value_matches(k, known[k], msg->devconf[k])) {
                        suspects |= 1U << k;
                        link_set_kernel(l, k, true, known[k]);
                        l->kernel_fresh[k] = false;
                }
                /* The message carries the current values for free: with DriftAction=revert,
                 * correct drift whenever we see it (also a write of igmpd's that failed before). */
                drift = drift || (revert && l->kernel_fresh[k] && l->effective[k].set &&
                                  !knob_value_matches(k, l->effective[k].value, l->kernel[k]));
        }

        if (renamed) {
                log_link_debug(l, "Link %d renamed, matching policy by the new name.", l->ifindex);
                if (link_has_record(l))
                        (void) link_record_touch(l, false); /* the record names the link */
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
                .netns = l->ctx->netns_name,
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

int link_update_effective(Link *l)
{
        const PolicyFile *matched[LINK_MATCHED_MAX];
        size_t n_matched = 0;
        LinkInfo info;

        link_to_info(l, &info);
        l->ctx->effective(&info, l->effective, matched, LINK_MATCHED_MAX, &n_matched, l->ctx->userdata);
        n_matched = MIN(n_matched, (size_t) LINK_MATCHED_MAX);
        if (l->ctx->ignored) {
                char *ignored;

                if (l->ctx->ignored(l->ifindex, &ignored, l->ctx->userdata) < 0)
                        return -ENOMEM;
                free(l->ignored_source);
                l->ignored_source = ignored;
        }

        /* Keep exactly what matched: a few pointers per link, not the worst case. */
        if (n_matched == l->n_matched &&
            (n_matched == 0 || memcmp(matched, l->matched, n_matched * sizeof *matched) == 0))
                return 0;

        const PolicyFile **copy = n_matched > 0 ? malloc(n_matched * sizeof *copy) : NULL;
        if (n_matched > 0 && !copy)
                return -ENOMEM;
        if (copy)
                memcpy(copy, matched, n_matched * sizeof *copy);
        free(l->matched);
        l->matched = copy;
        l->n_matched = n_matched;
        return 0;
}

void link_read_knobs(Link *l)
{
        LinkMessage msg = { .ifindex = l->ifindex };

        for (KnobFamily f = 0; f < _KNOB_FAMILY_MAX; f++) {
                _cleanup_close_ int dfd = l->gone ? -ENODEV : link_open_family_dir(l, f);

                if (dfd == -ENOENT && f == KNOB_FAMILY_IPV6)
                        continue; /* no IPv6 device now: unavailable */
                if (dfd < 0)
                        return; /* renamed or gone meanwhile: the link's events sort it out */
                msg.has_ipv6_conf = msg.has_ipv6_conf || f == KNOB_FAMILY_IPV6;
                for (Knob k = 0; k < _KNOB_MAX; k++)
                        if (knob_info(k)->family == f && l->ctx->knob_supported[k])
                                msg.devconf_known[k] = sysctl_read_int_at(dfd, knob_info(k)->name, &msg.devconf[k]) >= 0;
        }
        link_take_refreshed(l, &msg, UINT64_MAX);
}

void link_take_refreshed(Link *l, const LinkMessage *msg, uint64_t since_seq)
{
        int32_t value[_KNOB_MAX];
        bool known[_KNOB_MAX];
        unsigned differs = 0;
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
                if (known[k] != l->kernel_known[k] || (known[k] && value[k] != l->kernel[k]))
                        differs |= 1U << k;
        }
        if (!differs)
                return;

        link_begin_change(l, &before);
        for (Knob k = 0; k < _KNOB_MAX; k++)
                if (differs & (1U << k)) {
                        log_link_debug(l, "%s is %d in the kernel (was %d as far as igmpd knew).",
                                       knob_info(k)->name, known[k] ? value[k] : -1,
                                       l->kernel_known[k] ? l->kernel[k] : -1);
                        link_set_kernel(l, k, known[k], value[k]);
                }
        link_end_change(l, &before);
}
