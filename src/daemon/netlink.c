/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Netlink link events and dumps through libnl-3 sockets, integrated into sd-event; link
 * messages are read with a plain attribute walk. The refresh dump has a plain socket of its
 * own, read one datagram per dispatch, so that it never holds up anything else for longer.
 */

#include <errno.h>
#include <sys/types.h>
#include <linux/if_arp.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <systemd/sd-event.h>

#include "array-util.h"
#include "log.h"
#include "netlink.h"
#include "netns-util.h"

/* Messages handled per wake-up before yielding to other event sources (signals, the bus). */
#define NETLINK_BATCH 256
/* Upper bound of the messages thrown away after an overrun (more than any receive buffer holds). */
#define NETLINK_DISCARD_MAX (1024 * 1024)
#define ALTNAMES_MAX 32

typedef void (*LinkHandler)(const LinkMessage *msg, void *userdata);

typedef struct StashedDatagram {
        void *data;
        size_t len;
} StashedDatagram;

struct Netlink {
        const NetlinkHandlers *handlers;
        void *userdata;
        sd_event *event;
        struct nl_sock *events;
        struct nl_sock *dump;
        sd_event_source *io;
        size_t rcvbuf;

        /* The refresh dump (netlink_refresh()): opened on first use, its event source enabled
         * only while a dump runs (idle means idle). */
        int refresh_fd;
        int netns_fd, home_netns_fd; /* netlink_set_netns(), or -EBADF */
        sd_event_source *refresh_io;
        uint32_t refresh_seq;
        bool refresh_running;
        void *refresh_buf;
        size_t refresh_buf_size;

        /* Events read ahead of their turn by netlink_pending_links(), handled first. */
        StashedDatagram *stash;
        size_t n_stash, stash_off, n_stash_allocated;
        bool stash_overrun; /* the read ahead met ENOBUFS */
        sd_event_source *stash_source;
};

static void altnames_free(char **l)
{
        for (char **p = l; p && *p; p++)
                free(*p);
}

/* IFLA_PROP_LIST: the alternative names. */
static void parse_altnames(struct nlattr *list, char *ret[ALTNAMES_MAX + 1])
{
        struct nlattr *a;
        size_t n = 0;
        int rem;

        ret[0] = NULL;
        if (!list)
                return;
        nla_for_each_nested(a, list, rem) {
                if (nla_type(a) != IFLA_ALT_IFNAME || n >= ALTNAMES_MAX)
                        continue;
                ret[n] = strndup(nla_data(a), (size_t) nla_len(a));
                if (ret[n])
                        n++;
        }
        ret[n] = NULL;
}

/* RTM_NEWLINK carries each family's devconf array in IFLA_AF_SPEC: the current knob values,
 * for free. IPv4: u32 per IPV4_DEVCONF_* - 1; IPv6: s32 per DEVCONF_* (absent without an
 * IPv6 device, i.e. while the conf directory is absent too). */
