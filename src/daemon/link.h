/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * One Link per ifindex: what the kernel told us about it, the effective policy, and what igmpd
 * changed (with the value found before, to restore it when policy no longer covers the knob).
 */

#include <net/ethernet.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "daemon-config.h"
#include "knob.h"
#include "netlink.h"
#include "originals.h"
#include "policy.h"

typedef struct Link Link;

typedef enum LinkState {
        LINK_STATE_PENDING,    /* seen, not configured yet */
        LINK_STATE_CONFIGURED, /* every knob with a policy value holds it */
        LINK_STATE_FAILED,     /* a write failed; LastError says why */
        LINK_STATE_UNMANAGED,  /* no policy covers any knob */
        LINK_STATE_DRIFTED,    /* shown only (link_get_state()): configured, but a knob igmpd sets
                                * has another value in the kernel now (another process changed it,
                                * and DriftAction=warn keeps it, or igmpd has not seen it yet) */
        _LINK_STATE_MAX,
        _LINK_STATE_INVALID = -22,
} LinkState;

/* What an observer (the D-Bus face) hears about a link. */
typedef enum LinkEvent {
        LINK_EVENT_ADDED,   /* new in the table (after its first configuration pass) */
        LINK_EVENT_CHANGED, /* something it shows may have changed since before */
        LINK_EVENT_REMOVED, /* about to be freed (it can still be looked up; Link.announced
                             * says whether it was ever announced) */
} LinkEvent;

typedef enum LinkChange {
        LINK_CHANGE_NAME = 1 << 0,
        LINK_CHANGE_KIND = 1 << 1,
        LINK_CHANGE_STATE = 1 << 2,
        LINK_CHANGE_KNOBS = 1 << 3,
        LINK_CHANGE_MATCHED_FILES = 1 << 4,
        LINK_CHANGE_LAST_ERROR = 1 << 5,
        LINK_CHANGE_ALTNAMES = 1 << 6,
        LINK_CHANGE_TYPE = 1 << 7,
        LINK_CHANGE_MAC = 1 << 8,
        LINK_CHANGE_IGNORED = 1 << 9,
} LinkChange;
#define LINK_CHANGE_BITS 10

/* What a link shows, as hashes, to tell what changed (link_snapshot_diff()): the hash of what
 * LinkChange bit b covers at hash[b]. Plain data. */
typedef struct LinkSnapshot {
        uint64_t hash[LINK_CHANGE_BITS];
} LinkSnapshot;

/* before is NULL for LINK_EVENT_ADDED and LINK_EVENT_REMOVED. */
typedef void (*LinkObserver)(Link *l, LinkEvent event, const LinkSnapshot *before, void *userdata);

/* The effective value of every knob for a link, from all sources, weakest first; the policy
 * files that matched go to matched (up to max_matched; matched may be NULL). */
typedef void (*LinkEffectiveFn)(const LinkInfo *info, KnobValue out[_KNOB_MAX], const PolicyFile **matched,
                                size_t max_matched, size_t *ret_n_matched, void *userdata);
/* A source that would set values on this link but is ignored, with the reason ("SOURCE: why"), in
 * *ret (NULL for none). 0 or -ENOMEM. */
typedef int (*LinkIgnoredFn)(int ifindex, char **ret, void *userdata);

/* What igmpd knows about another process's write of a knob (the drift watch), or nothing (NULL:
 * a link message carried a value igmpd had not written). */
typedef struct LinkWriter {
        uint32_t pid, uid;
        const char *comm;  /* valid UTF-8 */
        bool old_known;
        int32_t old_value; /* the value the write replaced */
        const char *via;   /* NULL, or "conf/all", "conf/default": written there, seen here */
} LinkWriter;

typedef enum LinkOverrideAction {
        LINK_OVERRIDE_REVERTED, /* igmpd wrote its value back (DriftAction=revert) */
        LINK_OVERRIDE_KEPT,     /* left as the writer set it (DriftAction=warn) */
        LINK_OVERRIDE_FAILED,   /* writing it back failed (LastError says why) */
        _LINK_OVERRIDE_ACTION_MAX,
        _LINK_OVERRIDE_ACTION_INVALID = -22,
} LinkOverrideAction;

