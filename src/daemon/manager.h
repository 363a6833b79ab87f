/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The Manager owns the event loop, the configuration, the netlink sockets and the links.
 *
 * Layering: each layer calls only the layers below it; what goes up goes through a hook the
 * lower layer owns (a function pointer plus userdata, set by whoever sits above).
 *
 *   main.c, check.c       build the Manager, then (main.c) its D-Bus face, and run the loop
 *   *-bus.c               the D-Bus faces: manager-bus.c owns the connection (ManagerBus) and
 *                         plugs into the hooks below; link-bus*.c and audit-bus.c serve their
 *                         objects. Faces may call into the core; the core never names them.
 *                         manager-bus-vtable.c serves org.igmpd1.Manager.
 *   manager.c             the Manager's life: new, start, signals, free. Its parts share
 *                         manager-internal.h: manager-links.c the link table (by ifindex) and
 *                         the netlink events it routes to links; manager-config.c configuration
 *                         sets, reload, and each link's effective values (policy <
 *                         NetworkManager < runtime); manager-originals.c the record of
 *                         originals. Hook: reloaded.
 *                         manager-refresh.c refreshes the kernel values that reads show.
 *   link.c                one Link: state, the write path to /proc/sys (link-configure.c),
 *                         what observers see (link-snapshot.c), others' writes (link-drift.c).
 *                         Knows only its LinkContext (link.h): conf dirs, kernel knobs, the
 *                         effective-value source, and the observer hook (added / changed / removed).
 *   nm.c                  NetworkManager profiles, looked up by ifindex; hook: changed(ifindex).
 *                         nm-sync.c reads NetworkManager (the calls and their fan-out),
 *                         nm-profile.c reads its replies, nm-table.c keeps and diffs the values.
 *   audit.c               deprecated sysctl(2) events: owns the sources (audit-kmsg.c,
 *                         audit-netlink.c with its rule and enabled flag in audit-rules.c,
 *                         audit-bpf.c), each given an AuditSourceContext
 *                         (audit-event.h: event loop, ifindex resolver, submit and
 *                         state_changed hooks); hook: observer (events, source states).
 *   drift.c               other processes' writes of the knobs (BPF drift watch); hooks: write,
 *                         lost (manager-drift.c routes them to links), observer (state).
 *   netlink.c             parses link messages, hands them to NetlinkHandlers.
 *   bpf-helper-client.c, bpf-ringbuf.c
 *                         the BPF helper's protocol and ring buffer, for audit-bpf.c.
 *   policy.c, runtime-config.c, daemon-config.c, originals.c, bus-validate.c, nm-profile.c,
 *   config-problems.c     pure parsers and tables over plain data.
 *   src/shared/           helpers that know nothing of the daemon and never log.
 *
 * tests/style/check-include-graph.py keeps it so: no include circle in src/daemon except a *-bus.c
 * face with the object it serves.
 */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "config-problems.h"
#include "daemon-config.h"
#include "intmap.h"
#include "knob.h"
#include "link.h"
#include "namemap.h"
#include "ns-knobs.h"
#include "originals.h"
#include "policy.h"
#include "runtime-config.h"

typedef struct Netlink Netlink;
typedef struct AuditManager AuditManager;
typedef struct NMState NMState;
typedef struct DriftWatch DriftWatch;
typedef struct DriftEvent DriftEvent;
typedef struct NetnsWatch NetnsWatch;
typedef struct Manager Manager;

typedef void (*ManagerReloadedFn)(Manager *m, void *userdata);

/* Reads never wait for the kernel: they show the cached values, and ask for a refresh that runs
 * later, asynchronously (manager-refresh.c). At most one refresh dump starts per interval. */
#define MANAGER_REFRESH_INTERVAL_USEC (1000ULL * 1000ULL)

typedef struct ManagerRefresh {
        /* Every change of a knob reaches igmpd by itself (the drift watch sees every write): the
         * cached values are the kernel's, and reads ask for nothing. */
        bool watched;
        bool running;          /* a refresh dump is being read */
        bool again;            /* asked for while one ran: another one follows */
        uint64_t last_usec;    /* CLOCK_MONOTONIC start of the last one, 0 if none yet */
        uint64_t read_usec;    /* start of the last one that completed, or of the last full link
                                * dump: what the cached values are as old as at most */
        uint64_t since_seq;    /* link_ctx.kernel_seq when the running one started */
        sd_event_source *timer; /* armed only while a refresh waits for its turn */
        unsigned n_requests, n_dumps; /* for the log */
} ManagerRefresh;

struct Manager {
        sd_event *event;
        char *root;       /* config root ("" = /) */
        bool check_only;      /* --check: enumerate and report, never write */
        ConfigProblems problems;  /* found by the last load: counted, the first of them kept */
        /* Hears of every configuration file a load looks at (igmpd --check lists them). */
        ConfigFileFn config_file;
        void *config_file_userdata;

        /* What every link is given: conf dirs, kernel knobs, manager_effective(), observer. */
        LinkContext link_ctx;

        DaemonConfig config;
        Policy *policy;
        RuntimeConfig *runtime;
        /* NetworkManager profiles (nm.c): NULL with [Daemon] NetworkManager=no. */
        NMState *nm;

