/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nm-profile.h"

static char last_file[256], last_msg[1024];
static unsigned n_diag;

static void diag(void *userdata, const char *file, unsigned line, const char *message)
{
        snprintf(last_file, sizeof last_file, "%s", file);
        snprintf(last_msg, sizeof last_msg, "%s", message);
        n_diag++;
}

static void reset(void)
{
        last_file[0] = last_msg[0] = '\0';
        n_diag = 0;
}

typedef struct Case {
        const char *key, *value;
        int ret;
        Knob knob;      /* for ret == 1 */
        int32_t value_ms;
        const char *msg; /* substring of the diagnostic for ret < 0 */
} Case;

static const Case cases[] = {
        { "igmpd.igmpv3_unsolicited_report_interval", "200", 1, KNOB_IGMPV3_INTERVAL, 200, NULL },
        { "igmpd.igmpv3_unsolicited_report_interval", "200ms", 1, KNOB_IGMPV3_INTERVAL, 200, NULL },
        { "igmpd.igmpv2_unsolicited_report_interval", "1.5s", 1, KNOB_IGMPV2_INTERVAL, 1500, NULL },
        { "igmpd.mldv2_unsolicited_report_interval", "250", 1, KNOB_MLDV2_INTERVAL, 250, NULL },
        { "igmpd.mldv1_unsolicited_report_interval", "2s", 1, KNOB_MLDV1_INTERVAL, 2000, NULL },
        { "igmpd.force_igmp_version", "auto", 1, KNOB_IGMP_VERSION, 0, NULL },
        { "igmpd.force_igmp_version", "2", 1, KNOB_IGMP_VERSION, 2, NULL },
        { "igmpd.force_mld_version", "1", 1, KNOB_MLD_VERSION, 1, NULL },
        /* not igmpd's: skipped silently */
        { "other.key", "x", 0, 0, 0, NULL },
        { "igmpdx.igmpv3_unsolicited_report_interval", "200", 0, 0, 0, NULL },
        { "igmpv3_unsolicited_report_interval", "200", 0, 0, 0, NULL },
        /* igmpd's but wrong */
        { "igmpd.nonsense", "200", -EINVAL, 0, 0, "unknown knob 'nonsense'" },
        { "igmpd.V3UnsolicitedReportInterval", "200", -EINVAL, 0, 0, "unknown knob" },
        { "igmpd.igmpv3_unsolicited_report_interval", "fast", -EINVAL, 0, 0, "invalid value" },
        { "igmpd.igmpv3_unsolicited_report_interval", "0", -EINVAL, 0, 0, "1ms" },
        { "igmpd.igmpv3_unsolicited_report_interval", "", -EINVAL, 0, 0, "invalid value" },
        { "igmpd.igmpv3_unsolicited_report_interval", "3000000000", -EINVAL, 0, 0, "invalid value" },
        { "igmpd.force_igmp_version", "4", -EINVAL, 0, 0, "auto" },
        { "igmpd.force_mld_version", "3", -EINVAL, 0, 0, "invalid value" },
};

Test(nm_parse, table)
{
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                const Case *c = &cases[i];
                KnobSetting knobs[_KNOB_MAX] = {};
                int r;

                reset();
                r = nm_user_data_apply("iptv", c->key, c->value, knobs, diag, NULL);
                cr_expect_eq(r, c->ret, "%s=%s: got %d, want %d", c->key, c->value, r, c->ret);
                if (c->ret == 1) {
                        cr_expect_eq(knobs[c->knob].line, 1u, "%s=%s not marked set", c->key, c->value);
                        cr_expect_eq(knobs[c->knob].value, c->value_ms, "%s=%s → %d", c->key, c->value,
                                     knobs[c->knob].value);
                        cr_expect_eq(n_diag, 0u, "%s=%s: unexpected diagnostic '%s'", c->key, c->value, last_msg);
                } else {
                        for (Knob k = 0; k < _KNOB_MAX; k++)
                                cr_expect_eq(knobs[k].line, 0u, "%s=%s set knob %d", c->key, c->value, k);
                }
                if (c->ret == 0)
                        cr_expect_eq(n_diag, 0u, "%s: not ours, yet reported '%s'", c->key, last_msg);
                if (c->ret < 0) {
                        cr_expect_eq(n_diag, 1u, "%s=%s: %u diagnostics", c->key, c->value, n_diag);
                        cr_expect(strstr(last_msg, c->msg) != NULL, "%s=%s: '%s' lacks '%s'", c->key, c->value,
                                  last_msg, c->msg);
                        cr_expect(strstr(last_msg, c->key) != NULL, "message '%s' does not name the key", last_msg);
                        cr_expect(strstr(last_msg, "ignoring.") != NULL, "message '%s'", last_msg);
                        cr_expect_str_eq(last_file, "NetworkManager profile 'iptv'");
                }
        }
}

