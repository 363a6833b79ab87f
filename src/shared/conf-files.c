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

static int conf_file_cmp(const void *a, const void *b)
{
        return strcmp(((const ConfFile *) a)->name, ((const ConfFile *) b)->name);
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
                /* Other symlinks: decide by what they point to (a dangling one is still listed,
                 * reading it will report the problem). */
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

int conf_files_list(const char *root, const char *const *dirs, const char *suffix, ConfFileList *ret)
{
        ConfFile *files = NULL;
        size_t n = 0, allocated = 0, n_masked = 0, n_dropped = 0;
        /* Names seen so far, masked ones included: a masked name hides later directories too. */
        char **seen = NULL;
        bool *masked = NULL;
        size_t n_seen = 0, seen_allocated = 0;
        int r = 0;

        for (const char *const *d = dirs; *d; d++) {
                _cleanup_free_ char *dir = path_join_root(root, *d);
                DIR *dp;
                struct dirent *de;

                if (!dir) {
                        r = -ENOMEM;
                        goto fail;
                }
                dp = opendir(dir);
                if (!dp)
                        continue; /* absent or unreadable directory: nothing from it */

                while ((de = readdir(dp))) {
                        bool m = false, dup = false;

                        if (de->d_name[0] == '.' || !endswith(de->d_name, suffix))
                                continue;
                        for (size_t i = 0; i < n_seen; i++)
                                if (streq(seen[i], de->d_name)) {
                                        dup = true;
                                        break;
                                }
                        if (dup)
                                continue;
                        if (entry_state(dirfd(dp), de->d_name, &m) == -EISDIR)
                                continue;
                        if (n_seen >= CONF_FILES_MAX) {
                                n_dropped++;
                                continue;
                        }
                        if (n_seen == seen_allocated) {
                                size_t na = seen_allocated ? seen_allocated * 2 : 16;
                                char **ns = realloc(seen, na * sizeof *ns);
                                bool *nm = ns ? realloc(masked, na * sizeof *nm) : NULL;
                                if (ns)
                                        seen = ns;
                                if (!ns || !nm) {
                                        closedir(dp);
                                        r = -ENOMEM;
                                        goto fail;
                                }
                                masked = nm;
                                seen_allocated = na;
                        }
                        seen[n_seen] = strdup(de->d_name);
                        if (!seen[n_seen]) {
                                closedir(dp);
                                r = -ENOMEM;
                                goto fail;
                        }
                        masked[n_seen++] = m;
                        if (m) {
                                n_masked++;
                                continue;
                        }

                        if (n == allocated) {
                                size_t na = allocated ? allocated * 2 : 16;
                                ConfFile *nf = realloc(files, na * sizeof *nf);
                                if (!nf) {
                                        closedir(dp);
                                        r = -ENOMEM;
                                        goto fail;
                                }
                                files = nf;
                                allocated = na;
                        }
                        files[n].name = strdup(de->d_name);
                        if (asprintf(&files[n].path, "%s/%s", dir, de->d_name) < 0)
                                files[n].path = NULL;
                        if (!files[n].name || !files[n].path) {
                                free(files[n].name);
                                free(files[n].path);
                                closedir(dp);
                                r = -ENOMEM;
                                goto fail;
                        }
                        n++;
                }
                closedir(dp);
        }

        if (n > 0)
                qsort(files, n, sizeof *files, conf_file_cmp);

        for (size_t i = 0; i < n_seen; i++)
                free(seen[i]);
        free(seen);
        free(masked);

        *ret = (ConfFileList) { .files = files, .n = n, .n_masked = n_masked, .n_dropped = n_dropped };
        return 0;

fail:
        for (size_t i = 0; i < n_seen; i++)
                free(seen[i]);
        free(seen);
        free(masked);
        ConfFileList tmp = { .files = files, .n = n };
        conf_file_list_done(&tmp);
        return r;
}

void conf_file_list_done(ConfFileList *l)
{
        if (!l)
                return;
        for (size_t i = 0; i < l->n; i++) {
                free(l->files[i].name);
                free(l->files[i].path);
        }
        free(l->files);
        *l = (ConfFileList) {};
}
