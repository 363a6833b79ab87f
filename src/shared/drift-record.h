/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Parses the drift watch's records (layout: src/bpf/bpf-drift-record.h) into plain data: which
 * knob of which link (or "all", "default") was written, the value before, what was written, and
 * by whom. Pure: the bytes come from a ring buffer the kernel writes, but every length is
 * checked as if a peer had sent them.
 */

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf-drift-record.h"
#include "knob.h"

typedef enum DriftScope {
        DRIFT_SCOPE_LINK,     /* net/ipvX/conf/IF/… */
        DRIFT_SCOPE_ALL,      /* net/ipvX/conf/all/… */
        DRIFT_SCOPE_DEFAULT,  /* net/ipvX/conf/default/… */
        DRIFT_SCOPE_NAMESPACE, /* net/ipv4/igmp_qrv, net/ipv6/mld_qrv: ns_knob, not knob */
        _DRIFT_SCOPE_MAX,
} DriftScope;

typedef struct DriftWrite {
        Knob knob;                 /* _KNOB_INVALID with DRIFT_SCOPE_NAMESPACE */
        NsKnob ns_knob;            /* DRIFT_SCOPE_NAMESPACE only, else _NS_KNOB_INVALID */
        DriftScope scope;
        char ifname[IF_NAMESIZE];  /* the link's name (DRIFT_SCOPE_LINK), else "all"/"default"/"" */
        uint32_t pid, uid, netns;
        /* Raw bytes of the writer's command name, NUL-terminated; the caller escapes them for
         * display. */
        char comm[DRIFT_RECORD_COMM_MAX + 1];
        bool old_known;            /* old_value holds the value read before the write */
        int32_t old_value;
        bool new_known;            /* what was written parses as one integer */
        int32_t new_value;
} DriftWrite;

/*
 * 0 with *ret filled; -EBADMSG for a malformed record (short, unknown type, unterminated
 * strings); -ENOENT for a well-formed record that does not name one of the six knobs under
 * net/ipv4/conf or net/ipv6/conf (or names a link igmpd could never use), nor one of the
 * namespace knobs net/ipv4/igmp_qrv, net/ipv6/mld_qrv.
 */
int drift_record_parse(const void *data, size_t size, DriftWrite *ret);
