/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The values igmpd found before it first changed a knob, kept across a restart and a crash.
 *
 * While igmpd runs they live in each Link (original[], changed[], written[]). They are recorded
 * in ROOT/run/igmpd/originals *before* the write that needs them: the first change of a knob
 * (its original) and every new value igmpd writes (what it will find there after a crash). So
 * after SIGKILL, the OOM killer or a watchdog kill, the next start still knows what to put back
 * when a policy goes away. The next start reads the file before its first pass, and a link that
 * is still there — same ifindex in the same network namespace, whatever its name now — and
 * whose knob still holds a value igmpd wrote gets its original back; a knob someone else changed
 * meanwhile is left alone. igmpd --restore (package removal) reads the same file.
 *
 * The file is a journal, so that a link appearing costs one small append and not a rewrite of
 * every link's line (whole rewrites measured 6 ms per event at 400 links, 38 ms at 4000 on a
 * loaded machine):
 *   - the first line is a header, "igmpd-originals 3 NETNS" (NETNS: st_dev:st_ino of
 *     /proc/self/ns/net); version 2 files (written at a clean stop only) are read as well;
 *   - then one line per record, the last line of an ifindex winning:
 *       IFINDEX IFNAME KNOB=ORIGINAL/WRITTEN[/PREVIOUS] [KNOB=…]
 *     PREVIOUS is an earlier value igmpd wrote, while the write of WRITTEN is not confirmed yet
 *     (a crash in between leaves either in the kernel); "IFINDEX -" forgets the ifindex;
 *   - records are appended in batches (one fdatasync per batch of link events or per
 *     configuration pass, before any of the batch's writes); a line without its final newline
 *     is a write torn by a crash and is ignored (its writes never happened);
 *   - the whole file is replaced atomically (AtomicFile) at the end of the first pass,
 *     at a clean stop and when the appends outgrow the live records, and removed when nothing is
 *     left to undo.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fs-util.h"
#include "knob.h"
#include "macro.h"

#define ORIGINALS_NAME "originals"
#define ORIGINALS_DIR "/run/igmpd" /* below the config root */
#define ORIGINALS_NETNS_MAX 64 /* the namespace id, "DEV:INO" */

typedef struct OriginalEntry {
        int ifindex;
        char ifname[16]; /* IFNAMSIZ */
        bool set[_KNOB_MAX];
        int32_t original[_KNOB_MAX]; /* before igmpd first changed it */
        int32_t written[_KNOB_MAX];  /* what igmpd set it to */
        bool has_previous[_KNOB_MAX];
        int32_t previous[_KNOB_MAX]; /* what igmpd had set it to before, until written[] is in */
} OriginalEntry;

typedef struct Originals {
        OriginalEntry *entries; /* ordered by ifindex, one per ifindex */
        size_t n;
        bool compact;       /* the file holds these entries' lines and nothing else */
        uint64_t file_size; /* its size then */
} Originals;

/* One "IFINDEX IFNAME KNOB=ORIGINAL/WRITTEN[/PREVIOUS] …" line (no newline). 0 or -EINVAL. Pure.
 * "IFINDEX -" (a forgotten ifindex) gives 0 with no knob set. */
int originals_parse_line(const char *line, OriginalEntry *ret);
/* The longest line originals_format_entry() writes, its newline and NUL included. */
#define ORIGINALS_LINE_MAX (12 + 16 + 3 + _KNOB_MAX * (64 + 3 * 12 + 4) + 1)
/* Writes e's line (with its newline, then a NUL) at buf, which has ORIGINALS_LINE_MAX bytes;
 * returns its length. An entry with no knob set is written as "IFINDEX -". */
size_t originals_format_entry(const OriginalEntry *e, char *buf);

/* Reads DIR/originals. 1 with *ret filled; 0 with none if there is no file, or it belongs to
 * another network namespace (netns, "" if unknown) or version; -errno. Bad lines are skipped
 * (logged at debug level). */
int originals_load(const char *dir, const char *netns, Originals *ret);

/* The entry saved for this ifindex, or NULL. By ifindex alone: the kernel does not reuse one in a
 * network namespace while it lives (the file's header names the namespace), and a link renamed
 * while igmpd was down is still the link igmpd changed. */
const OriginalEntry *originals_find(const Originals *o, int ifindex);
/* Whether a and b are the same record. */
bool originals_entry_equal(const OriginalEntry *a, const OriginalEntry *b);
/* Whether knob k, reading now, still holds a value igmpd wrote according to e. */
bool originals_entry_holds(const OriginalEntry *e, Knob k, int32_t now);
/* For a link seen for the first time at start: takes back the saved originals whose knob still
 * holds what igmpd wrote, given the current kernel values (devconf, known[] false where not
 * carried), into original[], written[] and changed[]. A knob someone else changed meanwhile is
 * left alone. */
void originals_take(const OriginalEntry *e, const int32_t devconf[_KNOB_MAX], const bool devconf_known[_KNOB_MAX],
                    int32_t original[_KNOB_MAX], int32_t written[_KNOB_MAX], bool changed[_KNOB_MAX]);
void originals_done(Originals *o);

/* The journal file while the daemon runs. */
typedef struct OriginalsJournal {
        char *dir;
        char netns[ORIGINALS_NETNS_MAX];
        int fd;                 /* open for appending after a rewrite; -EBADF before or after a failure */
        uint64_t size;          /* bytes known to be whole lines */
        uint64_t rewrite_size;  /* size right after the last rewrite */
} OriginalsJournal;

/* dir is copied. 0 or -ENOMEM. */
int originals_journal_init(OriginalsJournal *j, const char *dir, const char *netns);
void originals_journal_done(OriginalsJournal *j);
/* Whether the next write should be a whole rewrite: never written yet, failed last time, or
 * the appends outgrew the live records. */
bool originals_journal_wants_rewrite(const OriginalsJournal *j);
/* Whether the file is as the last rewrite left it: written, open, nothing appended since. */
bool originals_journal_compact(const OriginalsJournal *j);
/* Takes the file as a compact load found it (o->compact, nothing changed since) instead of
 * rewriting it: keeps it open for appending. 0 or -errno (then nothing is open). */
int originals_journal_adopt(OriginalsJournal *j, const Originals *o);
/* A record on its way to the file, written a chunk at a time as its lines are made: never built
 * whole in memory (1.6 MB at 8000 links, each page a first touch in a cold start). A rewrite
 * replaces the file atomically and keeps it open for appending (no line: removes it). An
 * append waits until its lines are on disk (fdatasync); on failure the file is cut back to where
 * the record began and closed (the next write is a rewrite). */
typedef struct OriginalsWrite {
        OriginalsJournal *j;
        bool rewrite;
        AtomicFile tmp;   /* a rewrite's new file, opened at the first chunk */
        size_t n;         /* entries */
        uint64_t written; /* bytes that left buf */
        int error;        /* the first one: nothing is written after it */
        size_t len;
        char buf[16384];
} OriginalsWrite;

void originals_write_begin(OriginalsWrite *w, OriginalsJournal *j, bool rewrite);
void originals_write_entry(OriginalsWrite *w, const OriginalEntry *e);
/* 0 or -errno: after a failed rewrite (or an append before any rewrite, -EBADF) nothing is
 * open. */
int originals_write_end(OriginalsWrite *w);
