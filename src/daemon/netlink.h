/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Netlink glue: one socket subscribed to link events, driven by sd-event; one for full dumps
 * (start-up and resynchronisation after ENOBUFS) and one for refresh dumps, both read by the
 * event loop a datagram at a time (netlink-dump.c). It parses link messages and hands them to
 * its owner's handlers; it knows nothing of what becomes of them.
 */

#include <net/ethernet.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "knob.h"

typedef struct Netlink Netlink;

typedef enum NetlinkDumpKind {
        NETLINK_DUMP_FULL,
        NETLINK_DUMP_REFRESH,
        _NETLINK_DUMP_MAX,
} NetlinkDumpKind;

/* What netlink says about a link (borrowed strings; valid during the handler call). */
typedef struct LinkMessage {
        int ifindex;
        const char *ifname;
        char **altnames; /* NULL-terminated or NULL */
        const char *kind;
        unsigned short arphrd; /* ARPHRD_*, as ifi_type */
        const struct ether_addr *mac;
        unsigned flags;
        uint32_t mtu;
        /* Current knob values as carried by the message itself (IFLA_AF_SPEC devconf arrays):
         * they spare a read of /proc/sys per knob. */
        int32_t devconf[_KNOB_MAX];
        bool devconf_known[_KNOB_MAX];
        bool has_ipv6_conf; /* the message carried IPv6 devconf: the link has an IPv6 device */
} LinkMessage;

typedef struct NetlinkHandlers {
        /* An AF_UNSPEC RTM_NEWLINK, from the event socket or a full dump. */
        void (*link)(const LinkMessage *msg, void *userdata);
        /* An RTM_DELLINK. */
        void (*link_removed)(int ifindex, void *userdata);
        /* An AF_INET6 RTM_NEWLINK: the link's IPv6 state changed, its conf directory may have
         * appeared. */
        void (*ipv6_changed)(int ifindex, void *userdata);
        /* The kernel dropped events (ENOBUFS): nothing tells which, only a new dump does. The
         * events still queued then are discarded first: none arrives from before the dump. */
        void (*overrun)(void *userdata);
        /* The full dump is over: 0, -EAGAIN if the kernel flagged it as interrupted by
         * concurrent changes every time (what was handed on is still valid), or -errno. */
        void (*enumerated)(int r, void *userdata);
        /* A link as a refresh dump (netlink_refresh()) shows it. Only its values are news: the
         * event socket still carries every change, in order. */
        void (*refreshed)(const LinkMessage *msg, void *userdata);
        /* The refresh dump is over: 0, or -errno if it ended early (what was handed on holds). */
        void (*refresh_done)(int r, void *userdata);
} NetlinkHandlers;

/* handlers (static storage) and userdata are used for every message from then on. */
int netlink_new(sd_event *event, size_t rcvbuf, const NetlinkHandlers *handlers, void *userdata, Netlink **ret);
Netlink *netlink_free(Netlink *n);
DEFINE_TRIVIAL_CLEANUP_FUNC(Netlink *, netlink_free);
/* For a Netlink made in another network namespace (netlink_new() called while switched into
 * it): the sockets it makes later (the refresh dump's) are made there too. Both fds are
 * borrowed and must outlive n. */
void netlink_set_netns(Netlink *n, int netns_fd, int home_netns_fd);

/* Starts a dump of all links, each through handlers->link, then handlers->enumerated; the link
 * events stay unread meanwhile (an older dump message would undo a newer rename), and after
 * it until netlink_release_events() (igmpd's first pass, for its writes' name checks). Without
 * wait it returns at once and the event loop reads the dump a datagram per dispatch; with
 * wait, it reads it all before returning what handlers->enumerated was told. 0, -EBUSY while
 * one runs, or -errno. */
int netlink_enumerate(Netlink *n, bool wait);
bool netlink_enumerating(const Netlink *n);
void netlink_release_events(Netlink *n);

/* For a batch's name check (link_configure_many()): reads ahead every event queued on the event
 * socket now (they are handed on later, in order, before anything newer), and sets
 * ret_touched[i] for each of the count links (ifindexes[i], names[i]) that one of the events
 * read ahead and not handled yet names, by ifindex or by name. A rename, a removal or a move
 * to another namespace is queued there before the call that made it returns. 0, or -errno
 * when that cannot be told (-ENOBUFS: the kernel dropped events; -E2BIG: too many to look
 * through; -EBUSY: a full dump runs): every link is in doubt then. */
int netlink_pending_links(Netlink *n, const int *ifindexes, const char *const *names, size_t count,
                          bool *ret_touched);

/* Starts a dump of all links on a socket of its own and returns at once. The event loop reads
 * it one datagram (a few dozen links) per dispatch, taking turns with the other event sources;
 * each link goes to handlers->refreshed, then handlers->refresh_done says it is over. 0,
 * -EBUSY while one runs, or -errno. */
int netlink_refresh(Netlink *n);
