/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Dropping the capabilities the configuration does not need (privileges.h).
 */

#include <errno.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "audit-rules.h"
#include "audit.h"
#include "cap-util.h"
#include "daemon-config.h"
#include "log.h"
#include "privileges.h"

/* Set for the re-executed image: what the first one lowered, for the log and for the sources. */
#define PRIVILEGES_ENV "IGMPD_DROPPED_CAPABILITIES"

static uint64_t privileges_needed(const DaemonConfig *c, const char *root, const char *kmsg_path)
{
        uint64_t keep = CAP_MASK(CAP_NET_ADMIN);
        _cleanup_free_ char *changes = NULL;
        char reason[256];

        /* Namespaces=named: setns() into each namespace under /run/netns as it appears, to make
         * its sockets and /proc/sys directories (manager-netns.c). */
        if (c->namespaces == NETNS_MODE_NAMED)
                keep |= CAP_MASK(CAP_SYS_ADMIN);

        if (audit_kmsg_wanted(c->audit_sources, kmsg_path, reason, sizeof reason))
                keep |= CAP_MASK(CAP_SYSLOG);
        if (c->audit_sources & AUDIT_SOURCE_AUDIT)
                keep |= CAP_MASK(CAP_AUDIT_READ);
        /* AuditRule=, or the audit changes an igmpd that did not stop cleanly left (audit-rules.h)
         * to undo; on ENOMEM the capability is kept rather than the changes left. */
        if (c->audit_rule)
                keep |= CAP_MASK(CAP_AUDIT_CONTROL);
        else if (asprintf(&changes, "%s" AUDIT_CHANGES_DIR "/" AUDIT_CHANGES_NAME, root) < 0 ||
                 access(changes, F_OK) == 0) {
                log_info("Keeping CAP_AUDIT_CONTROL to undo the audit rule an igmpd that did not stop cleanly left.");
                keep |= CAP_MASK(CAP_AUDIT_CONTROL);
        }
        return keep;
}

static void log_dropped(uint64_t mask, uint64_t keep, const char *how)
{
        char names[1024], kept[256];

        capability_format(mask, names, sizeof names);
        capability_format(keep, kept, sizeof kept);
        log_info("Dropped %d capabilit%s this configuration does not need%s, keeping %s: %s.",
                 __builtin_popcountll(mask), __builtin_popcountll(mask) == 1 ? "y" : "ies", how,
                 kept[0] ? kept : "none", names);
}

void privileges_drop_unneeded(const char *root, const char *kmsg_path, char **argv)
{
        const char *env = getenv(PRIVILEGES_ENV);
        DaemonConfig c;
        CapabilitySets s;
        uint64_t keep, drop;
        char buf[32];
        int r;

        if (env) {
                /* The re-executed image: the ambient set was lowered before exec. */
                uint64_t lowered = strtoull(env, NULL, 16);

                (void) unsetenv(PRIVILEGES_ENV);
                if (capability_get(&s) >= 0)
                        log_dropped(lowered, s.permitted, " (capset() is filtered: ambient capabilities lowered, "
                                    "igmpd re-executed)");
        }

        /* Problems in the files are reported by the real load that follows; here only the
         * values matter. */
        r = daemon_config_load(&c, root, NULL, NULL, NULL);
        if (r < 0) {
                log_warning_errno(r, "Failed to read the daemon configuration, keeping all capabilities: %m");
                return;
        }
        r = capability_get(&s);
        if (r < 0) {
                log_warning_errno(r, "Failed to read the capabilities, keeping them: %m");
                return;
        }
        keep = privileges_needed(&c, root, kmsg_path);
        /* The inheritable set on its own gives nothing (no ambient or file capabilities): it is
         * cleared where capset() is allowed, and not worth a re-exec where it is not. */
        drop = (s.effective | s.permitted | s.ambient) & ~keep;
        if (drop == 0 && (s.inheritable & ~keep) == 0)
                return;

        r = capability_drop_except(keep);
        if (r >= 0) {
                log_dropped(drop | (s.inheritable & ~keep), keep & (s.effective | s.permitted), "");
                return;
        }
        if (drop == 0) {
                log_debug_errno(r, "Cannot clear the inheritable capabilities not needed, ignoring: %m");
                return;
        }
        if (r != -EPERM || env || (drop & s.permitted & ~s.ambient) != 0) {
                log_warning_errno(r, "Failed to drop the capabilities this configuration does not need, "
                                  "keeping them: %m");
                return;
        }

        /* capset() is filtered, but everything to drop came as ambient capabilities, which
         * capability_drop_except() lowered already: a new image of igmpd starts without them.
         * Nothing has been set up yet that an exec would lose. */
        snprintf(buf, sizeof buf, "%" PRIx64, drop);
        if (setenv(PRIVILEGES_ENV, buf, 1) < 0)
                return;
        execv("/proc/self/exe", argv);
        log_warning_errno(errno, "Failed to re-execute igmpd without the capabilities it does not need, "
                          "keeping them: %m");
        (void) unsetenv(PRIVILEGES_ENV);
}
