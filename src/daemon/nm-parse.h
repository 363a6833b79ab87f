/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The pure part of the NetworkManager layer: turning a connection profile's user data
 * (NMSettingUser, "user.data", a{ss}) into knob settings. Keys "igmpd.<knob>" with the kernel
 * knob names of knob.h; values as in policy files ("200", "200ms", "1.5s", "auto"). Other keys
 * belong to other programs and are skipped silently. Never logs: problems go to diag.
 */

#include <stdint.h>

#include "conf-parser.h"
#include "nm-settings.h"
#include "policy.h"

#define NM_SOURCE_PREFIX "NetworkManager:"

/* Applies one user-data entry to knobs[] (setting .line = 1 for "set"). Returns 1 if it set a
 * knob, 0 if the key is not igmpd's, -EINVAL if it is igmpd's but the knob is unknown or the
 * value is bad (reported to diag as "PROFILE: user.data KEY=…: …, ignoring."). */
int nm_user_data_apply(const char *profile, const char *key, const char *value, KnobSetting knobs[_KNOB_MAX],
                       ConfigDiagFn diag, void *userdata);

/* Builds the source "NetworkManager:<id>", with one reference. NULL on ENOMEM. */
RefStr *nm_source_new(const char *profile_id);

/* Overlays every set knob of knobs[] onto out[] (valid values, see KnobValue), each taking a
 * reference to source. */
void nm_knobs_overlay(const KnobSetting knobs[_KNOB_MAX], RefStr *source, KnobValue out[_KNOB_MAX]);