        /* The link table, as networkd keeps it: by ifindex (holding a reference to each link),
         * and by name and alternative name (borrowed). A name maps to at most one link: the
         * one the kernel most recently said carries it. During a rename or a swap, or after
         * an overrun, the kernel's latest statement may not have reached every link yet; the
         * link still holding a name it lost is found by ifindex only until its own statement
         * comes. */
        IntMap links;         /* ifindex → Link* */
        NameMap links_by_name; /* name → Link* */
        Netlink *netlink;
        unsigned n_resyncs;    /* re-enumerations after ENOBUFS */
        ManagerRefresh refresh;

        /* Deprecated sysctl(2) audit (audit.c); NULL if it could not be set up. */
        AuditManager *audit;
        const char *kmsg_path; /* --kmsg-path= (tests), NULL: /dev/kmsg */

        /* The namespace knobs (igmp_qrv, mld_qrv) of igmpd's own network namespace. */
        NsKnobs ns_knobs;

        /* Other processes' writes of the knobs (drift.c); started with DriftWatch=yes. */
        DriftWatch *drift;

        /* The knob values found before igmpd changed them (originals.h): what the last run
         * recorded, taken by the links of the first pass; and the record of this run, written
         * before the writes that need it — at once, or once for a batch (the first pass, a
         * reload, a burst of link events) before its writes. */
        Originals saved_originals;
        OriginalsJournal originals;
        bool originals_batch;   /* records wait for the end of the batch being handled */
        bool originals_dirty;   /* a link's record changed, or a link with one went away */
        bool originals_failed;  /* the last write of the record failed (said once) */
        int *originals_forget;  /* ifindexes of links gone with a record */
        size_t n_originals_forget, n_originals_forget_allocated;
        sd_event_source *originals_source; /* writes what a burst of link events left */
        bool ready;                        /* started: a stop records and gives back */
        bool first_pass;                   /* running (manager_first_pass()) */
        bool reload_pending;               /* asked for during the first pass: done at its end */
        LinkObserver first_pass_observer;  /* held back meanwhile */
        Link **first_pass_links;           /* after its dump: configured a few per dispatch */
        size_t n_first_pass_links, first_pass_next;
        sd_event_source *first_pass_source;

        sd_event_source *signal_sources[3]; /* SIGTERM, SIGINT, SIGHUP */

        /* Network namespaces (manager-netns.c). The Manager of igmpd's own namespace (parent
         * NULL) follows the namespaces bound under /run/netns with [Daemon] Namespaces=named,
         * and keeps one child Manager for each: the same event loop, policy and observers; its
         * own netlink sockets and /proc/sys directories (made inside that namespace), link
         * table, runtime overrides (runtime.d/netns/NAME/) and record of originals
         * (/run/igmpd/netns/NAME/). Nothing else (bus, audit, drift watch, NetworkManager). */
        Manager *parent;
        char *netns_name;        /* a child's name under /run/netns; NULL for igmpd's own */
        int netns_fd;            /* a child's namespace, -EBADF for igmpd's own */
        uint64_t netns_dev;      /* the namespace's nsfs st_dev/st_ino (link_ctx.netns_ino) */
        bool netns_forget;       /* the namespace went: freed without writing anything */
        NetnsWatch *netns_watch; /* igmpd's own Manager: the followed namespaces */
        bool drift_all_netns;    /* the drift watch was asked for every namespace (at start) */

        /* Observer of the manager itself (the D-Bus face): told after every reload. */
        ManagerReloadedFn reloaded;
        void *reloaded_userdata;
};

