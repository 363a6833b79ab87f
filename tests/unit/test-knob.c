/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <errno.h>

#include "knob.h"
#include "macro.h"

Test(knob, table_is_complete_and_unique)
{
        for (Knob a = 0; a < _KNOB_MAX; a++) {
                const KnobInfo *i = knob_info(a);
                cr_assert_not_null(i->name);
                cr_assert_not_null(i->key);
                cr_assert_not_null(i->option);
                cr_assert(streq(i->section, "IGMP") || streq(i->section, "MLD"));
                cr_expect_eq(knob_from_string(i->name), a);
                cr_expect_eq(knob_from_config_key(i->section, i->key), a);
                cr_expect_eq(knob_from_option(i->option), a);
                for (Knob b = a + 1; b < _KNOB_MAX; b++) {
                        cr_expect(!streq(i->name, knob_info(b)->name));
                        cr_expect(!streq(i->option, knob_info(b)->option));
                }
        }
        cr_expect_eq(knob_from_string("nope"), _KNOB_INVALID);
        cr_expect_eq(knob_from_config_key("IGMP", "V1UnsolicitedReportInterval"), _KNOB_INVALID);
        cr_expect_eq(knob_from_config_key("MLD", "V1UnsolicitedReportInterval"), KNOB_MLDV1_INTERVAL);
}

Test(knob, names)
{
        cr_expect_str_eq(knob_info(KNOB_IGMPV3_INTERVAL)->name, "igmpv3_unsolicited_report_interval");
        cr_expect_str_eq(knob_info(KNOB_MLD_VERSION)->name, "force_mld_version");
}

static const struct {
        Knob k;
        const char *in;
        int r;
        int32_t v;
} parse_cases[] = {
        { KNOB_IGMPV3_INTERVAL, "200", 0, 200 },
        { KNOB_IGMPV3_INTERVAL, "200ms", 0, 200 },
        { KNOB_IGMPV3_INTERVAL, "1.5s", 0, 1500 },
        { KNOB_IGMPV3_INTERVAL, "1", 0, 1 },
        { KNOB_IGMPV3_INTERVAL, "2147483647", 0, 2147483647 },
        { KNOB_IGMPV3_INTERVAL, "2147483648", -ERANGE, 0 },
        { KNOB_IGMPV3_INTERVAL, "0", -ERANGE, 0 },
        { KNOB_IGMPV3_INTERVAL, "0ms", -ERANGE, 0 },
        { KNOB_IGMPV3_INTERVAL, "40min", 0, 2400000 },
        { KNOB_IGMPV3_INTERVAL, "36000min", -ERANGE, 0 }, /* 2160000000 ms > INT32_MAX */
        { KNOB_IGMPV3_INTERVAL, "1h", 0, 3600000 },
        { KNOB_IGMPV3_INTERVAL, "596h", 0, 2145600000 },
        { KNOB_IGMPV3_INTERVAL, "597h", -ERANGE, 0 },     /* 24.8 days is the maximum */
        { KNOB_IGMPV3_INTERVAL, "x", -EINVAL, 0 },
        { KNOB_IGMP_VERSION, "auto", 0, 0 },
        { KNOB_IGMP_VERSION, "AUTO", 0, 0 },
        { KNOB_IGMP_VERSION, "0", 0, 0 },
        { KNOB_IGMP_VERSION, "3", 0, 3 },
        { KNOB_IGMP_VERSION, "4", -ERANGE, 0 },
        { KNOB_IGMP_VERSION, "-1", -EINVAL, 0 },
        { KNOB_IGMP_VERSION, "2x", -EINVAL, 0 },
        { KNOB_IGMP_VERSION, "", -EINVAL, 0 },
        /* The MLD intervals are kept in jiffies: 2147483647 would read back as 2147483648. */
        { KNOB_MLDV2_INTERVAL, "2147483640", 0, 2147483640 },
        { KNOB_MLDV2_INTERVAL, "2147483641", -ERANGE, 0 },
        { KNOB_MLDV1_INTERVAL, "2147483647", -ERANGE, 0 },
        { KNOB_MLDV1_INTERVAL, "2147483640ms", 0, 2147483640 },
        { KNOB_MLD_VERSION, "2", 0, 2 },
        { KNOB_MLD_VERSION, "3", -ERANGE, 0 },
        { KNOB_MLD_VERSION, "99999999999999999999", -ERANGE, 0 },
};

