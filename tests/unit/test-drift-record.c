/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The drift watch's records (src/bpf/bpf-drift-record.h) as user space parses them: the knob and
 * link from the sysctl name, the values as text, every length checked.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "drift-record.h"
#include "sysctl-util.h"

static void make(struct drift_record *r, const char *name, const char *old_value, const char *new_value)
{
        memset(r, 0, sizeof *r);
        r->type = DRIFT_RECORD_WRITE;
        r->tgid = 4242;
        r->uid = 1000;
        r->netns = 4026531840U;
        memcpy(r->comm, "sysctl", 6);
        r->name_len = (int32_t) strlen(name);
        memcpy(r->name, name, strlen(name));
        r->old_len = (int32_t) strlen(old_value);
        memcpy(r->old_value, old_value, strlen(old_value));
        r->new_len = (int32_t) strlen(new_value);
        memcpy(r->new_value, new_value, strlen(new_value));
}

Test(drift_record, per_link)
{
        struct drift_record r;
        DriftWrite w;

        make(&r, "net/ipv4/conf/eth0/igmpv3_unsolicited_report_interval", "200\n", "1000\n");
        cr_assert_eq(drift_record_parse(&r, sizeof r, &w), 0);
        cr_expect_eq(w.knob, KNOB_IGMPV3_INTERVAL);
        cr_expect_eq(w.scope, DRIFT_SCOPE_LINK);
        cr_expect_str_eq(w.ifname, "eth0");
        cr_expect_eq(w.pid, 4242);
        cr_expect_eq(w.uid, 1000);
        cr_expect_eq(w.netns, 4026531840U);
        cr_expect_str_eq(w.comm, "sysctl");
        cr_expect(w.old_known);
        cr_expect_eq(w.old_value, 200);
        cr_expect(w.new_known);
        cr_expect_eq(w.new_value, 1000);
}

Test(drift_record, every_knob_and_scope)
{
        static const struct {
                const char *name;
                Knob knob;
                DriftScope scope;
                const char *ifname;
        } cases[] = {
                { "net/ipv4/conf/eth0/igmpv2_unsolicited_report_interval", KNOB_IGMPV2_INTERVAL, DRIFT_SCOPE_LINK, "eth0" },
                { "net/ipv4/conf/all/force_igmp_version", KNOB_IGMP_VERSION, DRIFT_SCOPE_ALL, "all" },
                { "net/ipv4/conf/default/force_igmp_version", KNOB_IGMP_VERSION, DRIFT_SCOPE_DEFAULT, "default" },
                { "net/ipv6/conf/iptv0/mldv1_unsolicited_report_interval", KNOB_MLDV1_INTERVAL, DRIFT_SCOPE_LINK, "iptv0" },
                { "net/ipv6/conf/a.b-c/mldv2_unsolicited_report_interval", KNOB_MLDV2_INTERVAL, DRIFT_SCOPE_LINK, "a.b-c" },
                { "net/ipv6/conf/all/force_mld_version", KNOB_MLD_VERSION, DRIFT_SCOPE_ALL, "all" },
                { "net/ipv6/conf/123456789012345/force_mld_version", KNOB_MLD_VERSION, DRIFT_SCOPE_LINK, "123456789012345" },
        };

        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                struct drift_record r;
                DriftWrite w;

                make(&r, cases[i].name, "1\n", "2");
                cr_assert_eq(drift_record_parse(&r, sizeof r, &w), 0, "%s", cases[i].name);
                cr_expect_eq(w.knob, cases[i].knob, "%s", cases[i].name);
                cr_expect_eq(w.scope, cases[i].scope, "%s", cases[i].name);
                cr_expect_str_eq(w.ifname, cases[i].ifname);
        }
}

Test(drift_record, not_ours)
{
        static const char *const names[] = {
                "net/ipv4/conf/eth0/log_martians",                           /* another knob */
                "net/ipv6/conf/eth0/force_igmp_version",                     /* wrong family */
                "net/ipv4/conf/eth0/mldv2_unsolicited_report_interval",      /* wrong family */
                "net/ipv4/neigh/eth0/igmpv3_unsolicited_report_interval",    /* not conf */
                "net/ipv4/conf/eth0",                                        /* no knob */
                "net/ipv4/conf//force_igmp_version",                         /* empty link name */
                "net/ipv4/conf/../force_igmp_version",                       /* not a usable name */
                "net/ipv4/conf/1234567890123456/force_igmp_version",         /* longer than IFNAMSIZ */
                "net/ipv4/conf/eth0/force_igmp_version/x",                   /* deeper */
                "kernel/hostname",
                "",
        };

        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
                struct drift_record r;
                DriftWrite w;

                make(&r, names[i], "1\n", "2");
                cr_expect_eq(drift_record_parse(&r, sizeof r, &w), -ENOENT, "%s", names[i]);
        }
}

