/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pre-igmpd knob values across a restart and a crash: the line format, reading the file,
 * and the journal the daemon appends to; see originals.h.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The next blank-separated field of *p, NUL-terminated in place; NULL at the end. */
static char *next_field(char **p)
{
        char *s = *p + strspn(*p, " \t"), *e;

        if (*s == '\0')
                return NULL;
        e = s + strcspn(s, " \t");
        if (*e != '\0')
                *e++ = '\0';
        *p = e;
        return s;
}

/* "KNOB=ORIGINAL/WRITTEN[/PREVIOUS]" into e. */
static int parse_item(char *item, OriginalEntry *e)
{
        char *eq = strchr(item, '='), *slash, *slash2;
        int original, written, previous = 0;
        Knob k;

        if (!eq || !(slash = strchr(eq + 1, '/')))
                return -EINVAL;
        *eq = '\0';
        slash2 = strchr(slash + 1, '/');
        k = knob_from_string(item);
        if (k < 0 || e->set[k] || parse_int_range(eq + 1, slash, &original) < 0 ||
            parse_int_range(slash + 1, slash2 ?: slash + 1 + strlen(slash + 1), &written) < 0 ||
            (slash2 && parse_int_range(slash2 + 1, slash2 + 1 + strlen(slash2 + 1), &previous) < 0))
                return -EINVAL;
        e->original[k] = original;
        e->written[k] = written;
        e->previous[k] = previous;
        e->has_previous[k] = slash2 != NULL;
        e->set[k] = true;
        return 0;
}

/* By hand rather than sscanf()/strtol(): a restart with 4000 links reads all of them at start. */
int originals_parse_line(const char *line, OriginalEntry *ret)
{
        char buf[512], *p = buf, *field;
        OriginalEntry e = {};
        size_t n = 0;
        int ifindex;

        if (strlen(line) >= sizeof buf)
                return -EINVAL;
        strcpy(buf, line);
        field = next_field(&p);
        if (!field || parse_int_range(field, field + strlen(field), &ifindex) < 0 || ifindex <= 0)
                return -EINVAL;
        e.ifindex = ifindex;
        field = next_field(&p);
        if (field && streq(field, "-") && !next_field(&p)) {
                *ret = e; /* forgotten */
                return 0;
        }
        if (!field || !ifname_valid(field) || strlen(field) >= sizeof e.ifname)
                return -EINVAL;
        memcpy(e.ifname, field, strlen(field) + 1);
        while ((field = next_field(&p))) {
                if (parse_item(field, &e) < 0)
                        return -EINVAL;
                n++;
        }
        if (n == 0)
                return -EINVAL;
        *ret = e;
        return 0;
}

static int buf_reserve(char **buf, size_t *allocated, size_t need)
{
        char *b;
        size_t a;

        if (need <= *allocated)
                return 0;
        a = MAX(need, MAX(*allocated * 2, (size_t) 4096));
        b = realloc(*buf, a);
        if (!b)
                return -ENOMEM;
        *buf = b;
        *allocated = a;
        return 0;
}

/* Decimal of v at p; returns the end. */
static char *format_int(char *p, int32_t v)
{
        char tmp[12];
        uint32_t u = v < 0 ? -(uint32_t) v : (uint32_t) v;
        size_t n = 0;

        do
                tmp[n++] = (char) ('0' + u % 10);
        while ((u /= 10) > 0);
        if (v < 0)
                *p++ = '-';
        while (n > 0)
                *p++ = tmp[--n];
        return p;
}

/* By hand, not printf: the first pass of a 4000-link start writes 16000 of these. */
int originals_format_entry(const OriginalEntry *e, char **buf, size_t *len, size_t *allocated)
{
        /* ifindex, name, and per knob: " " name "=" three ints with separators. */
        size_t max = 12 + sizeof e->ifname + 3 + _KNOB_MAX * (64 + 3 * 12 + 4) + 1;
        bool any = false;
        char *p;

        if (buf_reserve(buf, allocated, *len + max) < 0)
                return -ENOMEM;
        p = format_int(*buf + *len, e->ifindex);
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                const char *name = knob_to_string(k);

                if (!e->set[k])
                        continue;
                if (!any) {
                        *p++ = ' ';
                        p = stpcpy(p, e->ifname);
                        any = true;
                }
                *p++ = ' ';
                p = stpcpy(p, name);
                *p++ = '=';
                p = format_int(p, e->original[k]);
                *p++ = '/';
                p = format_int(p, e->written[k]);
                if (e->has_previous[k]) {
                        *p++ = '/';
                        p = format_int(p, e->previous[k]);
                }
        }
        if (!any)
                p = stpcpy(p, " -");
        *p++ = '\n';
        *p = '\0'; /* not counted: the buffer is always a string */
        *len = (size_t) (p - *buf);
        return 0;
}

typedef struct LoadedLine {
        OriginalEntry e;
        size_t seq;
} LoadedLine;