static void parse_devconf(struct nlattr *spec, LinkMessage *msg)
{
        struct nlattr *af;
        int rem;

        if (!spec)
                return;
        nla_for_each_nested(af, spec, rem) {
                int family = nla_type(af), want = family == AF_INET ? IFLA_INET_CONF : IFLA_INET6_CONF;
                KnobFamily kf = family == AF_INET ? KNOB_FAMILY_IPV4 : KNOB_FAMILY_IPV6;
                struct nlattr *conf;

                if (family != AF_INET && family != AF_INET6)
                        continue;
                conf = nla_find(nla_data(af), nla_len(af), want);
                if (!conf)
                        continue;
                if (family == AF_INET6)
                        msg->has_ipv6_conf = true;
                size_t n = (size_t) nla_len(conf) / sizeof(int32_t);
                const int32_t *v = nla_data(conf);
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
static void on_link_message(Netlink *n, struct nlmsghdr *nlh, const struct ifinfomsg *ifi, LinkHandler handler)
{
        struct nlattr *a, *name = NULL, *linkinfo = NULL, *address = NULL, *mtu_attr = NULL, *props = NULL,
                      *spec = NULL, *info_kind = NULL;
        char ifname[IFNAMSIZ], kind[64], *altnames[ALTNAMES_MAX + 1];
        struct ether_addr mac;
        bool has_mac = false;
        uint32_t mtu = 0;
        int rem;

        if (nlh->nlmsg_type == RTM_DELLINK) {
                n->handlers->link_removed(ifi->ifi_index, n->userdata);
                return;
        }
        /* The few attributes used, last one wins (as nlmsg_parse() had it, without its table). */
        nlmsg_for_each_attr(a, nlh, sizeof *ifi, rem) {
                switch (nla_type(a)) {
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
        nla_strlcpy(ifname, name, sizeof ifname);
        if (linkinfo)
                info_kind = nla_find(nla_data(linkinfo), nla_len(linkinfo), IFLA_INFO_KIND);
        if (info_kind)
                nla_strlcpy(kind, info_kind, sizeof kind);
        if (address && nla_len(address) == ETH_ALEN) {
                memcpy(&mac, nla_data(address), ETH_ALEN);
                has_mac = true;
        }
        if (mtu_attr && nla_len(mtu_attr) >= (int) sizeof(uint32_t))
                mtu = nla_get_u32(mtu_attr);
        parse_altnames(props, altnames);

        LinkMessage msg = {
                .ifindex = ifi->ifi_index,
                .ifname = ifname,
                .altnames = altnames[0] ? altnames : NULL,
                .kind = info_kind ? kind : NULL,
                .arphrd = ifi->ifi_type,
                .mac = has_mac ? &mac : NULL,
                .flags = ifi->ifi_flags,
                .mtu = mtu,
                .full = true,
        };
        parse_devconf(spec, &msg);
        handler(&msg, n->userdata);
        altnames_free(altnames);
}

static void on_nlmsghdr(Netlink *n, struct nlmsghdr *nlh)
{
        struct ifinfomsg *ifi;

        if (nlh->nlmsg_type != RTM_NEWLINK && nlh->nlmsg_type != RTM_DELLINK)
                return;
        if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifinfomsg)))
                return;
        ifi = nlmsg_data(nlh);

        /* AF_BRIDGE messages describe bridge ports (a DELLINK there is "left the bridge"), and
         * AF_INET6 ones IPv6 state; only AF_UNSPEC messages describe the link itself. */
        if (ifi->ifi_family == AF_INET6) {
                if (nlh->nlmsg_type == RTM_NEWLINK)
                        n->handlers->ipv6_changed(ifi->ifi_index, n->userdata);
                return;
        }
        if (ifi->ifi_family != AF_UNSPEC)
                return;

        on_link_message(n, nlh, ifi, n->handlers->link);
}

static int on_valid(struct nl_msg *msg, void *arg)
{
        on_nlmsghdr(arg, nlmsg_hdr(msg));
        return NL_OK;
}

/* Throws away every message queued on the event socket. Returns how many. */
static size_t netlink_discard_queue(Netlink *n)
{
        int fd = nl_socket_get_fd(n->events);
        size_t discarded = 0;
        char b;

        /* Each recv() takes one datagram off the queue; MSG_TRUNC leaves its bytes unread. The
         * queue holds at most the receive buffer; the bound only guards against a kernel that
         * queues faster than this loop reads, which it cannot. */
        for (size_t i = 0; i < NETLINK_DISCARD_MAX; i++) {
                ssize_t l = recv(fd, &b, sizeof b, MSG_DONTWAIT | MSG_TRUNC);
                if (l < 0 && errno == EINTR)
                        continue;
                if (l < 0 && errno != ENOBUFS)
                        break; /* EAGAIN: empty */
                if (l >= 0)
                        discarded++;
        }
        return discarded;
}

/* ENOBUFS on the event socket. */
static void netlink_overrun(Netlink *n)
{
        size_t discarded = netlink_discard_queue(n);

        log_debug("Discarded %zu netlink message%s queued before the overrun.", discarded,
                  discarded == 1 ? "" : "s");
        n->handlers->overrun(n->userdata);
}

/* ---- events read ahead (netlink_pending_links()) ---- */

/* More messages than this ahead and the links are all in doubt: checking each is cheaper. */
#define STASH_CHECK_MAX 1024

static void stash_clear(Netlink *n)
{
        while (n->stash_off < n->n_stash)
                free(n->stash[n->stash_off++].data);
        n->n_stash = n->stash_off = 0;
}

/* Hands on the events read ahead, in order, before anything newer is read. After an overrun
 * there, none of them is trusted (see on_netlink_io()). */
static int on_stash(sd_event_source *s, void *userdata)
{
        Netlink *n = userdata;

        if (n->stash_overrun) {
                n->stash_overrun = false;
                stash_clear(n);
                netlink_overrun(n);
                return 0;
        }
        while (n->stash_off < n->n_stash) {
                StashedDatagram d = n->stash[n->stash_off++]; /* a handler may read more ahead */
                size_t len = d.len;

                for (struct nlmsghdr *nlh = d.data; NLMSG_OK(nlh, len); nlh = NLMSG_NEXT(nlh, len))
                        on_nlmsghdr(n, nlh);
                free(d.data);
        }
        n->n_stash = n->stash_off = 0;
        return 0;
}

/* Moves what is queued on the event socket now to the stash. 0, -ENOBUFS (the kernel dropped
 * events: n->stash_overrun says so to on_stash()) or -errno. */
static int netlink_read_ahead(Netlink *n)
{
        int fd = nl_socket_get_fd(n->events);

        for (;;) {
                struct sockaddr_nl sa = {};
                socklen_t sl = sizeof sa;
                void *data = NULL;
                ssize_t len;

                if (ARRAY_GROW(n->stash, n->n_stash_allocated, n->n_stash, 16) < 0)
                        return -ENOMEM;
                len = recv(fd, NULL, 0, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
                if (len >= 0 && !(data = malloc(MAX((size_t) len, (size_t) 1))))
                        return -ENOMEM;
                if (len >= 0)
                        len = recvfrom(fd, data, (size_t) len, MSG_DONTWAIT, (struct sockaddr *) &sa, &sl);
                if (len < 0 || sa.nl_pid != 0) { /* an error, or not from the kernel */
                        int e = len < 0 ? errno : EINTR;

                        free(data);
                        if (e == EINTR)
                                continue;
                        if (e == ENOBUFS)
                                n->stash_overrun = true;
                        return e == EAGAIN ? 0 : -e;
                }
                n->stash[n->n_stash++] = (StashedDatagram) { .data = data, .len = (size_t) len };
        }
}

int netlink_pending_links(Netlink *n, const int *ifindexes, const char *const *names, size_t count, bool *ret_touched)
{
        size_t seen = 0;
        int r;

        r = netlink_read_ahead(n);
        if (n->stash_off < n->n_stash || n->stash_overrun)
                (void) sd_event_source_set_enabled(n->stash_source, SD_EVENT_ONESHOT);
        if (r < 0)
                return r;

        memset(ret_touched, 0, count * sizeof *ret_touched);
        for (size_t d = n->stash_off; d < n->n_stash; d++) {
                size_t len = n->stash[d].len;

                for (struct nlmsghdr *nlh = n->stash[d].data; NLMSG_OK(nlh, len); nlh = NLMSG_NEXT(nlh, len)) {
                        const struct ifinfomsg *ifi = NLMSG_DATA(nlh);
                        struct nlattr *name;

                        if ((nlh->nlmsg_type != RTM_NEWLINK && nlh->nlmsg_type != RTM_DELLINK) ||
                            nlh->nlmsg_len < NLMSG_LENGTH(sizeof *ifi))
                                continue;
                        if (++seen > STASH_CHECK_MAX)
                                return -E2BIG;
                        name = nlmsg_find_attr(nlh, sizeof *ifi, IFLA_IFNAME);
                        for (size_t i = 0; i < count; i++)
                                if (ifindexes[i] == ifi->ifi_index ||
                                    (name && strnlen(nla_data(name), (size_t) nla_len(name)) == strlen(names[i]) &&
                                     strncmp(nla_data(name), names[i], (size_t) nla_len(name)) == 0))
                                        ret_touched[i] = true;
                }
        }
        return 0;
}

static int on_netlink_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        Netlink *n = userdata;

        for (unsigned i = 0; i < NETLINK_BATCH; i++) {
                int r;

                (void) on_stash(NULL, n); /* read ahead of the socket: older */
                r = nl_recvmsgs_default(n->events);
                if (r == -NLE_AGAIN)
                        return 0;
                if (r == -NLE_NOMEM) {
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
                if (r < 0) {
                        log_warning("Failed to receive netlink message, ignoring: %s", nl_geterror(r));
                        return 0;
                }
        }
        return 0;
}

static int set_rcvbuf(struct nl_sock *sk, size_t size, size_t *ret_granted)
{
        int fd = nl_socket_get_fd(sk), v = (int) MIN(size, (size_t) INT32_MAX / 2);
        socklen_t l = sizeof v;

        /* SO_RCVBUFFORCE goes past net.core.rmem_max with CAP_NET_ADMIN, which we have anyway. */
        if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof v) < 0 &&
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof v) < 0)
                return negative_errno();
        if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, &l) >= 0)
                *ret_granted = (size_t) v;
        return 0;
}