Test(nm_parse, bad_value_keeps_earlier_good_one_and_null_diag_is_quiet)
{
        KnobSetting knobs[_KNOB_MAX] = {};

        cr_assert_eq(nm_user_data_apply("p", "igmpd.igmpv3_unsolicited_report_interval", "300", knobs, NULL, NULL), 1);
        cr_assert_eq(nm_user_data_apply("p", "igmpd.igmpv3_unsolicited_report_interval", "x", knobs, NULL, NULL),
                     -EINVAL);
        cr_expect_eq(knobs[KNOB_IGMPV3_INTERVAL].value, 300);
        cr_expect_eq(knobs[KNOB_IGMPV3_INTERVAL].line, 1u);
        cr_assert_eq(nm_user_data_apply("p", NULL, "1", knobs, NULL, NULL), 0);
        cr_assert_eq(nm_user_data_apply("p", "igmpd.force_igmp_version", NULL, knobs, NULL, NULL), -EINVAL);
}

Test(nm_parse, source_name)
{
        RefStr *s = nm_source_new("iptv wired");

        cr_assert_not_null(s);
        cr_expect_str_eq(refstr_str(s), "NetworkManager:iptv wired");
        refstr_unref(s);
        s = nm_source_new(NULL);
        cr_expect_str_eq(refstr_str(s), "NetworkManager:");
        refstr_unref(s);
}

Test(nm_parse, overlay_precedence)
{
        KnobSetting knobs[_KNOB_MAX] = {};
        KnobValue out[_KNOB_MAX] = {};
        RefStr *file = refstr_new("/etc/igmpd/conf.d/10.conf"), *nm = nm_source_new("iptv");

        knob_value_set(&out[KNOB_IGMPV3_INTERVAL], 500, file);
        knob_value_set(&out[KNOB_IGMPV2_INTERVAL], 900, file);
        knobs[KNOB_IGMPV3_INTERVAL] = (KnobSetting) { .value = 200, .line = 1 };
        knobs[KNOB_MLD_VERSION] = (KnobSetting) { .value = 0, .line = 1 };

        knob_settings_overlay(knobs, _KNOB_MAX, nm, out);
        /* The values hold references of their own: the owners may let go. */
        refstr_unref(file);
        refstr_unref(nm);

        cr_expect_eq(out[KNOB_IGMPV3_INTERVAL].value, 200);
        cr_expect_str_eq(knob_value_source(&out[KNOB_IGMPV3_INTERVAL]), "NetworkManager:iptv");
        cr_expect_eq(out[KNOB_IGMPV2_INTERVAL].value, 900, "unset NM knob must keep the policy value");
        cr_expect_str_eq(knob_value_source(&out[KNOB_IGMPV2_INTERVAL]), "/etc/igmpd/conf.d/10.conf");
        cr_expect(out[KNOB_MLD_VERSION].set, "version 0 (auto) is a value, not 'unset'");
        cr_expect_eq(out[KNOB_MLD_VERSION].value, 0);
        cr_expect(!out[KNOB_MLDV2_INTERVAL].set);
        knob_values_clear(out);
}