/* journalctl -x shows data/catalog/igmpd.catalog for it. */
#define DRIFT_MESSAGE_ID "7bb201fd2397445390419f3f08bf42f0"

/* A knob igmpd manages, changed by someone else: what the KnobOverridden signal carries. */
typedef struct LinkOverride {
        Knob knob;
        bool old_known;
        int32_t old_value;      /* before the write */
        int32_t new_value;      /* what the writer left, read back */
        int32_t value;          /* igmpd's (effective) value */
        uint32_t pid, uid;      /* 0, 0: unknown */
        const char *comm;       /* valid UTF-8, "" if unknown */
        LinkOverrideAction action;
} LinkOverride;

typedef void (*LinkOverrideFn)(Link *l, const LinkOverride *o, void *userdata);

/*
 * Everything a link needs from its owner, shared by all links: the interface link*.c own. The
 * owner (the manager) fills it in, keeps it alive longer than its links, and plugs in the
 * source of effective values; an observer may plug in to hear about changes. Links never call
 * anything else above them.
 */
typedef struct LinkContext {
        sd_event *event;
        /* The network namespace of the links: its name under /run/netns, NULL for igmpd's own
         * (".host" in [Match] Namespace=), and the inode of the namespace (0 if unknown). */
        const char *netns_name;
        uint64_t netns_ino;
        int conf_fd[_KNOB_FAMILY_MAX]; /* /proc/sys/net/ipvX/conf, or -EBADF if absent */
        int ioctl_fd;                  /* for SIOCGIFNAME (see link_pass_check()) */
        bool knob_supported[_KNOB_MAX];
        bool knob_missing_warned[_KNOB_MAX];
        bool mld_all_warned;
        /* Writes the kernel refused (no CAP_NET_ADMIN, read-only /proc/sys): said once, in
         * full; every further one goes to the debug log. */
        bool write_denied_warned;

        /* The owner's, handed to effective, ignored, record, renamed and vanished. */
        void *userdata;
        LinkEffectiveFn effective;
        LinkIgnoredFn ignored; /* may be NULL */

        LinkObserver observer; /* NULL: nobody listens, and no snapshots are taken */
        void *observer_userdata; /* handed to observer and overridden */

        /* Bumped whenever any link's kernel[] takes a value (link_set_kernel()), so that a
         * refresh dump can tell values newer than itself (link_take_refreshed()). */
        uint64_t kernel_seq;

        /* The record of originals (originals.h), kept by the owner from the links' record_*
         * fields and link_record_entry(). Told with before_write before a write that changes
         * what the record must say (a knob's first change, or a new value igmpd writes): 0
         * means go ahead (recorded, or it cannot be and the owner said so), -EAGAIN that the
         * owner records a whole batch first: link_configure() then leaves those knobs alone
         * (record_wait) and the owner configures the link again after recording. Told without
         * before_write of changes it may record later (a knob back at its original, a rename).
         * NULL: nothing is recorded (igmpd --check). */
        int (*record)(Link *l, bool before_write, void *userdata);

        /* The owner's link table (manager-links.c). renamed: the link's name or alternative names
         * changed (old_ifname and old_altnames are what they were; the table re-indexes them).
         * vanished: the kernel denies the link's ifindex (ENODEV), the table drops the link; the
         * link stays valid for whoever holds a reference. Neither is called for a link the
         * owner has detached (link_detach()). */
        void (*renamed)(Link *l, const char *old_ifname, char *const *old_altnames, void *userdata);
        void (*vanished)(Link *l, void *userdata);

        /* Foreign writes of managed knobs (link-drift.c): what to do, and who hears of them. */
        DriftAction drift_action;
        LinkOverrideFn overridden; /* the D-Bus face: KnobOverridden */
} LinkContext;

/*
 * A Link is reference-counted: the owner's table holds one reference for as long as the link is
 * in it; anyone who keeps a link across something that may drop it from the table (a
 * configuration pass that finds it gone, an event handler, a bus method) holds another. Once
 * the table lets it go (link_detach()), it no longer writes, arms timers or tells anyone
 * anything, and is freed with its last reference.
 */
