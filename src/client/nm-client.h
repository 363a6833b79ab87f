/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * igmpctl ↔ NetworkManager over its D-Bus API: the profiles (Settings.ListConnections,
 * Settings.Connection.GetSettings and its properties), where each is active
 * (ActiveConnections), writing the user data back (Settings.Connection.Update2 with every other
 * setting as read) and putting igmpd's keys into a device's applied connection
 * (Device.GetAppliedConnection + Device.Reapply). No call auto-starts NetworkManager.
 * NetworkManager does its own authorization; its refusals are reported as they come. Functions
 * that talk to NetworkManager print what went wrong and set client_exit_status for "not
 * running" and "no such profile".
 */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "nm-user-data.h"

typedef struct NMProfile {
        char *path;               /* Settings.Connection object */
        char *id, *uuid, *type;   /* connection.id, .uuid, .type */
        char **permissions;       /* connection.permissions; NULL or empty: a system profile */
        UserData data;            /* the whole user.data */
        char *filename;           /* where NetworkManager stores it; NULL if nowhere */
        bool unsaved;             /* changed in memory only */
        bool has_version_id;      /* NetworkManager ≥ 1.44: Update2 can refuse a stale edit */
        uint64_t version_id;
        sd_bus_message *settings; /* the GetSettings reply, sent back by nm_profile_update() */
        char **devices;           /* interfaces where it is active (activating or activated) */
        char **device_paths;      /* their Device objects, same order */
} NMProfile;

void nm_profile_done(NMProfile *p);
void nm_profiles_free(NMProfile *p, size_t n);

/* Every profile the caller may see, sorted by name, with where it is active. */
int nm_profiles_list(sd_bus *bus, NMProfile **ret, size_t *ret_n);

/* The one profile arg names: a D-Bus path (starts with '/'), a UUID, or a name (an ambiguous
 * name is an error that lists the candidates' UUIDs). */
int nm_profile_resolve(sd_bus *bus, const char *arg, NMProfile *ret);

/* Writes data as p's user.data with Update2, every other setting as p->settings has it
 * (secrets are not in there; NetworkManager keeps the stored ones when an update carries
 * none). To disk, or in memory only with runtime. -ESTALE (nothing reported) when
 * NetworkManager says the profile changed since it was read. */
int nm_profile_update(sd_bus *bus, const NMProfile *p, const UserData *data, bool runtime);

/* Makes the device at device_path (interface ifname, where p is active) use p's igmpd keys
 * now: its applied connection with the igmpd keys of data and everything else unchanged,
 * through Reapply (preserving the device's external addresses where NetworkManager can).
 * Returns 1 if the device was changed, 0 if it already had those values. */
int nm_device_reapply_igmpd(sd_bus *bus, const NMProfile *p, const char *device_path, const char *ifname,
                            const UserData *data);
