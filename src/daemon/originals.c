/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pre-igmpd knob values across a restart; see originals.h.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conf-files.h"
#include "fs-util.h"
#include "ifname.h"
#include "intmap.h"
#include "link.h"
#include "log.h"
#include "manager.h"
#include "originals.h"
#include "parse-util.h"

#define ORIGINALS_DIR "/run/igmpd"
#define ORIGINALS_NAME "originals"
#define ORIGINALS_HEADER "igmpd-originals 2"
#define ORIGINALS_MAX 65536 /* links */

/* "DEV:INO" of the network namespace igmpd runs in, or "" if unknown. */
static void netns_id(Manager *m, char buf[64])
{
        _cleanup_free_ char *path = NULL;
        struct stat st;

        buf[0] = '\0';
        if (asprintf(&path, "%s/self/ns/net", m->proc_root) < 0 || stat(path, &st) < 0)
                return;
        snprintf(buf, 64, "%llu:%llu", (unsigned long long) st.st_dev, (unsigned long long) st.st_ino);
}

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

int originals_load(Manager *m, Originals *ret)
{
        _cleanup_free_ char *dir = path_join_root(m->root, ORIGINALS_DIR), *path = NULL, *line = NULL;
        char id[64], header[128];
        size_t size = 0, allocated = 0;
        unsigned lineno = 1;
        Originals o = {};
        FILE *f;

        *ret = (Originals) {};
        if (!dir || asprintf(&path, "%s/" ORIGINALS_NAME, dir) < 0)
                return -ENOMEM;
        f = fopen(path, "re");
        if (!f)
                return errno == ENOENT ? 0 : -errno;
        /* Read once: a crash after this start must not apply these values again later. */
        if (unlink(path) < 0)
                log_debug_errno(errno, "Failed to remove %s, ignoring: %m", path);

        netns_id(m, id);
        snprintf(header, sizeof header, ORIGINALS_HEADER " %s\n", id);
        if (isempty(id) || getline(&line, &size, f) < 0 || !streq(line, header)) {
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
        /* By ifindex, for originals_apply()'s binary search: one lookup per link at start. */
        if (o.n > 1)
                qsort(o.entries, o.n, sizeof *o.entries, entry_compare);
        log_debug("Read the original knob values of %zu link(s) saved at the last stop.", o.n);
        *ret = o;
        return 0;
}

int originals_save(Manager *m)
{
        _cleanup_free_ char *dir = path_join_root(m->root, ORIGINALS_DIR), *buf = NULL;
        size_t size = 0, n = 0, i = 0;
        char id[64];
        void *v;
        FILE *f;
        int r;

        if (!dir)
                return -ENOMEM;
        netns_id(m, id);
        if (isempty(id))
                return -EOPNOTSUPP;
        f = open_memstream(&buf, &size);
        if (!f)
                return -ENOMEM;
        fprintf(f, ORIGINALS_HEADER " %s\n", id);
        while (intmap_iterate(&m->links, &i, &v)) {
                Link *l = v;
                bool any = false;

                if (!ifname_valid(l->ifname))
                        continue;
                for (Knob k = 0; k < _KNOB_MAX; k++) {
                        if (!l->changed[k] || !l->kernel_known[k])
                                continue;
                        if (!any)
                                fprintf(f, "%d %s", l->ifindex, l->ifname);
                        fprintf(f, " %s=%" PRIi32 "/%" PRIi32, knob_to_string(k), l->original[k], l->kernel[k]);
                        any = true;
                        n++;
                }
                if (any)
                        fputc('\n', f);
        }
        if (fclose(f) != 0) {
                free(TAKE_PTR(buf));
                return -ENOMEM;
        }
        if (n == 0)
                return 0; /* nothing to undo later; load() has removed any older file */
        r = write_file_atomic(dir, ORIGINALS_NAME, buf);
        if (r >= 0)
                log_debug("Saved %zu original knob value(s) to %s/" ORIGINALS_NAME ".", n, dir);
        return r;
}

void originals_apply(const Originals *o, Link *l, const int32_t devconf[_KNOB_MAX],
                     const bool devconf_known[_KNOB_MAX])
{
        size_t lo = 0, hi = o ? o->n : 0;

        /* The first entry of this ifindex (entries are sorted by it). */
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (o->entries[mid].ifindex < l->ifindex)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        for (size_t i = lo; o && i < o->n && o->entries[i].ifindex == l->ifindex; i++) {
                const OriginalEntry *e = &o->entries[i];

                if (!streq(e->ifname, l->ifname))
                        continue;
                for (Knob k = 0; k < _KNOB_MAX; k++) {
                        if (!e->set[k] || l->changed[k] || !devconf_known[k])
                                continue;
                        /* Only igmpd's own change is undone: if the knob no longer holds what
                         * igmpd wrote, someone else set it while igmpd was stopped. */
                        if (!knob_value_matches(k, e->written[k], devconf[k])) {
                                log_link_debug(l, "%s changed while igmpd was stopped (%d, igmpd had set %d); "
                                               "leaving it to whoever changed it.", knob_to_string(k), devconf[k],
                                               e->written[k]);
                                continue;
                        }
                        l->original[k] = e->original[k];
                        l->changed[k] = true;
                }
        }
}

void originals_done(Originals *o)
{
        free(o->entries);
        *o = (Originals) {};
}
