/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* igmpctl nm's user-data edits (src/client/nm-user-data.c), checked against the daemon's own
 * reader (src/daemon/nm-profile.c): what igmpctl writes is what igmpd applies. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nm-profile.h"
#include "nm-user-data.h"

static void fill(UserData *d, const char *const *kv)
{
        for (; kv[0]; kv += 2)
                cr_assert_eq(user_data_set(d, kv[0], kv[1]), 0);
}

static void expect(UserData *d, const char *const *kv)
{
        size_t n = 0;

        for (; kv[0]; kv += 2, n++) {
                const char *v = user_data_get(d, kv[0]);
                cr_assert_not_null(v, "key %s missing", kv[0]);
                cr_assert_str_eq(v, kv[1], "key %s", kv[0]);
        }
        cr_assert_eq(d->n, n, "%zu entries, expected %zu", d->n, n);
}

Test(nm_user_data, set_replaces_and_keeps_others)
{
        bool set[_KNOB_MAX] = {};
        int32_t value[_KNOB_MAX] = {};
        UserData d = {};

        fill(&d, (const char *const[]) { "other.app.key", "x", "igmpd.force_igmp_version", "2", NULL });
        set[KNOB_IGMPV3_INTERVAL] = true;
        value[KNOB_IGMPV3_INTERVAL] = 200;
        set[KNOB_IGMP_VERSION] = true;
        value[KNOB_IGMP_VERSION] = 0;
        cr_assert_eq(user_data_edit(&d, false, set, value), 0);
        expect(&d, (const char *const[]) { "other.app.key", "x", "igmpd.force_igmp_version", "auto",
                                           "igmpd.igmpv3_unsolicited_report_interval", "200ms", NULL });
        user_data_done(&d);
}

Test(nm_user_data, clear_removes_igmpd_keys_only)
{
        bool set[_KNOB_MAX] = {};
        int32_t value[_KNOB_MAX] = {};
        UserData d = {};

        fill(&d, (const char *const[]) { "other.app.key", "x", "igmpd.force_igmp_version", "2",
                                         "igmpd.no_such_knob", "1", "igmpdx.key", "y", "com.igmpd.z", "z",
                                         "igmpd.mldv2_unsolicited_report_interval", "bogus", NULL });
        cr_assert_eq(user_data_count_igmpd(&d), 3);
        cr_assert_eq(user_data_edit(&d, true, set, value), 0);
        expect(&d, (const char *const[]) { "other.app.key", "x", "igmpdx.key", "y", "com.igmpd.z", "z", NULL });

        /* --clear with knobs: exactly those knobs afterwards */
        fill(&d, (const char *const[]) { "igmpd.force_mld_version", "1", NULL });
        set[KNOB_MLDV1_INTERVAL] = true;
        value[KNOB_MLDV1_INTERVAL] = 1500;
        cr_assert_eq(user_data_edit(&d, true, set, value), 0);
        expect(&d, (const char *const[]) { "other.app.key", "x", "igmpdx.key", "y", "com.igmpd.z", "z",
                                           "igmpd.mldv1_unsolicited_report_interval", "1500ms", NULL });
        user_data_done(&d);
}

Test(nm_user_data, take_igmpd_for_the_applied_connection)
{
        UserData applied = {}, profile = {};

        fill(&applied, (const char *const[]) { "other.app.key", "applied", "igmpd.force_igmp_version", "2",
                                               "igmpd.igmpv3_unsolicited_report_interval", "100ms", NULL });
        fill(&profile, (const char *const[]) { "other.app.key", "saved", "other.new", "n",
                                               "igmpd.igmpv3_unsolicited_report_interval", "200ms", NULL });
        cr_assert_not(user_data_igmpd_equal(&applied, &profile));
        cr_assert_eq(user_data_take_igmpd(&applied, &profile), 0);
        /* igmpd's keys follow the profile; other programs' keys stay as applied */
        expect(&applied, (const char *const[]) { "other.app.key", "applied",
                                                 "igmpd.igmpv3_unsolicited_report_interval", "200ms", NULL });
        cr_assert(user_data_igmpd_equal(&applied, &profile));
        user_data_done(&applied);
        user_data_done(&profile);
}

