/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * NetworkManager connection settings as igmpd and igmpctl both read them: the a{sa{sv}} of
 * Settings.Connection.GetSettings and Device.GetAppliedConnection, down to connection.id,
 * .uuid, .type, .permissions and the entries of user.data, and what an igmpd key of user data
 * ("igmpd.<knob>", the kernel knob name, a value as in policy files) sets; the properties of a
 * device and of an active connection. Never logs: -errno.
 */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "knob.h"

#define NM_USER_DATA_PREFIX "igmpd."

/* NetworkManager's bus name, objects and interfaces. */
#define NM_BUS_NAME "org.freedesktop.NetworkManager"
#define NM_PATH "/org/freedesktop/NetworkManager"
#define NM_SETTINGS_PATH NM_PATH "/Settings"
#define NM_IFACE NM_BUS_NAME
#define NM_IFACE_SETTINGS NM_IFACE ".Settings"
#define NM_IFACE_CONNECTION NM_IFACE ".Settings.Connection"
#define NM_IFACE_ACTIVE NM_IFACE ".Connection.Active"
#define NM_IFACE_DEVICE NM_IFACE ".Device"
#define DBUS_PROPERTIES "org.freedesktop.DBus.Properties"

typedef struct NMSettings {
        const char *id, *uuid, *type; /* connection.*, borrowed from the message; NULL if absent */
        char **permissions;           /* connection.permissions, owned; NULL or empty: a system profile */
        /* Called for each user.data entry (key and value borrowed), if set; 0, or -errno to stop. */
        int (*user_data)(const char *key, const char *value, void *userdata);
        void *userdata;
} NMSettings;

/* A method call to NetworkManager that does not start it: a NetworkManager an admin stopped
 * stays stopped. 0 or -errno. */
int nm_bus_new_call(sd_bus *bus, const char *path, const char *iface, const char *member, sd_bus_message **ret);

/* Reads the settings at m's read position into *s (s->user_data and s->userdata set by the
 * caller, the rest zeroed; free s->permissions after). 0 or -errno (malformed). */
int nm_settings_read(sd_bus_message *m, NMSettings *s);

/* What the user-data entry key=value sets: 1 with the knob and its value, 0 if the key is not
 * igmpd's, -ENOENT if it names no knob, -EINVAL (*ret_knob set) if the value is bad or NULL. */
int nm_user_data_parse(const char *key, const char *value, Knob *ret_knob, int32_t *ret_value);

/* What igmpd and igmpctl read of a device (Properties.GetAll of NM_IFACE_DEVICE). */
typedef struct NMDeviceProps {
        char *ifname;     /* Interface, for messages */
        uint32_t ifindex; /* Ifindex, in NetworkManager's (and igmpd's) namespace; 0 for none */
        char *active;   /* ActiveConnection, "/" for none */
} NMDeviceProps;

/* What igmpd and igmpctl read of an active connection (Properties.GetAll of NM_IFACE_ACTIVE). */
typedef struct NMActiveProps {
        char *id;
        char *connection; /* the profile's object path, "/" for none */
        char **devices;
        uint32_t state;
        int vpn;
} NMActiveProps;

/* Fill *ret (freed first with the _done() functions, which leave it zeroed). 0 or -errno. */
int nm_read_device_props(sd_bus_message *reply, NMDeviceProps *ret);
void nm_device_props_done(NMDeviceProps *p);
int nm_read_active_props(sd_bus_message *reply, NMActiveProps *ret);
void nm_active_props_done(NMActiveProps *p);
/* Whether the connection applies its profile to its devices: activating or activated, not a
 * VPN (which runs on top of a device's own connection), with a profile. */
bool nm_active_props_usable(const NMActiveProps *p);
