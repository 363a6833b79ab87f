/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Keeps only the capabilities the configuration needs. igmpd.service hands igmpd CAP_NET_ADMIN,
 * CAP_SYSLOG, CAP_AUDIT_READ and CAP_AUDIT_CONTROL (root has them all); right after start igmpd
 * drops from its effective, permitted, inheritable and ambient sets every one that the
 * configuration read at start does not need:
 *
 *   CAP_NET_ADMIN      always (writing /proc/sys/net)
 *   CAP_SYSLOG         the kmsg source will read /dev/kmsg (AuditSources=kmsg, or the default on
 *                      kernels before 5.9)
 *   CAP_AUDIT_READ     AuditSources= has audit
 *   CAP_AUDIT_CONTROL  AuditRule=yes, or an igmpd that did not stop cleanly left audit changes
 *                      to undo (ROOT/run/igmpd/audit-changes, see audit-rules.h)
 *
 * and logs which it dropped. The BPF sources need none (their helper is igmpd-bpf.socket, or,
 * for root outside systemd, a child that gets its own capabilities at exec). A later reload
 * cannot bring a dropped capability back: the source that would need it says so (restart
 * igmpd). Where capset(2) itself is filtered (the unit's SystemCallFilter=~@privileged) and the
 * capabilities came as ambient ones, igmpd lowers those and re-executes itself once, before
 * doing anything else; the new image starts with only what it needs.
 */

/* Reads the daemon configuration below root and drops what it does not need; may re-exec argv
 * (never returns then). Failures are logged and ignored: igmpd keeps running with more. */
void privileges_drop_unneeded(const char *root, const char *kmsg_path, char **argv);
