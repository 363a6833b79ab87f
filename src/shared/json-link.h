/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The JSON shape of a link, shared by the daemon (Describe()) and igmpctl (--json), so both
 * print the same keys. Stable; documented here:
 *
 *   {
 *     "index": 3,                      ifindex
 *     "netns": "cni-1234",             only for a link of a followed network namespace
 *     "name": "v0",
 *     "alternative_names": [ "uplink" ],  IFLA_ALT_IFNAME, in the kernel's order
 *     "kind": "veth",                  IFLA_INFO_KIND, or null for none
 *     "type": "ether",                 ARPHRD type as [Match] Type= spells it, or null
 *     "mac_address": "02:00:00:00:00:01",  or null for a link without one
 *     "state": "configured",           pending | configured | drifted | failed | unmanaged
 *     "knobs": {                       every knob of the knob table, in table order
 *       "igmpv3_unsolicited_report_interval": {
 *         "kernel": 200,               value in the kernel now, null if unavailable
 *         "policy": 200,               effective policy value, null if no source sets it
 *         "source": "runtime",         file path, "runtime", "runtime:persistent", "NetworkManager:<id>", or null
 *         "drifted": false             true: a source sets it, and the kernel has another value
 *       }, …                           (null = no source sets it)
 *     },
 *     "matched_files": [ "/etc/igmpd/conf.d/10-site.conf" ],
 *     "last_error": null,              or the message of the last failed write
 *     "ignored_sources": [ "NetworkManager:home: it belongs to user:alice (connection.permissions); …" ]
 *                                      sources that would set values here but are ignored, and why
 *   }
 *
 * Names, alternative names, paths, sources and messages are bytes: igmpd writes them as on the
 * bus (JsonWriter.bytes: bytes that are not UTF-8 and '\' as "\xNN"); the raw bytes of the name
 * are the Link's NameBytes property.
 */

#include <stdint.h>

#include "json-writer.h"
#include "knob.h"

#define KNOB_STATUS_UNKNOWN INT64_C(-1)

typedef struct KnobStatus {
        int64_t kernel;     /* KNOB_STATUS_UNKNOWN if unavailable */
        int64_t policy;     /* KNOB_STATUS_UNKNOWN if unset */
        const char *source; /* NULL or "" when no source sets the knob */
} KnobStatus;

typedef struct LinkStatus {
        int ifindex;
        const char *name;
        const char *const *alternative_names; /* NULL-terminated, may be NULL */
        const char *kind;       /* NULL or "" for none */
        const char *type;       /* NULL or "" for none */
        char mac_address[18];   /* "" for none */
        const char *state;
        const char *last_error; /* NULL or "" for none */
        const char *const *matched_files; /* NULL-terminated, may be NULL */
        const char *ignored_source; /* NULL or "" for none */
        KnobStatus knobs[_KNOB_MAX];
        const char *netns;      /* a followed network namespace's name; NULL for igmpd's own (no key) */
} LinkStatus;

void json_write_link(JsonWriter *w, const LinkStatus *s);

/* Whether a knob that a source sets has another value in the kernel (jiffies rounding allowed
 * for): the KERNEL cell igmpctl marks, the knob that makes a link "drifted". */
bool knob_status_drifted(Knob k, const KnobStatus *s);