static int socket_open(Netlink *n, struct nl_sock **ret)
{
        struct nl_sock *sk = nl_socket_alloc();
        int r;

        if (!sk)
                return -ENOMEM;
        nl_socket_disable_seq_check(sk);
        r = nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_valid, n);
        if (r >= 0)
                r = nl_connect(sk, NETLINK_ROUTE);
        if (r < 0) {
                nl_socket_free(sk);
                return -EIO;
        }
        *ret = sk;
        return 0;
}

int netlink_new(sd_event *event, size_t rcvbuf, const NetlinkHandlers *handlers, void *userdata, Netlink **ret)
{
        Netlink *n;
        int r;

        n = calloc(1, sizeof *n);
        if (!n)
                return -ENOMEM;
        n->handlers = handlers;
        n->userdata = userdata;
        n->event = sd_event_ref(event);
        n->refresh_fd = -EBADF;
        n->netns_fd = n->home_netns_fd = -EBADF;

        r = socket_open(n, &n->events);
        if (r < 0)
                goto fail;
        nl_socket_disable_auto_ack(n->events);
        r = nl_socket_add_memberships(n->events, RTNLGRP_LINK, RTNLGRP_IPV6_IFINFO, 0);
        if (r < 0) {
                r = -EIO;
                goto fail;
        }
        r = nl_socket_set_nonblocking(n->events);
        if (r < 0) {
                r = -EIO;
                goto fail;
        }
        n->rcvbuf = rcvbuf;
        r = set_rcvbuf(n->events, rcvbuf, &n->rcvbuf);
        if (r < 0)
                log_warning_errno(r, "Failed to set netlink receive buffer to %zu bytes, ignoring: %m", rcvbuf);
        log_debug("Netlink receive buffer: %zu bytes.", n->rcvbuf);

        r = socket_open(n, &n->dump);
        if (r < 0)
                goto fail;
        /* Dumps are answered on this socket only; give it room for a big batch too. */
        (void) set_rcvbuf(n->dump, 4 * 1024 * 1024, &(size_t) { 0 });

        r = sd_event_add_io(event, &n->io, nl_socket_get_fd(n->events), EPOLLIN, on_netlink_io, n);
        if (r < 0)
                goto fail;
        r = sd_event_add_defer(event, &n->stash_source, on_stash, n);
        if (r < 0)
                goto fail;
        (void) sd_event_source_set_enabled(n->stash_source, SD_EVENT_OFF);

        *ret = n;
        return 0;

fail:
        netlink_free(n);
        return r;
}

