/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The knob table and the value rules that go with it (ranges, parsing, jiffies rounding).
 */

#include <errno.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "knob.h"
#include "macro.h"
#include "parse-util.h"

#define PATCH_IGMP "2690048c01f3 (Linux 3.12)"
#define PATCH_MLD "fc4eba58b4c1 (Linux 3.12, not carried in kernel/)"

const KnobInfo knob_table[_KNOB_MAX] = {
        [KNOB_IGMPV2_INTERVAL] = {
                .name = "igmpv2_unsolicited_report_interval",
                .family = KNOB_FAMILY_IPV4,
                .kind = KNOB_KIND_INTERVAL,
                .section = "IGMP",
                .key = "V2UnsolicitedReportInterval",
                .option = "v2-interval",
                .devconf = IPV4_DEVCONF_IGMPV2_UNSOLICITED_REPORT_INTERVAL - 1,
                .patch = PATCH_IGMP,
        },
        [KNOB_IGMPV3_INTERVAL] = {
                .name = "igmpv3_unsolicited_report_interval",
                .family = KNOB_FAMILY_IPV4,
                .kind = KNOB_KIND_INTERVAL,
                .section = "IGMP",
                .key = "V3UnsolicitedReportInterval",
                .option = "v3-interval",
                .devconf = IPV4_DEVCONF_IGMPV3_UNSOLICITED_REPORT_INTERVAL - 1,
                .patch = PATCH_IGMP,
        },
        [KNOB_IGMP_VERSION] = {
                .name = "force_igmp_version",
                .family = KNOB_FAMILY_IPV4,
                .kind = KNOB_KIND_VERSION,
                .section = "IGMP",
                .key = "Version",
                .option = "igmp-version",
                .devconf = IPV4_DEVCONF_FORCE_IGMP_VERSION - 1,
                .max_version = 3,
                .patch = "always present",
        },
        [KNOB_MLDV1_INTERVAL] = {
                .name = "mldv1_unsolicited_report_interval",
                .family = KNOB_FAMILY_IPV6,
                .kind = KNOB_KIND_INTERVAL,
                .section = "MLD",
                .key = "V1UnsolicitedReportInterval",
                .option = "mld-v1-interval",
                .devconf = DEVCONF_MLDV1_UNSOLICITED_REPORT_INTERVAL,
                .jiffies = true,
                .patch = PATCH_MLD,
        },
        [KNOB_MLDV2_INTERVAL] = {
                .name = "mldv2_unsolicited_report_interval",
                .family = KNOB_FAMILY_IPV6,
                .kind = KNOB_KIND_INTERVAL,
                .section = "MLD",
                .key = "V2UnsolicitedReportInterval",
                .option = "mld-v2-interval",
                .devconf = DEVCONF_MLDV2_UNSOLICITED_REPORT_INTERVAL,
                .jiffies = true,
                .patch = PATCH_MLD,
        },
        [KNOB_MLD_VERSION] = {
                .name = "force_mld_version",
                .family = KNOB_FAMILY_IPV6,
                .kind = KNOB_KIND_VERSION,
                .section = "MLD",
                .key = "Version",
                .option = "mld-version",
                .devconf = DEVCONF_FORCE_MLD_VERSION,
                .max_version = 2,
                .patch = "always present",
        },
};

const char *knob_to_string(Knob k)
{
        if (k < 0 || k >= _KNOB_MAX)
                return NULL;
        return knob_table[k].name;
}

Knob knob_from_string(const char *s)
{
        for (Knob k = 0; s && k < _KNOB_MAX; k++)
                if (streq(knob_table[k].name, s))
                        return k;
        return _KNOB_INVALID;
}

Knob knob_from_config_key(const char *section, const char *key)
{
        for (Knob k = 0; section && key && k < _KNOB_MAX; k++)
                if (streq(knob_table[k].section, section) && streq(knob_table[k].key, key))
                        return k;
        return _KNOB_INVALID;
}

Knob knob_from_option(const char *option)
{
        for (Knob k = 0; option && k < _KNOB_MAX; k++)
                if (streq(knob_table[k].option, option))
                        return k;
        return _KNOB_INVALID;
}

const char *knob_family_dir(KnobFamily f)
{
        return f == KNOB_FAMILY_IPV6 ? "ipv6" : "ipv4";
}

Knob knob_from_sysctl_path(const char *path, const char **ret_ifname, size_t *ret_ifname_len)
{
        const char *rest = startswith(path, "net/ipv4/conf/") ?: startswith(path, "net/ipv6/conf/");
        const char *slash = rest ? strchr(rest, '/') : NULL;
        Knob k = slash && slash > rest ? knob_from_string(slash + 1) : _KNOB_INVALID;

        if (k < 0 || !startswith(path + STRLEN("net/"), knob_family_dir(knob_info(k)->family)))
                return _KNOB_INVALID;
        *ret_ifname = rest;
        *ret_ifname_len = (size_t) (slash - rest);
        return k;
}

