/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The D-Bus argument checks, without a bus: knob dictionaries (names, types, ranges,
 * duplicates, size, kernel support), flags, interface names, ifindexes, message sanitizing.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "bus-validate.h"
#include "macro.h"

#define V3 "igmpv3_unsolicited_report_interval"
#define V2 "igmpv2_unsolicited_report_interval"

typedef struct Case {
        const char *what;
        KnobArg args[KNOB_ARGS_MAX + 2];
        size_t n;
        int r;
        const char *msg_has; /* substring the message must contain on failure */
} Case;

static const Case cases[] = {
        {"one interval", {{V3, 'u', 200}}, 1, 0, NULL},
        {"signed accepted", {{V3, 'i', 200}}, 1, 0, NULL},
        {"version auto", {{"force_igmp_version", 'u', 0}}, 1, 0, NULL},
        {"all six",
         {{V2, 'u', 1},
          {V3, 'u', 2147483647},
          {"force_igmp_version", 'u', 3},
          {"mldv1_unsolicited_report_interval", 'u', 10},
          {"mldv2_unsolicited_report_interval", 'u', 20},
          {"force_mld_version", 'u', 2}},
         6,
         0,
         NULL},
        {"empty", {}, 0, -EINVAL, "knobs: empty"},
        {"too many", {}, KNOB_ARGS_MAX + 1, -E2BIG, "more than"},
        {"unknown knob", {{"igmpv4_interval", 'u', 1}}, 1, -EINVAL, "unknown knob 'igmpv4_interval'"},
        {"path in name", {{"../../etc/x", 'u', 1}}, 1, -EINVAL, "unknown knob '../../etc/x'"},
        {"duplicate", {{V3, 'u', 1}, {V3, 'u', 2}}, 2, -ENOTUNIQ, "knobs[" V3 "]: given more than once"},
        {"string value", {{V3, 's', 0}}, 1, -EINVAL, "knobs[" V3 "]: expected a variant of type 'u'"},
        {"array value", {{V3, 'a', 0}}, 1, -EINVAL, "got 'a'"},
        {"64-bit value", {{V3, 't', 200}}, 1, -EINVAL, "got 't'"},
        {"zero interval", {{V3, 'u', 0}}, 1, -ERANGE, "knobs[" V3 "]: value 0 out of range"},
        {"interval past int32", {{V3, 'u', 2147483648LL}}, 1, -ERANGE, "out of range"},
        {"uint32 max", {{V3, 'u', 4294967295LL}}, 1, -ERANGE, "4294967295"},
        {"negative signed", {{V3, 'i', -5}}, 1, -ERANGE, "negative value -5"},
        {"igmp version 4", {{"force_igmp_version", 'u', 4}}, 1, -ERANGE, "auto, 1, 2 or 3"},
        {"mld version 3", {{"force_mld_version", 'u', 3}}, 1, -ERANGE, "auto, 1 or 2"},
        {"mld interval max", {{"mldv2_unsolicited_report_interval", 'u', 2147483640}}, 1, 0, NULL},
        {"mld interval past jiffies max", {{"mldv2_unsolicited_report_interval", 'u', 2147483647}}, 1, -ERANGE,
         "1ms…2147483640ms"},
        {"bad entry after good", {{V2, 'u', 100}, {"nope", 'u', 1}}, 2, -EINVAL, "unknown knob 'nope'"},
};

