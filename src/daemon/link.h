/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * One Link per ifindex: what the kernel told us about it, the effective policy, and what igmpd
 * changed (with the value found before, to restore it when policy no longer covers the knob).
 */

#include <net/ethernet.h>
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "knob.h"
#include "netlink.h"
#include "policy.h"

typedef struct Manager Manager;

typedef enum LinkState {
        LINK_STATE_PENDING,    /* seen, not configured yet */
        LINK_STATE_CONFIGURED, /* every knob with a policy value holds it */
        LINK_STATE_FAILED,     /* a write failed; LastError says why */
        LINK_STATE_UNMANAGED,  /* no policy covers any knob */
        _LINK_STATE_MAX,
        _LINK_STATE_INVALID = -22,
} LinkState;

typedef struct Link {
        Manager *manager;
        int ifindex;
        char *ifname;
        char **altnames;
        char *kind;
        char type[20];
        struct ether_addr mac;
        bool has_mac;
        unsigned flags;
        uint32_t mtu;

        LinkState state;
        char *last_error;
        bool seen;           /* marked during a re-enumeration */
        bool ipv6_available; /* /proc/sys/net/ipv6/conf/IF exists */

        KnobValue effective[_KNOB_MAX]; /* from policy + NetworkManager + runtime */
        int32_t kernel[_KNOB_MAX];      /* last value read or written */
        bool kernel_known[_KNOB_MAX];
        bool kernel_fresh[_KNOB_MAX];   /* kernel[] came with the message being handled now */
        int32_t original[_KNOB_MAX];    /* value before igmpd first changed the knob */
        bool changed[_KNOB_MAX];

        const PolicyFile **matched; /* borrowed from the manager's Policy; refreshed on every apply */
        size_t n_matched;

        /* The kernel announces a rename before it re-registers the link's conf directories under
         * the new name, so a fast configure can find them missing. A short one-shot retry
         * covers that window; it is armed only then (idle means idle). */
        sd_event_source *retry_source;
        unsigned n_retries;
} Link;

int link_new(Manager *m, const LinkMessage *msg, Link **ret);
Link *link_free(Link *l);
DEFINE_TRIVIAL_CLEANUP_FUNC(Link *, link_free);

/* Takes in a new RTM_NEWLINK. Returns true when the link needs (re)configuring: renamed, went
 * up, or its IPv6 conf directory appeared. */
int link_update(Link *l, const LinkMessage *msg, bool *ret_reconfigure);

/* Recomputes the effective values and writes what differs. 0 or -errno (also kept in
 * last_error and state). Never half-applies silently: each knob is reported. */
int link_configure(Link *l);

/* Fills info for policy matching. */
void link_to_info(const Link *l, LinkInfo *ret);

/* Reads the current kernel values into l->kernel (for status displays). */
void link_read_kernel(Link *l);

const char *link_state_to_string(LinkState s);
