/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Daemon-wide settings: /etc/igmpd/igmpd.conf and /etc/igmpd/igmpd.conf.d/ *.conf, section
 * [Daemon]. Every key has a built-in default, so the files are optional. Later issues add keys
 * by adding a row to the table in daemon-config.c.
 */

#include <stdbool.h>
#include <stddef.h>

#include "conf-parser.h"

#define AUDIT_HISTORY_MAX 65536
#define NETLINK_RCVBUF_MIN 4096
#define NETLINK_RCVBUF_MAX (1024ULL * 1024 * 1024)

typedef enum AuditSourceMask {
        AUDIT_SOURCE_KMSG = 1 << 0,
        AUDIT_SOURCE_AUDIT = 1 << 1,
        /* The default: read the kernel log only where it can carry the warning, i.e. on
         * kernels that still have sysctl(2) (< 5.9) or with --kmsg-path. */
        AUDIT_SOURCE_KMSG_AUTO = 1 << 2,
        AUDIT_SOURCE_LIBC = 1 << 3,    /* BPF uprobes on libc's compat sysctl() */
        AUDIT_SOURCE_SYSCALL = 1 << 4, /* BPF on sys_enter, system call 156/149 (opt-in) */
} AuditSourceMask;

typedef enum NMMode {
        NM_MODE_AUTO,
        NM_MODE_NO,
} NMMode;

/* What igmpd does when another process changes a knob it manages. */
typedef enum DriftAction {
        DRIFT_ACTION_REVERT, /* write the effective value back (the default) */
        DRIFT_ACTION_WARN,   /* leave the new value; report it all the same */
        _DRIFT_ACTION_MAX,
        _DRIFT_ACTION_INVALID = -22,
} DriftAction;

/* Which network namespaces igmpd manages: its own, or every one bound under /run/netns too. */
typedef enum NetnsMode {
        NETNS_MODE_SELF,
        NETNS_MODE_NAMED,
        _NETNS_MODE_MAX,
        _NETNS_MODE_INVALID = -22,
} NetnsMode;

/* The action's name, as in the files ("revert"). NULL if there is none. */
const char *drift_action_to_string(DriftAction a);

typedef struct DaemonConfig {
        size_t netlink_rcvbuf;   /* NetlinkReceiveBufferSize= */
        unsigned audit_sources;  /* AuditSources=, AuditSourceMask */
        bool audit_rule;         /* AuditRule= */
        unsigned audit_history;  /* AuditHistory= */
        NMMode network_manager;  /* NetworkManager= */
        DriftAction drift_action; /* DriftAction= */
        bool drift_watch;        /* DriftWatch=: the BPF watch of foreign writes */
        NetnsMode namespaces;    /* Namespaces= */
} DaemonConfig;

void daemon_config_defaults(DaemonConfig *c);

/* Parses one file's text on top of *c. Returns the number of problems (≥ 0) or -ENOMEM. */
int daemon_config_parse(DaemonConfig *c, const char *path, const char *buf, size_t len, ConfigDiagFn diag,
                        void *userdata);

/* Loads defaults, then ROOT/etc/igmpd/igmpd.conf, then igmpd.conf.d/ *.conf (same-name override
 * across /etc, /run, /usr/local/lib, /usr/lib). file (may be NULL) hears of every file read,
 * diag of every problem. 0 or -ENOMEM. */
int daemon_config_load(DaemonConfig *c, const char *root, ConfigDiagFn diag, ConfigFileFn file, void *userdata);
