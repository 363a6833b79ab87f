/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What the audit source (audit-netlink.c) changes in the host's audit configuration with
 * AuditRule=yes, and the record of it. Requests go over a unicast NETLINK_AUDIT socket (needs
 * CAP_AUDIT_CONTROL): the rule that makes the kernel report sysctl(2) calls
 *     -a always,exit -F arch=b64 -S 156 -k igmpd-sysctl   (and arch=b32 -S 149)
 * and the enabled flag, switched on if it was off. Undone exactly: only rules igmpd added, the
 * flag only while it is still what igmpd set.
 *
 * What it changed is recorded in ROOT/run/igmpd/audit-changes (written atomically: a rule
 * right after adding it, the enabled flag before switching it), so that a crash (SIGKILL, the
 * OOM killer, a watchdog kill) does not leave it behind: the next start takes over a rule and
 * flag that record lists and still finds (AuditRule=yes), or undoes them (AuditRule=no, or the
 * audit source off). Removed once nothing is left to undo. Format:
 *     igmpd-audit-changes 1
 *     rule b64                 (one line per rule igmpd added: b64, b32)
 *     enabled-before 0         (igmpd switched auditing on, from this value)
 */

#include <stdbool.h>
#include <stdint.h>

#define AUDIT_NETLINK_RULE_KEY "igmpd-sysctl"
#define AUDIT_RULES_MAX 2 /* b64, b32 */
#define AUDIT_CHANGES_DIR "/run/igmpd" /* below the config root */
#define AUDIT_CHANGES_NAME "audit-changes"
#define AUDIT_CHANGES_HEADER "igmpd-audit-changes 1"

/* What igmpd changed in the host's audit configuration. Plain data. */
typedef struct AuditChanges {
        bool rule[AUDIT_RULES_MAX]; /* the rules for b64 and b32 it added */
        bool enabled_changed;       /* it switched auditing on … */
        uint32_t enabled_before;    /* … from this */
} AuditChanges;

bool audit_changes_any(const AuditChanges *c);
/* The record's text (the format above), whole lines only. 0 or -EINVAL. Pure. */
int audit_changes_parse(const char *text, AuditChanges *ret);
/* Its text (at most 66 bytes of the format above). */
#define AUDIT_CHANGES_TEXT_MAX 128
void audit_changes_format(const AuditChanges *c, char buf[static AUDIT_CHANGES_TEXT_MAX]);

/* The record below root, what an igmpd that did not stop cleanly left: true with *ret; false if
 * nothing is left to undo, or the record cannot be read or is not valid (logged). */
bool audit_changes_load(const char *root, AuditChanges *ret);
/* Undoes what is left in left (loaded, not taken over by audit_rules_add()) as far as it can.
 * What could not be undone joins changes, to be tried again on exit, and the record below root
 * is rewritten; changes NULL: the record keeps it. */
void audit_changes_undo_left(const char *root, AuditChanges *left, AuditChanges *changes);

/* Adds the rules and enables auditing if it is off; what igmpd changed goes into changes (and
 * the record below root), a rule that was loaded already into rule_found. left: what an igmpd
 * that did not stop cleanly had changed; what of it is still loaded is taken over (removed on
 * exit) and cleared there. */
void audit_rules_add(const char *root, AuditChanges *changes, bool rule_found[static AUDIT_RULES_MAX],
                     AuditChanges *left);
/* Undoes changes (at exit) and updates the record below root. */
void audit_rules_remove(const char *root, AuditChanges *changes);
