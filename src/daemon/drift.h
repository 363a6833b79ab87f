/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The drift watch, igmpd's side. It asks the BPF helper (bpf-helper-client.h) to attach
 * drift-watch.bpf.c at the cgroup2 root and keeps the bpf_link it gets back: closing it detaches
 * the program, as igmpd's exit does, however it dies. It reads the ring buffer in batches (the
 * first record of a burst wakes igmpd, the rest are read DRIFT_BATCH_USEC later in one go) and
 * hands the owner each write, the last one per knob of a burst, through the write hook; when
 * records were lost (ring buffer full) the lost hook says to look at everything. The observer
 * hook (the D-Bus face) hears when the state changes. Nothing here is fatal: without BPF (build,
 * kernel, privileges) the watch is inactive and says why.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "drift-record.h"
#include "run-state.h"

/* How long the reader waits after the first record of a burst before it reads them all: the
 * delay before a foreign write is reverted, and the wake-ups a burst costs (one per window). */
#define DRIFT_BATCH_USEC (10ULL * 1000ULL)
/* Writes handed on per batch; a burst of more distinct knobs is handled as lost records. */
#define DRIFT_BATCH_MAX 4096
/* A command name as shown: 16 bytes, each possibly escaped as \xNN. */
#define DRIFT_COMM_MAX (DRIFT_RECORD_COMM_MAX * 4 + 1)

/* Off: DriftWatch=no. Inactive: wanted, but it cannot run here (the note says why). */
typedef RunState DriftWatchState;

/* One write as handed on. */
typedef struct DriftEvent {
        DriftWrite write;
        char comm[DRIFT_COMM_MAX]; /* write.comm as valid UTF-8 (other bytes as \xNN) */
} DriftEvent;

typedef void (*DriftWriteFn)(const DriftEvent *e, void *userdata);
typedef void (*DriftLostFn)(void *userdata);
typedef void (*DriftObserver)(void *userdata);

typedef struct DriftWatch DriftWatch;

/* on_state hears each change of the state (the owner's hook; the D-Bus face has the observer). */
int drift_watch_new(sd_event *event, DriftWriteFn on_write, DriftLostFn on_lost, DriftObserver on_state,
                    void *userdata, DriftWatch **ret);
DriftWatch *drift_watch_free(DriftWatch *d);

/* The D-Bus face's hook; NULL to unplug. */
void drift_watch_set_observer(DriftWatch *d, DriftObserver observer, void *userdata);

/* DriftWatch= at start and after each reload: starts the watch if wanted and not running
 * (asynchronously: STARTING until the helper answers), stops it if not wanted. all_netns: the
 * watch it starts sees writes in every network namespace (DriftEvent.write.netns says which), not
 * only igmpd's own ([Daemon] Namespaces=named); a running watch keeps what it started with. */
void drift_watch_start(DriftWatch *d, bool wanted, bool all_netns);

/* The state and a note for the operator: where it is attached when active, why not otherwise. */
DriftWatchState drift_watch_state(const DriftWatch *d, char *note, size_t size);

/* True while the program is attached and its ring read: every write of the knobs in igmpd's
 * network namespace reaches igmpd (through /proc/sys here, RTM_SETLINK in link messages, lost
 * records as a full read-back), so the cached values are the kernel's. NULL: false. */
bool drift_watch_active(const DriftWatch *d);

/* Hands on every write waiting in the ring buffer now (before a link message is believed: a
 * write made before the message was sent is already in the ring). */
void drift_watch_flush(DriftWatch *d);
