/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The libc source's coverage of libc copies. A uprobe is bound to one file (inode), so every
 * libc in use needs its own: the helper probes all that processes map when the source starts,
 * and again — for the processes named — whenever:
 *  - the BPF exec watch reports the first exec()s in a mount namespace and root directory pair
 *    (containers, chroots, unshare -m, ip netns exec): the helper looks at that process's maps
 *    and at the usual libc paths inside its root;
 *  - a libc file is replaced in the host's library directories (an upgrade: inotify), or the
 *    configuration is reloaded: the helper looks at every process again.
 * Requests are coalesced per mount namespace and root and spaced; files already known are
 * skipped by the helper. At most AUDIT_LIBC_PROBES_MAX uprobes are kept, at most half of them on
 * copies of a content already probed; at the cap igmpd says so once and stops rescanning.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <systemd/sd-event.h>

#include "audit-bpf-record.h"
#include "bpf-helper-client.h"
#include "bpf-protocol.h"

/* At most one rescan a second: a burst of new namespaces costs one helper run. */
#define AUDIT_LIBC_RESCAN_SPACING_USEC (1000ULL * 1000ULL)
/* Uprobe links (one file descriptor each) kept at most. */
#define AUDIT_LIBC_PROBES_MAX 64U

typedef struct AuditLibc AuditLibc;

/* The libc source (audit-bpf.c) lends its coverage the loop and the helper (both outlive it). */
int audit_libc_new(sd_event *event, BpfHelper *helper, AuditLibc **ret);
/* Closes the uprobe program and links: detaches the probes. */
AuditLibc *audit_libc_free(AuditLibc *l);

/* The cap, the files known and what the helper may probe, for a request. */
void audit_libc_fill_request(const AuditLibc *l, BpfRequest *req);

/* A reply's libc entries: of fds[] (in entry order, from the first entry with an fd; the caller
 * has taken the others) the uprobe program (sent with each rescan) and uprobe links are taken
 * (links past the cap closed), left -EBADF; also what the scan refused and whether it was
 * complete. */
void audit_libc_take_reply(AuditLibc *l, const BpfReply *reply, int *fds);

/* The exec watch saw a new mount namespace / root: look at that process. */
void audit_libc_on_new_root(AuditLibc *l, const AuditBpfNewRoot *n);

/* Look at every process again (reload, a changed library directory). */
void audit_libc_request_sweep(AuditLibc *l);

/* "uprobe on sysctl@GLIBC_2.2.5 in 3 libc copies, 5 rescans" and what is wrong, for igmpctl. */
void audit_libc_describe(const AuditLibc *l, char *buf, size_t size);