static void diag(void *userdata, const char *file, unsigned line, const char *message)
{
        cr_assert_fail("the daemon rejected what igmpctl wrote: %s: %s", file, message);
}

/* Every knob at its bounds and a few values in between: the key and value igmpctl writes are
 * read back by the daemon's parser as the same knob and value. */
Test(nm_user_data, daemon_reads_what_igmpctl_writes)
{
        static const int32_t intervals[] = { 1, 200, 1000, 1500, 10000, 86400000, 0 /* the knob's maximum */ };

        for (Knob k = 0; k < _KNOB_MAX; k++) {
                const KnobInfo *i = knob_info(k);
                int32_t n = i->kind == KNOB_KIND_VERSION ? i->max_version + 1 : (int32_t) ELEMENTSOF(intervals);

                for (int32_t j = 0; j < n; j++) {
                        int32_t v = i->kind == KNOB_KIND_VERSION ? j : intervals[j] ?: knob_max_value(k), parsed;
                        KnobSetting knobs[_KNOB_MAX] = {};
                        bool set[_KNOB_MAX] = {};
                        int32_t value[_KNOB_MAX] = {};
                        UserData d = {};
                        Knob pk;

                        set[k] = true;
                        value[k] = v;
                        cr_assert_eq(user_data_edit(&d, false, set, value), 0);
                        cr_assert_eq(d.n, 1);
                        cr_assert_eq(nm_user_data_apply("p", d.entries[0].key, d.entries[0].value, knobs, diag, NULL), 1,
                                     "%s=%s", d.entries[0].key, d.entries[0].value);
                        cr_assert_eq(knobs[k].line, 1);
                        cr_assert_eq(knobs[k].value, v, "%s=%s read as %d", d.entries[0].key, d.entries[0].value,
                                     knobs[k].value);
                        /* igmpctl's own reading (for display) agrees */
                        cr_assert_eq(nm_user_data_parse(d.entries[0].key, d.entries[0].value, &pk, &parsed), 1);
                        cr_assert_eq(pk, k);
                        cr_assert_eq(parsed, v);
                        user_data_done(&d);
                }
        }
}

/* igmpctl's display verdict matches the daemon's on hand-written keys. */
Test(nm_user_data, parse_agrees_with_daemon)
{
        static const char *const kv[] = {
                "igmpd.igmpv3_unsolicited_report_interval", "200",
                "igmpd.igmpv3_unsolicited_report_interval", "1.5s",
                "igmpd.force_igmp_version", "AUTO",
                "igmpd.force_igmp_version", "bogus",
                "igmpd.force_mld_version", "3",
                "igmpd.no_such_knob", "1",
                "igmpd.igmpv2_unsolicited_report_interval", "0",
                "igmpd.igmpv2_unsolicited_report_interval", "",
                "igmpd.", "1",
                NULL,
        };

        for (const char *const *p = kv; p[0]; p += 2) {
                KnobSetting knobs[_KNOB_MAX] = {};
                int32_t v;
                Knob k;
                int daemon = nm_user_data_apply("p", p[0], p[1], knobs, NULL, NULL);
                int client = nm_user_data_parse(p[0], p[1], &k, &v);

                cr_assert_eq(daemon, client == 1 ? 1 : client == 0 ? 0 : -EINVAL, "%s=%s: daemon %d, igmpctl %d", p[0],
                             p[1], daemon, client);
                if (client == 1)
                        cr_assert_eq(knobs[k].value, v);
        }
}

Test(nm_user_data, key_namespace)
{
        cr_assert(user_data_key_is_igmpd("igmpd.x"));
        cr_assert_not(user_data_key_is_igmpd("igmpdx.x"));
        cr_assert_not(user_data_key_is_igmpd("igmpd"));
        cr_assert_not(user_data_key_is_igmpd("com.igmpd.x"));
        cr_assert_not(user_data_key_is_igmpd(NULL));
}