static void check_case(const Case *c)
{
        KnobSetting out[_KNOB_MAX];
        KnobArg args[KNOB_ARGS_MAX + 2];
        char msg[512] = "";
        int r;

        memcpy(args, c->args, sizeof args);
        for (size_t i = 0; i < ELEMENTSOF(args); i++)
                if (!args[i].name)
                        args[i] = (KnobArg) { V3, 'u', 100 };
        memset(out, 0x55, sizeof out);

        r = knob_args_check(args, c->n, NULL, out, msg, sizeof msg);
        cr_expect_eq(r, c->r, "%s: got %d (%s), want %d", c->what, r, msg, c->r);
        if (r != c->r)
                return;
        if (c->r < 0) {
                cr_expect(strstr(msg, c->msg_has), "%s: message '%s' lacks '%s'", c->what, msg, c->msg_has);
                /* untouched on failure */
                cr_expect_eq(out[0].line, 0x55555555u, "%s: output written on failure", c->what);
        } else
                for (size_t i = 0; i < c->n; i++) {
                        Knob k = knob_from_string(c->args[i].name);
                        cr_expect_eq(out[k].line, 1u, "%s: %s not marked set", c->what, c->args[i].name);
                        cr_expect_eq(out[k].value, (int32_t) c->args[i].value);
                }
}

Test(bus_validate, knob_args)
{
        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                check_case(&cases[i]);
}

Test(bus_validate, only_given_knobs_are_set)
{
        KnobArg a[] = { { V3, 'u', 200 } };
        KnobSetting out[_KNOB_MAX];
        char msg[256];

        cr_assert_eq(knob_args_check(a, 1, NULL, out, msg, sizeof msg), 0);
        for (Knob k = 0; k < _KNOB_MAX; k++)
                cr_expect_eq(out[k].line, k == KNOB_IGMPV3_INTERVAL ? 1u : 0u);
}

Test(bus_validate, unsupported_knob)
{
        bool supported[_KNOB_MAX] = { true, true, true, false, false, true };
        KnobArg ok[] = { { V3, 'u', 200 } };
        KnobArg bad[] = { { V3, 'u', 200 }, { "mldv2_unsolicited_report_interval", 'u', 200 } };
        KnobSetting out[_KNOB_MAX];
        char msg[256];

        cr_expect_eq(knob_args_check(ok, 1, supported, out, msg, sizeof msg), 0);
        cr_expect_eq(knob_args_check(bad, 2, supported, out, msg, sizeof msg), -EOPNOTSUPP);
        cr_expect(strstr(msg, "knobs[mldv2_unsolicited_report_interval]: not supported by this kernel"),
                  "%s", msg);
        /* range errors win over support: the caller's mistake first */
        KnobArg both[] = { { "mldv2_unsolicited_report_interval", 'u', 0 } };
        cr_expect_eq(knob_args_check(both, 1, supported, out, msg, sizeof msg), -ERANGE);
}

Test(bus_validate, flags)
{
        char msg[256];

        cr_expect_eq(bus_flags_check("flags", 0, BUS_KNOBS_FLAGS_ALL, msg, sizeof msg), 0);
        cr_expect_eq(bus_flags_check("flags", 1, BUS_KNOBS_FLAGS_ALL, msg, sizeof msg), 0);
        cr_expect_eq(bus_flags_check("flags", 2, BUS_KNOBS_FLAGS_ALL, msg, sizeof msg), -EINVAL);
        cr_expect(strstr(msg, "flags: unknown bits 0x2"), "%s", msg);
        cr_expect_eq(bus_flags_check("flags", 0xffffffffu, BUS_KNOBS_FLAGS_ALL, msg, sizeof msg), -EINVAL);
        cr_expect(strstr(msg, "0xfffffffe"), "%s", msg);
        cr_expect_eq(bus_flags_check("flags", 1, 0, msg, sizeof msg), -EINVAL);
        cr_expect(strstr(msg, "must be 0"), "%s", msg);
}

