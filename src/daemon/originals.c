/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pre-igmpd knob values across a restart and a crash: the line format, reading the file,
 * and the journal the daemon appends to; see originals.h.
 */

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array-util.h"
#include "fs-util.h"
#include "ifname.h"
#include "log.h"
#include "originals.h"
#include "parse-util.h"

#define ORIGINALS_HEADER "igmpd-originals 3"
#define ORIGINALS_HEADER_V2 "igmpd-originals 2"
#define ORIGINALS_MAX 65536     /* links */
#define ORIGINALS_LINES_MAX (16 * ORIGINALS_MAX) /* lines read, appends included */
/* Appends past this many bytes beyond the last rewrite's size make the next write a rewrite. */
#define ORIGINALS_APPEND_SLACK (64 * 1024)

static bool is_blank(char c)
{
        return c == ' ' || c == '\t';
}

static const char *skip_blanks(const char *p)
{
        while (is_blank(*p))
                p++;
        return p;
}

/* A decimal int32 at *p, with an optional '-' and at least one digit, ending at a blank, '/' or
 * the end (checked by the caller); advances *p past it. 0 or -EINVAL. */
static int parse_int32(const char **p, int32_t *ret)
{
        const char *e = *p + (**p == '-');
        int v;

        e += strspn(e, "0123456789");
        if (parse_int_range(*p, e, &v) < 0)
                return -EINVAL;
        *ret = v;
        *p = e;
        return 0;
}

/* "KNOB=ORIGINAL/WRITTEN[/PREVIOUS]" at *p into e, ending at a blank or the end. */
static int parse_item(const char **p, OriginalEntry *e)
{
        const char *s = *p, *eq = s + strcspn(s, "= \t");
        char name[64];
        int32_t original, written, previous = 0;
        bool has_previous;
        Knob k;

        if (*eq != '=' || (size_t) (eq - s) >= sizeof name)
                return -EINVAL;
        memcpy(name, s, (size_t) (eq - s));
        name[eq - s] = '\0';
        k = knob_from_string(name);
        if (k < 0 || e->set[k])
                return -EINVAL;
        s = eq + 1;
        if (parse_int32(&s, &original) < 0 || *s++ != '/' || parse_int32(&s, &written) < 0)
                return -EINVAL;
        has_previous = *s == '/';
        if (has_previous && (s++, parse_int32(&s, &previous) < 0))
                return -EINVAL;
        if (*s != '\0' && !is_blank(*s))
                return -EINVAL;
        e->original[k] = original;
        e->written[k] = written;
        e->previous[k] = previous;
        e->has_previous[k] = has_previous;
        e->set[k] = true;
        *p = s;
        return 0;
}

/* By hand, in one pass over the line, rather than sscanf()/strtol() or splitting it into fields
 * first: a restart with 4000 links reads all of them before its first pass. */
int originals_parse_line(const char *line, OriginalEntry *ret)
{
        OriginalEntry e = {};
        const char *p = skip_blanks(line), *name;
        int32_t ifindex;
        size_t n = 0;

        if (strnlen(line, 512) >= 512)
                return -EINVAL;
        if (parse_int32(&p, &ifindex) < 0 || ifindex <= 0 || !is_blank(*p))
                return -EINVAL;
        e.ifindex = ifindex;
        name = p = skip_blanks(p);
        while (*p != '\0' && !is_blank(*p))
                p++;
        if ((size_t) (p - name) >= sizeof e.ifname)
                return -EINVAL;
        memcpy(e.ifname, name, (size_t) (p - name));
        p = skip_blanks(p);
        if (streq(e.ifname, "-") && *p == '\0') {
                *ret = (OriginalEntry) { .ifindex = ifindex }; /* forgotten */
                return 0;
        }
        if (!ifname_valid(e.ifname))
                return -EINVAL;
        while (*p != '\0') {
                if (parse_item(&p, &e) < 0)
                        return -EINVAL;
                p = skip_blanks(p);
                n++;
        }
        if (n == 0)
                return -EINVAL;
        *ret = e;
        return 0;
}

