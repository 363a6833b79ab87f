/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Reading NetworkManager's replies (the parsing itself is shared with igmpctl, nm-settings.h):
 * the connection applied on a device (Device.GetAppliedConnection) down to its owner and the
 * knob values in its user data (NMSettingUser, "user.data", a{ss}). Keys "igmpd.<knob>" with
 * the kernel knob names of knob.h; values as in policy files ("200", "200ms", "1.5s", "auto").
 * Other keys belong to other programs and are skipped silently. Pure: it never logs; problems
 * go to diag, once per profile content, not on every read (NMProfileReports).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "conf-parser.h"
#include "nm-settings.h"
#include "policy.h"

#define NM_SOURCE_PREFIX "NetworkManager:"

#define NM_PROFILE_REPORTS_MAX 64

/* Hashes of the profile contents whose problems were logged already (a ring). */
typedef struct NMProfileReports {
        uint64_t hashes[NM_PROFILE_REPORTS_MAX];
        size_t n;
} NMProfileReports;

/* What igmpd takes from a connection as NetworkManager applied it on a device. */
typedef struct NMApplied {
        char *id;     /* connection.id */
        char *owner;  /* the first connection.permissions entry ("user:alice:"), NULL for a system profile */
        size_t n_keys; /* igmpd keys in user.data */
        KnobSetting knobs[_KNOB_MAX]; /* their values (line = 1 for set); none for a user's profile */
} NMApplied;

void nm_applied_done(NMApplied *a);

/* Reads the settings (a{sa{sv}}) at the start of a GetAppliedConnection or GetSettings reply
 * into *ret (freed first): connection.id (fallback_id if absent), connection.permissions and the
 * igmpd keys of user.data. The knob values of a system profile go to ret->knobs, a bad one
 * reported to diag once per profile content (reports); a user's profile (owner set) is only
 * counted. 0 or -errno (the reply was malformed). */
int nm_profile_read_settings(sd_bus_message *reply, const char *fallback_id, NMApplied *ret,
                             NMProfileReports *reports, ConfigDiagFn diag, void *userdata);

/* Number of knobs set in knobs[]. */
unsigned nm_count_knobs(const KnobSetting knobs[_KNOB_MAX]);

/* Applies one user-data entry to knobs[] (setting .line = 1 for "set"). Returns 1 if it set a
 * knob, 0 if the key is not igmpd's, -EINVAL if it is igmpd's but the knob is unknown or the
 * value is bad (reported to diag as "PROFILE: user.data KEY=…: …, ignoring."). */
int nm_user_data_apply(const char *profile, const char *key, const char *value, KnobSetting knobs[_KNOB_MAX],
                       ConfigDiagFn diag, void *userdata);

/* Builds the source "NetworkManager:<id>", with one reference. NULL on ENOMEM. */
RefStr *nm_source_new(const char *profile_id);
