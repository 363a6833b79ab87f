/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The NetworkManager layer: follows org.freedesktop.NetworkManager on the system bus and keeps,
 * per device (by ifindex), the knob values found in the user data ("user.data", keys
 * "igmpd.<knob>") of the connection NetworkManager applied on that device
 * (Device.GetAppliedConnection), from system profiles only (empty connection.permissions). Sits between policy files and runtime
 * changes in manager_effective(). Asynchronous throughout: it never blocks the event loop, and
 * NetworkManager being absent, restarting or appearing later only changes which values apply.
 */

#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-bus.h>

#include "conf-parser.h"
#include "nm-table.h" /* NMChangedFn */
#include "policy.h"

typedef struct NMState NMState;
typedef struct NMWait NMWait;

/* Creates the follower, not attached to any bus yet. changed is called for every ifindex whose
 * values change; diag gets the problems found in profiles (once per profile content). 0 or
 * -ENOMEM. */
int nm_new(NMChangedFn changed, ConfigDiagFn diag, void *userdata, NMState **ret);
NMState *nm_free(NMState *nm);

/* The bus connection to follow NetworkManager on, or NULL when there is none; the D-Bus face
 * calls it whenever its connection changes. Calls made on a connection that is not up yet wait
 * in it. A NULL nm is a no-op. */
void nm_set_bus(NMState *nm, sd_bus *bus);

/* For a one-shot reader (igmpd --check): 1 once the first answer is in — NetworkManager's
 * profiles read (*ret_present true) or NetworkManager not on the bus, or not readable (false) —
 * 0 while it is awaited. */
int nm_first_read_done(const NMState *nm, bool *ret_present);

/* Overlays the values of the NetworkManager profile active on the device with this ifindex
 * onto out[] (valid values, see KnobValue), with source "NetworkManager:<profile id>" (each
 * value holds a reference of its own). No-op for nm == NULL or an unknown ifindex. */
void nm_merge(const NMState *nm, int ifindex, KnobValue out[_KNOB_MAX]);

/* Why the NetworkManager profile applied on the link with this ifindex is ignored (a user's
 * profile), as "NetworkManager:<profile id>: <why>" in *ret (NULL when none is ignored there).
 * 0 or -ENOMEM. */
int nm_ignored_source(const NMState *nm, int ifindex, char **ret);

/* Called once per wait of nm_resync(): when the read it waits for is done (or failed: the
 * previous values stay), or NetworkManager or the bus went away meanwhile — the changed links are
 * reconfigured by then. freeing: the NetworkManager layer is being freed; only release what the
 * wait holds. */
typedef void (*NMWaitFn)(bool freeing, void *userdata);

/* Reads NetworkManager's state again (asynchronously; coalesced with a read in flight): the
 * trigger after a Device.Reapply, which NetworkManager does not announce. With done, the caller
 * can wait for that read: returns 0 and *ret, valid until done is called or it is given to
 * nm_wait_cancel(); returns 1 (done never called) when there is nothing to wait for — nm NULL,
 * NetworkManager not on the bus or not asked — and -ENOMEM. */
int nm_resync(NMState *nm, NMWaitFn done, void *userdata, NMWait **ret);
/* Forgets a wait; its done is not called. NULL is a no-op. */
void nm_wait_cancel(NMWait *w);
