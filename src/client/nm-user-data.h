/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A NetworkManager profile's user data ("user.data", a{ss}) as igmpctl edits it: igmpd's keys
 * are "igmpd.<knob>" with the kernel knob name, as the daemon reads them (src/shared/nm-settings.h);
 * every other key belongs to another program and is kept as it is. Pure: no bus, no output.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "knob.h"
#include "nm-settings.h"

typedef struct UserDataEntry {
        char *key;
        char *value;
} UserDataEntry;

typedef struct UserData {
        UserDataEntry *entries;
        size_t n;
} UserData;

void user_data_done(UserData *d);

/* Whether a user-data key is in igmpd's namespace ("igmpd."). */
bool user_data_key_is_igmpd(const char *key);

/* The value of key, or NULL. */
const char *user_data_get(const UserData *d, const char *key);
/* Sets key to value, replacing an existing entry. 0 or -ENOMEM (d unchanged). */
int user_data_set(UserData *d, const char *key, const char *value);
size_t user_data_count_igmpd(const UserData *d);

/* The user-data key and value that stand for knob k = v: "igmpd.igmpv3_unsolicited_report_interval",
 * "200ms" ("auto" or the number for versions). key and value need 64 and 32 bytes. */
void user_data_knob_entry(Knob k, int32_t v, char key[64], char value[32]);

/* igmpctl nm's edit: without clear, sets the knobs given (set[k]) and keeps the rest; with
 * clear, first removes every igmpd key. Other programs' keys are never touched. 0 or -ENOMEM
 * (d unchanged). */
int user_data_edit(UserData *d, bool clear, const bool set[_KNOB_MAX], const int32_t value[_KNOB_MAX]);

/* Replaces the igmpd keys of d by those of from, keeping d's other keys: the applied connection
 * of a device gets the profile's igmpd values and nothing else. 0 or -ENOMEM (d unchanged). */
int user_data_take_igmpd(UserData *d, const UserData *from);

/* Whether a and b hold the same igmpd keys and values (other keys are not compared). */
bool user_data_igmpd_equal(const UserData *a, const UserData *b);

/* Sorts the entries by key, for stable output. */
void user_data_sort(UserData *d);
