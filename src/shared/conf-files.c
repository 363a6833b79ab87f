/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Drop-in directory enumeration with same-name override and masking.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "array-util.h"
#include "conf-files.h"
#include "macro.h"

char *path_join_root(const char *root, const char *path)
{
        char *p;

        if (isempty(root) || streq(root, "/"))
                return strdup(path);
        while (*path == '/')
                path++;
        size_t lr = strlen(root);
        while (lr > 1 && root[lr - 1] == '/')
                lr--;
        if (asprintf(&p, "%.*s/%s", (int) lr, root, path) < 0)
                return NULL;
        return p;
}

typedef struct Entry {
        ConfFile file;
        unsigned priority; /* index of the directory: lower wins */
        bool masked;
} Entry;

static int entry_cmp(const void *a, const void *b)
{
        const Entry *x = a, *y = b;
        int c = strcmp(x->file.name, y->file.name);

        if (c != 0)
                return c;
        return (x->priority > y->priority) - (x->priority < y->priority);
}

/* Masked: an empty regular file or a symlink to /dev/null. */
static int entry_state(int dfd, const char *name, bool *ret_masked)
{
        struct stat st;
        char target[64];
        ssize_t n;

        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return negative_errno();
        if (S_ISLNK(st.st_mode)) {
                n = readlinkat(dfd, name, target, sizeof target - 1);
                if (n > 0) {
                        target[n] = '\0';
                        if (streq(target, "/dev/null")) {
                                *ret_masked = true;
                                return 0;
                        }
                }
                /* Other symlinks: decide by what they point to (a dangling one or a loop is
                 * still listed: reading it reports the problem). */
                if (fstatat(dfd, name, &st, 0) < 0) {
                        *ret_masked = false;
                        return 0;
                }
        }
        if (S_ISDIR(st.st_mode))
                return -EISDIR;
        *ret_masked = (S_ISREG(st.st_mode) && st.st_size == 0) || S_ISCHR(st.st_mode);
        return 0;
}

static void conf_file_done(ConfFile *f)
{
        free(f->name);
        free(f->path);
}

int conf_files_list(const char *root, const char *const *dirs, const char *suffix, ConfFileList *ret)
{
        Entry *entries = NULL;
        size_t n = 0, allocated = 0, n_dropped = 0;
        ConfFileList l = {};
        int r = 0;

        /* Collect every candidate with the rank of its directory … */
        for (unsigned prio = 0; dirs[prio]; prio++) {
                _cleanup_free_ char *dir = path_join_root(root, dirs[prio]);
                _cleanup_(closedirp) DIR *dp = NULL;
                struct dirent *de;

                if (!dir) {
                        r = -ENOMEM;
                        goto finish;
                }
                dp = opendir(dir);
                if (!dp)
                        continue; /* absent or unreadable directory: nothing from it */

                while ((de = readdir(dp))) {
                        bool masked = false;

                        if (de->d_name[0] == '.' || !endswith(de->d_name, suffix))
                                continue;
                        if (entry_state(dirfd(dp), de->d_name, &masked) == -EISDIR)
                                continue;
                        if (n >= CONF_FILES_MAX) {
                                n_dropped++;
                                continue;
                        }
                        r = ARRAY_GROW(entries, allocated, n, 32);
                        if (r < 0)
                                goto finish;
                        Entry *e = &entries[n++];
                        *e = (Entry) { .file.name = strdup(de->d_name), .priority = prio, .masked = masked };
                        if (asprintf(&e->file.path, "%s/%s", dir, de->d_name) < 0)
                                e->file.path = NULL;
                        if (!e->file.name || !e->file.path) {
                                r = -ENOMEM;
                                goto finish;
                        }
                }
        }

        /* … then sort by name and directory rank: the first of each name wins, and a masked
         * winner hides the name altogether. */
        if (n > 0)
                qsort(entries, n, sizeof *entries, entry_cmp);

        l.files = calloc(n ?: 1, sizeof *l.files);
        l.masked = calloc(n ?: 1, sizeof *l.masked);
        if (!l.files || !l.masked) {
                r = -ENOMEM;
                goto finish;
        }
        const char *prev = NULL; /* name of the previous winner (still owned by entries or l) */
        for (size_t i = 0; i < n; i++) {
                if (prev && streq(entries[i].file.name, prev))
                        continue;
                prev = entries[i].file.name;
                if (entries[i].masked)
                        l.masked[l.n_masked++] = entries[i].file;
                else
                        l.files[l.n++] = entries[i].file;
                entries[i].file = (ConfFile) {};
        }
        l.n_dropped = n_dropped;
        *ret = l;
        l = (ConfFileList) {};

finish:
        for (size_t i = 0; i < n; i++)
                conf_file_done(&entries[i].file);
        free(entries);
        conf_file_list_done(&l);
        return r;
}

void conf_file_list_done(ConfFileList *l)
{
        if (!l)
                return;
        for (size_t i = 0; i < l->n; i++)
                conf_file_done(&l->files[i]);
        for (size_t i = 0; i < l->n_masked; i++)
                conf_file_done(&l->masked[i]);
        free(l->files);
        free(l->masked);
        *l = (ConfFileList) {};
}
