/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The record of the namespace knobs' values found (ns-knobs.h): what a crash leaves for the next
 * start and igmpd --restore, read only when it is of this namespace.
 */
#include <criterion/criterion.h>

#include "ns-knobs.h"

Test(ns_knobs, record_parse)
{
        bool set[_NS_KNOB_MAX];
        int32_t o[_NS_KNOB_MAX], w[_NS_KNOB_MAX];

        cr_expect_eq(ns_knobs_parse_record("igmpd-namespace-originals 1 4:123\nigmp_qrv=4/3\nmld_qrv=2/7\n", "4:123",
                                           set, o, w), 1);
        cr_expect(set[NS_KNOB_IGMP_QRV] && o[NS_KNOB_IGMP_QRV] == 4 && w[NS_KNOB_IGMP_QRV] == 3);
        cr_expect(set[NS_KNOB_MLD_QRV] && o[NS_KNOB_MLD_QRV] == 2 && w[NS_KNOB_MLD_QRV] == 7);

        /* Another namespace, an unknown one, another version, no header. */
        cr_expect_eq(ns_knobs_parse_record("igmpd-namespace-originals 1 4:123\nigmp_qrv=4/3\n", "4:1234", set, o, w), 0);
        cr_expect(!set[NS_KNOB_IGMP_QRV]);
        cr_expect_eq(ns_knobs_parse_record("igmpd-namespace-originals 1 4:123\nigmp_qrv=4/3\n", "4:12", set, o, w), 0);
        cr_expect_eq(ns_knobs_parse_record("igmpd-namespace-originals 1 \nigmp_qrv=4/3\n", "", set, o, w), 0);
        cr_expect_eq(ns_knobs_parse_record("igmpd-namespace-originals 2 4:123\nigmp_qrv=4/3\n", "4:123", set, o, w), 0);
        cr_expect_eq(ns_knobs_parse_record("igmp_qrv=4/3\n", "4:123", set, o, w), 0);
        cr_expect_eq(ns_knobs_parse_record("igmpd-namespace-originals 1 4:123", "4:123", set, o, w), 0);

        /* Bad lines are skipped, a torn last line too; the rest counts. */
        cr_expect_eq(ns_knobs_parse_record("igmpd-namespace-originals 1 4:123\n"
                                           "igmpv3_unsolicited_report_interval=1/2\n"
                                           "igmp_qrv=4\n"
                                           "igmp_qrv=x/3\n"
                                           "mld_qrv=2/5\n"
                                           "igmp_qrv=4/3", "4:123", set, o, w), 1);
        cr_expect(!set[NS_KNOB_IGMP_QRV]);
        cr_expect(set[NS_KNOB_MLD_QRV] && o[NS_KNOB_MLD_QRV] == 2 && w[NS_KNOB_MLD_QRV] == 5);

        /* Nothing recorded: of this namespace, no knob. */
        cr_expect_eq(ns_knobs_parse_record("igmpd-namespace-originals 1 4:123\n", "4:123", set, o, w), 1);
        cr_expect(!set[NS_KNOB_IGMP_QRV] && !set[NS_KNOB_MLD_QRV]);
}
