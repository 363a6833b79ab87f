/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The knob table: the one place that names the six per-link IGMP/MLD sysctls. Config parsing,
 * D-Bus, igmpctl options and JSON keys are all driven from it.
 */

#include <stdbool.h>
#include <stdint.h>

typedef enum Knob {
        KNOB_IGMPV2_INTERVAL,
        KNOB_IGMPV3_INTERVAL,
        KNOB_IGMP_VERSION,
        KNOB_MLDV1_INTERVAL,
        KNOB_MLDV2_INTERVAL,
        KNOB_MLD_VERSION,
        _KNOB_MAX,
        _KNOB_INVALID = -22, /* -EINVAL */
} Knob;

typedef enum KnobFamily {
        KNOB_FAMILY_IPV4,
        KNOB_FAMILY_IPV6,
        _KNOB_FAMILY_MAX,
} KnobFamily;

typedef enum KnobKind {
        KNOB_KIND_INTERVAL, /* milliseconds, 1 … INT32_MAX */
        KNOB_KIND_VERSION,  /* 0 (auto) … max_version */
} KnobKind;

typedef struct KnobInfo {
        const char *name;        /* kernel name: file under /proc/sys/net/ipvX/conf/IF/, D-Bus, JSON */
        KnobFamily family;
        KnobKind kind;
        const char *section;     /* config section: "IGMP" or "MLD" */
        const char *key;         /* config key */
        const char *option;      /* igmpctl long option, without "--" */
        int32_t max_version;     /* KNOB_KIND_VERSION only */
        bool jiffies;            /* stored in jiffies: reads back rounded up to the tick */
        int devconf;             /* index in IFLA_INET_CONF / IFLA_INET6_CONF of RTM_NEWLINK */
        const char *patch;       /* kernel change that added the knob */
} KnobInfo;

#define KNOB_INTERVAL_MIN 1
#define KNOB_INTERVAL_MAX INT32_MAX
/* A jiffies knob reads back rounded up to the tick, and the kernel's int overflows above
 * INT32_MAX (2147483647 written at HZ=250 reads back 2147483648): the largest value that
 * round-trips at every HZ (100, 250, 300, 1000) is the largest multiple of 10 ms. */
#define KNOB_JIFFIES_INTERVAL_MAX (INT32_MAX / 10 * 10)
/* Largest tick of any kernel (HZ=100): a jiffies knob may read back this much above what was written. */
#define KNOB_JIFFY_SLACK_MS 10

extern const KnobInfo knob_table[_KNOB_MAX];

static inline const KnobInfo *knob_info(Knob k)
{
        return &knob_table[k];
}

const char *knob_to_string(Knob k);
Knob knob_from_string(const char *s);
Knob knob_from_config_key(const char *section, const char *key);
Knob knob_from_option(const char *option);
const char *knob_family_dir(KnobFamily f); /* "ipv4" or "ipv6" */
/* The knob of "net/ipv4/conf/IFNAME/KNOB" or "net/ipv6/conf/…" (a file under /proc/sys), with
 * IFNAME (not NUL-terminated) in *ret_ifname; _KNOB_INVALID for any other path. */
Knob knob_from_sysctl_path(const char *path, const char **ret_ifname, size_t *ret_ifname_len);

/* Checks a value against the knob's range. 0 or -ERANGE. */
int knob_check_value(Knob k, int64_t v);
/* The largest value accepted for the knob. */
int32_t knob_max_value(Knob k);

/* Parses a config/CLI value for the knob: durations for intervals ("200", "200ms", "1.5s"),
 * "auto" or a number for versions. 0, -EINVAL (syntax) or -ERANGE (out of range). */
int knob_parse_value(Knob k, const char *s, int32_t *ret);

/* Whether value read from the kernel is what writing want leaves there (jiffies rounding). */
bool knob_value_matches(Knob k, int32_t want, int32_t have);

/* A value as igmpctl, igmpd --check, the logs and runtime files show it: "200ms", "auto", "2",
 * or "-" for a negative one (none). Returns buf or a constant. */
const char *knob_format(Knob k, int64_t v, char buf[static 32]);
/* A knob's source as igmpctl and igmpd --check show it: as the daemon names it (a policy file,
 * "runtime", "runtime:persistent", "NetworkManager:<profile>"), or "none" when no source sets
 * it (igmpd leaves the knob as it is: the link state "unmanaged" is another thing). */
const char *knob_source_format(const char *source);

/* Human description of the valid range, e.g. "1ms…2147483647ms" (1ms…2147483640ms for the MLD
 * intervals) or "auto, 1, 2, 3". */
const char *knob_range_string(Knob k);

/*
 * The namespace knobs: one value per network namespace (igmp_qrv) or per host (mld_qrv, only in
 * the initial namespace), under /proc/sys/net/ipvX/ directly. Set by [IGMP]/[MLD] Robustness=
 * in a file whose [Match] names no link.
 */
typedef enum NsKnob {
        NS_KNOB_IGMP_QRV,
        NS_KNOB_MLD_QRV,
        _NS_KNOB_MAX,
        _NS_KNOB_INVALID = -22, /* -EINVAL */
} NsKnob;

typedef struct NsKnobInfo {
        const char *name;         /* file under /proc/sys/net/ipvX/; JSON */
        KnobFamily family;
        const char *section;      /* "IGMP" or "MLD" */
        const char *key;          /* "Robustness" */
        const char *property;     /* D-Bus property of org.igmpd1.Manager */
} NsKnobInfo;

extern const NsKnobInfo ns_knob_table[_NS_KNOB_MAX];

static inline const NsKnobInfo *ns_knob_info(NsKnob k)
{
        return &ns_knob_table[k];
}

NsKnob ns_knob_from_string(const char *s);
NsKnob ns_knob_from_config_key(const char *section, const char *key);

#define NS_KNOB_QRV_MIN 1
#define NS_KNOB_QRV_MAX 7
/* "1", …, "7". 0, -EINVAL (syntax) or -ERANGE. */
int ns_knob_parse_value(NsKnob k, const char *s, int32_t *ret);
/* "net.ipv4.igmp_qrv", as sysctl names it. */
const char *ns_knob_sysctl_name(NsKnob k);
