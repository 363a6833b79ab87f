/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The Manager owns the event loop, the netlink sockets, the configuration and the links.
 */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "bus-util.h"
#include "daemon-config.h"
#include "link.h"
#include "intmap.h"
#include "knob.h"
#include "originals.h"
#include "policy.h"
#include "runtime-config.h"

typedef struct Netlink Netlink;
typedef struct AuditManager AuditManager;
typedef struct NMState NMState;

typedef struct Manager {
        sd_event *event;
        char *root;       /* config root ("" = /) */
        char *proc_root;  /* normally "/proc" */
        bool check_only;      /* --check: enumerate and report, never write */
        unsigned n_config_errors; /* problems found by the last load */

        int conf_fd[_KNOB_FAMILY_MAX]; /* /proc/sys/net/ipvX/conf, or -EBADF if absent */
        int ioctl_fd;                  /* for SIOCGIFNAME */
        bool knob_supported[_KNOB_MAX];
        bool knob_missing_warned[_KNOB_MAX];
        bool mld_all_warned;

        DaemonConfig config;
        Policy *policy;
        RuntimeConfig *runtime;

        IntMap links; /* ifindex → Link* */
        Netlink *netlink;

        /* Deprecated sysctl(2) audit (audit.c); NULL if it could not be set up. */
        AuditManager *audit;
        const char *kmsg_path; /* --kmsg-path= (tests), NULL: /dev/kmsg */

        /* Originals saved at the last clean stop (originals.c), applied during the first pass. */
        Originals saved_originals;

        unsigned n_resyncs;    /* re-enumerations after ENOBUFS */
        bool ready;

        sd_event_source *sigterm_source, *sigint_source, *sighup_source;

        /* D-Bus face (manager-bus.c). bus exists from manager_bus_start() on, also while sd-bus
         * waits for the bus socket to appear (sd_bus_set_watch_bind()); it is NULL only while
         * bus_reconnect_source waits after connections that failed before they were up. */
        sd_bus *bus;
        bool bus_up;            /* the current connection got as far as Hello (Connected) */
        unsigned bus_failures;  /* connections in a row that failed before they were up */
        sd_event_source *bus_reconnect_source;
        bool bus_down_logged;
        BusPolkitRegistry polkit_registry;

        /* NetworkManager profiles (nm.c): NULL with [Daemon] NetworkManager=no. */
        NMState *nm;
} Manager;

int manager_new(const char *root, Manager **ret);
Manager *manager_free(Manager *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(Manager *, manager_free);

/* Loads policy, runtime and daemon configuration. On -ENOMEM the previous set is kept. */
int manager_load_config(Manager *m);
/* Reload: parse everything anew, swap it in, reconfigure every link. */
int manager_reload(Manager *m);

/* Probes which knobs this kernel has. */
void manager_probe_kernel(Manager *m);

int manager_start(Manager *m);
int manager_run(Manager *m);

/* Opens the netlink sockets, which feed the link table from then on. */
int manager_open_netlink(Manager *m);
int manager_enumerate(Manager *m); /* full dump + mark/sweep */

Link *manager_get_link(Manager *m, int ifindex);

/* link_configure() and PropertiesChanged for whatever it changed. */
int manager_link_configure(Manager *m, Link *l);

/* Name currently carried by ifindex, via SIOCGIFNAME. 0 or -errno (-ENODEV if gone). */
int manager_ifindex_to_name(Manager *m, int ifindex, char ret[16]);

/* Diagnostic sink for config problems: logs "FILE:LINE: message". */
void manager_config_diag(void *userdata, const char *file, unsigned line, const char *message);

/* Effective values for a link from every source, weakest first. */
void manager_effective(Manager *m, const LinkInfo *info, KnobValue out[_KNOB_MAX],
                       const PolicyFile **matched, size_t max_matched, size_t *ret_n_matched);

void manager_notify_status(Manager *m);
