/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Netlink link events on a plain socket, integrated into sd-event; link messages are read with a
 * plain attribute walk. The dumps are netlink-dump.c's; both read datagrams with netlink_recv().
 */

#include <errno.h>
#include <sys/types.h>
#include <linux/if_arp.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <systemd/sd-event.h>

#include "array-util.h"
#include "log.h"
#include "netlink.h"
#include "netlink-internal.h"

/* Messages handled per wake-up before yielding to other event sources (signals, the bus). */
#define NETLINK_BATCH 256
/* Upper bound of the messages thrown away after an overrun (more than any receive buffer holds). */
#define NETLINK_DISCARD_MAX (1024 * 1024)
#define ALTNAMES_MAX 32

/* Attributes are walked with the kernel header's inline macros: libnl's nla_*() were calls into
 * the library, 44 of them for every link of a dump. */
#define RTA_TYPE(a) ((a)->rta_type & NLA_TYPE_MASK)
#define rta_for_each(a, first, len, rem) \
        for ((a) = (first), (rem) = (int) (len); RTA_OK(a, rem); (a) = RTA_NEXT(a, rem))
#define rta_for_each_nested(a, parent, rem) rta_for_each(a, RTA_DATA(parent), RTA_PAYLOAD(parent), rem)

static const struct rtattr *rta_find(const struct rtattr *first, size_t len, int type)
{
        const struct rtattr *a;
        int rem;

        rta_for_each(a, first, len, rem)
                if (RTA_TYPE(a) == type)
                        return a;
        return NULL;
}

/* The string in a, cut at its NUL, at size - 1 bytes, or at its end. */
static void rta_strlcpy(char *dst, const struct rtattr *a, size_t size)
{
        size_t n = strnlen(RTA_DATA(a), RTA_PAYLOAD(a));

        n = MIN(n, size - 1);
        memcpy(dst, RTA_DATA(a), n);
        dst[n] = '\0';
}

/* IFLA_PROP_LIST: the alternative names, in the message itself (the kernel ends each with a NUL;
 * one without is skipped). */
static void parse_altnames(const struct rtattr *list, char *ret[ALTNAMES_MAX + 1])
{
        const struct rtattr *a;
        size_t n = 0;
        int rem;

        if (list)
                rta_for_each_nested(a, list, rem)
                        if (RTA_TYPE(a) == IFLA_ALT_IFNAME && n < ALTNAMES_MAX &&
                            memchr(RTA_DATA(a), '\0', RTA_PAYLOAD(a)))
                                ret[n++] = RTA_DATA(a);
        ret[n] = NULL;
}

/* RTM_NEWLINK carries each family's devconf array in IFLA_AF_SPEC: the current knob values,
 * for free. IPv4: u32 per IPV4_DEVCONF_* - 1; IPv6: s32 per DEVCONF_* (absent without an
 * IPv6 device, i.e. while the conf directory is absent too). */
static void parse_devconf(const struct rtattr *spec, LinkMessage *msg)
{
        const struct rtattr *af;
        int rem;

        if (!spec)
                return;
        rta_for_each_nested(af, spec, rem) {
                int family = RTA_TYPE(af), want = family == AF_INET ? IFLA_INET_CONF : IFLA_INET6_CONF;
                KnobFamily kf = family == AF_INET ? KNOB_FAMILY_IPV4 : KNOB_FAMILY_IPV6;
                const struct rtattr *conf;

                if (family != AF_INET && family != AF_INET6)
                        continue;
                conf = rta_find(RTA_DATA(af), RTA_PAYLOAD(af), want);
                if (!conf)
                        continue;
                if (family == AF_INET6)
                        msg->has_ipv6_conf = true;
                size_t n = RTA_PAYLOAD(conf) / sizeof(int32_t);
                const int32_t *v = RTA_DATA(conf);
                for (Knob k = 0; k < _KNOB_MAX; k++) {
                        const KnobInfo *i = knob_info(k);
                        if (i->family != kf || i->devconf < 0 || (size_t) i->devconf >= n)
                                continue;
                        memcpy(&msg->devconf[k], v + i->devconf, sizeof(int32_t));
                        msg->devconf_known[k] = true;
                }
        }
}

