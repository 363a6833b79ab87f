/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The link dumps, each on a plain socket of its own and read by the event loop one datagram per
 * dispatch, so that a dump never holds up anything else (signals, bus calls) for longer: the
 * full dump (start-up, the resync after an overrun), while which the link events stay unread,
 * and the refresh dump, which only updates the values while the events flow.
 */

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "log.h"
#include "netlink.h"
#include "netlink-internal.h"

/* A full dump the kernel flags as interrupted by concurrent changes is taken again, up to this
 * many times in all. */
#define ENUMERATE_ATTEMPTS 3
/* The kernel fills a dump datagram up to the reader's buffer (32 KiB at most): a big one reads
 * dozens of links per datagram, the 4 KiB default a few. */
#define DUMP_BUF_MIN (32 * 1024)

static int dump_send(Netlink *n, NetlinkDump *d)
{
        /* No IFLA_EXT_MASK: with one, the kernel first sizes every link's message to size the
         * dump's buffers (rtnl_calcit()), which costs more than the IPv6 statistics that
         * RTEXT_FILTER_SKIP_STATS leaves out (8000 links: 3-5 ms against ~2 ms). */
        struct {
                struct nlmsghdr nh;
                struct ifinfomsg ifi;
        } req = {
                .nh = {
                        .nlmsg_len = sizeof req,
                        .nlmsg_type = RTM_GETLINK,
                        .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
                        .nlmsg_seq = ++d->seq,
                },
                .ifi = { .ifi_family = AF_UNSPEC },
        };
        struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };

        d->interrupted = false;
        if (sendto(d->fd, &req, sizeof req, 0, (struct sockaddr *) &kernel, sizeof kernel) < 0)
                return negative_errno();
        return 0;
}

static void dump_finish(Netlink *n, NetlinkDumpKind kind, int r)
{
        NetlinkDump *d = &n->dumps[kind];

        if (r == 0 && d->interrupted && kind == NETLINK_DUMP_FULL) {
                if (d->attempt >= ENUMERATE_ATTEMPTS)
                        r = -EAGAIN; /* what was received is still valid */
                else {
                        log_debug("Link dump interrupted by concurrent changes, dumping again.");
                        d->attempt++;
                        r = dump_send(n, d);
                        if (r >= 0)
                                return;
                }
        }
        d->running = false;
        d->result = r;
        if (r < 0 && r != -EAGAIN) {
                /* The kernel may still be in the middle of the dump, and would refuse the next
                 * one on this socket (EBUSY): start afresh with a new socket then. */
                d->io = sd_event_source_disable_unref(d->io);
                d->fd = safe_close(d->fd);
        } else
                (void) sd_event_source_set_enabled(d->io, SD_EVENT_OFF);
        (kind == NETLINK_DUMP_REFRESH ? n->handlers->refresh_done : n->handlers->enumerated)(r, n->userdata);
}

/* Hands on the links of one datagram. Returns 1 at the end of the dump (NLMSG_DONE), 0 to go
 * on, -errno if the kernel answered with an error. */
static int dump_datagram(Netlink *n, NetlinkDumpKind kind, struct nlmsghdr *nlh, size_t len)
{
        NetlinkDump *d = &n->dumps[kind];
        LinkHandler handler = kind == NETLINK_DUMP_FULL ? n->handlers->link : n->handlers->refreshed;

        for (; NLMSG_OK(nlh, len); nlh = NLMSG_NEXT(nlh, len)) {
                const struct ifinfomsg *ifi;

                if (nlh->nlmsg_seq != d->seq)
                        continue; /* the answer to an earlier request */
                if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
                        d->interrupted = true;
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
                        netlink_on_link_message(n, nlh, ifi, handler);
        }
        return 0;
}

/* One datagram per dispatch: the kernel fills the next one while this one is read, so the
 * dump costs the loop no more than one datagram's worth of links at a time. */