static int loaded_compare(const void *a, const void *b)
{
        const LoadedLine *x = a, *y = b;

        if (x->e.ifindex != y->e.ifindex)
                return (x->e.ifindex > y->e.ifindex) - (x->e.ifindex < y->e.ifindex);
        return (x->seq > y->seq) - (x->seq < y->seq);
}

int originals_load(const char *dir, const char *netns, Originals *ret)
{
        _cleanup_free_ char *path = NULL, *line = NULL;
        _cleanup_free_ LoadedLine *lines = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        char header[128], header_v2[128];
        size_t size = 0, allocated = 0, n_lines = 0;
        unsigned lineno = 1;
        Originals o = {};
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
        while ((l = getline(&line, &size, f)) >= 0) {
                OriginalEntry e;

                lineno++;
                if (l == 0 || line[l - 1] != '\n') {
                        log_debug("%s:%u: torn last line (a crash while it was written), ignoring.", path, lineno);
                        break;
                }
                line[l - 1] = '\0';
                if (originals_parse_line(line, &e) < 0) {
                        log_debug("%s:%u: not a valid line, ignoring.", path, lineno);
                        continue;
                }
                if (n_lines >= ORIGINALS_LINES_MAX)
                        break;
                if (n_lines == allocated) {
                        LoadedLine *a;

                        allocated = MAX(allocated * 2, (size_t) 64);
                        a = realloc(lines, allocated * sizeof *a);
                        if (!a)
                                return -ENOMEM;
                        lines = a;
                }
                lines[n_lines] = (LoadedLine) { .e = e, .seq = n_lines };
                n_lines++;
        }

        /* By ifindex, then in file order: the last line of each ifindex is its record. */
        if (n_lines > 1)
                qsort(lines, n_lines, sizeof *lines, loaded_compare);
        for (size_t i = 0; i < n_lines; i++) {
                if (i + 1 < n_lines && lines[i + 1].e.ifindex == lines[i].e.ifindex)
                        continue; /* superseded */
                if (!memchr(lines[i].e.set, true, sizeof lines[i].e.set))
                        continue; /* forgotten */
                if (o.n >= ORIGINALS_MAX)
                        break;
                /* In place: entries are compacted towards the front of the same array. */
                memmove(&lines[o.n].e, &lines[i].e, sizeof lines[i].e);
                o.n++;
        }
        if (o.n > 0) {
                o.entries = malloc(o.n * sizeof *o.entries);
                if (!o.entries)
                        return -ENOMEM;
                for (size_t i = 0; i < o.n; i++)
                        o.entries[i] = lines[i].e;
        }
        log_debug("Read the original knob values of %zu link(s) from %s.", o.n, path);
        *ret = o;
        return 1;
}

int originals_remove(const char *dir)
{
        _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (dfd < 0)
                return errno == ENOENT ? 0 : -errno;
        if (unlinkat(dfd, ORIGINALS_NAME, 0) < 0)
                return errno == ENOENT ? 0 : -errno;
        (void) fsync(dfd);
        return 0;
}

const OriginalEntry *originals_find(const Originals *o, int ifindex)
{
        size_t lo = 0, hi = o ? o->n : 0;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (o->entries[mid].ifindex < ifindex)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        if (o && lo < o->n && o->entries[lo].ifindex == ifindex)
                return &o->entries[lo];
        return NULL;
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

int originals_journal_rewrite(OriginalsJournal *j, const char *lines, size_t len)
{
        _cleanup_free_ char *content = NULL;
        _cleanup_free_ char *path = NULL;
        size_t header_len;
        int r;

        j->fd = safe_close(j->fd);
        if (len == 0)
                return originals_remove(j->dir);
        if (isempty(j->netns))
                return -EOPNOTSUPP;

        header_len = strlen(ORIGINALS_HEADER) + 1 + strlen(j->netns) + 1;
        content = malloc(header_len + len + 1);
        if (!content)
                return -ENOMEM;
        snprintf(content, header_len + 1, ORIGINALS_HEADER " %s\n", j->netns);
        memcpy(content + header_len, lines, len);
        content[header_len + len] = '\0';
        r = write_file_atomic(j->dir, ORIGINALS_NAME, content);
        if (r < 0)
                return r;

        if (asprintf(&path, "%s/" ORIGINALS_NAME, j->dir) < 0)
                return -ENOMEM;
        j->fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
        if (j->fd < 0)
                return -errno;
        j->size = j->rewrite_size = header_len + len;
        return 0;
}

int originals_journal_append(OriginalsJournal *j, const char *lines, size_t len)
{
        size_t done = 0;
        int r;

        if (j->fd < 0)
                return -EBADF;
        while (done < len) {
                ssize_t n = write(j->fd, lines + done, len - done);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        r = n < 0 ? -errno : -EIO;
                        goto fail;
                }
                done += (size_t) n;
        }
        if (fdatasync(j->fd) < 0) {
                r = -errno;
                goto fail;
        }
        j->size += len;
        return 0;

fail:
        /* Cut a partial line off, so that the next append does not glue onto it. */
        (void) ftruncate(j->fd, (off_t) j->size);
        j->fd = safe_close(j->fd);
        return r;
}
