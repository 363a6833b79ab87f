/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The NetworkManager values per device, keyed by ifindex, and the diff that tells which links
 * need configuring when a read (nm-sync.h) changes them.
 */

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>

#include "nm-sync.h"

/* At most this many devices carry NetworkManager values at once; more are ignored (logged). */
#define NM_ENTRIES_MAX 4096

/* The values for the link with this ifindex changed (appeared, changed or went away): it needs
 * configuring again. */
typedef void (*NMChangedFn)(int ifindex, void *userdata);

typedef struct NMEntry {
        char ifname[IF_NAMESIZE];
        int ifindex;
        char *device; /* object path of the device */
        RefStr *source; /* "NetworkManager:<id>"; links hold references of their own */
        char *ignored;  /* why the profile's values do not count (a user's profile), NULL if they do */
        KnobSetting knobs[_KNOB_MAX]; /* none set when ignored */
} NMEntry;

typedef struct NMTable {
        NMEntry *entries;
        size_t n;
        bool overflow_logged;
} NMTable;

void nm_table_done(NMTable *t);
const NMEntry *nm_table_find(const NMTable *t, int ifindex);

/* Takes in what a read found: a full read (device NULL) makes the whole table, a read of one
 * device object changes its entries only. Then reports every ifindex whose values changed to
 * changed(). 0, or -ENOMEM with the table unchanged. */
int nm_table_update(NMTable *t, const char *device, const NMDeviceResult *results, size_t n, NMChangedFn changed,
                    void *userdata);
/* Empties the table, reporting every ifindex it had. */
void nm_table_clear(NMTable *t, NMChangedFn changed, void *userdata);
