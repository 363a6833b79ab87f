/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Audit source 2: Linux audit, for kernels ≥ 5.9 where sysctl(2) is gone and nothing is logged.
 * A NETLINK_AUDIT socket bound to the read-only multicast group AUDIT_NLGRP_READLOG (needs
 * CAP_AUDIT_READ; the kernel multicasts only in the initial network namespace; coexists with
 * auditd) receives every audit record; SYSCALL records for syscall 156 on x86_64 (149 on i386)
 * become events with pid, comm and exe.
 *
 * With AuditRule=yes the source also loads the rule that makes the kernel emit those records
 *     -a always,exit -F arch=b64 -S 156 -k igmpd-sysctl   (and arch=b32 -S 149)
 * and enables auditing if it was off (needs CAP_AUDIT_CONTROL); on exit it removes exactly the
 * rules it added (not ones that were already loaded, e.g. by auditd from the shipped rule file)
 * and puts the enabled flag back.
 *
 * What it changed is recorded in ROOT/run/igmpd/audit-changes, so that a crash does not leave
 * it behind (audit-rules.h).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "audit-event.h"

typedef struct AuditNetlink AuditNetlink;

/* 0, or -errno with reason (a phrase, no final dot) filled in; the source is then not created.
 * A failure to add the rule only logs: the source still listens. */
int audit_netlink_new(const AuditSourceContext *ctx, bool add_rule, AuditNetlink **ret, char *reason,
                      size_t reason_size);
/* Removes the rules it added, restores the enabled flag. */
AuditNetlink *audit_netlink_free(AuditNetlink *n);
/* With the audit source not started: undoes what the record says an igmpd that did not stop
 * cleanly changed, if anything. */
void audit_netlink_undo_left(const AuditSourceContext *ctx);
bool audit_netlink_is_active(const AuditNetlink *n);
/* Whether the rule that makes the kernel report sysctl(2) calls is known to be loaded: igmpd
 * added it, or found it already there (AuditRule=yes). With AuditRule=no igmpd cannot tell
 * (listing rules needs CAP_AUDIT_CONTROL): false. */
bool audit_netlink_has_rule(const AuditNetlink *n);
