/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The namespace knobs of one network namespace (net.ipv4.igmp_qrv; net.ipv6.mld_qrv, which only
 * the initial namespace has): what the kernel holds, the effective value and its source, the
 * value found before igmpd first changed it (written back when no policy sets it any more and at
 * a stop), and other processes' writes (drift). One NsKnobs per namespace igmpd follows (each
 * Manager has one). The owner hears of every change through a hook.
 *
 * The values found are recorded before the write that needs them, so that after a crash the next
 * start (or igmpd --restore) still knows them: ROOT/run/igmpd/namespace-originals (a followed
 * namespace's below netns/NAME/), replaced atomically, removed when nothing is left to undo:
 *   igmpd-namespace-originals 1 NETNS        (NETNS: st_dev:st_ino of /proc/self/ns/net)
 *   igmp_qrv=ORIGINAL/WRITTEN
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
        uint64_t reported_usec; /* last drift report, for the rate limit */
        unsigned suppressed;
} NsKnobState;

#define NS_KNOBS_RECORD_NAME "namespace-originals"
#define NS_KNOBS_RECORD_MAX 64 /* the namespace id, "DEV:INO" */

typedef struct NsKnobs NsKnobs;
/* Something of knob k a reader sees changed: the kernel value, the wanted value or its source. */
typedef void (*NsKnobsChangedFn)(NsKnobs *n, NsKnob k, void *userdata);

struct NsKnobs {
        int dir_fd[_KNOB_FAMILY_MAX]; /* /proc/sys/net/ipv4, …/ipv6; -EBADF if absent */
        NsKnobState knobs[_NS_KNOB_MAX];
        sd_event *event;              /* for the report rate limit; may be NULL */
        NsKnobsChangedFn changed;
        void *changed_userdata;
        char *record_dir;             /* where the record lives; NULL: none kept (--check) */
        char netns[NS_KNOBS_RECORD_MAX];
        const char *name;             /* a followed namespace's name, said in messages; NULL: igmpd's own */
        bool record_failed;           /* the last write of the record failed (said once) */
};

/* A record's text → for each knob it names, set[k], original[k] and written[k]. Lines it cannot
 * read are skipped. 1 if the file is of this namespace (netns; "" matches nothing), else 0. Pure. */
int ns_knobs_parse_record(const char *text, const char *netns, bool set[static _NS_KNOB_MAX],
                          int32_t original[static _NS_KNOB_MAX], int32_t written[static _NS_KNOB_MAX]);

/* From now on, the record is kept in dir (copied) for the namespace netns. Then takes back what
 * the last run recorded there: a knob that still holds the value it wrote keeps its original;
 * one someone else changed since is left alone. 0 or -ENOMEM. */
int ns_knobs_take_record(NsKnobs *n, const char *dir, const char *netns);

/* Opens the /proc/sys/net/ipvX directories of the process's network namespace and reads the
 * knobs there. 0 or -errno (no /proc/sys/net/ipv4). */
int ns_knobs_init(NsKnobs *n, sd_event *event);
void ns_knobs_done(NsKnobs *n);

/* Whether the knob exists in this namespace (mld_qrv: the initial one only). */
bool ns_knobs_available(const NsKnobs *n, NsKnob k);

/* Reads knob k from the kernel now, changing nothing. 0 or -errno (-ENOENT: not in this namespace). */
int ns_knobs_read_kernel(NsKnobs *n, NsKnob k, int32_t *ret);

/* Takes want[] as the effective values (references of its own) and makes the kernel hold them:
 * writes a value that differs (keeping the value found the first time), writes the value found
 * back where nothing is wanted any more (unless another process changed it since). With write
 * false (igmpd --check) only reads. */
void ns_knobs_configure(NsKnobs *n, const KnobValue want[static _NS_KNOB_MAX], bool write);

/* Another process wrote knob k (w: who, from the drift watch; NULL: unknown): reads it back and,
 * if it is not igmpd's value, reverts it (DRIFT_ACTION_REVERT) or leaves it, and says so. */
void ns_knobs_check(NsKnobs *n, NsKnob k, DriftAction action, const LinkWriter *w);

/* The stop (and igmpd --restore, after ns_knobs_take_record()): writes back the value found
 * wherever igmpd changed it and the kernel still holds what igmpd wrote, and removes the record
 * unless a write failed. Returns how many writes failed; n_restored (may be NULL) counts the
 * values written back. */
unsigned ns_knobs_restore(NsKnobs *n, unsigned *n_restored);