/* By hand, not printf: the first pass of a 4000-link start writes 16000 of these. */
size_t originals_format_entry(const OriginalEntry *e, char *buf)
{
        bool any = false;
        char *p = format_int32(buf, e->ifindex);

        for (Knob k = 0; k < _KNOB_MAX; k++) {
                if (!e->set[k])
                        continue;
                if (!any) {
                        *p++ = ' ';
                        p = stpcpy(p, e->ifname);
                        any = true;
                }
                *p++ = ' ';
                p = stpcpy(p, knob_to_string(k));
                *p++ = '=';
                p = format_int32(p, e->original[k]);
                *p++ = '/';
                p = format_int32(p, e->written[k]);
                if (e->has_previous[k]) {
                        *p++ = '/';
                        p = format_int32(p, e->previous[k]);
                }
        }
        if (!any)
                p = stpcpy(p, " -");
        *p++ = '\n';
        *p = '\0';
        return (size_t) (p - buf);
}

/* A loaded line's place in the order the record is read in: by ifindex, then by line. */
static int key_compare(const void *a, const void *b)
{
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

        return (x > y) - (x < y);
}

int originals_load(const char *dir, const char *netns, Originals *ret)
{
        _cleanup_free_ char *path = NULL, *line = NULL;
        _cleanup_free_ OriginalEntry *lines = NULL;
        _cleanup_free_ uint64_t *keys = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        char header[128], header_v2[128];
        size_t size = 0, allocated = 0, n_lines = 0;
        unsigned lineno = 1;
        Originals o = {};
        bool whole = true;  /* every line valid, the last one ended */
        bool sorted = true; /* ifindexes rising: each line the only one of its ifindex */
        ssize_t l;

        *ret = (Originals) {};
        if (asprintf(&path, "%s/" ORIGINALS_NAME, dir) < 0)
                return -ENOMEM;
        f = fopen(path, "re");
        if (!f)
                return errno == ENOENT ? 0 : -errno;

        snprintf(header, sizeof header, ORIGINALS_HEADER " %s\n", netns);
        snprintf(header_v2, sizeof header_v2, ORIGINALS_HEADER_V2 " %s\n", netns);
        if (isempty(netns) || getline(&line, &size, f) < 0 || (!streq(line, header) && !streq(line, header_v2))) {
                log_debug("%s is from another network namespace or version, ignoring it.", path);
                return 0;
        }
        whole = streq(line, header); /* a version 2 file is rewritten in version 3 */
        while ((l = getline(&line, &size, f)) >= 0) {
                lineno++;
                if (l == 0 || line[l - 1] != '\n') {
                        log_debug("%s:%u: torn last line (a crash while it was written), ignoring.", path, lineno);
                        whole = false;
                        break;
                }
                line[l - 1] = '\0';
                if (n_lines >= ORIGINALS_LINES_MAX) {
                        whole = false;
                        break;
                }
                if (ARRAY_GROW(lines, allocated, n_lines, 64) < 0)
                        return -ENOMEM;
                if (originals_parse_line(line, &lines[n_lines]) < 0) {
                        log_debug("%s:%u: not a valid line, ignoring.", path, lineno);
                        whole = false;
                        continue;
                }
                sorted = sorted && (n_lines == 0 || lines[n_lines - 1].ifindex < lines[n_lines].ifindex);
                n_lines++;
        }

        if (sorted) {
                /* Written by ifindex (a whole record, manager_write_originals()): each line is
                 * its ifindex's record, taken in place. */
                for (size_t i = 0; i < n_lines && o.n < ORIGINALS_MAX; i++) {
                        if (!memchr(lines[i].set, true, sizeof lines[i].set))
                                continue; /* forgotten */
                        if (o.n != i)
                                lines[o.n] = lines[i];
                        o.n++;
                }
                o.entries = TAKE_PTR(lines);
        } else {
                /* By ifindex, then in file order: the last line of each ifindex is its record.
                 * The entries stay where they are; only (ifindex, line) keys are sorted. */
                keys = malloc(n_lines * sizeof *keys);
                o.entries = malloc(n_lines * sizeof *o.entries);
                if (!keys || !o.entries) {
                        free(o.entries);
                        return -ENOMEM;
                }
                for (size_t i = 0; i < n_lines; i++)
                        keys[i] = (uint64_t) lines[i].ifindex << 32 | i;
                qsort(keys, n_lines, sizeof *keys, key_compare);
                for (size_t i = 0; i < n_lines; i++) {
                        const OriginalEntry *e = &lines[(uint32_t) keys[i]];

                        if (i + 1 < n_lines && keys[i + 1] >> 32 == keys[i] >> 32)
                                continue; /* superseded */
                        if (!memchr(e->set, true, sizeof e->set))
                                continue; /* forgotten */
                        if (o.n >= ORIGINALS_MAX)
                                break;
                        o.entries[o.n++] = *e;
                }
        }
        /* Nothing superseded, forgotten, invalid or left out, in this version's format: a
         * rewrite with the same records would write the same lines (in another order). */
        o.compact = whole && o.n == n_lines;
        o.file_size = (uint64_t) ftell(f);
        if (o.n == 0)
                o.entries = mfree(o.entries);
        log_debug("Read the original knob values of %zu link(s) from %s.", o.n, path);
        *ret = o;
        return 1;
}