Test(knob, parse_value)
{
        for (size_t i = 0; i < ELEMENTSOF(parse_cases); i++) {
                int32_t v = -7;
                int r = knob_parse_value(parse_cases[i].k, parse_cases[i].in, &v);
                int want_r = parse_cases[i].r;
                cr_expect_eq(r, want_r, "%s '%s': r=%d expected %d", knob_to_string(parse_cases[i].k),
                             parse_cases[i].in, r, want_r);
                if (want_r == 0)
                        cr_expect_eq(v, parse_cases[i].v);
                if (want_r < 0)
                        cr_expect_eq(v, -7, "output touched on failure");
        }
}

Test(knob, jiffies_rounding)
{
        /* IPv6 intervals read back rounded up to the tick: 250 → 252 at HZ=250. */
        cr_expect(knob_value_matches(KNOB_MLDV2_INTERVAL, 250, 252));
        cr_expect(knob_value_matches(KNOB_MLDV2_INTERVAL, 250, 250));
        cr_expect(!knob_value_matches(KNOB_MLDV2_INTERVAL, 250, 248));
        cr_expect(!knob_value_matches(KNOB_MLDV2_INTERVAL, 250, 1000));
        /* IPv4 ones read back exactly. */
        cr_expect(!knob_value_matches(KNOB_IGMPV3_INTERVAL, 250, 252));
        cr_expect(knob_value_matches(KNOB_IGMPV3_INTERVAL, 250, 250));
}

Test(knob, namespace_knobs)
{
        static const struct {
                const char *text;
                int r;
                int32_t value;
        } cases[] = {
                { "1", 0, 1 }, { "2", 0, 2 }, { "7", 0, 7 },
                { "0", -ERANGE, 0 }, { "8", -ERANGE, 0 }, { "99999999999999999999", -ERANGE, 0 },
                { "", -EINVAL, 0 }, { "-1", -EINVAL, 0 }, { "+3", -EINVAL, 0 }, { "3 ", -EINVAL, 0 },
                { "three", -EINVAL, 0 }, { "3x", -EINVAL, 0 }, { "auto", -EINVAL, 0 },
        };

        cr_expect_str_eq(ns_knob_info(NS_KNOB_IGMP_QRV)->name, "igmp_qrv");
        cr_expect_str_eq(ns_knob_info(NS_KNOB_MLD_QRV)->name, "mld_qrv");
        cr_expect_str_eq(ns_knob_sysctl_name(NS_KNOB_IGMP_QRV), "net.ipv4.igmp_qrv");
        cr_expect_str_eq(ns_knob_sysctl_name(NS_KNOB_MLD_QRV), "net.ipv6.mld_qrv");
        cr_expect_eq(ns_knob_from_config_key("IGMP", "Robustness"), NS_KNOB_IGMP_QRV);
        cr_expect_eq(ns_knob_from_config_key("MLD", "Robustness"), NS_KNOB_MLD_QRV);
        cr_expect_eq(ns_knob_from_config_key("Match", "Robustness"), _NS_KNOB_INVALID);
        cr_expect_eq(ns_knob_from_string("mld_qrv"), NS_KNOB_MLD_QRV);
        cr_expect_eq(ns_knob_from_string("igmpv3_unsolicited_report_interval"), _NS_KNOB_INVALID);
        for (NsKnob k = 0; k < _NS_KNOB_MAX; k++) {
                /* No name shared with a link knob: the drift watch and JSON tell them apart by it. */
                cr_expect_eq(knob_from_string(ns_knob_info(k)->name), _KNOB_INVALID);
                cr_expect_eq(knob_from_config_key(ns_knob_info(k)->section, ns_knob_info(k)->key), _KNOB_INVALID);
        }
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                int32_t v = -42;

                cr_expect_eq(ns_knob_parse_value(NS_KNOB_IGMP_QRV, cases[i].text, &v), cases[i].r, "'%s'", cases[i].text);
                cr_expect_eq(v, cases[i].r == 0 ? cases[i].value : -42, "'%s'", cases[i].text);
        }
        cr_expect_eq(ns_knob_parse_value(NS_KNOB_MLD_QRV, NULL, &(int32_t) { 0 }), -EINVAL);
}
