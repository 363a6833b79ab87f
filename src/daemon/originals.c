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

#define ORIGINALS_DIR "/run/igmpd"
#define ORIGINALS_NAME "originals"
#define ORIGINALS_HEADER "igmpd-originals 1"
#define ORIGINALS_MAX 65536

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

static int parse_int32(const char *s, int32_t *ret)
{
        char *end;
        long long v;

        errno = 0;
        v = strtoll(s, &end, 10);
        if (errno != 0 || end == s || *end != '\0' || v < INT32_MIN || v > INT32_MAX)
                return -EINVAL;
        *ret = (int32_t) v;
        return 0;
}

int originals_parse_line(const char *line, OriginalEntry *ret)
{
        char idx[16], name[17], knob[64], orig[16], written[16], extra[2];
        OriginalEntry e = {};
        int32_t ifindex;

        /* Widths one past each field's limit, so an over-long field is caught, not cut. */
        if (sscanf(line, "%15s %16s %63s %15s %15s %1s", idx, name, knob, orig, written, extra) != 5)
                return -EINVAL;
        if (parse_int32(idx, &ifindex) < 0 || ifindex <= 0 || !ifname_valid(name) ||
            strlen(name) >= sizeof e.ifname)
                return -EINVAL;
        e.ifindex = ifindex;
        memcpy(e.ifname, name, strlen(name) + 1);
        e.knob = knob_from_string(knob);
        if (e.knob < 0 || parse_int32(orig, &e.original) < 0 || parse_int32(written, &e.written) < 0)
                return -EINVAL;
        *ret = e;
        return 0;
}

int originals_load(Manager *m, Originals *ret)
{
        _cleanup_free_ char *dir = path_join_root(m->root, ORIGINALS_DIR), *path = NULL, *line = NULL;
        char id[64], header[128];
        size_t size = 0;
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
                a = realloc(o.entries, (o.n + 1) * sizeof *a);
                if (!a) {
                        fclose(f);
                        originals_done(&o);
                        return -ENOMEM;
                }
                o.entries = a;
                o.entries[o.n++] = e;
        }
        fclose(f);
        log_debug("Read %zu original knob value(s) saved at the last stop.", o.n);
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

                for (Knob k = 0; k < _KNOB_MAX; k++) {
                        if (!l->changed[k] || !l->kernel_known[k] || !ifname_valid(l->ifname))
                                continue;
                        fprintf(f, "%d %s %s %" PRIi32 " %" PRIi32 "\n", l->ifindex, l->ifname, knob_to_string(k),
                                l->original[k], l->kernel[k]);
                        n++;
                }
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
        for (size_t i = 0; o && i < o->n; i++) {
                const OriginalEntry *e = &o->entries[i];

                if (e->ifindex != l->ifindex || !streq(e->ifname, l->ifname) || l->changed[e->knob])
                        continue;
                /* Only igmpd's own change is undone: if the knob no longer holds what igmpd
                 * wrote, someone else set it while igmpd was stopped. */
                if (!devconf_known[e->knob])
                        continue;
                if (!knob_value_matches(e->knob, e->written, devconf[e->knob])) {
                        log_link_debug(l, "%s changed while igmpd was stopped (%d, igmpd had set %d); "
                                       "leaving it to whoever changed it.", knob_to_string(e->knob),
                                       devconf[e->knob], e->written);
                        continue;
                }
                l->original[e->knob] = e->original;
                l->changed[e->knob] = true;
        }
}

void originals_done(Originals *o)
{
        free(o->entries);
        *o = (Originals) {};
}