Netlink *netlink_free(Netlink *n)
{
        if (!n)
                return NULL;
        sd_event_source_disable_unref(n->io);
        sd_event_source_disable_unref(n->refresh_io);
        sd_event_source_disable_unref(n->stash_source);
        stash_clear(n);
        free(n->stash);
        safe_close(n->refresh_fd);
        free(n->refresh_buf);
        sd_event_unref(n->event);
        if (n->events)
                nl_socket_free(n->events);
        if (n->dump)
                nl_socket_free(n->dump);
        free(n);
        return NULL;
}

int netlink_enumerate(Netlink *n)
{
        int r;

        struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
        struct nl_msg *req;

        /* Skip the per-link statistics: most of the dump's size and of the kernel's time. */
        req = nlmsg_alloc_simple(RTM_GETLINK, NLM_F_DUMP);
        if (!req)
                return -ENOMEM;
        r = nlmsg_append(req, &ifi, sizeof ifi, NLMSG_ALIGNTO);
        if (r >= 0)
                r = nla_put_u32(req, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
        if (r >= 0)
                r = nl_send_auto(n->dump, req);
        nlmsg_free(req);
        if (r < 0)
                return -EIO;
        /* Blocking read until NLMSG_DONE; with seq checks off libnl stops at DONE. Every message
         * is handed on as it arrives, even when the dump turns out to be interrupted. */
        r = nl_recvmsgs_default(n->dump);
        if (r == -NLE_DUMP_INTR)
                return -EAGAIN; /* links changed during the dump: it may have skipped some */
        if (r < 0)
                return r == -NLE_NOMEM ? -ENOBUFS : -EIO;
        return 0;
}

/* ---- the refresh dump ---- */

static void refresh_finish(Netlink *n, int r)
{
        n->refresh_running = false;
        if (r < 0) {
                /* The kernel may still be in the middle of the dump, and would refuse the next
                 * one on this socket (EBUSY): start afresh with a new socket then. */
                n->refresh_io = sd_event_source_disable_unref(n->refresh_io);
                n->refresh_fd = safe_close(n->refresh_fd);
        } else
                (void) sd_event_source_set_enabled(n->refresh_io, SD_EVENT_OFF);
        n->handlers->refresh_done(r, n->userdata);
}

/* Hands on the links of one datagram. Returns 1 at the end of the dump (NLMSG_DONE), 0 to go
 * on, -errno if the kernel answered with an error. */
static int refresh_datagram(Netlink *n, struct nlmsghdr *nlh, size_t len)
{
        for (; NLMSG_OK(nlh, len); nlh = NLMSG_NEXT(nlh, len)) {
                const struct ifinfomsg *ifi;

                if (nlh->nlmsg_seq != n->refresh_seq)
                        continue; /* the answer to an earlier request */
                if (nlh->nlmsg_type == NLMSG_DONE)
                        return 1;
                if (nlh->nlmsg_type == NLMSG_ERROR) {
                        const struct nlmsgerr *e = NLMSG_DATA(nlh);

                        if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof *e))
                                return -EBADMSG;
                        return e->error < 0 ? e->error : -EIO;
                }
                if (nlh->nlmsg_type != RTM_NEWLINK || nlh->nlmsg_len < NLMSG_LENGTH(sizeof *ifi))
                        continue;
                ifi = NLMSG_DATA(nlh);
                if (ifi->ifi_family == AF_UNSPEC)
                        on_link_message(n, nlh, ifi, n->handlers->refreshed);
        }
        return 0;
}