/* One AF_UNSPEC RTM_NEWLINK/RTM_DELLINK, read with a plain walk of the attributes igmpd uses.
 * (libnl's cache parser built a full rtnl_link object per message, with a type lookup and a
 * dozen allocations: 90 % of igmpd's user time at start and in every re-enumeration.) */
void netlink_on_link_message(Netlink *n, struct nlmsghdr *nlh, const struct ifinfomsg *ifi, LinkHandler handler)
{
        const struct rtattr *a, *name = NULL, *linkinfo = NULL, *address = NULL, *mtu_attr = NULL, *props = NULL,
                            *spec = NULL, *info_kind = NULL;
        char ifname[IFNAMSIZ], kind[64], *altnames[ALTNAMES_MAX + 1];
        uint32_t mtu = 0;
        int rem;

        if (nlh->nlmsg_type == RTM_DELLINK) {
                n->handlers->link_removed(ifi->ifi_index, n->userdata);
                return;
        }
        /* The few attributes used, last one wins (as nlmsg_parse() had it, without its table). */
        rta_for_each(a, IFLA_RTA(ifi), IFLA_PAYLOAD(nlh), rem) {
                switch (RTA_TYPE(a)) {
                case IFLA_IFNAME: name = a; break;
                case IFLA_LINKINFO: linkinfo = a; break;
                case IFLA_ADDRESS: address = a; break;
                case IFLA_MTU: mtu_attr = a; break;
                case IFLA_PROP_LIST: props = a; break;
                case IFLA_AF_SPEC: spec = a; break;
                }
        }
        if (!name || ifi->ifi_index <= 0) {
                log_debug("Ignoring unparsable link message (ifindex %d).", ifi->ifi_index);
                return;
        }
        rta_strlcpy(ifname, name, sizeof ifname);
        if (linkinfo)
                info_kind = rta_find(RTA_DATA(linkinfo), RTA_PAYLOAD(linkinfo), IFLA_INFO_KIND);
        if (info_kind)
                rta_strlcpy(kind, info_kind, sizeof kind);
        if (mtu_attr && RTA_PAYLOAD(mtu_attr) >= sizeof(uint32_t))
                memcpy(&mtu, RTA_DATA(mtu_attr), sizeof mtu);
        parse_altnames(props, altnames);

        LinkMessage msg = {
                .ifindex = ifi->ifi_index,
                .ifname = ifname,
                .altnames = altnames[0] ? altnames : NULL,
                .kind = info_kind ? kind : NULL,
                .arphrd = ifi->ifi_type,
                .mac = address && RTA_PAYLOAD(address) == ETH_ALEN ? RTA_DATA(address) : NULL,
                .flags = ifi->ifi_flags,
                .mtu = mtu,
        };
        parse_devconf(spec, &msg);
        handler(&msg, n->userdata);
}

/* The messages of one datagram of the event socket. */
static void on_datagram(Netlink *n, struct nlmsghdr *nlh, size_t len)
{
        for (; NLMSG_OK(nlh, len); nlh = NLMSG_NEXT(nlh, len)) {
                const struct ifinfomsg *ifi = NLMSG_DATA(nlh);

                if ((nlh->nlmsg_type != RTM_NEWLINK && nlh->nlmsg_type != RTM_DELLINK) ||
                    nlh->nlmsg_len < NLMSG_LENGTH(sizeof *ifi))
                        continue;
                /* AF_BRIDGE messages describe bridge ports (a DELLINK there is "left the bridge"), and
                 * AF_INET6 ones IPv6 state; only AF_UNSPEC messages describe the link itself. */
                if (ifi->ifi_family == AF_INET6 && nlh->nlmsg_type == RTM_NEWLINK)
                        n->handlers->ipv6_changed(ifi->ifi_index, n->userdata);
                else if (ifi->ifi_family == AF_UNSPEC)
                        netlink_on_link_message(n, nlh, ifi, n->handlers->link);
        }
}