int32_t knob_max_value(Knob k)
{
        const KnobInfo *i = knob_info(k);

        if (i->kind == KNOB_KIND_VERSION)
                return i->max_version;
        return i->jiffies ? KNOB_JIFFIES_INTERVAL_MAX : KNOB_INTERVAL_MAX;
}

int knob_check_value(Knob k, int64_t v)
{
        int64_t min = knob_info(k)->kind == KNOB_KIND_INTERVAL ? KNOB_INTERVAL_MIN : 0;

        return v >= min && v <= knob_max_value(k) ? 0 : -ERANGE;
}

/* A decimal number without sign or spaces; above INT32_MAX it is INT64_MAX (out of every range). */
static int parse_decimal(const char *s, int64_t *ret)
{
        size_t n = strspn(s, "0123456789");
        uint64_t u;

        if (n == 0 || s[n] != '\0')
                return -EINVAL;
        *ret = parse_unsigned_range(s, s + n, 10, INT32_MAX, &u) < 0 ? INT64_MAX : (int64_t) u;
        return 0;
}

int knob_parse_value(Knob k, const char *s, int32_t *ret)
{
        const KnobInfo *i = knob_info(k);
        int64_t v = 0; /* "auto" */
        int r = 0;

        if (!s)
                return -EINVAL;

        if (i->kind == KNOB_KIND_INTERVAL)
                r = parse_duration_ms(s, &v);
        else if (strcasecmp(s, "auto") != 0)
                r = parse_decimal(s, &v);
        if (r < 0)
                return r;

        r = knob_check_value(k, v);
        if (r < 0)
                return r;

        *ret = (int32_t) v;
        return 0;
}

bool knob_value_matches(Knob k, int32_t want, int32_t have)
{
        if (want == have)
                return true;
        /* The kernel keeps the MLD intervals in jiffies and reads them back rounded up to a tick. */
        return knob_info(k)->jiffies && have > want && (int64_t) have - want < KNOB_JIFFY_SLACK_MS;
}

const char *knob_format(Knob k, int64_t v, char buf[static 32])
{
        if (v < 0)
                return "-";
        if (knob_info(k)->kind == KNOB_KIND_VERSION && v == 0)
                return "auto";
        snprintf(buf, 32, "%lld%s", (long long) v, knob_info(k)->kind == KNOB_KIND_VERSION ? "" : "ms");
        return buf;
}

const char *knob_source_format(const char *source)
{
        return source && *source ? source : "none";
}

const char *knob_range_string(Knob k)
{
        switch (k) {
        case KNOB_IGMP_VERSION:
                return "auto, 1, 2 or 3";
        case KNOB_MLD_VERSION:
                return "auto, 1 or 2";
        default:
                return knob_info(k)->jiffies ? "1ms…2147483640ms" : "1ms…2147483647ms";
        }
}

const NsKnobInfo ns_knob_table[_NS_KNOB_MAX] = {
        [NS_KNOB_IGMP_QRV] = {
                .name = "igmp_qrv",
                .family = KNOB_FAMILY_IPV4,
                .section = "IGMP",
                .key = "Robustness",
                .property = "IGMPRobustness",
        },
        [NS_KNOB_MLD_QRV] = {
                .name = "mld_qrv",
                .family = KNOB_FAMILY_IPV6,
                .section = "MLD",
                .key = "Robustness",
                .property = "MLDRobustness",
        },
};

NsKnob ns_knob_from_string(const char *s)
{
        for (NsKnob k = 0; s && k < _NS_KNOB_MAX; k++)
                if (streq(ns_knob_table[k].name, s))
                        return k;
        return _NS_KNOB_INVALID;
}

NsKnob ns_knob_from_config_key(const char *section, const char *key)
{
        for (NsKnob k = 0; section && key && k < _NS_KNOB_MAX; k++)
                if (streq(ns_knob_table[k].section, section) && streq(ns_knob_table[k].key, key))
                        return k;
        return _NS_KNOB_INVALID;
}

int ns_knob_parse_value(NsKnob k, const char *s, int32_t *ret)
{
        int64_t v;
        int r;

        if (k < 0 || k >= _NS_KNOB_MAX || !s)
                return -EINVAL;
        r = parse_decimal(s, &v);
        if (r < 0)
                return r;
        if (v < NS_KNOB_QRV_MIN || v > NS_KNOB_QRV_MAX)
                return -ERANGE;
        *ret = (int32_t) v;
        return 0;
}

const char *ns_knob_sysctl_name(NsKnob k)
{
        return k == NS_KNOB_MLD_QRV ? "net.ipv6.mld_qrv" : "net.ipv4.igmp_qrv";
}