static int entry_compare(const void *key, const void *entry)
{
        int a = *(const int *) key, b = ((const OriginalEntry *) entry)->ifindex;

        return (a > b) - (a < b);
}

const OriginalEntry *originals_find(const Originals *o, int ifindex)
{
        if (!o || o->n == 0)
                return NULL;
        return bsearch(&ifindex, o->entries, o->n, sizeof *o->entries, entry_compare);
}

bool originals_entry_equal(const OriginalEntry *a, const OriginalEntry *b)
{
        if (a->ifindex != b->ifindex || !streq(a->ifname, b->ifname))
                return false;
        for (Knob k = 0; k < _KNOB_MAX; k++)
                if (a->set[k] != b->set[k] ||
                    (a->set[k] && (a->original[k] != b->original[k] || a->written[k] != b->written[k] ||
                                   a->has_previous[k] != b->has_previous[k] ||
                                   (a->has_previous[k] && a->previous[k] != b->previous[k]))))
                        return false;
        return true;
}

bool originals_entry_holds(const OriginalEntry *e, Knob k, int32_t now)
{
        return e->set[k] && (knob_value_matches(k, e->written[k], now) ||
                             (e->has_previous[k] && knob_value_matches(k, e->previous[k], now)));
}

void originals_take(const OriginalEntry *e, const int32_t devconf[_KNOB_MAX], const bool devconf_known[_KNOB_MAX],
                    int32_t original[_KNOB_MAX], int32_t written[_KNOB_MAX], bool changed[_KNOB_MAX])
{
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                if (!e->set[k] || changed[k] || !devconf_known[k])
                        continue;
                /* Only igmpd's own change is undone: if the knob no longer holds what igmpd
                 * wrote, someone else set it while igmpd was not running. */
                if (!originals_entry_holds(e, k, devconf[k])) {
                        log_internal(LOG_DEBUG, 0, e->ifname, e->ifindex, NULL,
                                     "%s changed while igmpd was not running (%d, igmpd had set %d); "
                                     "leaving it to whoever changed it.", knob_to_string(k), devconf[k],
                                     e->written[k]);
                        continue;
                }
                original[k] = e->original[k];
                written[k] = devconf[k];
                changed[k] = true;
        }
}

void originals_done(Originals *o)
{
        free(o->entries);
        *o = (Originals) {};
}