/* One datagram per dispatch: the kernel fills the next one while this one is read, so the
 * dump costs the loop no more than one datagram's worth of links at a time. */
static int on_refresh_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        Netlink *n = userdata;
        struct sockaddr_nl sa = {};
        socklen_t sl = sizeof sa;
        ssize_t len;
        int r;

        if (!n->refresh_running)
                return 0;

        /* The datagram's size first: a link with many VFs makes a big one. */
        len = recv(n->refresh_fd, NULL, 0, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
        if (len < 0) {
                if (errno == EAGAIN || errno == EINTR)
                        return 0;
                refresh_finish(n, -errno);
                return 0;
        }
        if ((size_t) len > n->refresh_buf_size) {
                void *b = realloc(n->refresh_buf, (size_t) len);
                if (!b) {
                        refresh_finish(n, -ENOMEM);
                        return 0;
                }
                n->refresh_buf = b;
                n->refresh_buf_size = (size_t) len;
        }
        len = recvfrom(n->refresh_fd, n->refresh_buf, n->refresh_buf_size, MSG_DONTWAIT, (struct sockaddr *) &sa, &sl);
        if (len < 0) {
                if (errno == EAGAIN || errno == EINTR)
                        return 0;
                refresh_finish(n, -errno);
                return 0;
        }
        if (sa.nl_pid != 0)
                return 0; /* not from the kernel */

        r = refresh_datagram(n, n->refresh_buf, (size_t) len);
        if (r != 0)
                refresh_finish(n, r < 0 ? r : 0);
        return 0;
}