int manager_new(const char *root, Manager **ret);
/* The Manager of the link (its own or a child), for what a link's namespace keeps. */
static inline Manager *manager_of_link(const Link *l)
{
        return l->ctx->userdata;
}
Manager *manager_free(Manager *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(Manager *, manager_free);

/* Loads policy, runtime and daemon configuration. On -ENOMEM the previous set is kept. */
int manager_load_config(Manager *m);
/* Reload: parse everything anew, swap it in, reconfigure every link. */
int manager_reload(Manager *m);

void manager_probe_kernel(Manager *m);

/* Opens netlink, takes the record of originals, starts the drift watch, sets the namespace
 * knobs: what comes before the D-Bus face. */
int manager_start(Manager *m);
/* Starts the first pass over every link, read by the event loop (which answers bus calls
 * meanwhile); its end (manager_on_first_pass()) sends READY=1. */
int manager_first_pass(Manager *m);
void manager_on_first_pass(Manager *m, int r);
/* Reads and removes what the last clean stop saved (ROOT/run/igmpd/originals) if it is of this
 * network namespace: 1 with *ret filled, 0 with none, -errno (see originals_load()). */
int manager_read_originals(Manager *m, Originals *ret);
/* Takes what the last run recorded of the namespace knobs (ns_knobs_take_record()), and keeps
 * the record from now on. 0 or -ENOMEM. */
int manager_take_namespace_record(Manager *m);
/* The directory of m's record: ROOT/run/igmpd, or ROOT/run/igmpd/netns/NAME for a followed
 * namespace. NULL on ENOMEM. */
char *manager_originals_path(Manager *m);
/* igmpd --restore: for each namespace with a record under ROOT/run/igmpd/netns/, calls fn with a
 * Manager of that namespace (its conf directories and namespace knobs open), the calling thread
 * switched into the namespace meanwhile. A namespace that is gone had its links go with it: its
 * record is removed and said so. Returns how many namespaces with a record were left as is
 * because they could not be entered (each said). */
unsigned manager_netns_foreach_record(Manager *m, int (*fn)(Manager *c, void *userdata), void *userdata);

/* Opens the netlink sockets, which feed the link table from then on. */
int manager_open_netlink(Manager *m);
/* A full dump + mark/sweep: read to its end (--check, a followed namespace's first pass), or
 * started and read by the event loop (igmpd's own first pass, a resync). */
int manager_enumerate(Manager *m);
int manager_enumerate_start(Manager *m);

Link *manager_get_link(Manager *m, int ifindex);
/* The link carrying name as its name or an alternative name, or NULL. O(1). */
Link *manager_get_link_by_name(Manager *m, const char *name);
/* All links ordered by ifindex (borrowed), igmpd's own namespace's, then each followed one's in
 * the order they were found (unless own_only); the caller frees the array. 0 or -ENOMEM. */
int manager_sorted_links_full(Manager *m, bool own_only, Link ***ret, size_t *ret_n);
static inline int manager_sorted_links(Manager *m, Link ***ret, size_t *ret_n)
{
        return manager_sorted_links_full(m, false, ret, ret_n);
}

/* Diagnostic sink for config problems: logs "FILE:LINE: message". */
void manager_config_diag(void *userdata, const char *file, unsigned line, const char *message);

/* The namespace knobs: takes the policy's values and writes them (never with check_only). */
void manager_configure_namespace(Manager *m);

/* Effective values for a link from every source, weakest first. */
void manager_effective(Manager *m, const LinkInfo *info, KnobValue out[_KNOB_MAX],
                       const PolicyFile **matched, size_t max_matched, size_t *ret_n_matched);

/* STATUS=, with READY=1 in the same message if ready (the end of the first pass, of a reload). */
void manager_notify_status(Manager *m, bool ready);

/* manager-netns.c. At most NETNS_MAX namespaces are followed besides igmpd's own; each costs
 * up to NETNS_FDS file descriptors (the namespace, two netlink sockets and, while one runs, the
 * refresh dump's, the ipv4 and ipv6 conf directories, the ioctl socket, the record of originals
 * while it is written); the drop-in's LimitNOFILE= leaves room for all. */
#define NETNS_MAX 1024
#define NETNS_FDS 8

/* manager-netns.c. Starts or stops following the namespaces under /run/netns as [Daemon]
 * Namespaces= says (at start and on reload); logs its own failures. */
void manager_follow_netns(Manager *m);
/* Frees every child, writing each one's record of originals whole (a stop). */
void manager_netns_done(Manager *m);
/* The followed namespaces: how many, and the i-th (in the order they were found). */
size_t manager_netns_count(const Manager *m);
Manager *manager_netns_get(const Manager *m, size_t i);
/* The child whose namespace has this name or inode, or NULL (igmpd's own is no child). */
Manager *manager_netns_by_name(const Manager *m, const char *name);
Manager *manager_netns_by_ino(const Manager *m, uint64_t ino);
/* Plugs the observers into every namespace's links, now and those followed later. */
void manager_set_link_observers(Manager *m, LinkObserver observer, LinkOverrideFn overridden, void *userdata);
/* A reload of m (the parent) took: each child takes its settings and reads its runtime
 * overrides again (manager_reload() then configures every namespace's links). */
void manager_netns_reload(Manager *m);

/* manager-refresh.c. A read showed cached kernel values: make sure they are refreshed soon —
 * a dump that starts after this call, within MANAGER_REFRESH_INTERVAL_USEC, asynchronously,
 * one at a time however many ask. Nothing while the values are watched. Never fails. */
void manager_request_refresh(Manager *m);
/* Whether every change of the knobs reaches igmpd by itself (the drift watch is active): reads
 * then cause no refresh at all. */
void manager_set_kernel_watched(Manager *m, bool watched);
/* How old the kernel values the bulk reads serve may be: µs since igmpd last read every link's
 * (start, a resync, a refresh dump; a link's own events and reads are newer), 0 while the
 * drift watch keeps them current. */
uint64_t manager_kernel_values_age(Manager *m);
/* The netlink handlers of the refresh dump. */
void manager_on_refreshed(const LinkMessage *msg, void *userdata);
void manager_on_refresh_done(int r, void *userdata);
/* Stops what is pending (manager_free()). */
void manager_refresh_done(Manager *m);

/* manager-drift.c: the drift watch's hooks. The state hook tells manager-refresh.c whether
 * the knobs are watched (manager_set_kernel_watched()). */
void manager_on_drift_write(const DriftEvent *e, void *userdata);
void manager_on_drift_lost(void *userdata);
void manager_on_drift_state(void *userdata);