struct Link {
        unsigned n_ref;
        LinkContext *ctx;
        int ifindex;
        char *ifname;
        char **altnames;
        char *kind;
        char type[20];          /* arphrd's name (arphrd_format()), made when it changes */
        unsigned short arphrd;
        struct ether_addr mac;
        bool has_mac;
        unsigned flags;
        uint32_t mtu;

        bool gone;      /* detached from the owner's table: the kernel no longer has it */
        bool announced; /* the observer heard LINK_EVENT_ADDED */

        LinkState state;
        char *last_error;
        bool seen;           /* marked during a re-enumeration */
        bool ipv6_available; /* /proc/sys/net/ipv6/conf/IF exists */

        KnobValue effective[_KNOB_MAX]; /* from policy + NetworkManager + runtime */
        char *ignored_source;           /* a source ignored here and why (LinkIgnoredFn), or NULL */
        int32_t kernel[_KNOB_MAX];      /* last value read or written: link_set_kernel() */
        bool kernel_known[_KNOB_MAX];
        uint64_t kernel_seq;            /* ctx->kernel_seq when kernel[] last took a value */
        bool kernel_fresh[_KNOB_MAX];   /* kernel[] came with the message being handled now */
        int32_t original[_KNOB_MAX];    /* value before igmpd first changed the knob */
        bool changed[_KNOB_MAX];        /* igmpd changed it: original[] is to be put back */
        int32_t written[_KNOB_MAX];     /* igmpd's value of a changed knob, as recorded */
        int32_t previous[_KNOB_MAX];    /* igmpd's value before, while a write of written[] is unconfirmed */
        bool has_previous[_KNOB_MAX];
        bool record_dirty; /* the record (above) changed since the owner last wrote it */
        bool record_wait;  /* a write waits for the owner to record a batch (LinkContext.record) */

        const PolicyFile **matched; /* borrowed from the manager's Policy; refreshed on every apply */
        size_t n_matched;

        /* The kernel announces a rename before it re-registers the link's conf directories under
         * the new name, so a fast configure can find them missing. A short one-shot retry
         * covers that window; it is armed only then (idle means idle). */
        sd_event_source *retry_source;
        unsigned n_retries;

        /* Overrides by other processes are reported at most once a second per knob, whoever
         * writes (a writer fighting igmpd would otherwise flood the journal): link-drift.c.
         * Made at the first report: most links never have one, and a cold start touches every
         * byte of thousands of Links (a page's first touch is most of its cost). */
        struct LinkReported {
                uint64_t usec;          /* CLOCK_MONOTONIC of the last report */
                unsigned suppressed;    /* overrides not reported since */
        } *reported;                    /* [_KNOB_MAX], or NULL */
};

/* A new link with one reference, the caller's. Calls no hook. */
int link_new(LinkContext *ctx, const LinkMessage *msg, Link **ret);
Link *link_ref(Link *l);   /* NULL-safe; returns l */
Link *link_unref(Link *l); /* NULL-safe; returns NULL */
DEFINE_TRIVIAL_CLEANUP_FUNC(Link *, link_unref);
/* For the owner, when it takes l out of its table: l is gone for good (see struct Link). */
void link_detach(Link *l);

/* Takes in a new RTM_NEWLINK. Returns true when the link needs (re)configuring: renamed, went
 * up, or its IPv6 conf directory appeared. *ret_suspects (may be NULL) gets a bit (1 << knob)
 * for each knob whose value in the message differs from what igmpd last knew — changed by
 * someone else, or a message older than igmpd's own last write: link_check_knobs() tells. */
int link_update(Link *l, const LinkMessage *msg, bool *ret_reconfigure, unsigned *ret_suspects);

/* The link's record of originals (what changed[] covers); no knob set if none. */
void link_record_entry(const Link *l, OriginalEntry *ret);
/* Whether igmpd changed any knob of the link (it has a record). */
bool link_has_record(const Link *l);

void link_to_info(const Link *l, LinkInfo *ret);

