/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What netlink.c (events) and netlink-dump.c (dumps) share; included after netlink.h (which
 * it does not include, or the two would make an include circle). */

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/types.h>

typedef void (*LinkHandler)(const LinkMessage *msg, void *userdata);

/* A datagram buffer that grows to the biggest datagram read into it; in the stash, one datagram
 * read ahead, size its length. */
typedef struct NetlinkBuffer {
        void *data;
        size_t size;
} NetlinkBuffer;

/* A dump on a plain socket of its own: opened on first use, its event source enabled only
 * while the dump runs (idle means idle). */
typedef struct NetlinkDump {
        int fd;
        sd_event_source *io;
        uint32_t seq;
        unsigned attempt;    /* the full dump's tries, counted from 1 */
        bool running;
        bool interrupted;    /* the kernel flagged it (NLM_F_DUMP_INTR): it may have skipped links */
        int result;          /* of the last one that ended */
} NetlinkDump;

struct Netlink {
        const NetlinkHandlers *handlers;
        void *userdata;
        sd_event *event;
        int events_fd;                 /* subscribed to link events */
        sd_event_source *io;
        NetlinkBuffer event_buf;

        NetlinkDump dumps[_NETLINK_DUMP_MAX];
        NetlinkBuffer dump_buf;
        int netns_fd, home_netns_fd; /* netlink_set_netns(), or -EBADF */

        /* Events read ahead of their turn by netlink_pending_links(), handled first. */
        NetlinkBuffer *stash;
        size_t n_stash, stash_off, n_stash_allocated;
        bool stash_overrun; /* the read ahead met ENOBUFS */
        bool events_held;   /* from a full dump's start to netlink_release_events() */
        sd_event_source *stash_source;
};

/* Reads the next datagram queued on fd into b, grown to fit it (to min_size at least). Returns its
 * length, 0 if it did not come from the kernel (it is dropped), -EAGAIN if none is queued,
 * -ENOBUFS if the kernel dropped messages for this socket, or another -errno. */
ssize_t netlink_recv(int fd, NetlinkBuffer *b, size_t min_size);

/* Parses an AF_UNSPEC RTM_NEWLINK/RTM_DELLINK and hands it to handler (or link_removed). */
void netlink_on_link_message(Netlink *n, struct nlmsghdr *nlh, const struct ifinfomsg *ifi, LinkHandler handler);