ssize_t netlink_recv(int fd, NetlinkBuffer *b, size_t min_size)
{
        struct sockaddr_nl sa = {};
        struct iovec iov = { b->data, 0 };
        struct msghdr mh = { .msg_name = &sa, .msg_namelen = sizeof sa, .msg_iov = &iov, .msg_iovlen = 1 };
        ssize_t len;

        /* The datagram's size first: a link with many VFs makes a big one. recvmsg(2) only
         * (test-audit-netlink-input denies igmpd recvfrom(2)); one empty iovec, not none
         * (qemu-user reads no iovec as a 0-byte message). */
        do
                len = recvmsg(fd, &mh, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
        while (len < 0 && errno == EINTR);
        if (len < 0)
                return -errno;
        if ((size_t) len > b->size || !b->data) {
                size_t size = MAX(MAX((size_t) len, min_size), (size_t) 1);
                void *d = realloc(b->data, size);

                if (!d)
                        return -ENOMEM;
                *b = (NetlinkBuffer) { d, size };
        }
        iov = (struct iovec) { b->data, b->size };
        mh.msg_namelen = sizeof sa;
        do
                len = recvmsg(fd, &mh, MSG_DONTWAIT);
        while (len < 0 && errno == EINTR);
        if (len < 0)
                return -errno;
        return sa.nl_pid == 0 ? len : 0;
}

/* Throws away every message queued on the event socket. Returns how many. */
static size_t netlink_discard_queue(Netlink *n)
{
        struct iovec iov = {};
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
        size_t discarded = 0;

        /* Each recvmsg() takes one datagram off the queue; into an empty iovec, its bytes are
         * not even copied. The queue holds at most the receive buffer; the bound only guards
         * against a kernel that queues faster than this loop reads, which it cannot. */
        for (size_t i = 0; i < NETLINK_DISCARD_MAX; i++) {
                ssize_t l = recvmsg(n->events_fd, &mh, MSG_DONTWAIT | MSG_TRUNC);
                if (l < 0 && errno == EINTR)
                        continue;
                if (l < 0 && errno != ENOBUFS)
                        break; /* EAGAIN: empty */
                if (l >= 0)
                        discarded++;
        }
        return discarded;
}

static void stash_clear(Netlink *n)
{
        while (n->stash_off < n->n_stash)
                free(n->stash[n->stash_off++].data);
        n->n_stash = n->stash_off = 0;
}

/* ENOBUFS on the event socket. What was read ahead came before the loss too. */
static void netlink_overrun(Netlink *n)
{
        size_t discarded = netlink_discard_queue(n);

        stash_clear(n);
        log_debug("Discarded %zu netlink message%s queued before the overrun.", discarded,
                  discarded == 1 ? "" : "s");
        n->handlers->overrun(n->userdata);
}

/* ---- events read ahead (netlink_pending_links()) ---- */

/* More messages than this ahead and the links are all in doubt: checking each is cheaper. */
#define STASH_CHECK_MAX 1024

/* Hands on the events read ahead, in order, before anything newer is read. After an overrun
 * there, none of them is trusted (see on_netlink_io()). */
static int on_stash(sd_event_source *s, void *userdata)
{
        Netlink *n = userdata;

        if (n->events_held)
                return 0; /* netlink_release_events() hands them on */
        if (n->stash_overrun) {
                n->stash_overrun = false;
                netlink_overrun(n);
                return 0;
        }
        while (n->stash_off < n->n_stash) {
                NetlinkBuffer d = n->stash[n->stash_off++]; /* a handler may read more ahead */

                on_datagram(n, d.data, d.size);
                free(d.data);
        }
        n->n_stash = n->stash_off = 0;
        return 0;
}

/* Moves what is queued on the event socket now to the stash. 0, -ENOBUFS (the kernel dropped
 * events: n->stash_overrun says so to on_stash()) or -errno. */
static int netlink_read_ahead(Netlink *n)
{
        for (;;) {
                /* A buffer of its own, kept by the stash: a handler of the datagram in
                 * n->event_buf may be what calls this. */
                NetlinkBuffer b = {};
                ssize_t len;

                if (ARRAY_GROW(n->stash, n->n_stash_allocated, n->n_stash, 16) < 0)
                        return -ENOMEM;
                len = netlink_recv(n->events_fd, &b, 0);
                if (len <= 0) { /* an error, or not from the kernel */
                        free(b.data);
                        if (len == 0)
                                continue;
                        if (len == -ENOBUFS)
                                n->stash_overrun = true;
                        return len == -EAGAIN ? 0 : (int) len;
                }
                n->stash[n->n_stash++] = (NetlinkBuffer) { .data = b.data, .size = (size_t) len };
        }
}

void netlink_release_events(Netlink *n)
{
        n->events_held = false;
        (void) sd_event_source_set_enabled(n->io, SD_EVENT_ON);
        if (n->stash_off < n->n_stash || n->stash_overrun)
                (void) sd_event_source_set_enabled(n->stash_source, SD_EVENT_ONESHOT);
}

int netlink_pending_links(Netlink *n, const int *ifindexes, const char *const *names, size_t count, bool *ret_touched)
{
        size_t seen = 0;
        int r;

        if (netlink_enumerating(n))
                return -EBUSY; /* its events stay unread until the dump is over */
        r = netlink_read_ahead(n);
        if (n->stash_off < n->n_stash || n->stash_overrun)
                (void) sd_event_source_set_enabled(n->stash_source, SD_EVENT_ONESHOT);
        if (r < 0)
                return r;

        memset(ret_touched, 0, count * sizeof *ret_touched);
        for (size_t d = n->stash_off; d < n->n_stash; d++) {
                size_t len = n->stash[d].size;

                for (struct nlmsghdr *nlh = n->stash[d].data; NLMSG_OK(nlh, len); nlh = NLMSG_NEXT(nlh, len)) {
                        const struct ifinfomsg *ifi = NLMSG_DATA(nlh);
                        const struct rtattr *name;
                        char ifname[IFNAMSIZ] = "";

                        if ((nlh->nlmsg_type != RTM_NEWLINK && nlh->nlmsg_type != RTM_DELLINK) ||
                            nlh->nlmsg_len < NLMSG_LENGTH(sizeof *ifi))
                                continue;
                        if (++seen > STASH_CHECK_MAX)
                                return -E2BIG;
                        name = rta_find(IFLA_RTA(ifi), IFLA_PAYLOAD(nlh), IFLA_IFNAME);
                        if (name)
                                rta_strlcpy(ifname, name, sizeof ifname);
                        for (size_t i = 0; i < count; i++)
                                if (ifindexes[i] == ifi->ifi_index || (name && strcmp(ifname, names[i]) == 0))
                                        ret_touched[i] = true;
                }
        }
        return 0;
}

static int on_netlink_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        Netlink *n = userdata;

        for (unsigned i = 0; i < NETLINK_BATCH; i++) {
                ssize_t len;

                (void) on_stash(NULL, n); /* read ahead of the socket: older */
                if (n->events_held)
                        return 0; /* an overrun's dump: the events wait for its end */
                len = netlink_recv(fd, &n->event_buf, 0);
                if (len == -EAGAIN)
                        return 0;
                if (len == -ENOBUFS) {
                        /* ENOBUFS: the kernel dropped events. What is still queued came before the
                         * loss and may be contradicted by what was lost (an RTM_NEWLINK whose
                         * RTM_DELLINK was dropped would bring back a link the kernel no longer
                         * has): none of it is trusted. The owner's dump, taken after the queue
                         * is emptied, tells the state; events from then on follow it.
                         * Emptying the queue first also matters because the kernel says ENOBUFS
                         * once per congestion: until a read finds the queue empty, it drops
                         * further events without a word. A dump taken with the old queue still
                         * there left a window, from the dump's end until the queue drained, in
                         * which a whole burst of new links was lost unseen. */
                        netlink_overrun(n);
                        continue;
                }
                if (len < 0) {
                        log_warning_errno((int) len, "Failed to receive netlink message, ignoring: %m");
                        return 0;
                }
                on_datagram(n, n->event_buf.data, (size_t) len);
        }
        return 0;
}