static int on_dump_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        Netlink *n = userdata;
        NetlinkDumpKind kind = fd == n->dumps[NETLINK_DUMP_FULL].fd ? NETLINK_DUMP_FULL : NETLINK_DUMP_REFRESH;
        ssize_t len;
        int r;

        if (!n->dumps[kind].running)
                return 0;
        len = netlink_recv(fd, &n->dump_buf, DUMP_BUF_MIN);
        if (len == -EAGAIN)
                return 0;
        if (len < 0) {
                dump_finish(n, kind, (int) len);
                return 0;
        }

        r = dump_datagram(n, kind, n->dump_buf.data, (size_t) len); /* nothing if not from the kernel */
        if (r != 0)
                dump_finish(n, kind, r < 0 ? r : 0);
        return 0;
}

void netlink_set_netns(Netlink *n, int netns_fd, int home_netns_fd)
{
        n->netns_fd = netns_fd;
        n->home_netns_fd = home_netns_fd;
}

static int dump_open(Netlink *n, NetlinkDump *d)
{
        _cleanup_close_ int fd = -EBADF;
        int r;

        if (n->netns_fd >= 0 && setns(n->netns_fd, CLONE_NEWNET) < 0)
                return -errno;
        fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
        r = fd < 0 ? negative_errno() : 0;
        /* Back home, or every later socket and /proc/sys path would be in the wrong namespace. */
        if (n->netns_fd >= 0 && setns(n->home_netns_fd, CLONE_NEWNET) < 0)
                abort();
        if (fd < 0)
                return r;
        r = sd_event_add_io(n->event, &d->io, fd, EPOLLIN, on_dump_io, n);
        /* The refresh at the normal priority, so that it takes turns with link events and bus
         * calls (sd-event dispatches pending sources of one priority in the order they became
         * pending): below them, a stream of bus calls would hold it back for as long as it
         * lasts. The full dump just below: at the same priority as the bus, sd-bus's own
         * sources never got a turn before the dump's end. */
        if (r >= 0 && d == &n->dumps[NETLINK_DUMP_FULL])
                r = sd_event_source_set_priority(d->io, SD_EVENT_PRIORITY_NORMAL + 1);
        if (r >= 0)
                r = sd_event_source_set_enabled(d->io, SD_EVENT_OFF);
        if (r < 0) {
                d->io = sd_event_source_disable_unref(d->io);
                return r;
        }
        d->fd = TAKE_FD(fd);
        return 0;
}

static int dump_start(Netlink *n, NetlinkDumpKind kind)
{
        NetlinkDump *d = &n->dumps[kind];
        int r;

        if (d->running)
                return -EBUSY;
        if (d->fd < 0) {
                r = dump_open(n, d);
                if (r < 0)
                        return r;
        }
        r = dump_send(n, d);
        if (r >= 0)
                r = sd_event_source_set_enabled(d->io, SD_EVENT_ON);
        if (r < 0)
                return r;
        d->running = true;
        d->attempt = 1;
        /* An older dump message would undo a newer event (a rename): they wait for its end. */
        if (kind == NETLINK_DUMP_FULL) {
                n->events_held = true;
                (void) sd_event_source_set_enabled(n->io, SD_EVENT_OFF);
        }
        return 0;
}

int netlink_enumerate(Netlink *n, bool wait)
{
        NetlinkDump *d = &n->dumps[NETLINK_DUMP_FULL];
        int r = dump_start(n, NETLINK_DUMP_FULL);

        while (r >= 0 && wait && d->running)
                if (poll(&(struct pollfd) { .fd = d->fd, .events = POLLIN }, 1, -1) < 0 && errno != EINTR)
                        dump_finish(n, NETLINK_DUMP_FULL, -errno);
                else
                        (void) on_dump_io(NULL, d->fd, EPOLLIN, n);
        return r < 0 || !wait ? r : d->result;
}

bool netlink_enumerating(const Netlink *n)
{
        return n && n->dumps[NETLINK_DUMP_FULL].running;
}

int netlink_refresh(Netlink *n)
{
        return dump_start(n, NETLINK_DUMP_REFRESH);
}
