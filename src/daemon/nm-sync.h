/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * One read of NetworkManager's state, all asynchronous: the calls and their fan-out.
 *
 * A full read asks for the manager's ActiveConnections, then per active connection its Id,
 * Connection, Devices, State and Vpn, and per device its Ifindex (the link it maps to: igmpd's
 * namespace is NetworkManager's) and Interface, and the connection NetworkManager applied there
 * (Device.GetAppliedConnection, see nm.c). A device read asks one device for its Ifindex,
 * Interface and ActiveConnection, then that connection and the device's applied connection.
 * When the last reply is in, done() gets what was found per device. Freeing an NMSync cancels
 * its calls. A user's profile (connection.permissions; NetworkManager refuses it to igmpd's own
 * user with PermissionDenied) sets nothing: its device is reported with the reason.
 */

#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-bus.h>

#include "nm-profile.h"

/* At most this many active connections are looked at per full read. */
#define NM_ACTIVE_MAX 1024

typedef struct NMSync NMSync;

/* What a read found for one device. */
typedef struct NMDeviceResult {
        const char *path;    /* the device object */
        const char *ifname;  /* NULL if NetworkManager did not say */
        int ifindex;         /* 0 if it has no kernel link */
        const char *profile; /* the id of the profile applied there, if it carries igmpd values or is
                              * ignored; else NULL */
        const char *ignored; /* why that profile's values do not count, NULL if they do */
        const KnobSetting *knobs; /* none set when ignored */
} NMDeviceResult;

/* ok is false when the read could not be made (out of memory, no way to call): nothing is known
 * then. Otherwise results lists the devices with igmpd values (full read) or the one device
 * read, with or without (device read; empty if the device is gone). Valid during the call. */
typedef void (*NMSyncDone)(NMSync *s, bool ok, const NMDeviceResult *results, size_t n, void *userdata);

typedef struct NMSyncParams {
        sd_bus *bus;
        NMProfileReports *reports; /* problems of profiles said once */
        ConfigDiagFn diag;
        void *diag_userdata;
        NMSyncDone done;
        void *userdata;
} NMSyncParams;

/* device NULL: a full read; else a read of that device object. 0 or -errno (nothing started). */
int nm_sync_start(const NMSyncParams *params, const char *device, NMSync **ret);
NMSync *nm_sync_free(NMSync *s);
/* The device object of a device read, NULL for a full read. */
const char *nm_sync_device(const NMSync *s);