Test(bus_validate, ifnames)
{
        static const struct {
                const char *name;
                int r;
        } t[] = {
                { "v0", 0 },         { "enp3s0", 0 },     { "a-very-long-alternative-name-ok", 0 },
                { "", -EINVAL },     { ".", -EINVAL },    { "..", -EINVAL },
                { "../../etc/x", -EINVAL }, { "a/b", -EINVAL }, { "a b", -EINVAL },
                { "a:b", -EINVAL },  { "tab\there", -EINVAL },
        };
        char msg[512];

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                int r = bus_ifname_check("name", t[i].name, msg, sizeof msg);
                cr_expect_eq(r, t[i].r, "'%s': got %d", t[i].name, r);
                if (r < 0)
                        cr_expect(startswith(msg, "name: "), "%s", msg);
        }
        cr_expect_eq(bus_ifname_check("name", NULL, msg, sizeof msg), -EINVAL);

        /* 300 characters: rejected, and the message quotes a bounded, marked excerpt. */
        char long_name[301];
        memset(long_name, 'x', 300);
        long_name[300] = '\0';
        cr_expect_eq(bus_ifname_check("name", long_name, msg, sizeof msg), -EINVAL);
        cr_expect(strstr(msg, "…'"), "%s", msg);
        cr_expect_lt(strlen(msg), 250u);
        /* 127 is the longest alternative name */
        long_name[127] = '\0';
        cr_expect_eq(bus_ifname_check("name", long_name, msg, sizeof msg), 0);
        long_name[127] = 'x';
        long_name[128] = '\0';
        cr_expect_eq(bus_ifname_check("name", long_name, msg, sizeof msg), -EINVAL);
}

Test(bus_validate, ifindex)
{
        char msg[256];

        cr_expect_eq(bus_ifindex_check("ifindex", 1, msg, sizeof msg), 0);
        cr_expect_eq(bus_ifindex_check("ifindex", INT32_MAX, msg, sizeof msg), 0);
        cr_expect_eq(bus_ifindex_check("ifindex", 0, msg, sizeof msg), -EINVAL);
        cr_expect(strstr(msg, "ifindex: 0 is not a valid interface index"), "%s", msg);
        cr_expect_eq(bus_ifindex_check("ifindex", -1, msg, sizeof msg), -EINVAL);
}

Test(bus_validate, sanitize)
{
        char buf[256], in[200];

        cr_expect_str_eq(bus_sanitize("abc", buf, sizeof buf), "abc");
        cr_expect_str_eq(bus_sanitize(NULL, buf, sizeof buf), "");
        cr_expect_str_eq(bus_sanitize("a\nb\x1b[31m", buf, sizeof buf), "a?b?[31m");
        cr_expect_str_eq(bus_sanitize("grüß", buf, sizeof buf), "grüß");

        memset(in, 'y', sizeof in - 1);
        in[sizeof in - 1] = '\0';
        bus_sanitize(in, buf, sizeof buf);
        cr_expect_eq(strlen(buf), 64u + strlen("…"));
        cr_expect(endswith(buf, "…"));

        /* A multi-byte character at the cut is dropped whole, never split. */
        memset(in, 'y', 63);
        strcpy(in + 63, "üüüü");
        bus_sanitize(in, buf, sizeof buf);
        cr_expect(endswith(buf, "…"), "%s", buf);
        cr_expect(!strstr(buf, "\xc3…"), "split UTF-8: %s", buf);

        /* Tiny buffers stay terminated. */
        cr_expect_str_eq(bus_sanitize("abcdef", buf, 4), "abc");
        cr_expect_str_eq(bus_sanitize("abcdef", buf, 1), "");
}

/* An unknown name is answered with the list of every knob, in table order, from the table. */
Test(bus_validate, unknown_knob_lists_the_table)
{
        KnobArg a = { .name = "nope", .type = 'u', .value = 1 };
        KnobSetting set[_KNOB_MAX];
        char msg[512], want[512] = "(known: ";

        cr_assert_eq(knob_args_check(&a, 1, NULL, set, msg, sizeof msg), -EINVAL);
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                strcat(want, knob_to_string(k));
                strcat(want, k + 1 < _KNOB_MAX ? ", " : ")");
        }
        cr_assert(strstr(msg, want), "message '%s' lacks '%s'", msg, want);
}
