/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The NetworkManager table: replacing it reports exactly the links whose values changed, and a
 * knob value taken from it outlives it (issue 14, item 2). Run under ASan by
 * scripts/test-sanitizers.sh, where a dangling source is an error. */
#include <criterion/criterion.h>
#include <string.h>

#include "nm-profile.h"
#include "nm-table.h"

static int changed[16];
static size_t n_changed;

static void on_changed(int ifindex, void *userdata)
{
        cr_assert_lt(n_changed, ELEMENTSOF(changed));
        changed[n_changed++] = ifindex;
}

static void reset(void)
{
        n_changed = 0;
}

static KnobSetting v3[_KNOB_MAX] = { [KNOB_IGMPV3_INTERVAL] = { .value = 200, .line = 1 } };
static KnobSetting v3b[_KNOB_MAX] = { [KNOB_IGMPV3_INTERVAL] = { .value = 250, .line = 1 } };

static void merge(const NMTable *t, int ifindex, KnobValue out[_KNOB_MAX])
{
        const NMEntry *e = nm_table_find(t, ifindex);

        if (e)
                knob_settings_overlay(e->knobs, _KNOB_MAX, e->source, out);
}

Test(nm_table, replaced_table_leaves_values_valid, .init = reset)
{
        NMTable t = {};
        KnobValue out[_KNOB_MAX] = {};
        NMDeviceResult r1[] = {
                { .path = "/d/1", .ifname = "eth0", .ifindex = 7, .profile = "iptv", .knobs = v3 },
                { .path = "/d/2", .ifname = "eth1", .ifindex = 8, .profile = "office", .knobs = v3 },
        };
        NMDeviceResult r2[] = {
                { .path = "/d/2", .ifname = "eth1", .ifindex = 8, .profile = "office", .knobs = v3 },
        };

        cr_assert_eq(nm_table_update(&t, NULL, r1, 2, on_changed, NULL), 0);
        cr_expect_eq(n_changed, 2);
        merge(&t, 7, out);
        cr_expect_str_eq(knob_value_source(&out[KNOB_IGMPV3_INTERVAL]), "NetworkManager:iptv");

        /* eth0's profile goes: only 7 is reported; the old table is gone, the value is not. */
        reset();
        cr_assert_eq(nm_table_update(&t, NULL, r2, 1, on_changed, NULL), 0);
        cr_assert_eq(n_changed, 1);
        cr_expect_eq(changed[0], 7);
        cr_expect_null(nm_table_find(&t, 7));
        cr_expect_str_eq(knob_value_source(&out[KNOB_IGMPV3_INTERVAL]), "NetworkManager:iptv");
        cr_expect_eq(out[KNOB_IGMPV3_INTERVAL].value, 200);

        knob_values_clear(out);
        nm_table_clear(&t, on_changed, NULL);
        nm_table_done(&t);
}

Test(nm_table, device_read_changes_that_device_only, .init = reset)
{
        NMTable t = {};
        KnobValue out[_KNOB_MAX] = {};
        NMDeviceResult full[] = {
                { .path = "/d/1", .ifname = "eth0", .ifindex = 7, .profile = "iptv", .knobs = v3 },
                { .path = "/d/2", .ifname = "eth1", .ifindex = 8, .profile = "office", .knobs = v3 },
        };
        NMDeviceResult one[] = {
                { .path = "/d/1", .ifname = "eth0", .ifindex = 7, .profile = "iptv", .knobs = v3b },
        };
        RefStr *kept;

        cr_assert_eq(nm_table_update(&t, NULL, full, 2, on_changed, NULL), 0);
        merge(&t, 8, out);
        kept = nm_table_find(&t, 8)->source;

        reset();
        cr_assert_eq(nm_table_update(&t, "/d/1", one, 1, on_changed, NULL), 0);
        cr_assert_eq(n_changed, 1);
        cr_expect_eq(changed[0], 7);
        cr_expect_eq(nm_table_find(&t, 7)->knobs[KNOB_IGMPV3_INTERVAL].value, 250);
        cr_expect_eq(nm_table_find(&t, 8)->source, kept, "an untouched entry keeps its source");

        /* The device went away: a device read with no result drops its entry. */
        reset();
        cr_assert_eq(nm_table_update(&t, "/d/1", NULL, 0, on_changed, NULL), 0);
        cr_assert_eq(n_changed, 1);
        cr_expect_null(nm_table_find(&t, 7));

        reset();
        nm_table_clear(&t, on_changed, NULL);
        cr_expect_eq(n_changed, 1);
        cr_expect_eq(changed[0], 8);
        cr_expect_str_eq(knob_value_source(&out[KNOB_IGMPV3_INTERVAL]), "NetworkManager:office");
        knob_values_clear(out);
        nm_table_done(&t);
}

/* A user's profile (issue 18 item 3): the device is in the table with the reason, sets nothing,
 * and going back to a system profile is a change. */
Test(nm_table, ignored_profile_sets_nothing, .init = reset)
{
        static KnobSetting none[_KNOB_MAX];
        NMTable t = {};
        KnobValue out[_KNOB_MAX] = {};
        NMDeviceResult user[] = {
                { .path = "/d/1", .ifname = "eth0", .ifindex = 7, .profile = "alice", .ignored = "it belongs to user:alice",
                  .knobs = none },
        };
        NMDeviceResult system[] = {
                { .path = "/d/1", .ifname = "eth0", .ifindex = 7, .profile = "alice", .knobs = v3 },
        };

        cr_assert_eq(nm_table_update(&t, NULL, user, 1, on_changed, NULL), 0);
        cr_expect_eq(n_changed, 1);
        cr_assert_not_null(nm_table_find(&t, 7));
        cr_expect_str_eq(nm_table_find(&t, 7)->ignored, "it belongs to user:alice");
        merge(&t, 7, out);
        cr_expect_not(out[KNOB_IGMPV3_INTERVAL].set);

        /* The same read again: nothing changed, nothing reported. */
        reset();
        cr_assert_eq(nm_table_update(&t, NULL, user, 1, on_changed, NULL), 0);
        cr_expect_eq(n_changed, 0);

        /* Same profile name, now a system profile with values: a change. */
        reset();
        cr_assert_eq(nm_table_update(&t, NULL, system, 1, on_changed, NULL), 0);
        cr_expect_eq(n_changed, 1);
        cr_expect_null(nm_table_find(&t, 7)->ignored);
        merge(&t, 7, out);
        cr_expect_eq(out[KNOB_IGMPV3_INTERVAL].value, 200);

        knob_values_clear(out);
        nm_table_clear(&t, on_changed, NULL);
        nm_table_done(&t);
}