Test(drift_record, malformed)
{
        struct drift_record r;
        DriftWrite w;

        make(&r, "net/ipv4/conf/eth0/force_igmp_version", "0\n", "2\n");
        cr_expect_eq(drift_record_parse(&r, sizeof r - 1, &w), -EBADMSG);
        cr_expect_eq(drift_record_parse(NULL, sizeof r, &w), -EBADMSG);
        r.type = 7;
        cr_expect_eq(drift_record_parse(&r, sizeof r, &w), -EBADMSG);

        /* The kernel said the name did not fit (-E2BIG), or it is not terminated. */
        make(&r, "net/ipv4/conf/eth0/force_igmp_version", "0\n", "2\n");
        r.name_len = -E2BIG;
        cr_expect_eq(drift_record_parse(&r, sizeof r, &w), -ENOENT);
        make(&r, "net/ipv4/conf/eth0/force_igmp_version", "0\n", "2\n");
        memset(r.name, 'x', sizeof r.name);
        r.name_len = (int32_t) sizeof r.name - 1;
        cr_expect_eq(drift_record_parse(&r, sizeof r, &w), -ENOENT);

        /* A comm filling all 16 bytes comes out terminated. */
        make(&r, "net/ipv4/conf/eth0/force_igmp_version", "0\n", "2\n");
        memset(r.comm, 'c', sizeof r.comm);
        cr_assert_eq(drift_record_parse(&r, sizeof r, &w), 0);
        cr_expect_eq(strlen(w.comm), 16);
}

Test(drift_record, values)
{
        static const struct {
                const char *text;
                int r;
                int32_t value;
        } cases[] = {
                { "1000\n", 0, 1000 },
                { "  42  \n", 0, 42 },
                { "-3", 0, -3 },
                { "2147483647\n", 0, 2147483647 },
                { "-2147483648\n", 0, INT32_MIN },
                { "2147483648\n", -EINVAL, 0 },
                { "bogus\n", -EINVAL, 0 },
                { "1 2\n", -EINVAL, 0 },
                { "+5", -EINVAL, 0 },
                { "\n", -EINVAL, 0 },
                { "", -EINVAL, 0 },
        };

        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                int32_t v = 0;

                cr_expect_eq(sysctl_parse_int(cases[i].text, strlen(cases[i].text), &v), cases[i].r, "'%s'",
                             cases[i].text);
                if (cases[i].r == 0)
                        cr_expect_eq(v, cases[i].value, "'%s'", cases[i].text);
        }
}

Test(drift_record, value_fields)
{
        struct drift_record r;
        DriftWrite w;

        /* A write the kernel will reject: the record still parses, the new value is unknown. */
        make(&r, "net/ipv4/conf/eth0/force_igmp_version", "0\n", "bogus\n");
        cr_assert_eq(drift_record_parse(&r, sizeof r, &w), 0);
        cr_expect(w.old_known);
        cr_expect_eq(w.old_value, 0);
        cr_expect_not(w.new_known);

        /* Truncated by the helper (-E2BIG) or unavailable (-EINVAL). */
        make(&r, "net/ipv4/conf/eth0/force_igmp_version", "0\n", "1\n");
        r.new_len = -E2BIG;
        r.old_len = -EINVAL;
        cr_assert_eq(drift_record_parse(&r, sizeof r, &w), 0);
        cr_expect_not(w.old_known);
        cr_expect_not(w.new_known);

        /* A length past the buffer is not trusted. */
        make(&r, "net/ipv4/conf/eth0/force_igmp_version", "0\n", "1\n");
        r.old_len = 1000;
        cr_assert_eq(drift_record_parse(&r, sizeof r, &w), 0);
        cr_expect_not(w.old_known);
}

Test(drift_record, namespace_knobs)
{
        static const struct {
                const char *name;
                NsKnob knob;
        } cases[] = {
                { "net/ipv4/igmp_qrv", NS_KNOB_IGMP_QRV },
                { "net/ipv6/mld_qrv", NS_KNOB_MLD_QRV },
        };
        static const char *const not_ours[] = {
                "net/ipv6/igmp_qrv", "net/ipv4/mld_qrv", "net/ipv4/conf/eth0/igmp_qrv", "net/ipv4/igmp_qrvx",
                "net/ipv4/neigh/igmp_qrv",
        };

        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                struct drift_record r;
                DriftWrite w;

                make(&r, cases[i].name, "2\n", "3\n");
                cr_assert_eq(drift_record_parse(&r, sizeof r, &w), 0, "%s", cases[i].name);
                cr_expect_eq(w.scope, DRIFT_SCOPE_NAMESPACE);
                cr_expect_eq(w.ns_knob, cases[i].knob);
                cr_expect_eq(w.knob, _KNOB_INVALID);
                cr_expect_str_eq(w.ifname, "");
                cr_expect_eq(w.pid, 4242);
                cr_expect(w.old_known && w.old_value == 2);
                cr_expect(w.new_known && w.new_value == 3);
        }
        for (size_t i = 0; i < sizeof not_ours / sizeof not_ours[0]; i++) {
                struct drift_record r;
                DriftWrite w;

                make(&r, not_ours[i], "2\n", "3\n");
                cr_expect_eq(drift_record_parse(&r, sizeof r, &w), -ENOENT, "%s", not_ours[i]);
        }

        /* A link knob's write names no namespace knob. */
        struct drift_record r;
        DriftWrite w;
        make(&r, "net/ipv4/conf/eth0/force_igmp_version", "0\n", "2");
        cr_assert_eq(drift_record_parse(&r, sizeof r, &w), 0);
        cr_expect_eq(w.ns_knob, _NS_KNOB_INVALID);
}