/* The one way kernel[k] takes a value: what igmpd read, wrote, or was told. */
void link_set_kernel(Link *l, Knob k, bool known, int32_t value);

/* Takes the knob values of a refresh dump into kernel[] for display, unless the link learnt
 * values after the dump began (kernel_seq > since_seq: the dump may be older). Writes nothing,
 * decides nothing: drift is corrected by the link events, not by reads. Tells the observer
 * when something changed. */
void link_take_refreshed(Link *l, const LinkMessage *msg, uint64_t since_seq);

/* Reads the link's knobs from /proc/sys now and takes them as link_take_refreshed() does (a
 * single link's read, microseconds): writes nothing, decides nothing. */
void link_read_knobs(Link *l);

const char *link_state_to_string(LinkState s);
/* The state reads show: l->state, or LINK_STATE_DRIFTED for a configured link that drifted. */
LinkState link_get_state(const Link *l);

/* The name the kernel gives l's ifindex now (SIOCGIFNAME). 0, -ENODEV if gone, or -errno. */
int link_current_name(Link *l, char ret[IF_NAMESIZE]);
void link_set_error(Link *l, const char *fmt, ...) _printf_(2, 3);

/* ---- link-configure.c: the write path ---- */

/* Recomputes the effective values and writes what differs. 0 or -errno (also kept in
 * last_error and state). Never half-applies silently: each knob is reported. -ENODEV: the kernel
 * no longer has the link, which is then dropped from the owner's table (ctx->vanished); the
 * caller must hold a reference to use l after the call. */
int link_configure(Link *l);
/* link_configure() for each of n links (at most LINK_MANY_MAX), with one name check for all:
 * once every link's knob files are open, check says which links may no longer carry the name
 * they were opened by (ret_in_doubt[i] for links[i]), and only those are asked about one by
 * one (SIOCGIFNAME). check returns 0, or -errno to have every link asked. The end of a batch
 * (manager_end_batch()): one system call a link fewer. */
#define LINK_MANY_MAX 32 /* 6 knob files each: well inside the 256 fds kept for links */
typedef int (*LinkNamesCheck)(Link *const *links, size_t n, bool *ret_in_doubt, void *userdata);
void link_configure_many(Link *const *links, size_t n, LinkNamesCheck check, void *userdata);
/* link_configure(), then tells the observer what changed. */
int link_reconfigure(Link *l);

/* ---- link-snapshot.c: what observers see ---- */

/* The observer's view of changes: link_begin_change() before touching the link,
 * link_end_change() after (both no-ops without an observer); link_notify() for the rest. */
void link_begin_change(const Link *l, LinkSnapshot *ret);
void link_end_change(Link *l, const LinkSnapshot *before);
void link_notify(Link *l, LinkEvent event);
/* LinkChange bits of what differs between before and now. */
unsigned link_snapshot_diff(const Link *l, const LinkSnapshot *before);

/* ---- link-drift.c: writes by other processes ---- */

/* Reads the knobs in mask (bits 1 << Knob) back: one that differs from what igmpd last knew was
 * changed by another process (writer, if known, says who). A knob igmpd manages is then
 * reverted or kept as DriftAction= says, logged with DRIFT_MESSAGE_ID and announced through
 * ctx->overridden; any other knob just gets the new value. A write the kernel rejected changed
 * nothing and is not reported. The caller brackets this with link_begin_change() and
 * link_end_change(). Never fails. */
void link_check_knobs(Link *l, unsigned mask, const LinkWriter *writer);
#define LINK_KNOBS_ALL ((1U << _KNOB_MAX) - 1)

const char *link_override_action_to_string(LinkOverrideAction a);
/* The report of a knob another process changed (a log line with DRIFT_MESSAGE_ID and its journal
 * fields), a link's or, with no ifname, a namespace's: knob names it in KNOB=, name in the text;
 * unseen says who wrote it when w is NULL. ns_knobs_check() shares it. */
void log_drift_override(const char *netns, const char *ifname, int ifindex, const char *knob, const char *name,
                        const char *source, const LinkOverride *o, const LinkWriter *w, const char *unseen,
                        unsigned suppressed, int error);
