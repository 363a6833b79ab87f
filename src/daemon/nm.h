/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The NetworkManager layer: follows org.freedesktop.NetworkManager on the system bus and keeps,
 * per interface name, the knob values found in the user data ("user.data", keys
 * "igmpd.<knob>") of the profile active on that device. Sits between policy files and runtime
 * changes in manager_effective(). Asynchronous throughout: it never blocks the event loop, and
 * NetworkManager being absent, restarting or appearing later only changes which values apply.
 */

#include <stddef.h>

#include "policy.h"

typedef struct Manager Manager;
typedef struct NMState NMState;

/* At most this many devices carry NetworkManager values at once; more are ignored (logged). */
#define NM_ENTRIES_MAX 4096
/* At most this many active connections are looked at per resynchronisation. */
#define NM_ACTIVE_MAX 1024

/* Creates the follower. It uses m->bus whenever the manager has a bus connection: it attaches
 * when one appears and detaches when it goes (see nm_bus_changed()). 0 or -ENOMEM. */
int nm_new(Manager *m, NMState **ret);
NMState *nm_free(NMState *nm);
DEFINE_TRIVIAL_CLEANUP_FUNC(NMState *, nm_free);

/* Re-checks m->bus and (re)attaches or detaches. Also called automatically after every event
 * dispatch, so no change to the bus code is needed. */
void nm_bus_changed(NMState *nm);

/* Overlays the values of the NetworkManager profile active on ifname, with source
 * "NetworkManager:<profile id>". No-op for nm == NULL or an unknown ifname. The source string
 * stays valid until the next change of that link's NetworkManager values, which reconfigures
 * the link. */
void nm_merge(const NMState *nm, const char *ifname, KnobValue out[_KNOB_MAX]);

/* Number of devices carrying NetworkManager values now (for status and tests). */
size_t nm_n_entries(const NMState *nm);
