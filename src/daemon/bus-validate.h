/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Argument checks for the D-Bus methods, as pure functions over already decoded values, so
 * they are tested without a bus (tests/unit/test-bus-validate.c). Each returns 0 or -errno
 * and, on failure, writes a message naming the offending field into msg:
 *
 *   -EINVAL      malformed (unknown knob, wrong type, bad name, unknown flag bits)
 *   -ERANGE      value outside the knob's range
 *   -E2BIG       too many entries
 *   -ENOTUNIQ    a knob given twice
 *   -EOPNOTSUPP  the kernel lacks the knob  (→ org.igmpd1.Error.Unsupported)
 *
 * Every other error maps to org.igmpd1.Error.InvalidArgument.
 *
 * Knob values are accepted as D-Bus 'u' (the documented type) and, for callers whose bindings
 * default to signed integers (gdbus, Python), as 'i' when not negative.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "knob.h"
#include "policy.h"

/* SetLinkKnobs/SetKnobs take at most one entry per knob; decoding stops past this. */
#define KNOB_ARGS_MAX _KNOB_MAX

/* Flags of SetLinkKnobs/SetKnobs. */
#define BUS_KNOBS_FLAG_PERSISTENT UINT32_C(1)
#define BUS_KNOBS_FLAGS_ALL BUS_KNOBS_FLAG_PERSISTENT
/* Flags of RevertLink/Revert and RevertLinkKnobs/RevertKnobs: the layers to drop; 0 = both. */
#define BUS_REVERT_FLAG_PERSISTENT UINT32_C(1) /* /etc/igmpd/runtime.d */
#define BUS_REVERT_FLAG_RUNTIME UINT32_C(2)    /* /run/igmpd/runtime.d */
#define BUS_REVERT_FLAGS_ALL (BUS_REVERT_FLAG_PERSISTENT | BUS_REVERT_FLAG_RUNTIME)

/* One entry of an a{sv} knob dictionary, decoded but not checked. */
typedef struct KnobArg {
        const char *name;
        char type;     /* D-Bus type code of the variant's contents: 'u', 'i', or anything else */
        int64_t value; /* meaningful for 'u' and 'i' */
} KnobArg;

/* Checks args and fills ret[] (line = 1 marks a knob as set). supported may be NULL (all
 * knobs present). ret is untouched on failure. */
int knob_args_check(const KnobArg *args, size_t n, const bool supported[_KNOB_MAX],
                    KnobSetting ret[_KNOB_MAX], char *msg, size_t msg_size);

/* "igmpv3_unsolicited_report_interval=200ms, force_igmp_version=3": the knobs set (line > 0)
 * with their values, for messages; with set NULL, the names of every knob. Returns buf. */
const char *knob_settings_describe(const KnobSetting *set, char *buf, size_t size);

int bus_flags_check(const char *field, uint32_t flags, uint32_t allowed, char *msg, size_t msg_size);

/* Checks an interface name given by a caller (primary or alternative name). */
int bus_ifname_check(const char *field, const char *name, char *msg, size_t msg_size);

int bus_ifindex_check(const char *field, int32_t ifindex, char *msg, size_t msg_size);

/* Copies untrusted s into buf for a message: at most 64 characters, non-printable ASCII as '?',
 * an ellipsis when cut. Returns buf. */
const char *bus_sanitize(const char *s, char *buf, size_t size);
