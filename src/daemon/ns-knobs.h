/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The namespace knobs of one network namespace (net.ipv4.igmp_qrv; net.ipv6.mld_qrv, which only
 * the initial namespace has): what the kernel holds, the effective value and its source, the
 * value found before igmpd first changed it (written back when no policy sets it any more and at
 * a stop), and other processes' writes (drift). One NsKnobs per namespace igmpd follows; today
 * the Manager has one, for its own namespace. The owner hears of every change through a hook.
 */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "daemon-config.h"
#include "knob.h"
#include "link.h"
#include "policy.h"

typedef struct NsKnobState {
        bool available;     /* the file exists in this namespace */
        bool kernel_known;
        int32_t kernel;     /* the value last read or written */
        KnobValue want;     /* the effective value and where it came from; unset: left alone */
        bool changed;       /* igmpd changed it: original is what it found */
        int32_t original;
        int32_t written;    /* what igmpd last wrote */
        int error;          /* the last write's failure, -errno, or 0 */
        uint64_t reported_usec; /* last drift report, for the rate limit */
        unsigned suppressed;
} NsKnobState;

typedef struct NsKnobs NsKnobs;
/* Something of knob k a reader sees changed: the kernel value, the wanted value or its source. */
typedef void (*NsKnobsChangedFn)(NsKnobs *n, NsKnob k, void *userdata);

struct NsKnobs {
        int dir_fd[_KNOB_FAMILY_MAX]; /* /proc/sys/net/ipv4, …/ipv6; -EBADF if absent */
        NsKnobState knobs[_NS_KNOB_MAX];
        sd_event *event;              /* for the report rate limit; may be NULL */
        NsKnobsChangedFn changed;
        void *changed_userdata;
};

/* Opens the namespace's /proc/sys/net/ipvX directories (of the process's network namespace, seen
 * through proc_root) and reads the knobs there. 0 or -errno (no /proc/sys/net/ipv4). */
int ns_knobs_init(NsKnobs *n, const char *proc_root, sd_event *event);
void ns_knobs_done(NsKnobs *n);

/* Whether the knob exists in this namespace (mld_qrv: the initial one only). */
bool ns_knobs_available(const NsKnobs *n, NsKnob k);

/* Reads knob k from the kernel now, changing nothing (a D-Bus read). 0 or -errno. */
int ns_knobs_read_kernel(NsKnobs *n, NsKnob k, int32_t *ret);

/* Takes want[] as the effective values (references of its own) and makes the kernel hold them:
 * writes a value that differs (keeping the value found the first time), writes the value found
 * back where nothing is wanted any more (unless another process changed it since). With write
 * false (igmpd --check) only reads. */
void ns_knobs_configure(NsKnobs *n, const KnobValue want[static _NS_KNOB_MAX], bool write);

/* Another process wrote knob k (w: who, from the drift watch; NULL: unknown): reads it back and,
 * if it is not igmpd's value, reverts it (DRIFT_ACTION_REVERT) or leaves it, and says so. */
void ns_knobs_check(NsKnobs *n, NsKnob k, DriftAction action, const LinkWriter *w);

/* The stop: writes back the value found wherever igmpd changed it and the kernel still holds
 * what igmpd wrote. */
void ns_knobs_restore(NsKnobs *n);
