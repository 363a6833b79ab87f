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
 * Requests are coalesced and spaced (AUDIT_LIBC_RESCAN_SPACING_USEC); files already known
 * (probed, or found without the compat symbol) are skipped by the helper.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <systemd/sd-event.h>

#include "audit-bpf-record.h"
#include "bpf-helper-client.h"
#include "bpf-protocol.h"

/* At most one rescan every 200 ms: a burst of new namespaces costs one helper run. */
#define AUDIT_LIBC_RESCAN_SPACING_USEC (200ULL * 1000ULL)

typedef struct AuditLibc AuditLibc;

/* What the libc source (audit-bpf.c) lends its coverage: the loop, the helper, where its uprobe
 * program's fd is (sent with each rescan; it may still be -EBADF), and a hook that keeps a new
 * uprobe link (closing the fd on failure; 0 or -errno). */
typedef struct AuditLibcContext {
        sd_event *event;
        BpfHelper *helper;
        const int *program_fd;
        int (*keep_link)(int fd, void *userdata);
        void *userdata;
} AuditLibcContext;

int audit_libc_new(const AuditLibcContext *ctx, AuditLibc **ret);
AuditLibc *audit_libc_free(AuditLibc *l);

/* A reply entry about a libc file (probed: its link fd was kept by the caller). */
void audit_libc_note_file(AuditLibc *l, const BpfReplyEntry *e, bool probed);

/* The exec watch saw a new mount namespace / root: look at that process. */
void audit_libc_on_new_root(AuditLibc *l, const AuditBpfNewRoot *n);

/* Look at every process again (reload, a changed library directory). */
void audit_libc_request_sweep(AuditLibc *l);

unsigned audit_libc_n_probed(const AuditLibc *l);
uint64_t audit_libc_n_rescans(const AuditLibc *l);
