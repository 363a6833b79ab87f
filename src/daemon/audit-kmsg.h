/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Audit source 1: the kernel log. Kernels 2.6.24–5.8 print
 *     warning: process `COMM' used the deprecated sysctl system call with 3.5.16.-2.17.
 * for each (rate-limited) sysctl(2) call. Read from /dev/kmsg, non-blocking, one record per
 * read(); EPIPE (records overwritten before we read them) is counted and reading carries on;
 * only kernel-facility records count; continuation records are joined (KmsgAssembler).
 *
 * At start the whole buffer is read, but the sequence number of the last record handled is kept
 * in ROOT/run/igmpd/kmsg-seq ("SEQ BOOT_ID"), so a restart does not publish old events again:
 * written at once after a record that made an event, at most every 5 s for the others, and at
 * a clean stop (after a crash, up to 5 s of records that made no event are read again).
 *
 * Test mode (--kmsg-path=PATH): PATH holds records in the /dev/kmsg format, one per line (lines
 * starting with a space are dictionary lines and are skipped). A FIFO is followed for as long as
 * the daemon runs (it is opened read-write, so writers may come and go; the assembler is flushed
 * whenever it is drained); a regular file is read once, to its end, right after start-up.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "audit-event.h"

typedef struct AuditKmsg AuditKmsg;

/* 0, or -errno with reason (a phrase, no final dot) filled in; the source is then not created.
 * reason stays the source's: it says there why the source stopped, should it stop later. */
int audit_kmsg_new(const AuditSourceContext *ctx, const char *path, AuditKmsg **ret, char *reason,
                   size_t reason_size);
AuditKmsg *audit_kmsg_free(AuditKmsg *k);
bool audit_kmsg_is_active(const AuditKmsg *k);
