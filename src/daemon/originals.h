/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The values igmpd found before it first changed a knob, kept across a daemon restart.
 *
 * While igmpd runs they live in each Link (original[], changed[]). At a clean stop they are
 * written to ROOT/run/igmpd/originals, together with the value igmpd had written; the next
 * start reads the file once (and removes it) before its first pass, and a link that is still
 * there — same ifindex, same name, same network namespace — and whose knob still holds the
 * value igmpd wrote gets its original back. So a policy removed while igmpd was stopped (an
 * upgrade, a restart) is undone on start as if igmpd had been running, and a knob someone
 * else changed meanwhile is left alone. A crash loses them (the file is gone once read), as
 * before: nothing stale is ever applied.
 *
 * File format, text: a header line "igmpd-originals 2 NETNS", then one line per link:
 *   IFINDEX IFNAME KNOB=ORIGINAL/WRITTEN [KNOB=ORIGINAL/WRITTEN …]
 * NETNS identifies the network namespace (st_dev:st_ino of /proc/self/ns/net).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "knob.h"
#include "macro.h"

#define ORIGINALS_NAME "originals"
#define ORIGINALS_NETNS_MAX 64 /* the namespace id, "DEV:INO" */

typedef struct OriginalEntry {
        int ifindex;
        char ifname[16]; /* IFNAMSIZ */
        bool set[_KNOB_MAX];
        int32_t original[_KNOB_MAX]; /* before igmpd first changed it */
        int32_t written[_KNOB_MAX];  /* what igmpd had set it to */
} OriginalEntry;

typedef struct Originals {
        OriginalEntry *entries; /* ordered by ifindex */
        size_t n;
} Originals;

/* One "IFINDEX IFNAME KNOB=ORIGINAL/WRITTEN …" line (no newline). 0 or -EINVAL. Pure. */
int originals_parse_line(const char *line, OriginalEntry *ret);

/* Reads and removes DIR/originals. 1 with *ret filled; 0 with none if there is no file, or it
 * belongs to another network namespace (netns, "" if unknown) or version; -errno. Bad lines
 * are skipped (logged at debug level). */
int originals_load(const char *dir, const char *netns, Originals *ret);
/* Writes entries[0…n) to DIR/originals atomically (temp file, fsync, rename). 1 if written, 0
 * if n is 0 (nothing to undo later: originals_load() removed any older file), -errno. */
int originals_save(const char *dir, const char *netns, const OriginalEntry *entries, size_t n);

/* The entry saved for this ifindex and name, or NULL. */
const OriginalEntry *originals_find(const Originals *o, int ifindex, const char *ifname);
/* For a link seen for the first time at start: takes back into original[] and changed[] the
 * saved originals whose knob still holds what igmpd wrote, given the current kernel values
 * (devconf, known[] false where not carried). A knob someone else changed meanwhile is left
 * alone. */
void originals_take(const OriginalEntry *e, const int32_t devconf[_KNOB_MAX], const bool devconf_known[_KNOB_MAX],
                    int32_t original[_KNOB_MAX], bool changed[_KNOB_MAX]);
void originals_done(Originals *o);