/* ---- the journal while the daemon runs ---- */

int originals_journal_init(OriginalsJournal *j, const char *dir, const char *netns)
{
        *j = (OriginalsJournal) { .fd = -EBADF };
        j->dir = strdup(dir);
        if (!j->dir)
                return -ENOMEM;
        snprintf(j->netns, sizeof j->netns, "%s", netns);
        return 0;
}

void originals_journal_done(OriginalsJournal *j)
{
        safe_close(j->fd);
        free(j->dir);
        *j = (OriginalsJournal) { .fd = -EBADF };
}

bool originals_journal_wants_rewrite(const OriginalsJournal *j)
{
        return j->fd < 0 || j->size - j->rewrite_size > j->rewrite_size + ORIGINALS_APPEND_SLACK;
}

bool originals_journal_compact(const OriginalsJournal *j)
{
        return j->fd >= 0 && j->size == j->rewrite_size;
}

/* Opens the file for appending to: size bytes long now. */
static int originals_journal_open(OriginalsJournal *j, size_t size)
{
        _cleanup_free_ char *path = NULL;

        if (asprintf(&path, "%s/" ORIGINALS_NAME, j->dir) < 0)
                return -ENOMEM;
        j->fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
        if (j->fd < 0)
                return -errno;
        j->size = j->rewrite_size = size;
        return 0;
}

int originals_journal_adopt(OriginalsJournal *j, const Originals *o)
{
        assert(o->compact);
        j->fd = safe_close(j->fd);
        return originals_journal_open(j, o->file_size);
}

void originals_write_begin(OriginalsWrite *w, OriginalsJournal *j, bool rewrite)
{
        *w = (OriginalsWrite) { .j = j, .rewrite = rewrite, .tmp = ATOMIC_FILE_NULL };
        if (!rewrite) {
                w->error = j->fd < 0 ? -EBADF : 0;
                return;
        }
        j->fd = safe_close(j->fd);
        if (isempty(j->netns))
                w->error = -EOPNOTSUPP;
        else
                w->len = (size_t) snprintf(w->buf, sizeof w->buf, ORIGINALS_HEADER " %s\n", j->netns);
}

static void originals_write_flush(OriginalsWrite *w)
{
        if (w->error < 0 || w->len == 0)
                return;
        if (w->rewrite && w->tmp.fd < 0)
                w->error = atomic_file_open(&w->tmp, w->j->dir, ORIGINALS_NAME);
        if (w->error == 0)
                w->error = write_all(w->rewrite ? w->tmp.fd : w->j->fd, w->buf, w->len);
        w->written += w->len;
        w->len = 0;
}

void originals_write_entry(OriginalsWrite *w, const OriginalEntry *e)
{
        w->n++;
        if (sizeof w->buf - w->len < ORIGINALS_LINE_MAX)
                originals_write_flush(w);
        if (w->error == 0)
                w->len += originals_format_entry(e, w->buf + w->len);
}

int originals_write_end(OriginalsWrite *w)
{
        OriginalsJournal *j = w->j;
        int r;

        if (w->n == 0) /* an append of nothing; a rewrite of nothing removes the file */
                return w->rewrite ? MIN(remove_file_sync(j->dir, ORIGINALS_NAME), 0) : 0;
        originals_write_flush(w);
        r = w->error;
        if (w->rewrite) {
                if (r == 0)
                        r = atomic_file_commit(&w->tmp);
                atomic_file_abort(&w->tmp);
                return r < 0 ? r : originals_journal_open(j, w->written);
        }
        if (r == 0 && fdatasync(j->fd) < 0)
                r = -errno;
        if (r == 0) {
                j->size += w->written;
                return 0;
        }
        /* Cut the record off, so that the next append does not glue onto a partial line. */
        (void) ftruncate(j->fd, (off_t) j->size);
        j->fd = safe_close(j->fd);
        return r;
}
