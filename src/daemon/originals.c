/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pre-igmpd knob values across a restart; see originals.h.
 */

#include <errno.h>
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

#define ORIGINALS_HEADER "igmpd-originals 2"
#define ORIGINALS_MAX 65536 /* links */

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

/* "KNOB=ORIGINAL/WRITTEN" into e. */
static int parse_item(char *item, OriginalEntry *e)
{
        char *eq = strchr(item, '='), *slash;
        int original, written;
        Knob k;

        if (!eq || !(slash = strchr(eq + 1, '/')))
                return -EINVAL;
        *eq = '\0';
        k = knob_from_string(item);
        if (k < 0 || parse_int_range(eq + 1, slash, &original) < 0 ||
            parse_int_range(slash + 1, slash + 1 + strlen(slash + 1), &written) < 0)
                return -EINVAL;
        e->original[k] = original;
        e->written[k] = written;
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
        field = next_field(&p);
        if (!field || !ifname_valid(field) || strlen(field) >= sizeof e.ifname)
                return -EINVAL;
        e.ifindex = ifindex;
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

static int entry_compare(const void *a, const void *b)
{
        int x = ((const OriginalEntry *) a)->ifindex, y = ((const OriginalEntry *) b)->ifindex;

        return (x > y) - (x < y);
}

int originals_load(const char *dir, const char *netns, Originals *ret)
{
        _cleanup_free_ char *path = NULL, *line = NULL;
        char header[128];
        size_t size = 0, allocated = 0;
        unsigned lineno = 1;
        Originals o = {};
        FILE *f;

        *ret = (Originals) {};
        if (asprintf(&path, "%s/" ORIGINALS_NAME, dir) < 0)
                return -ENOMEM;
        f = fopen(path, "re");
        if (!f)
                return errno == ENOENT ? 0 : -errno;
        /* Read once: a crash after this start must not apply these values again later. */
        if (unlink(path) < 0)
                log_debug_errno(errno, "Failed to remove %s, ignoring: %m", path);

        snprintf(header, sizeof header, ORIGINALS_HEADER " %s\n", netns);
        if (isempty(netns) || getline(&line, &size, f) < 0 || !streq(line, header)) {
                log_debug("%s is from another network namespace or version, ignoring it.", path);
                fclose(f);
                return 0;
        }
        while (getline(&line, &size, f) >= 0) {
                OriginalEntry e, *a;

                lineno++;
                line[strcspn(line, "\n")] = '\0';
                if (originals_parse_line(line, &e) < 0) {
                        log_debug("%s:%u: not a valid line, ignoring.", path, lineno);
                        continue;
                }
                if (o.n >= ORIGINALS_MAX)
                        break;
                if (o.n == allocated) {
                        allocated = MAX(allocated * 2, (size_t) 64);
                        a = realloc(o.entries, allocated * sizeof *a);
                        if (!a) {
                                fclose(f);
                                originals_done(&o);
                                return -ENOMEM;
                        }
                        o.entries = a;
                }
                o.entries[o.n++] = e;
        }
        fclose(f);
        /* By ifindex, for originals_find()'s binary search: one lookup per link at start. */
        if (o.n > 1)
                qsort(o.entries, o.n, sizeof *o.entries, entry_compare);
        log_debug("Read the original knob values of %zu link(s) saved at the last stop.", o.n);
        *ret = o;
        return 1;
}

int originals_save(const char *dir, const char *netns, const OriginalEntry *entries, size_t n)
{
        _cleanup_free_ char *buf = NULL;
        size_t size = 0;
        FILE *f;
        int r;

        if (n == 0)
                return 0;
        f = open_memstream(&buf, &size);
        if (!f)
                return -ENOMEM;
        fprintf(f, ORIGINALS_HEADER " %s\n", netns);
        for (size_t i = 0; i < n; i++) {
                const OriginalEntry *e = &entries[i];

                fprintf(f, "%d %s", e->ifindex, e->ifname);
                for (Knob k = 0; k < _KNOB_MAX; k++)
                        if (e->set[k])
                                fprintf(f, " %s=%" PRIi32 "/%" PRIi32, knob_to_string(k), e->original[k],
                                        e->written[k]);
                fputc('\n', f);
        }
        if (fclose(f) != 0)
                return -ENOMEM;
        r = write_file_atomic(dir, ORIGINALS_NAME, buf);
        return r < 0 ? r : 1;
}

const OriginalEntry *originals_find(const Originals *o, int ifindex, const char *ifname)
{
        size_t lo = 0, hi = o ? o->n : 0;

        /* The first entry of this ifindex (entries are sorted by it). */
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (o->entries[mid].ifindex < ifindex)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        for (size_t i = lo; o && i < o->n && o->entries[i].ifindex == ifindex; i++)
                if (streq(o->entries[i].ifname, ifname))
                        return &o->entries[i];
        return NULL;
}

void originals_take(const OriginalEntry *e, const int32_t devconf[_KNOB_MAX], const bool devconf_known[_KNOB_MAX],
                    int32_t original[_KNOB_MAX], bool changed[_KNOB_MAX])
{
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                if (!e->set[k] || changed[k] || !devconf_known[k])
                        continue;
                /* Only igmpd's own change is undone: if the knob no longer holds what igmpd
                 * wrote, someone else set it while igmpd was stopped. */
                if (!knob_value_matches(k, e->written[k], devconf[k])) {
                        log_internal(LOG_DEBUG, 0, e->ifname, e->ifindex, NULL,
                                     "%s changed while igmpd was stopped (%d, igmpd had set %d); "
                                     "leaving it to whoever changed it.", knob_to_string(k), devconf[k],
                                     e->written[k]);
                        continue;
                }
                original[k] = e->original[k];
                changed[k] = true;
        }
}

void originals_done(Originals *o)
{
        free(o->entries);
        *o = (Originals) {};
}