void netlink_set_netns(Netlink *n, int netns_fd, int home_netns_fd)
{
        n->netns_fd = netns_fd;
        n->home_netns_fd = home_netns_fd;
}

static int refresh_open(Netlink *n)
{
        int fd, r;

        if (n->netns_fd >= 0) {
                if (setns(n->netns_fd, CLONE_NEWNET) < 0)
                        return -errno;
        }
        fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
        r = fd < 0 ? negative_errno() : 0;
        /* Back home, or every later socket and /proc/sys path would be in the wrong namespace. */
        if (n->netns_fd >= 0 && setns(n->home_netns_fd, CLONE_NEWNET) < 0)
                abort();
        if (fd < 0)
                return r;
        r = sd_event_add_io(n->event, &n->refresh_io, fd, EPOLLIN, on_refresh_io, n);
        /* The normal priority, so that it takes turns with link events and bus calls (sd-event
         * dispatches pending sources of one priority in the order they became pending): below
         * them, a stream of bus calls would hold the refresh back for as long as it lasts. */
        if (r >= 0)
                r = sd_event_source_set_enabled(n->refresh_io, SD_EVENT_OFF);
        if (r < 0) {
                n->refresh_io = sd_event_source_disable_unref(n->refresh_io);
                safe_close(fd);
                return r;
        }
        n->refresh_fd = fd;
        return 0;
}

int netlink_refresh(Netlink *n)
{
        struct {
                struct nlmsghdr nh;
                struct ifinfomsg ifi;
                struct rtattr ext;
                uint32_t ext_mask;
        } req = {
                .nh = {
                        .nlmsg_len = sizeof req,
                        .nlmsg_type = RTM_GETLINK,
                        .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
                },
                .ifi = { .ifi_family = AF_UNSPEC },
                /* Skip the per-link statistics, as netlink_enumerate() does. */
                .ext = { .rta_len = RTA_LENGTH(sizeof(uint32_t)), .rta_type = IFLA_EXT_MASK },
                .ext_mask = RTEXT_FILTER_SKIP_STATS,
        };
        struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
        int r;

        if (n->refresh_running)
                return -EBUSY;
        if (n->refresh_fd < 0) {
                r = refresh_open(n);
                if (r < 0)
                        return r;
        }
        req.nh.nlmsg_seq = ++n->refresh_seq;
        if (sendto(n->refresh_fd, &req, sizeof req, 0, (struct sockaddr *) &kernel, sizeof kernel) < 0)
                return negative_errno();
        r = sd_event_source_set_enabled(n->refresh_io, SD_EVENT_ON);
        if (r < 0)
                return r;
        n->refresh_running = true;
        return 0;
}

bool netlink_refresh_running(const Netlink *n)
{
        return n && n->refresh_running;
}
