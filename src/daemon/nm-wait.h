/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Callers waiting for a numbered read of NetworkManager's state (nm_resync()): each waits for
 * read number N, and is told when a read numbered N or later is done, or when reads stop.
 */

#include <stdbool.h>

typedef struct NMWait NMWait;

/* Called once per wait: when the read it waits for is done (or failed: the previous values
 * stay), or NetworkManager or the bus went away meanwhile — the changed links are reconfigured
 * by then. freeing: the NetworkManager layer is being freed; only release what the wait holds. */
typedef void (*NMWaitFn)(bool freeing, void *userdata);

typedef struct NMWaits {
        NMWait *head;
} NMWaits;

/* Adds a wait for read number read; *ret is valid until done is called or it is given to
 * nm_wait_cancel(). 0 or -ENOMEM. */
int nm_waits_add(NMWaits *waits, unsigned read, NMWaitFn done, void *userdata, NMWait **ret);

/* Calls done, and forgets, every wait for a read numbered upto or lower (all for UINT_MAX). */
void nm_waits_done(NMWaits *waits, unsigned upto, bool freeing);

/* Forgets a wait; its done is not called. NULL is a no-op. */
void nm_wait_cancel(NMWait *w);