static int set_rcvbuf(int fd, size_t size, size_t *ret_granted)
{
        int v = (int) MIN(size, (size_t) INT32_MAX / 2);
        socklen_t l = sizeof v;

        /* SO_RCVBUFFORCE goes past net.core.rmem_max with CAP_NET_ADMIN, which we have anyway. */
        if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof v) < 0 &&
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof v) < 0)
                return negative_errno();
        if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, &l) >= 0)
                *ret_granted = (size_t) v;
        return 0;
}

/* Bound to a port the kernel picks: a socket without one (port 0, the kernel's own) is not sent
 * the groups' messages. */
static int events_open(void)
{
        static const int groups[] = { RTNLGRP_LINK, RTNLGRP_IPV6_IFINFO };
        struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
        _cleanup_close_ int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);

        if (fd < 0 || bind(fd, (struct sockaddr *) &sa, sizeof sa) < 0)
                return negative_errno();
        for (size_t i = 0; i < ELEMENTSOF(groups); i++)
                if (setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &groups[i], sizeof groups[i]) < 0)
                        return negative_errno();
        return TAKE_FD(fd);
}

int netlink_new(sd_event *event, size_t rcvbuf, const NetlinkHandlers *handlers, void *userdata, Netlink **ret)
{
        _cleanup_(netlink_freep) Netlink *n = NULL;
        size_t granted = rcvbuf;
        int r;

        n = calloc(1, sizeof *n);
        if (!n)
                return -ENOMEM;
        n->handlers = handlers;
        n->userdata = userdata;
        n->event = sd_event_ref(event);
        for (NetlinkDumpKind k = 0; k < _NETLINK_DUMP_MAX; k++)
                n->dumps[k].fd = -EBADF;
        n->netns_fd = n->home_netns_fd = -EBADF;

        r = n->events_fd = events_open();
        if (r < 0)
                return r;
        r = set_rcvbuf(n->events_fd, rcvbuf, &granted);
        if (r < 0)
                log_warning_errno(r, "Failed to set netlink receive buffer to %zu bytes, ignoring: %m", rcvbuf);
        log_debug("Netlink receive buffer: %zu bytes.", granted);

        r = sd_event_add_io(event, &n->io, n->events_fd, EPOLLIN, on_netlink_io, n);
        if (r >= 0)
                r = sd_event_add_defer(event, &n->stash_source, on_stash, n);
        if (r < 0)
                return r;
        (void) sd_event_source_set_enabled(n->stash_source, SD_EVENT_OFF);

        *ret = TAKE_PTR(n);
        return 0;
}

Netlink *netlink_free(Netlink *n)
{
        if (!n)
                return NULL;
        sd_event_source_disable_unref(n->io);
        for (NetlinkDumpKind k = 0; k < _NETLINK_DUMP_MAX; k++) {
                sd_event_source_disable_unref(n->dumps[k].io);
                safe_close(n->dumps[k].fd);
        }
        sd_event_source_disable_unref(n->stash_source);
        stash_clear(n);
        free(n->stash);
        free(n->event_buf.data);
        free(n->dump_buf.data);
        sd_event_unref(n->event);
        safe_close(n->events_fd);
        free(n);
        return NULL;
}

