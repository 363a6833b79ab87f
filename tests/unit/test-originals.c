/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* originals_parse_line(): the lines of ROOT/run/igmpd/originals, and what is refused. */

#include <criterion/criterion.h>
#include <errno.h>

#include "originals.h"

Test(originals, good_lines)
{
        OriginalEntry e;

        cr_assert_eq(originals_parse_line("7 eth0 igmpv3_unsolicited_report_interval=1000/200", &e), 0);
        cr_assert_eq(e.ifindex, 7);
        cr_assert_str_eq(e.ifname, "eth0");
        cr_assert(e.set[KNOB_IGMPV3_INTERVAL]);
        cr_assert_not(e.set[KNOB_IGMPV2_INTERVAL]);
        cr_assert_eq(e.original[KNOB_IGMPV3_INTERVAL], 1000);
        cr_assert_eq(e.written[KNOB_IGMPV3_INTERVAL], 200);

        /* 15-character names, several knobs, negative and extreme values, extra blanks */
        cr_assert_eq(originals_parse_line("2147483647 abcdefghijklmno force_mld_version=-1/2 "
                                          "mldv2_unsolicited_report_interval=-2147483648/2147483647", &e), 0);
        cr_assert_str_eq(e.ifname, "abcdefghijklmno");
        cr_assert_eq(e.original[KNOB_MLD_VERSION], -1);
        cr_assert_eq(e.original[KNOB_MLDV2_INTERVAL], INT32_MIN);
        cr_assert_eq(e.written[KNOB_MLDV2_INTERVAL], INT32_MAX);
        cr_assert_eq(originals_parse_line("  3\tv0  force_igmp_version=0/3 ", &e), 0);
        cr_assert_eq(e.written[KNOB_IGMP_VERSION], 3);
}

Test(originals, bad_lines)
{
        static const char *const bad[] = {
                "",
                "garbage",
                "7 eth0",                                               /* no knob */
                "7 eth0 igmpv3_unsolicited_report_interval=1000",       /* no written value */
                "7 eth0 igmpv3_unsolicited_report_interval=1000/",
                "7 eth0 igmpv3_unsolicited_report_interval=/200",
                "7 eth0 igmpv3_unsolicited_report_interval 1000/200",
                "7 eth0 igmpv3_unsolicited_report_interval=1000/200 x", /* a stray field */
                "0 eth0 igmpv3_unsolicited_report_interval=1000/200",   /* ifindex 0 */
                "-3 eth0 igmpv3_unsolicited_report_interval=1000/200",
                "x eth0 igmpv3_unsolicited_report_interval=1000/200",
                "7x eth0 igmpv3_unsolicited_report_interval=1000/200",
                "7 abcdefghijklmnop igmpv3_unsolicited_report_interval=1/2", /* 16 chars */
                "7 ../x igmpv3_unsolicited_report_interval=1/2",
                "7 . igmpv3_unsolicited_report_interval=1/2",
                "7 eth0 no_such_knob=1/2",
                "7 eth0 igmpv3_unsolicited_report_interval=2147483648/2", /* past int32 */
                "7 eth0 igmpv3_unsolicited_report_interval=-2147483649/2",
                "7 eth0 igmpv3_unsolicited_report_interval=99999999999999999999/2",
                "7 eth0 igmpv3_unsolicited_report_interval=1/2x",
                "7 eth0 igmpv3_unsolicited_report_interval=+1/2",
                "7 eth0 igmpv3_unsolicited_report_interval=- 1/2",
        };
        OriginalEntry e;

        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
                cr_assert_eq(originals_parse_line(bad[i], &e), -EINVAL, "accepted: '%s'", bad[i]);
}
